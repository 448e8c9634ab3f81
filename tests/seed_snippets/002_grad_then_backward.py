# From seed 002_a5901dade20b64e5.txt, cell In [11] (lines 202-212): autograd.grad(create_graph=True), then backward().
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
# autograd.grad() + backward()
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

grad = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
grad[0].backward()

print(x.grad)
# >>>tensor(6.)
