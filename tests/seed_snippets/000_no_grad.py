# From seed 000_458e21665e73da7d.txt, code block 4 of 4 (section 6, `with torch.no_grad()` and `backward()`) (lines 102-112): a result computed under no_grad cuts the path back to a.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- added: the document's code uses `torch` without importing it ---
import torch
# --- the snippet, verbatim ---
a = torch.tensor([1.1], requires_grad=True)
b = a * 2
with torch.no_grad():
    c = b + 2
print(c.requires_grad)
d = torch.tensor([10.0], requires_grad=True)
e = c * d
print(e.requires_grad)
e.backward()
print(d.grad)
print(a.grad)
