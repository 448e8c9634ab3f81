# From seed 004_7aa96bc17c364ae4.txt, code block 2 of 9 (lines 46-48): backward() of torch.mean(w1).
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from code block 1 of the same document: the names this snippet relies on ---
import torch
from torch.autograd import Variable
w1 = Variable(torch.Tensor([1.0,2.0,3.0]),requires_grad=True)#需要求导的话，requires_grad=True属性是必须的。
w2 = Variable(torch.Tensor([1.0,2.0,3.0]),requires_grad=True)
# --- the snippet, verbatim ---
d = torch.mean(w1)
d.backward()
w1.grad
