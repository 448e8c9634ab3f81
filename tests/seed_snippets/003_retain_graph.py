# From seed 003_c9f8c3b77af3ce9f.txt, example 2 (通过backward(retain_graph)保留计算图) (lines 28-35): backward(retain_graph=True) keeps the graph for a second backward.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
a = torch.tensor(1.0, requires_grad=True)
y = a ** 2
z = y * 3
y.backward(retain_graph=True)
print(a.grad)   # 2
z.backward(retain_graph=True)
print(a.grad)
