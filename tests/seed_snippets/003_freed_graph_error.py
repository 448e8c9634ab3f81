# From seed 003_c9f8c3b77af3ce9f.txt, example 1 (当backward()后销毁计算图) (lines 13-20): a second backward through a freed graph raises.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
a = torch.tensor(1.0, requires_grad=True)
y = a ** 2
z = y * 3
y.backward()
print(a.grad)   # 2
z.backward(retain_graph=True)
print(a.grad)
