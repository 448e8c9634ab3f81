# From seed 003_c9f8c3b77af3ce9f.txt, example 3 (为了节约内存,中间变量的grad不会保存) (lines 42-48): .grad of an intermediate result is None, with a warning.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
a = torch.tensor(1.0, requires_grad=True)
y = a ** 2
z = y * 3
z.backward(retain_graph=True)
print(y.grad)
print(a.grad)
