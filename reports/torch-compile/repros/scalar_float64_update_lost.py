"""A function compiled with AOTAutograd (aot_eager, inductor) whose only effect is an in-place update of a
0-d float64 tensor it was given, and which returns nothing: the update is lost. A float32 0-d tensor, a
float64 tensor of two elements, or returning the tensor: the update is made. Dynamo alone (the eager
backend) makes it. Found by the fuzzer (seed 3, shrunk by hand). torch 2.13.0 CPU.
Run: python scalar_float64_update_lost.py"""
import torch


def scale_in_place(t):
    t.mul_(1.5)


def scale_in_place_and_return_it(t):
    return t.mul_(1.5)


def run(f, dtype, shape, requires_grad, wrap):
    x = torch.full(shape, -1.0, dtype=dtype, requires_grad=requires_grad)
    t = x * 1 if requires_grad else x.clone()  # a non-leaf, or a plain tensor
    wrap(f)(t)
    return t.detach().tolist()


for f, dtype, shape, requires_grad in ((scale_in_place, torch.float64, (), False),
                                       (scale_in_place, torch.float64, (), True),
                                       (scale_in_place, torch.float32, (), False),
                                       (scale_in_place, torch.float64, (2,), False),
                                       (scale_in_place_and_return_it, torch.float64, (), False)):
    print(f"{f.__name__}, {str(dtype)[6:]}, shape {shape}, requires_grad={requires_grad}: -1.0 * 1.5 is")
    print(f"  {'eager:':21} {run(f, dtype, shape, requires_grad, lambda g: g)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(f, dtype, shape, requires_grad, lambda g: torch.compile(g, backend=backend))}")
