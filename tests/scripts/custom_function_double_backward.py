# ---
# title: A custom autograd Function with a backward that is itself differentiable
# style: the "Extending PyTorch" / "Double Backward with Custom Functions" tutorials
# drift: ^(numeric|finite)
# ---
"""Write forward and backward for x -> x * exp(x) and a clamp-like function, then differentiate twice."""

import numpy as np
import torch


class ExpTimes(torch.autograd.Function):
    """f(x) = x * exp(x); f'(x) = (x + 1) * exp(x), written with differentiable ops."""

    @staticmethod
    def forward(ctx, x):
        result = x * torch.exp(x)
        ctx.save_for_backward(x)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x + 1) * torch.exp(x)


class SoftClamp(torch.autograd.Function):
    """Forward: tanh, scaled; backward saves the output and marks what needs a gradient."""

    @staticmethod
    def forward(ctx, x, scale):
        out = torch.tanh(x / scale) * scale
        ctx.save_for_backward(out)
        ctx.scale = scale
        print("  forward sees needs_input_grad =", ctx.needs_input_grad)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (1 - (out / ctx.scale) ** 2), None


x = torch.tensor(np.array([-1.5, -0.2, 0.0, 0.7, 2.0]), dtype=torch.float64, requires_grad=True)
y = ExpTimes.apply(x)
print("y:", y)
print("grad_fn:", type(y.grad_fn).__name__, "next:", [type(f).__name__ for f, _ in y.grad_fn.next_functions])

(first,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print("first derivative:", first)
print("first.requires_grad:", first.requires_grad, "grad_fn:", type(first.grad_fn).__name__)
(second,) = torch.autograd.grad(first.sum(), x)
print("second derivative:", second)
print("exact second derivative:", (x.detach() + 2) * torch.exp(x.detach()))

# the same through backward(create_graph=True) and .grad accumulation
x.grad = None
y = ExpTimes.apply(x)
y.sum().backward(create_graph=True)
g = x.grad
print("x.grad after backward(create_graph=True):", g.requires_grad, type(g.grad_fn).__name__)
x.grad = None
g.sum().backward()
print("x.grad now holds the second derivative:", x.grad)

# finite differences, by hand (what gradcheck does)
eps = 1e-6
with torch.no_grad():
    base = x.detach()
    numeric = [((ExpTimes.apply(base + eps * e) - ExpTimes.apply(base - eps * e)).sum() / (2 * eps)).item()
               for e in torch.eye(5, dtype=torch.float64)]
print("numeric first derivative:", [f"{v:.6f}" for v in numeric])
print("finite differences agree:", torch.allclose(torch.tensor(numeric, dtype=torch.float64), first.detach(),
                                                 atol=1e-5))

# a function with a non-tensor argument and a saved output
z = torch.linspace(-3, 3, 7, requires_grad=True)
out = SoftClamp.apply(z, 2.0)
print("out:", out)
out.backward(torch.ones_like(out))
print("z.grad:", z.grad)
with torch.no_grad():
    print("under no_grad:", SoftClamp.apply(z, 2.0).requires_grad)
frozen = torch.linspace(-1, 1, 3)
print("input without grad ->", SoftClamp.apply(frozen, 1.0).grad_fn)

# a backward that is not differentiable a second time
class OnceOnly(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


w = torch.tensor([1.0, -2.0], requires_grad=True)
(gw,) = torch.autograd.grad(OnceOnly.apply(w).sum(), w, create_graph=True)
print("once_differentiable gradient:", gw, "requires_grad:", gw.requires_grad)
try:
    gw.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", error)
