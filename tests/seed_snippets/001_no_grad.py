# From seed 001_62ff37eb8c593c4d.txt, cell In [18] (lines 114-129): a term computed under no_grad is a constant.
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch
#中断梯度跟踪
x=torch.tensor(1.0,requires_grad=True)
y1=x**2
with torch.no_grad():
    y2=x**3
y3=y1+y2
print(x.requires_grad)
#y2是没有grad_fn的
print(y1,y1.requires_grad)
print(y2,y2.requires_grad)
print(y3,y3.requires_grad)
#由于中断了y2的梯度跟踪，所以相当于对y3=x^2求导
#不能调用y2.backward()会报错，因为y2.requreis_grad=False
y3.backward()
print(x.grad)
