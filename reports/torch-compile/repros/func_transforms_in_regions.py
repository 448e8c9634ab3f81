"""torch.func and nn.Module code inside a compiled function that eager runs and AOTAutograd refuses at compile
time (BackendCompilerFailed): the function torch.func.vjp returns, kept across a graph break; module.to(device)
followed by an in-place update of a parameter under no_grad; torch.func.functionalize called inside.
torch 2.13.0 CPU. Run: python func_transforms_in_regions.py"""
import torch


def vjp_across_a_graph_break(x):
    out, vjp_fn = torch.func.vjp(torch.sin, x)
    print("  (a graph break)")
    return vjp_fn(torch.ones(2))[0]


def set_a_weight_after_to(model):
    model = model.to("cpu")
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 2.0]]))
    return model.weight.sum()


def functionalized(x):
    def f(t):
        y = t.clone()
        t.mul_(2)
        return y * t
    return torch.func.functionalize(f)(x)


def run(f, make):
    try:
        return repr(f(*make()))
    except Exception as e:  # noqa: BLE001
        lines = [line for line in str(e).splitlines() if line.strip()]
        cause = f" / {lines[1].strip()}" if len(lines) > 1 else ""
        return f"raises {type(e).__name__}: {lines[0]}{cause}"


for f, make in ((vjp_across_a_graph_break, lambda: (torch.tensor([0.0, 1.0]),)),
                (set_a_weight_after_to, lambda: (torch.nn.Linear(2, 2, bias=False),)),
                (functionalized, lambda: (torch.tensor([1.0, 2.0]),))):
    print(f.__name__)
    print(f"  {'eager:':21} {run(f, make)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend), make)}")
