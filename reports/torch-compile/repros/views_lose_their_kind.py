"""Views returned by a function compiled with AOTAutograd lose what eager records about how they were
made: a view made under no_grad, or an output of unbind (a function returning several views), can be
modified in place afterwards without the error eager raises.
torch 2.13.0 CPU. Run: python views_lose_their_kind.py"""
import torch


def no_grad_view(x):
    base = x * 1
    with torch.no_grad():
        v = base[:3]
    return base, v


def rows(x):
    return (x * 1).unbind()


def run(make, use):
    try:
        return use(make)
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0][:110]}..."


def write_no_grad_view(make):
    base, v = make(torch.ones(4, requires_grad=True))
    v[:2].mul_(2)
    return f"v[:2].mul_(2) runs; base.grad_fn = {type(base.grad_fn).__name__}"


def write_unbind_output(make):
    r = make(torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True))
    r[0].add_(1.0)
    return f"r[0].add_(1.0) runs; r[0].grad_fn = {type(r[0].grad_fn).__name__}"


for title, f, use in (("a view made under no_grad, modified in place with grad mode on", no_grad_view, write_no_grad_view),
                      ("an output of unbind, modified in place", rows, write_unbind_output)):
    print(title)
    print(f"  {'eager:':21} {run(f, use)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend), use)}")
