# From seed 002_a5901dade20b64e5.txt, code block 1 of 4 (section 梯度清零) (lines 367-367): the fragment `x.grad.zero_`.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] and In [19] (the last definition of x) of the same document: the names this snippet relies on ---
import torch
x = torch.tensor([1., 2.]).requires_grad_()
# --- the snippet, verbatim ---
x.grad.zero_
