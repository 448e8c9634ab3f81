# From seed 003_c9f8c3b77af3ce9f.txt, example 4 (通过设置retain_grad()保存中间变量的grad) (lines 56-65): retain_grad() keeps the grad of an intermediate result.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
a = torch.tensor(1.0, requires_grad=True)
y = a ** 2
print(y.retains_grad)
y.retain_grad()
print(y.retains_grad)
z = y * 3
z.backward(retain_graph=True)
print(y.grad)
print(a.grad)
