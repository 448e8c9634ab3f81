# From seed 002_a5901dade20b64e5.txt, cell In [14] (lines 260-270): as In [13], with x.grad.data.zero_() in between.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [1] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
x = torch.tensor(2.).requires_grad_()
y = torch.tensor(3.).requires_grad_()

z = x * x * y

z.backward(create_graph=True)
x.grad.data.zero_()
x.grad.backward()

print(x.grad)
# >>>tensor(6., grad_fn=<CopyBackwards>)
