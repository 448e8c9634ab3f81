"""A tensor updated in place by one compiled function, then backpropagated with create_graph=True by
another compiled function: the backward raises "a leaf Variable that requires grad is being used in an
in-place operation." Either function alone compiled, or neither, gives eager's gradient.
Found by the fuzzer (seed 2, shrunk by hand). torch 2.13.0 CPU. Run: python create_graph_after_compiled_inplace.py"""
import torch


def scale_in_place(t):
    t.mul_(1.5)


def backward_with_create_graph(t):
    t.sum().backward(create_graph=True)


def run(compile_scale, compile_backward, backend):
    x = torch.tensor([-1.0], requires_grad=True)
    t = x + x
    wrap = lambda f, on: torch.compile(f, backend=backend) if on else f  # noqa: E731
    try:
        wrap(scale_in_place, compile_scale)(t)
        wrap(backward_with_create_graph, compile_backward)(t)
        return f"x.grad = {x.grad}"
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


print(f"  {'eager:':40} {run(False, False, None)}")
for backend in ("eager", "aot_eager", "inductor"):
    for scale, back in ((True, False), (False, True), (True, True)):
        torch._dynamo.reset()
        which = " and ".join(name for name, on in (("mul_", scale), ("backward", back)) if on)
        print(f"  {'compiled ' + backend + ' (' + which + '):':40} {run(scale, back, backend)}")
