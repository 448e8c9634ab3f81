"""Higher-order derivatives: ``create_graph``, double backward, and the functional API."""

from .. import docs
from ..case import case


@case("Chaining grad with create_graph=True gives second and third derivatives; the last one, taken "
      "without create_graph, does not require grad", doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      features=("autograd.grad", "higher-order", "detach"))
def higher_derivatives_with_create_graph(torch, rec):
    x = torch.tensor(1.5, requires_grad=True, device=rec.device)
    y = x ** 4
    (g1,) = torch.autograd.grad(y, x, create_graph=True)
    rec("dy/dx", g1.detach())
    rec("dy/dx requires grad", g1.requires_grad)
    (g2,) = torch.autograd.grad(g1, x, create_graph=True)
    rec("d2y/dx2", g2.detach())
    (g3,) = torch.autograd.grad(g2, x)
    rec("d3y/dx3", g3)


@case("Without create_graph the gradient does not require grad, so differentiating it again raises",
      doc=docs.AUTOGRAD_GRAD, tags=("error",),
      features=("non-scalar", "autograd.grad"))
def grad_without_create_graph_is_constant(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad((x ** 3).sum(), x)
    rec("g", g)
    torch.autograd.grad(g.sum(), x)


@case("The gradient of a linear function does not require grad even with create_graph=True",
      doc=docs.AUTOGRAD_GRAD, tags=("error", "hard"),
      features=("non-scalar", "autograd.grad", "higher-order"))
def linear_function_grad_does_not_require_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad((x * 2).sum(), x, create_graph=True)
    rec("g", g)
    torch.autograd.grad(g.sum(), x)


@case("backward(create_graph=True) warns about a reference cycle, once per process",
      doc=docs.AUTOGRAD_BACKWARD, tags=("warning", "hard"),
      features=("non-scalar", "higher-order"))
def backward_create_graph_warns_once(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * x).sum().backward(create_graph=True)
    rec("x.grad after first backward(create_graph=True)", x.grad)
    x.grad = None
    (x * x * x).sum().backward(create_graph=True)
    rec("x.grad after second backward(create_graph=True)", x.grad)


@case("backward(create_graph=True) warns when the backward returns: after the hooks ran, and also when it "
      "raised (found by the fuzzer)", doc=docs.AUTOGRAD_BACKWARD, tags=("warning", "hard", "error"),
      features=("non-scalar", "higher-order", "hooks", "in-place"))
def create_graph_warning_comes_after_the_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    z = y * y
    z.register_hook(lambda g: rec("the hook of z runs", g))
    y.add_(1)
    with rec.attempt("backward(create_graph=True) through a modified saved tensor"):
        z.sum().backward(create_graph=True)
    rec("x.grad", x.grad)


@case("The second derivative of abs is zero everywhere (torch hands it back as a zero tensor without storage; "
      "its values are read as zeros) (found by the fuzzer)", doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad", "higher-order"))
def second_derivative_of_abs_is_zero(torch, rec):
    x = torch.tensor([1.0, -2.0, 0.0], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad(abs(x).sum(), [x], create_graph=True)
    rec("d abs(x) / dx", g)
    (h,) = torch.autograd.grad(g, [x], grad_outputs=torch.tensor([0.5, 2.0, 1.0], device=rec.device))
    rec("d2 abs(x) / dx2", h)
    rec("h + 1", h + 1)


@case("torch.autograd.grad(create_graph=True) gives a gradient with a graph and does not warn",
      doc=docs.AUTOGRAD_BACKWARD, tags=("warning", "hard"),
      features=("non-scalar", "autograd.grad", "higher-order", "detach"))
def autograd_grad_create_graph_does_not_warn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad((x * x).sum(), x, create_graph=True)
    rec("g", g.detach())
    rec("g.requires_grad", g.requires_grad)


@case("A Hessian-vector product by differentiating the gradient against a vector",
      doc=docs.AUTOGRAD_GRAD,
      features=("non-scalar", "autograd.grad", "higher-order"))
def hessian_vector_product(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    v = torch.tensor([1.0, -1.0], device=rec.device)
    (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (hv,) = torch.autograd.grad(g, x, grad_outputs=v)
    rec("H @ v", hv)


@case("torch.autograd.functional.jacobian and hessian of small functions",
      doc=docs.FUNCTIONAL_API,
      features=("non-scalar",))
def functional_jacobian_and_hessian(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    rec("jacobian of x**2", torch.autograd.functional.jacobian(lambda t: t ** 2, x))
    rec("hessian of sum(x**3)", torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), x))


@case("backward(create_graph=True, inputs=[x]) into a leaf warns about the reference cycle, as without inputs",
      doc=docs.TENSOR_BACKWARD, tags=("warning", "hard"),
      features=("non-scalar", "backward-inputs", "higher-order"))
def create_graph_with_inputs_warns(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    (x * x * w).sum().backward(create_graph=True, inputs=[x])
    rec("x.grad", x.grad)
    rec("w.grad", w.grad)


@case("The grad of a gradient computed without create_graph raises: it has no grad_fn",
      doc=docs.AUTOGRAD_GRAD, tags=("seed", "error"),
      provenance="seed 002, In [9]",
      features=("autograd.grad", "retain-graph"))
def grad_of_grad_without_create_graph_raises(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
    rec("grad_x", grad_x)
    torch.autograd.grad(outputs=grad_x, inputs=x)


@case("autograd.grad with create_graph=True gives a differentiable gradient: a second autograd.grad "
      "gives the second derivative", doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      provenance="seed 002, In [10]",
      features=("autograd.grad", "higher-order", "printing"))
def second_derivative_with_create_graph(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
    rec("grad_x", grad_x)
    grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)
    print(grad_xx[0])
    rec("grad_xx", grad_xx)


@case("backward() of a gradient made with create_graph=True puts the second derivative in .grad",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      provenance="seed 002, In [11]",
      features=("autograd.grad", "higher-order", "printing"))
def create_graph_grad_then_backward(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
    grad[0].backward()
    print(x.grad)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


@case("backward(create_graph=True) warns about a reference cycle and makes x.grad differentiable: "
      "autograd.grad of it gives the second derivative", doc=docs.TENSOR_BACKWARD, tags=("seed", "warning"),
      provenance="seed 002, In [12]",
      features=("autograd.grad", "higher-order", "printing"))
def backward_create_graph_then_grad(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward(create_graph=True)
    rec("x.grad", x.grad)
    grad_xx = torch.autograd.grad(outputs=x.grad, inputs=x)
    print(grad_xx[0])
    rec("grad_xx", grad_xx)


@case("backward() of x.grad made with create_graph=True adds the second derivative to the first one",
      doc=docs.TENSOR_BACKWARD, tags=("seed", "warning"),
      provenance="seed 002, In [13]",
      features=("higher-order", "detach", "printing"))
def backward_of_grad_accumulates(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward(create_graph=True)
    rec("x.grad after z.backward", x.grad.detach().clone())
    x.grad.backward()
    print(x.grad)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


@case("Zeroing x.grad through .data before backward() of it leaves only the second derivative",
      doc=docs.TENSOR_BACKWARD, tags=("seed", "warning"),
      provenance="seed 002, In [14]",
      features=("higher-order", "in-place", "detach", "printing"))
def backward_of_zeroed_grad(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward(create_graph=True)
    x.grad.data.zero_()
    x.grad.backward()
    print(x.grad)
    rec("x.grad", x.grad)


@case("With create_graph=True, the gradient of sum() is itself recorded: the output's gradient expanded "
      "(ExpandBackward0); of mean(), also divided", doc=docs.AUTOGRAD_GRAD, features=("non-scalar", "autograd.grad",
                                                                                    "higher-order"))
def gradient_of_a_sum_is_an_expand(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    seed = torch.tensor(2.0, requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad(x.sum(), x, seed, create_graph=True)
    rec("the gradient of x.sum()", g)
    (h,) = torch.autograd.grad(x.mean(), x, seed, create_graph=True)
    rec("the gradient of x.mean()", h)


@case("Under create_graph the gradient of a view is one op of its own: slice_backward, select_backward, "
      "diagonal_backward, and _index_put_impl_ for advanced indexing (found by the fuzzer)",
      doc=docs.AUTOGRAD_GRAD, features=("non-scalar", "autograd.grad", "higher-order", "views",
                                        "graph-introspection"))
def gradient_of_a_view_under_create_graph(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 3.0, 5.0]], requires_grad=True,
                     device=rec.device)
    for label, view in (("x[::2]", lambda t: t[::2]), ("x[1]", lambda t: t[1]), ("x[:, 1]", lambda t: t[:, 1]),
                        ("x.narrow(0, 1, 2)", lambda t: t.narrow(0, 1, 2)), ("x.diagonal()", lambda t: t.diagonal()),
                        ("x[[0, 2]]", lambda t: t[[0, 2]]), ("x[:1].expand(3, 3)", lambda t: t[:1].expand(3, 3))):
        part = view(x)
        (grad,) = torch.autograd.grad((part * part).sum(), x, create_graph=True)
        rec(f"{label}: the gradient and its grad_fn", [grad, grad.grad_fn])
        (second,) = torch.autograd.grad(grad.sum(), x)
        rec(f"{label}: its derivative", second)


@case("Under create_graph the gradient of trace is recorded as torch computes it: a flat tensor of zeros whose "
      "diagonal positions are filled with the incoming gradient (IndexFillBackward1), viewed as a matrix "
      "(ViewBackward0) (found by the fuzzer)", doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad", "higher-order", "graph-introspection", "views"))
def gradient_of_trace_is_a_filled_view(torch, rec):
    x = torch.tensor([[0.5, 0.2, 0.1], [0.3, 0.4, 0.6]], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad(torch.asinh(x.trace()) ** 2, [x], create_graph=True)
    rec("g", g)
    rec("g.grad_fn.next_functions", g.grad_fn.next_functions)
    rec("d sum(g * w) / d x", torch.autograd.grad((g * torch.arange(6.0, device=rec.device).view(2, 3)).sum(), [x]))
