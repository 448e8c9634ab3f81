# From seed 000_458e21665e73da7d.txt, code block 2 of 4 (section 4, `zero_grad`) (lines 35-43): a.grad.zero_() between two backward calls.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- added: the document's code uses `torch` without importing it ---
import torch
# --- the snippet, verbatim ---
a = torch.tensor([1.1], requires_grad=True)
b = a * 2
c = b + 3
b.backward(retain_graph=True)
print(a.grad)
a.grad.zero_() #tensor分为a.data和a.grad。这两个都是tensor。
#所以也可以a.grad=torch.tensor([0.0])
c.backward()
print(a.grad)
