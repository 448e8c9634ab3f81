# From seed 002_a5901dade20b64e5.txt, cell In [6] (lines 118-125): backward() fills the grad of both leaves of z = x*x*y.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
x = torch.tensor(2., requires_grad=True)
y = torch.tensor(3., requires_grad=True)

z = x * x * y

z.backward()
print(x.grad, y.grad)
# >>>tensor(12.) tensor(4.)
