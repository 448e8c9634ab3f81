# From seed 001_62ff37eb8c593c4d.txt, cell In [11] (lines 61-83): gradients accumulate; x.grad.data.zero_() resets them.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
#x是直接创建的，所以它没有grad_fn，而y是通过一个加法操作创建的，所以它有grad_fn
#像x这种直接创建的称为叶子节点，叶子节点对应的grad_fn是None
x=torch.ones(2,2,requires_grad=True)
y=x+2

#复杂一点的运算
z=y*y*3
out=z.mean()

out.backward()
print(x.grad)

#grad在反向传播过程中是累加的，这意味着每次运行一次反向传播，梯度都会累加之前的梯度
#所以一般在反向传播之前需要把梯度清零
out2=x.sum()
out2.backward()
print(x.grad)

out3=x.sum()
x.grad.data.zero_()
out3.backward()
print(x.grad)
