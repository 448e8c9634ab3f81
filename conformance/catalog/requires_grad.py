"""``requires_grad``: defaults, propagation through ops, ``requires_grad_()``, which dtypes may
require grad, and ops whose results cannot."""

from .. import docs
from ..case import case


@case("Factories do not require grad unless asked; an op result requires grad when at least one input does",
      doc=docs.REQUIRES_GRAD, tags=("seed",),
      features=("non-scalar",))
def requires_grad_default_and_propagation(torch, rec):
    x = torch.ones(2, device=rec.device)
    y = torch.zeros(2, device=rec.device)
    z = torch.ones(2, requires_grad=True, device=rec.device)
    rec("x", x)
    rec("torch.ones_like(z)", torch.ones_like(z))
    a = x + y
    b = a + z
    rec("a = x + y", a)
    rec("b = a + z", b)


@case("requires_grad_() sets the flag in place (default True) and returns the tensor; requires_grad_(False) "
      "stops recording later ops and keeps the .grad already there", doc=docs.TENSOR_REQUIRES_GRAD_,
      tags=("seed",),
      features=("non-scalar",))
def requires_grad_method_on_leaf(torch, rec):
    w = torch.tensor([1.0, 2.0], device=rec.device)
    returned = w.requires_grad_()
    rec.same("returned is w", returned, w)
    rec("w", w)
    (w * w).sum().backward()
    w.requires_grad_(False)
    y = w * 2
    rec("w after requires_grad_(False)", w)
    rec("w.grad", w.grad)
    rec("y = w * 2", y)


@case("Creating an integer or bool tensor with requires_grad=True raises", doc=docs.REQUIRES_GRAD,
      tags=("error", "hard"),
      features=("non-scalar", "integer-dtypes"))
def integer_factory_with_requires_grad_raises(torch, rec):
    with rec.attempt("torch.zeros(2, dtype=torch.int64, requires_grad=True)"):
        torch.zeros(2, dtype=torch.int64, requires_grad=True, device=rec.device)
    with rec.attempt("torch.tensor([True, False], requires_grad=True)"):
        torch.tensor([True, False], requires_grad=True, device=rec.device)
    torch.tensor([1, 2], requires_grad=True, device=rec.device)


@case("requires_grad_() on an integer tensor raises, with its own message", doc=docs.TENSOR_REQUIRES_GRAD_,
      tags=("error", "hard"),
      features=("non-scalar",))
def integer_requires_grad_method_raises(torch, rec):
    n = torch.tensor([1, 2], device=rec.device)
    n.requires_grad_()


@case("Setting requires_grad = True on an integer or bool tensor raises", doc=docs.TENSOR_REQUIRES_GRAD,
      tags=("error", "hard"),
      features=("non-scalar",))
def integer_requires_grad_assignment_raises(torch, rec):
    flags = torch.tensor([True, False], device=rec.device)
    with rec.attempt("flags.requires_grad = True"):
        flags.requires_grad = True
    n = torch.tensor([1, 2], device=rec.device)
    n.requires_grad = True


@case("Setting requires_grad to a value that is not a bool raises", doc=docs.TENSOR_REQUIRES_GRAD,
      tags=("error",),
      features=("non-scalar",))
