# From seed 002_a5901dade20b64e5.txt, cell In [15] (lines 280-285): backward() of a non-scalar raises.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
x = torch.tensor([1., 2.]).requires_grad_()
y = x + 1

y.backward()
print(x.grad)
# >>>RuntimeError: grad can be implicitly created only for scalar outputs
