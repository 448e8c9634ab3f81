# From seed 004_7aa96bc17c364ae4.txt, code block 4 of 9 (lines 75-76): w1.grad.data.zero_().
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from code blocks 1 to 3 of the same document: the names this snippet relies on ---
import torch
from torch.autograd import Variable
w1 = Variable(torch.Tensor([1.0,2.0,3.0]),requires_grad=True)#需要求导的话，requires_grad=True属性是必须的。
w2 = Variable(torch.Tensor([1.0,2.0,3.0]),requires_grad=True)
d = torch.mean(w1)
d.backward()
d.backward()
# --- the snippet, verbatim ---
w1.grad.data.zero_()
w1.grad
