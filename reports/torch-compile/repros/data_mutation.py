"""Writing an input's .data in place inside a compiled function (the deprecated manual update): eager
runs it untracked; AOTAutograd refuses at compile time (BackendCompilerFailed, "mutates_metadata").
torch 2.13.0 CPU. Run: python data_mutation.py"""
import torch


def f(x):
    y = 2 * x
    x.data *= 100
    return y


def run(fn):
    x = torch.ones(1, requires_grad=True)
    try:
        y = fn(x)
        y.backward()
        return f"x = {x.detach()}, x.grad = {x.grad}"
    except Exception as e:  # noqa: BLE001
        lines = str(e).splitlines()
        return f"raises {type(e).__name__}: {lines[0]} {lines[1][:100]}"


print(f"  {'eager:':21} {run(f)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
