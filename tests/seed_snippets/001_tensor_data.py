# From seed 001_62ff37eb8c593c4d.txt, cell In [19] (lines 139-151): changing x.data is not tracked by autograd.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
#修改tensor的数值，但是又不希望被autograd记录（即不会影响反向传播）
x=torch.ones(1,requires_grad=True)
#我们可以对tensor.data进行操作
print(x.data)
print(x.data.requires_grad) #False x.data已经是独立于计算图之外

y=2*x
x.data*=100

y.backward()
print(x)
print(x.grad)
