# From seed 002_a5901dade20b64e5.txt, cell In [4] (lines 67-73): requires_grad, is_leaf and grad after backward().
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] and In [3] of the same document: the names this snippet relies on ---
import torch
x = torch.tensor(2., requires_grad=True)

a = torch.add(x, 1)
b = torch.add(x, 2)
y = torch.mul(a, b)

y.backward()
# --- the snippet, verbatim ---
print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad, y.requires_grad)
print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
print("grad: ", x.grad, a.grad, b.grad, y.grad)

# >>>requires_grad:  True True True True
# >>>is_leaf:  True False False False
# >>>grad:  tensor(7.) None None None
