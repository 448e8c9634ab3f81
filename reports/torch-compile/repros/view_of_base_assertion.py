"""A view taken before its base is updated in place with a tensor that requires grad, where that tensor
is made inside the compiled function: Dynamo fails its own assertion ("AssertionError: False != True").
torch 2.13.0 CPU. Run: python view_of_base_assertion.py"""
import torch


def f():
    base = torch.zeros(2)
    view = base[:1]
    w = torch.tensor(2.0, requires_grad=True)
    base.add_(w)
    return view


def run(fn):
    try:
        v = fn()
        return f"view = {v}"
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


print(f"  {'eager:':21} {run(f)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
