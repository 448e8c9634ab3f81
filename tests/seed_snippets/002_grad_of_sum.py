# From seed 002_a5901dade20b64e5.txt, cell In [19] (lines 350-355): autograd.grad of y.sum().
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
x = torch.tensor([1., 2.]).requires_grad_()
y = x * x

grad_x = torch.autograd.grad(outputs=y.sum(), inputs=x)
print(grad_x[0])
# >>>tensor([2., 4.])
