# From seed 000_458e21665e73da7d.txt, code block 3 of 4 (section 5, computation graph) (lines 62-67): .grad of a non-leaf is None, with a warning.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- added: the document's code uses `torch` without importing it ---
import torch
# --- the snippet, verbatim ---
a = torch.tensor([1.1], requires_grad=True)
b = a * 2
c = b + 3
c.backward()
print(a.grad)
print(b.grad)
