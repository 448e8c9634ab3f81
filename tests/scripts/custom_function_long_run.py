# ---
# title: A long float32 training run through hand-written autograd Functions (linear, exp, clamp)
# style: the "Extending PyTorch" notes' LinearFunction and the "Defining new autograd Functions" tutorial's custom op
# ---
"""Fit a small softplus-like regression with LinearFunction, MyExp and MyClamp written by hand; 400 float32 steps."""

import numpy as np
import torch
from torch.autograd import Function


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class MyClamp(Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inside = (x >= ctx.low) & (x <= ctx.high)
        return grad_output * inside.to(grad_output.dtype), None, None


rng = np.random.default_rng(4)
x = torch.from_numpy(rng.uniform(-1, 1, (200, 6)).astype(np.float32))
y = torch.from_numpy(np.log1p(np.exp(x.numpy() @ rng.normal(0, 1, (6, 1)).astype(np.float32))).astype(np.float32))
w1 = torch.tensor(rng.normal(0, 0.4, (8, 6)), dtype=torch.float32, requires_grad=True)
b1 = torch.zeros(8, requires_grad=True)
w2 = torch.tensor(rng.normal(0, 0.4, (1, 8)), dtype=torch.float32, requires_grad=True)
b2 = torch.zeros(1, requires_grad=True)
params = [w1, b1, w2, b2]
optimizer = torch.optim.Adam(params, lr=0.01)

for step in range(400):
    hidden = MyClamp.apply(LinearFunction.apply(x, w1, b1), -3.0, 3.0)
    prediction = MyExp.apply(LinearFunction.apply(MyExp.apply(hidden * 0.5) - 1.0, w2, b2) * 0.3)
    loss = ((prediction - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 50 == 0 or step == 399:
        print(f"step {step:3d}  loss {loss.item():.6f}  grad_fn {type(loss.grad_fn).__name__}")
print("w2:", w2.detach())
print("b1:", b1.detach())
print("clamped fraction:", ((hidden.detach().abs() >= 3.0).float().mean()).item())
print("check:", torch.autograd.gradcheck(MyExp.apply, (torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True),)))
