"""Second-order gradients through a compiled function: AOTAutograd documents an error for double
backward ("torch.compile with aot_autograd does not currently support double backward"), and a * b
raises it; but a @ b, or a function of a view of the input, gives second-order gradients that are
silently None (zeros with materialize_grads=True, or from torch.autograd.functional.hessian).
torch 2.13.0 CPU. Run: python second_order_silently_none.py"""
import torch


def matmul(a, b):
    return a @ b


def product(a, b):
    return a * b


def cube_sum(t):
    return (t ** 3).sum()


def run(thunk):
    try:
        return repr(thunk())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


def second_order_ab(f):
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
    out = f(a, b)
    ga, gb = torch.autograd.grad(out, [a, b], torch.ones_like(out), create_graph=True)
    return torch.autograd.grad([ga, gb], [a, b], [torch.ones_like(ga), torch.ones_like(gb)], allow_unused=True)


def second_order_of_view(f):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    t = x.view_as(x)
    (g,) = torch.autograd.grad(f(t), t, create_graph=True)
    return torch.autograd.grad(g.sum(), x, allow_unused=True)


def show(title, thunk_of):
    print(title)
    print(f"  {'eager:':21} {run(lambda: thunk_of(lambda f: f))}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(lambda: thunk_of(lambda f: torch.compile(f, backend=backend)))}")


torch.set_printoptions(linewidth=200)
show("second-order gradients of a @ b (a, b leaves; all ones as grad_outputs)",
     lambda wrap: [g.tolist() if g is not None else None for g in second_order_ab(wrap(matmul))])
show("the same for a * b",
     lambda wrap: [g.tolist() if g is not None else None for g in second_order_ab(wrap(product))])
show("d/dx sum(d/dt sum(t ** 3)), t = x.view_as(x), x = [1, 2]",
     lambda wrap: second_order_of_view(wrap(cube_sum)))
show("torch.autograd.functional.hessian(sum(t ** 3), [1, 2])",
     lambda wrap: torch.autograd.functional.hessian(wrap(cube_sum), torch.tensor([1.0, 2.0])).tolist())
