"""A compiled function that applies, in place, an op whose backward needs its input (sin_) to an input
that requires grad: the backward through it raises the version error, where eager computes the
gradient. (exp_ saves its output and mul_ saves nothing: they pass.)
torch 2.13.0 CPU. Run: python inplace_on_view_input.py"""
import torch


def sin_(v):
    v.sin_()


def exp_(v):
    v.exp_()


def run(fn):
    a = torch.tensor([0.5, 1.8, -1.5], requires_grad=True)
    t = a * 2
    try:
        fn(t[1:])
        return repr(torch.autograd.grad(t.sum(), a))
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for f in (sin_, exp_):
    print(f"{f.__name__} on t[1:], t = a * 2; then d sum(t) / d a")
    print(f"  {'eager:':21} {run(f)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
