# From seed 001_62ff37eb8c593c4d.txt, cell In [7] (lines 6-20): leaves have no grad_fn, results have one.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
#x是直接创建的，所以它没有grad_fn，而y是通过一个加法操作创建的，所以它有grad_fn
#像x这种直接创建的称为叶子节点，叶子节点对应的grad_fn是None
x=torch.ones(2,2,requires_grad=True)
print(x)
print(x.grad_fn)

y=x+2
print(y)
print(y.grad_fn)

#复杂一点的运算
z=y*y*3
out=z.mean()
print(z,out)
