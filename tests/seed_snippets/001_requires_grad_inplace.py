# From seed 001_62ff37eb8c593c4d.txt, cell In [8] (lines 33-41): requires_grad_(True) switches tracking on.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
# --- repeated from In [7] of the same document: the names this snippet relies on ---
import torch
# --- the snippet, verbatim ---
#通过.requires_grad_()来用in-place的方式改变requires_grad属性

a=torch.randn(2,2)#缺少情况下默认requires_grad=False
a=((a*3)/(a-1))
print(a.requires_grad) #False
a.requires_grad_(True)
print(a.requires_grad) #True
b=(a*a).sum()
print(b.grad_fn)
