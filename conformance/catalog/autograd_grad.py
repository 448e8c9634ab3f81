"""``torch.autograd.grad``: what it returns, its checks on inputs and outputs, and its options
(``allow_unused``, ``materialize_grads``, ``grad_outputs``, ``only_inputs``)."""

from .. import docs
from ..case import case


@case("torch.autograd.grad returns a tuple with one gradient per input and leaves .grad untouched",
      doc=docs.AUTOGRAD_GRAD,
      features=("non-scalar", "autograd.grad"))
def returns_tuple_leaves_grad_alone(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor(3.0, requires_grad=True, device=rec.device)
    y = (w * x * x).sum()
    result = torch.autograd.grad(y, [x, w])
    rec("type(result)", type(result))
    rec("result", result)
    rec("x.grad", x.grad)
    rec("w.grad", w.grad)


@case("An input that the outputs do not depend on raises; allow_unused=True gives None for it instead",
      doc=docs.AUTOGRAD_GRAD, tags=("error",),
      features=("non-scalar", "autograd.grad", "retain-graph"))
def unused_input_raises_unless_allowed(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    with rec.attempt("grad(y, [x, w])"):
        torch.autograd.grad(y, [x, w], retain_graph=True)
    rec("grad(y, [w, x], allow_unused=True)", torch.autograd.grad(y, [w, x], allow_unused=True))


@case("materialize_grads=True gives zeros for an unused input; they require grad only with create_graph=True",
      doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad", "higher-order"))
def materialize_grads_gives_zeros(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([[3.0, 4.0, 5.0]], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    rec("grad(y, [x, w], materialize_grads=True)",
        torch.autograd.grad(y, [x, w], materialize_grads=True))
    z = (x * x).sum()
    rec("grad(z, [x, w], create_graph=True, materialize_grads=True)",
        torch.autograd.grad(z, [x, w], create_graph=True, materialize_grads=True))


@case("materialize_grads=True together with an explicit allow_unused=False raises ValueError",
      doc=docs.AUTOGRAD_GRAD, tags=("error", "hard"),
      features=("non-scalar", "autograd.grad"))
def materialize_grads_with_allow_unused_false_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    torch.autograd.grad(y, [x, w], allow_unused=False, materialize_grads=True)


@case("Differentiating with respect to a tensor that does not require grad raises",
      doc=docs.AUTOGRAD_GRAD, tags=("error",),
      features=("non-scalar", "autograd.grad"))
def input_not_requiring_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    c = torch.tensor([5.0, 6.0], device=rec.device)
    y = (x * c).sum()
    torch.autograd.grad(y, [x, c])


@case("A non-scalar output needs grad_outputs, the vector of the vector-Jacobian product",
      doc=docs.AUTOGRAD_GRAD, tags=("error",),
      features=("non-scalar", "autograd.grad", "retain-graph"))
def grad_outputs_for_nonscalar_output(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * x
    with rec.attempt("grad(y, x)"):
        torch.autograd.grad(y, x, retain_graph=True)
    v = torch.tensor([3.0, -1.0], device=rec.device)
    rec("grad(y, x, grad_outputs=v)", torch.autograd.grad(y, x, grad_outputs=v))


@case("The deprecated only_inputs argument is ignored and emits a FutureWarning",
      doc=docs.AUTOGRAD_GRAD, tags=("warning",),
      features=("non-scalar", "autograd.grad"))
def only_inputs_deprecated(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * 4).sum()
    rec("grad(y, x, only_inputs=False)", torch.autograd.grad(y, x, only_inputs=False))
    rec("x.grad", x.grad)


@case("An empty inputs sequence raises",
      doc=docs.AUTOGRAD_GRAD, tags=("error",),
      features=("non-scalar", "autograd.grad"))
def empty_inputs_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    torch.autograd.grad(y, [])


@case("The gradient can be taken with respect to an intermediate (non-leaf) tensor",
      doc=docs.AUTOGRAD_GRAD,
      features=("non-scalar", "autograd.grad", "retain-grad"))
def grad_wrt_nonleaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    h = x * 3
    y = (h * h).sum()
    rec("grad(y, h)", torch.autograd.grad(y, h))
    rec("h.retains_grad", h.retains_grad)
    rec("x.grad", x.grad)


@case("With several outputs the gradients of all of them are summed",
      doc=docs.AUTOGRAD_GRAD,
      features=("non-scalar", "autograd.grad"))
def several_outputs_summed(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a = (x * 2).sum()
    b = (x * x).sum()
    rec("grad([a, b], x)", torch.autograd.grad([a, b], x))


@case("Inputs given as a dict give a dict of gradients with the same keys",
      doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad"))
def dict_inputs_give_dict(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    b = torch.tensor([2.0, 3.0], requires_grad=True, device=rec.device)
    y = a * 5 + (b * b).sum()
    rec("grad(y, {'a': a, 'b': b})", torch.autograd.grad(y, {"a": a, "b": b}))


@case("An output that does not require grad raises",
      doc=docs.AUTOGRAD_GRAD, tags=("error",),
      features=("non-scalar", "autograd.grad", "detach"))
def output_not_requiring_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.detach().sum()
    torch.autograd.grad(y, x)


@case("An input reached only through x * 0 counts as used and gets a zero gradient",
      doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad"))
def input_used_through_times_zero(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([4.0], requires_grad=True, device=rec.device)
    y = (x * x).sum() + (w * 0).sum()
    rec("grad(y, [x, w])", torch.autograd.grad(y, [x, w]))


@case("A None entry in grad_outputs stands for ones on a scalar output",
      doc=docs.AUTOGRAD_GRAD,
      features=("non-scalar", "autograd.grad"))
def none_grad_output_for_scalar(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    rec("grad([y], [x], grad_outputs=[None])", torch.autograd.grad([y], [x], grad_outputs=[None]))


@case("The same input listed twice gets the full gradient in both places",
      doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad"))
def same_input_twice(torch, rec):
    x = torch.tensor([1.0, 3.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    rec("grad(y, [x, x])", torch.autograd.grad(y, [x, x]))


@case("A tensor given as both output and input, non-leaf or leaf, gets grad_outputs back",
      doc=docs.AUTOGRAD_GRAD, tags=("hard",),
      features=("non-scalar", "autograd.grad"))
def output_equal_to_input(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * x
    rec("grad(y, y, v)", torch.autograd.grad(y, y, torch.tensor([0.5, -2.0], device=rec.device)))
    rec("grad(x, x, v)", torch.autograd.grad(x, x, torch.tensor([3.0, 4.0], device=rec.device)))
    rec("x.grad", x.grad)


@case("torch.autograd.grad returns the gradients as a tuple and leaves .grad untouched",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      provenance="seed 002, In [5] and In [7]",
      features=("autograd.grad", "printing"))
def autograd_grad_returns_tuple(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    a = torch.add(x, 1)
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    grad = torch.autograd.grad(outputs=y, inputs=x)
    print(grad[0])
    rec("grad", grad)
    rec("x.grad", x.grad)


@case("autograd.grad with retain_graph=True keeps the graph for a second autograd.grad to another input",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      provenance="seed 002, In [8]",
      features=("autograd.grad", "retain-graph", "printing"))
def autograd_grad_retain_graph(torch, rec):
    x = torch.tensor(2., device=rec.device).requires_grad_()
    y = torch.tensor(3., device=rec.device).requires_grad_()
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
    grad_y = torch.autograd.grad(outputs=z, inputs=y)
    print(grad_x[0], grad_y[0])
    rec("grad_x", grad_x)
    rec("grad_y", grad_y)


@case("A second autograd.grad through a graph freed by the first one raises",
      doc=docs.AUTOGRAD_GRAD, tags=("seed", "error"),
      provenance="seed 002, text before In [8]: the graph is freed after one autograd.grad",
      features=("autograd.grad", "printing"))
def autograd_grad_frees_graph(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x)
    print(grad_x[0])
    rec("grad_x", grad_x)
    torch.autograd.grad(outputs=z, inputs=y)


@case("autograd.grad with only_inputs=False warns that the argument is deprecated and ignored: "
      "other leaves still get no .grad", doc=docs.AUTOGRAD_GRAD, tags=("seed", "warning"),
      provenance="seed 003, section 四: autograd.grad differentiates only the given inputs (only_inputs)",
      features=("autograd.grad", "printing"))
def autograd_grad_only_inputs_ignored(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, only_inputs=False)
    print(grad_x[0])
    rec("grad_x", grad_x)
    rec("y.grad", y.grad)


@case("torch.autograd.grad checks its outputs before its inputs: an output without a grad_fn is named "
      "even when an input does not require grad either (found by the fuzzer)",
      doc=docs.AUTOGRAD_GRAD, tags=("error",), features=("non-scalar", "autograd.grad"))
def autograd_grad_checks_outputs_first(torch, rec):
    a = torch.ones(2, device=rec.device)
    b = torch.ones(2, requires_grad=True, device=rec.device)
    with rec.attempt("grad(a.sum(), [a]): neither requires grad"):
        torch.autograd.grad(a.sum(), [a])
    with rec.attempt("grad(a.sum(), [b])"):
        torch.autograd.grad(a.sum(), [b])
    with rec.attempt("grad((b * 2).sum(), [a])"):
        torch.autograd.grad((b * 2).sum(), [a])


@case("A gradient that torch's backward formula makes as a view (the expand of a sum's gradient, the reshape "
      "of a view's) is a view made in no_grad mode: writing it in place with an operand that requires grad "
      "raises, in a hook too; a slice's gradient is a new tensor and can be written (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "autograd.grad", "in-place", "views", "hooks"))
def gradient_made_as_a_view(torch, rec):
    x = torch.tensor([-0.5, 1.5], requires_grad=True, device=rec.device)
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    for label, output in (("x.sum()", lambda: x.sum()), ("(x.view(2, 1) * 2).sum()", lambda: (x.view(2, 1) * 2).sum()),
                          ("x[:1].sum()", lambda: x[:1].sum())):
        (g,) = torch.autograd.grad(output(), [x])
        rec(f"gradient of {label} is a view", g._is_view())
        with rec.attempt(f"the gradient of {label}, written in place with w"):
            g.add_(w)
            rec("g", g)
    seen = []
    y = x.view(2, 1)
    y.register_hook(lambda g: seen.append(g._is_view()))
    y.sum().backward()
    rec("the hook's argument is a view", seen)

