"""A tensor a custom autograd.Function saved with save_for_backward, then modified in place: eager's
backward raises the version error; under torch.compile backward runs and silently computes the
gradient from the modified value. torch 2.13.0 CPU. Run: python function_saved_tensor_modified.py"""
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h):
        ctx.save_for_backward(h)
        return h * h

    @staticmethod
    def backward(ctx, g):
        (h,) = ctx.saved_tensors
        return 2 * h * g


def f(x):
    h = x + 1            # [2., 3.]
    y = Square.apply(h)  # saves h
    h.add_(1)            # h is now [3., 4.]
    return y


def run(fn):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    try:
        fn(x).sum().backward()
        return f"x.grad = {x.grad}"
    except Exception as e:  # noqa: BLE001
        return f"backward raises {type(e).__name__}: {str(e).splitlines()[0]}"


print("d/dx sum((x + 1) ** 2) at x = [1, 2] is [4., 6.]")
print(f"  {'eager:':21} {run(f)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
