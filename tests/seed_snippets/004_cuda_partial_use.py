# From seed 004_7aa96bc17c364ae4.txt, code block 9 of 9 (section 其他) (lines 158-164): mean of one row of a CUDA leaf: the other row gets zero gradient.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
import torch.cuda as cuda
from torch.autograd import Variable
w1 = Variable(cuda.FloatTensor(2,3), requires_grad=True)
res = torch.mean(w1[1])# 只用了variable的第二行参数
res.backward()
print(w1.grad)
