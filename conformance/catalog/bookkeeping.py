"""Graph bookkeeping: grad mode state, multi-output nodes, kept and freed graphs, saved operands.

These are the engine's own records, behind every value: whether grad mode is back after an
exception, whose grad mode a thread sees, which output of a node a gradient belongs to, when
a graph (or a saved Python scalar) is freed, and which value of an operand an in-place op saved.
"""

from .. import docs
from ..case import case


@case("An exception inside no_grad, enable_grad or set_grad_enabled restores the grad mode of before",
      doc=docs.NO_GRAD, features=("grad-mode",))
def grad_mode_restored_after_exception(torch, rec):
    try:
        with torch.no_grad():
            raise ValueError("inside no_grad")
    except ValueError:
        pass
    rec("after an exception inside no_grad", torch.is_grad_enabled())
    with torch.no_grad():
        try:
            with torch.enable_grad():
                raise KeyError("inside enable_grad")
        except KeyError:
            pass
        rec("inside no_grad, after an exception inside enable_grad", torch.is_grad_enabled())
    try:
        with torch.set_grad_enabled(False):
            raise RuntimeError("inside set_grad_enabled(False)")
    except RuntimeError:
        pass
    rec("after an exception inside set_grad_enabled(False)", torch.is_grad_enabled())

    @torch.no_grad()
    def failing():
        raise ValueError("inside a no_grad function")

    try:
        failing()
    except ValueError:
        pass
    rec("after an exception in a function decorated with no_grad", torch.is_grad_enabled())
    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    rec("x * 2 is still recorded", (x * 2).requires_grad)


@case("Grad mode is per thread: a new thread starts with grad enabled whatever the caller's mode, "
      "and its changes do not reach the caller", doc=docs.GRAD_MODES, features=("grad-mode", "in-place"))
def grad_mode_is_thread_local(torch, rec):
    import threading

    seen = {}

    def worker():
        x = torch.tensor([1.0], requires_grad=True, device=rec.device)
        seen["grad enabled at start"] = torch.is_grad_enabled()
        seen["x * 2 requires grad"] = (x * 2).requires_grad
        torch.set_grad_enabled(False)
        seen["grad enabled after set_grad_enabled(False)"] = torch.is_grad_enabled()

    with torch.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        rec("caller inside no_grad", torch.is_grad_enabled())
    rec("what the thread saw", seen)
    rec("caller after no_grad", torch.is_grad_enabled())


@case("autograd.grad with respect to the second output of a multi-output op (split) gives that output's "
      "gradient, and the input's gradient has zeros where only the first output came from",
      doc=docs.AUTOGRAD_GRAD, features=("non-scalar", "autograd.grad", "retain-graph"))
def grad_wrt_second_output(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True, device=rec.device)
    first, second = torch.split(x * 1, [2, 3])
    y = (second ** 2).sum() + first.sum() * 0
    rec("d y / d second", torch.autograd.grad(y, second, retain_graph=True))
    rec("d y / d (first, second)", torch.autograd.grad(y, (first, second), retain_graph=True))
    rec("d y / d x", torch.autograd.grad(y, x, retain_graph=True))
    z = (second * 3).sum()
    rec("d z / d x: zeros for the first part", torch.autograd.grad(z, x))


@case("autograd.grad of one output of var_mean: var and mean share one node, each gradient goes through "
      "its own output", doc=docs.docstring("torch.var_mean"), features=("non-scalar", "autograd.grad", "retain-graph"))
def grad_of_one_output_of_a_shared_node(torch, rec):
    x = torch.tensor([1.0, 2.0, 4.0, 7.0], requires_grad=True, device=rec.device)
    var, mean = torch.var_mean(x)
    rec("var.grad_fn", var.grad_fn)
    rec("mean.grad_fn", mean.grad_fn)
    rec("same node", var.grad_fn is mean.grad_fn)
    rec("d mean / d x", torch.autograd.grad(mean, x, retain_graph=True))
    rec("d var / d x", torch.autograd.grad(var, x, retain_graph=True))
    rec("d (var + 10 mean) / d x", torch.autograd.grad(var + 10 * mean, x))


@case("autograd.grad(create_graph=True) keeps the graph: the gradient can be differentiated again and the "
      "original output backpropagated; a last plain backward then frees it",
      doc=docs.AUTOGRAD_GRAD, tags=("error",), features=("non-scalar", "autograd.grad", "higher-order", "detach"))
def create_graph_keeps_the_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x ** 3).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    rec("g", g.detach())
    rec("second derivative through the kept graph", torch.autograd.grad(g.sum(), x))
    y.backward()
    rec("x.grad after y.backward()", x.grad)
    y.backward()


@case("backward(create_graph=True) keeps the graph too: .grad is differentiable and a second backward works",
      doc=docs.TENSOR_BACKWARD, tags=("warning",), features=("non-scalar", "autograd.grad", "higher-order", "retain-graph"))
def backward_create_graph_keeps_the_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x ** 3).sum()
    y.backward(create_graph=True)
    rec("x.grad requires grad", x.grad.requires_grad)
    rec("d (sum of x.grad) / dx", torch.autograd.grad(x.grad.sum(), x))
    x.grad = None
    y.backward()
    rec("x.grad after a second backward", x.grad)


@case("A backward through in-place ops that save an operand uses the value the operand had when the op ran",
      doc=docs.INPLACE, features=("non-scalar", "in-place"))
def inplace_op_saving_an_operand(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    a = x.clone()
    a.mul_(w)
    a.sum().backward()
    rec("after a = x.clone(); a.mul_(w): x.grad", x.grad)
    rec("w.grad: x, the value a had before mul_", w.grad)
    u = torch.tensor([1.5, -2.0], requires_grad=True, device=rec.device)
    b = u.clone()
    b.pow_(2)
    b.div_(w)
    b.sum().backward()
    rec("after b = u.clone(); b.pow_(2); b.div_(w): u.grad", u.grad)
    rec("w.grad accumulated", w.grad)


@case("is_grads_batched=True computes one vector-Jacobian product per row of grad_outputs: a whole Jacobian",
      doc=docs.AUTOGRAD_GRAD, tags=("error",), features=("non-scalar", "autograd.grad", "retain-graph"))
def grads_batched_jacobian(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    y = x ** 2 * torch.tensor([1.0, -1.0, 0.5], device=rec.device)
    eye = torch.eye(3, device=rec.device)
    rec("Jacobian of y", torch.autograd.grad(y, x, eye, retain_graph=True, is_grads_batched=True))
    rows = torch.tensor([[1.0, 1.0, 1.0], [0.0, 2.0, 0.0]], device=rec.device)
    rec("two products", torch.autograd.grad(y, x, rows, retain_graph=True, is_grads_batched=True))
    with rec.attempt("rows of the wrong length"):
        torch.autograd.grad(y, x, torch.ones(2, 2, device=rec.device), is_grads_batched=True)


@case("f = w.sum() * 1: the multiplication saves the Python scalar, so a second backward raises; "
      "with + 1 nothing is saved and it works", doc=docs.SAVED_TENSORS, tags=("error",),
      features=("non-scalar", "retain-graph"))
def scalar_multiplication_saves_for_backward(torch, rec):
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    g = w.sum() + 1
    g.backward()
    g.backward()
    rec("w.grad after two backwards through w.sum() + 1", w.grad)
    w.grad = None
    f = w.sum() * 1
    f.backward()
    rec("w.grad after one backward through w.sum() * 1", w.grad)
    f.backward()
