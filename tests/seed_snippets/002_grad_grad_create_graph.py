# From seed 002_a5901dade20b64e5.txt, cell In [10] (lines 184-194): autograd.grad twice with create_graph=True.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
# autograd.grad() + autograd.grad()
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad_x = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)

print(grad_xx[0])
# >>>tensor(6.)
