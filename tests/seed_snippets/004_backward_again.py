# From seed 004_7aa96bc17c364ae4.txt, code block 3 of 9 (lines 60-61): a second d.backward() accumulates into w1.grad.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from code blocks 1 and 2 of the same document: the names this snippet relies on ---
import torch
from torch.autograd import Variable
w1 = Variable(torch.Tensor([1.0,2.0,3.0]),requires_grad=True)#需要求导的话，requires_grad=True属性是必须的。
w2 = Variable(torch.Tensor([1.0,2.0,3.0]),requires_grad=True)
d = torch.mean(w1)
d.backward()
# --- the snippet, verbatim ---
d.backward()
w1.grad
