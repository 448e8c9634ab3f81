# From seed 002_a5901dade20b64e5.txt, cell In [18] (lines 337-342): autograd.grad with grad_outputs=torch.ones_like(y).
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
x = torch.tensor([1., 2.]).requires_grad_()
y = x * x

grad_x = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=torch.ones_like(y))
print(grad_x[0])
# >>>tensor([2., 4.])
