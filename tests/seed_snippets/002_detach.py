# From seed 002_a5901dade20b64e5.txt, code block 4 of 4 (section 使用detach()切断) (lines 380-390): detach() cuts one path of y = (x + 1) * (x + 2); the block's trailing `>>>` lines are the document's printed output, not code, and are left out.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
x = torch.tensor([2.], requires_grad=True)

a = torch.add(x, 1).detach()
b = torch.add(x, 2)
y = torch.mul(a, b)

y.backward()

print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad, y.requires_grad)
print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
print("grad: ", x.grad, a.grad, b.grad, y.grad)
