"""Forward-mode AD (torch.autograd.forward_ad) through a compiled function: a dual tensor that a compiled
function makes with make_dual and returns has lost its tangent (aot_eager, inductor); a dual tensor passed to a
function compiled by Inductor gives a result without a tangent; and with an input that also requires grad, the
compiled region (an autograd.Function without jvp) refuses forward mode. Eager keeps the tangents throughout.
torch 2.13.0 CPU. Run: python forward_ad_through_compiled.py"""
import torch
import torch.autograd.forward_ad as fwAD


def make_dual(x, t):
    return fwAD.make_dual(x, t)


def double(d):
    return d * 2


def tangent_of_returned_dual(wrap):
    with fwAD.dual_level():
        dual = wrap(make_dual)(torch.tensor([1.0, 2.0]), torch.tensor([1.0, -1.0]))
        return fwAD.unpack_dual(dual).tangent


def tangent_of_result(wrap, requires_grad=False):
    with fwAD.dual_level():
        x = torch.tensor([1.0, 2.0], requires_grad=requires_grad)
        dual = fwAD.make_dual(x, torch.tensor([1.0, -1.0]))
        return fwAD.unpack_dual(wrap(double)(dual)).tangent


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


show("tangent of make_dual(x, [1, -1]) made and returned by the function", tangent_of_returned_dual)
show("tangent of double(dual), dual = make_dual(x, [1, -1]) made outside", tangent_of_result)
show("the same with x.requires_grad", lambda wrap: tangent_of_result(wrap, requires_grad=True))
