# From seed 000_458e21665e73da7d.txt, code block 1 of 4 (section 4, `zero_grad`) (lines 11-19): backward(retain_graph=True), then a second backward accumulates into a.grad.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- added: the document's code uses `torch` without importing it ---
import torch
# --- the snippet, verbatim ---
a = torch.tensor([1.1], requires_grad=True)
b = a * 2
print(b)
c = b + 3
print(c)
b.backward(retain_graph=True) #计算图在backward一次之后默认就消失, 我们下面还要backward一次, 所以需要retain_graph=True保存这个图。
print(a.grad)
c.backward()
print(a.grad)
