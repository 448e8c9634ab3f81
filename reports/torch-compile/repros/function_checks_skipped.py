"""A custom autograd.Function run under torch.compile skips the checks eager autograd makes on it:
a backward that returns too few gradients, a gradient for an input that is not a tensor, and
save_for_backward of a non-tensor or of an inference tensor, and (forward mode) a jvp that returns two tangents for
one output or a tangent of another shape, all raise in eager and pass silently when compiled.
torch 2.13.0 CPU. Run: python function_checks_skipped.py"""
import torch


class TooFew(torch.autograd.Function):  # two inputs, one gradient
    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g


class GradForFloat(torch.autograd.Function):  # a gradient for the float k
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


class SavesInt(torch.autograd.Function):  # save_for_backward(int)
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x, k)
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g, None


class Product(torch.autograd.Function):  # saves an inference tensor
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


class TwoTangents(torch.autograd.Function):  # jvp returns two tangents for one output
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

    @staticmethod
    def jvp(ctx, x_t):
        return x_t * 2, x_t


class SummedTangent(TwoTangents):  # jvp returns a 0-d tangent for an output of shape (2,)
    @staticmethod
    def jvp(ctx, x_t):
        return (x_t * 2).sum()


def too_few(a, b):
    TooFew.apply(a, b).sum().backward()
    return a.grad, b.grad


def grad_for_float(x):
    GradForFloat.apply(x, 2.0).sum().backward()
    return x.grad


def saves_int(x):
    return SavesInt.apply(x, 3).detach()


def saves_inference_tensor(x):
    with torch.inference_mode():
        frozen = torch.tensor([3.0, 4.0])
    return Product.apply(x, frozen).detach()


def jvp_two_tangents(x, t):
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(x, t)
        return torch.autograd.forward_ad.unpack_dual(TwoTangents.apply(dual)).tangent


def jvp_tangent_of_another_shape(x, t):
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(x, t)
        return torch.autograd.forward_ad.unpack_dual(SummedTangent.apply(dual)).tangent


def run(f, *args):
    try:
        return repr(f(*args))
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for f, make in ((too_few, lambda: (torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True))),
                (grad_for_float, lambda: (torch.ones(2, requires_grad=True),)),
                (saves_int, lambda: (torch.ones(1, requires_grad=True),)),
                (saves_inference_tensor, lambda: (torch.ones(2, requires_grad=True),)),
                (jvp_two_tangents, lambda: (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))),
                (jvp_tangent_of_another_shape, lambda: (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])))):
    print(f"{f.__name__}")
    print(f"  {'eager:':21} {run(f, *make())}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend), *make())}")