def requires_grad_assignment_needs_bool(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    x.requires_grad = 1


@case("Comparisons, argmax and casts to integer give results that do not require grad",
      doc=docs.NONDIFFERENTIABLE,
      features=("non-scalar", "integer-dtypes"))
def integer_valued_ops_do_not_require_grad(torch, rec):
    x = torch.tensor([0.5, -1.5, 2.5], requires_grad=True, device=rec.device)
    rec("x > 0", x > 0)
    rec("x.argmax()", x.argmax())
    rec("x.long()", x.long())


@case("round, sign and floor are recorded and backpropagate zero gradients", doc=docs.NONDIFFERENTIABLE,
      features=("non-scalar",))
def piecewise_constant_ops_give_zero_grad(torch, rec):
    x = torch.tensor([0.3, -1.7, 2.6], requires_grad=True, device=rec.device)
    r = x.round()
    s = x.sign()
    f = x.floor()
    rec("x.round()", r)
    rec("x.sign()", s)
    rec("x.floor()", f)
    (r + s + f).sum().backward()
    rec("x.grad", x.grad)


@case("Module.requires_grad_(False) turns requires_grad off on every parameter and returns the module",
      doc=docs.docstring("torch.nn.Module.requires_grad_"),
      features=("non-scalar", "nn"))
def module_requires_grad_false_freezes_parameters(torch, rec):
    layer = torch.nn.Linear(2, 1).to(rec.device)
    returned = layer.requires_grad_(False)
    rec.same("returned is layer", returned, layer)
    rec("layer.weight.requires_grad", layer.weight.requires_grad)
    rec("layer.bias.requires_grad", layer.bias.requires_grad)
    out = layer(torch.ones(1, 2, device=rec.device))
    rec("out.requires_grad", out.requires_grad)


@case("float16 and float64 tensors can require grad; mixed, the result is float64 and each leaf's .grad "
      "keeps the leaf's dtype", doc=docs.TENSOR_GRAD, tags=("hard",),
      features=("non-scalar", "float64", "float16"))
def mixed_dtypes_grad_keeps_leaf_dtype(torch, rec):
    a = torch.tensor([1.0, 2.0], dtype=torch.float16, requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True, device=rec.device)
    y = (a * b).sum()
    rec("y", y)
    y.backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("A factory call with requires_grad=True inside no_grad still gives a leaf that requires grad",
      doc=docs.NO_GRAD_MODE, tags=("hard",),
      features=("non-scalar", "grad-mode"))
def factory_requires_grad_inside_no_grad(torch, rec):
    with torch.no_grad():
        w = torch.zeros(2, requires_grad=True, device=rec.device)
        inside = w * 2
    rec("w", w)
    rec("w * 2 inside no_grad", inside)
    (w * 2).sum().backward()
    rec("w.grad", w.grad)


@case("For a real loss of complex inputs the gradient is the conjugate Wirtinger one: sum(|z|^2) gives 2z",
      doc=docs.COMPLEX,
      features=("non-scalar", "complex"))
def complex_abs_squared_gradient(torch, rec):
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True, device=rec.device)
    loss = (z.abs() ** 2).sum()
    rec("loss", loss)
    loss.backward()
    rec("z.grad", z.grad)


@case("backward() without a gradient on a complex scalar raises: implicit grads need a real scalar",
      doc=docs.TENSOR_BACKWARD, tags=("error",),
      features=("non-scalar", "complex"))
def complex_scalar_implicit_grad_raises(torch, rec):
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True, device=rec.device)
    s = (z * 2).sum()
    rec("s", s)
    s.backward()


@case("A float -> int -> float round trip silently cuts the graph; backward then finds nothing to differentiate",
      doc=docs.REQUIRES_GRAD, tags=("error", "hard"),
      features=("non-scalar", "integer-dtypes"))
def integer_round_trip_cuts_graph(torch, rec):
    x = torch.tensor([1.5, 2.5], requires_grad=True, device=rec.device)
    y = x.long().float() * 2
    rec("y", y)
    y.sum().backward()


@case("A created tensor does not require grad by default, a result of a tracked input does, and the "
      "weights of an nn module do", doc=docs.REQUIRES_GRAD, tags=("seed",),
      provenance="seed 000, list item 1; 002, note on requires_grad defaults",
      features=("non-scalar", "printing", "nn"))
def requires_grad_defaults(torch, rec):
    a = torch.tensor([1.1], device=rec.device)
    print(a.requires_grad)
    w = torch.tensor([1.1], requires_grad=True, device=rec.device)
    print((w * a).requires_grad)
    net = torch.nn.Linear(2, 1).to(rec.device)  # weight values are never observed
    print(net.weight.requires_grad, net.weight.is_leaf)
    rec("a", a)
    rec("w * a", w * a)


@case("requires_grad_(True) turns tracking on for a tensor computed without it; later ops record a grad_fn",
      doc=docs.TENSOR_REQUIRES_GRAD_, tags=("seed",),
      provenance="seed 001, In [8]",
      features=("non-scalar", "printing"))
def requires_grad_switched_in_place(torch, rec):
    a = torch.randn(2, 2, device=rec.device)  # values are never observed
    a = ((a * 3) / (a - 1))
    print(a.requires_grad)
    returned = a.requires_grad_(True)
    print(a.requires_grad)
    b = (a * a).sum()
    print(b.grad_fn)
    rec("requires_grad_ returns the tensor itself", returned is a)
    rec("a.is_leaf", a.is_leaf)
    rec("b.grad_fn", b.grad_fn)


@case("requires_grad_() on a created tensor and requires_grad=True at creation both give a tracked leaf",
      doc=docs.TENSOR_REQUIRES_GRAD_, tags=("seed",),
      provenance="seed 002, In [2]")
def requires_grad_two_ways(torch, rec):
    x = torch.tensor(1., device=rec.device).requires_grad_()
    rec("torch.tensor(1.).requires_grad_()", x)
    x = torch.tensor(1., requires_grad=True, device=rec.device)
    rec("torch.tensor(1., requires_grad=True)", x)
