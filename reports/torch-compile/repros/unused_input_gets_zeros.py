"""An output of a compiled function that does not depend on one of its inputs: autograd.grad of that output
with allow_unused=True gives zeros for that input, not eager's None, when another output of the same compiled
function depends on it; so torch.autograd.functional.jacobian(strict=True), which looks for None, raises
nothing. torch 2.13.0 CPU. Run: python unused_input_gets_zeros.py"""
import torch


def two_outputs(a, b):
    return a * b, b * 2  # the second output does not depend on a


def grad_of_second_output(wrap):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    _, second = wrap(two_outputs)(a, b)
    return torch.autograd.grad(second.sum(), (a, b), allow_unused=True)


def strict_jacobian(wrap):
    return torch.autograd.functional.jacobian(wrap(two_outputs), (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])),
                                              strict=True)[1][0]


def run(thunk):
    try:
        return repr(thunk())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


def show(title, thunk_of):
    print(title)
    print(f"  {'eager:':21} {run(lambda: thunk_of(lambda f: f))}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(lambda: thunk_of(lambda f: torch.compile(f, backend=backend)))}")


show("autograd.grad(b * 2, (a, b), allow_unused=True), a * b the function's other output", grad_of_second_output)
show("jacobian(strict=True) of (a * b, b * 2): d output 1 / d a", strict_jacobian)
