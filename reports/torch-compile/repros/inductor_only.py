"""Divergences of Inductor (torch.compile's default backend) that the aot_eager backend does not show:
1. the gradients stack's backward gives two scalar leaves no longer share memory (eager: writing
   a.grad in place writes b.grad);
2. autograd.grad(is_grads_batched=True) through a compiled region raises;
3. x.data = a tensor of another size fails Inductor's size assertion;
4. the trace of a float32 matrix is summed in float32 (eager's CPU kernel sums in double): where the
   diagonal cancels, the value is 0.0 instead of 2.2e-08, and the gradient of |trace| is 0 instead of 1.
Each prints eager, then the function compiled with the eager, aot_eager and inductor backends.
torch 2.13.0 CPU. Run: python inductor_only.py"""
import torch


def stacked_leaves_share_their_grad():
    # eager: sum's gradient is one expanded element; stack's backward gives each leaf a 0-d view of it
    a = torch.tensor(1.5, requires_grad=True)
    b = torch.tensor(2.5, requires_grad=True)
    torch.stack([a, b]).sum().backward()
    a.grad.mul_(-0.5)
    return b.grad


def batched_jacobian():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2 * torch.tensor([1.0, -1.0, 0.5])
    return torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)


def assign_data_of_another_size():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.data = torch.tensor([5.0, 6.0, 7.0])
    return x


def trace(x):
    return x.trace()


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


X = [[-0.1, 0.6, -0.4], [1.0, -1.6, -0.5], [-1.75, -1.75, 1.7]]


def trace_and_gradient(wrap):
    x = torch.tensor(X, requires_grad=True)
    t = wrap(trace)(x)
    return t.item(), torch.autograd.grad(t.abs(), x)[0].diagonal().tolist()


show("stack([a, b]).sum().backward(); a.grad.mul_(-0.5); b.grad", lambda wrap: wrap(stacked_leaves_share_their_grad)())
show("autograd.grad(y, x, eye(3), is_grads_batched=True)", lambda wrap: wrap(batched_jacobian)())
show("x.data = a tensor of another size", lambda wrap: wrap(assign_data_of_another_size)())
show("t = x.trace() (float32), then the diagonal of d|t|/dx", trace_and_gradient)
