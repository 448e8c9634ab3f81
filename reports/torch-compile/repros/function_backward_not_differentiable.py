"""A custom autograd.Function whose backward is differentiable (written with torch ops), differentiated
twice: with the eager backend (Dynamo alone) the create_graph gradient does not require grad, so a
gradient penalty built on it silently contributes nothing to the final gradient.
torch 2.13.0 CPU. Run: python function_backward_not_differentiable.py"""
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def loss(x):
    y = Square.apply(x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    return y + (g * g).sum()  # d/dx (x^2 + 4x^2) = 10x


def run(f):
    x = torch.tensor([3.0], requires_grad=True)
    try:
        f(x).backward()
        return f"x.grad = {x.grad}"
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


print("d/dx (x^2 + (d/dx x^2)^2) at x = 3 is 30")
print(f"  {'eager:':21} {run(loss)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(loss, backend=backend))}")
