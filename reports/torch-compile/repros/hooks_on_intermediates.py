"""Two divergences of tensor hooks registered inside a function compiled with AOTAutograd:
1. a hook registered on an intermediate after an in-place op on it, when the intermediate already had
   a hook, never runs (here it scales the gradient: x.grad comes out silently different);
2. a hook with a side effect on an intermediate, then autograd.grad(create_graph=True): eager runs,
   compiled raises "a leaf Variable that requires grad is being used in an in-place operation."
torch 2.13.0 CPU. Run: python hooks_on_intermediates.py"""
import torch

seen = []


def hook_after_inplace(x):
    y = x * 2
    y.register_hook(lambda g: seen.append("registered before mul_"))
    y.mul_(3)
    y.register_hook(lambda g: g * 10)  # registered after mul_: scales the gradient
    y.sum().backward()
    return x.grad


def hook_then_create_graph(x):
    h = x * x
    h.register_hook(lambda g: seen.append("hook"))
    return torch.autograd.grad(h.sum(), x, create_graph=True)


def run(f):
    try:
        return repr(f(torch.tensor([1.0, 2.0], requires_grad=True)))
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for f in (hook_after_inplace, hook_then_create_graph):
    print(f.__name__)
    print(f"  {'eager:':21} {run(f)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
