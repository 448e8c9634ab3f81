"""ctx.mark_non_differentiable is ignored when Dynamo cannot trace the Function's backward (here: a
side effect in it): the marked output requires grad and has a grad_fn.
torch 2.13.0 CPU. Run: python mark_non_differentiable_lost.py"""
import torch

received = []


class WithMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        return x * 2, mask

    @staticmethod
    def backward(ctx, g, g_mask):
        received.append(g_mask)  # a side effect: Dynamo does not trace this backward
        return g * 2


def f(x):
    out, mask = WithMask.apply(x)
    return mask


def run(fn):
    mask = fn(torch.tensor([1.0, -2.0], requires_grad=True))
    return f"mask.requires_grad = {mask.requires_grad}, mask.grad_fn = {type(mask.grad_fn).__name__ if mask.grad_fn else None}"


print(f"  {'eager:':21} {run(f)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
