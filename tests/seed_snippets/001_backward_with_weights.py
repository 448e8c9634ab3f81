# From seed 001_62ff37eb8c593c4d.txt, cell In [15] (lines 94-106): backward(v) of a non-scalar view.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch

x=torch.tensor([1.0,2.0,3.0,4.0],requires_grad=True)
y=2*x
#z不是标量，y是标量
z=y.view(2,2)
print(z)

#现在z不是一个标量，所以在调用backward时需要传入一个和z同形的权重向量进行加权求和得到一个标量
v=torch.tensor([[1.0,0.1],[0.01,0.001]],dtype=torch.float)
z.backward(v)
#x.grad是与x同形的张量
print(x.grad) 
