"""The functional higher-level API: ``torch.autograd.functional`` (``jacobian``, ``hessian``, ``vjp``, ``jvp``,
``hvp``, ``vhp``).

Each function takes a Python function and its inputs (a tensor or a tuple of tensors) and returns the
derivative in the same structure: a tensor for a tensor, tuples for tuples (nested for ``jacobian`` and
``hessian``: per output, then per input). These cases check values and structure; ``v`` given and omitted;
``create_graph`` (the result differentiable; without it, detached); ``strict`` (the errors where an output
does not depend on an input, and the zeros without it); ``vectorize=True`` (built on vmap) with its
restrictions; ``strategy="forward-mode"`` and ``outer_jacobian_strategy`` (built on forward-mode AD); and the
errors for a function that returns something other than tensors and for a ``v`` of the wrong shape.
"""

from .. import docs
from ..case import case
from ..operators.tolerances import CHAINED

BOTH = ("float32", "float64")


# -- jacobian --------------------------------------------------------------------------------

@case("jacobian of a tensor function of a tensor is one tensor of shape output.shape + input.shape, detached",
      doc=docs.FUNCTIONAL_JACOBIAN, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "float64"))
def jacobian_single_input_and_output(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0], dtype=dtype, requires_grad=True, device=rec.device)
    matrix = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], dtype=dtype, device=rec.device)
    jac = rec("jacobian(lambda t: matrix @ t.sin(), x)",
              torch.autograd.functional.jacobian(lambda t: matrix @ t.sin(), x))
    rec("its shape", tuple(jac.shape))
    rec("jacobian of a scalar function: the gradient's shape",
        torch.autograd.functional.jacobian(lambda t: (t ** 3).sum(), x))
    rec("jacobian of a function of a 0-d tensor", torch.autograd.functional.jacobian(
        lambda t: t * torch.tensor([1.0, 2.0], dtype=dtype, device=rec.device),
        torch.tensor(3.0, dtype=dtype, device=rec.device)))
    rec("x.grad is untouched", x.grad)


@case("jacobian with tuple inputs and tuple outputs nests tuples: result[i][j] is d output i / d input j; "
      "a tuple of one input still gives tuples; a list of outputs is refused", doc=docs.FUNCTIONAL_JACOBIAN,
      features=("non-scalar",))
def jacobian_tuples_nest(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, -1.0, 0.5], device=rec.device)

    def f(a, b):
        return a * b.sum(), (a.unsqueeze(1) * b).sum(0)

    jac = rec("jacobian(f, (x, y))", torch.autograd.functional.jacobian(f, (x, y)))
    rec("shapes", [[tuple(block.shape) for block in row] for row in jac])
    rec("jacobian of one output, two inputs", torch.autograd.functional.jacobian(lambda a, b: a * b[:2], (x, y)))
    rec("jacobian of two outputs, one input", torch.autograd.functional.jacobian(lambda a: (a * 2, a.sum()), x))
    rec("jacobian with inputs=(x,)", torch.autograd.functional.jacobian(lambda a: a * 3, (x,)))
    with rec.attempt("a function returning a list of tensors"):
        torch.autograd.functional.jacobian(lambda a: [a * 2, a * 3], x)


@case("jacobian with create_graph=True gives a Jacobian that requires grad and can be differentiated; "
      "without it the Jacobian is detached even where the input requires grad", doc=docs.FUNCTIONAL_JACOBIAN,
      features=("non-scalar", "higher-order"))
def jacobian_create_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    plain = torch.autograd.functional.jacobian(lambda t: t ** 3, x)
    rec("without create_graph: requires_grad, grad_fn", (plain.requires_grad, plain.grad_fn is None))
    jac = torch.autograd.functional.jacobian(lambda t: t ** 3, x, create_graph=True)
    rec("with create_graph: the Jacobian", jac)
    rec("requires_grad, is_leaf", (jac.requires_grad, jac.is_leaf))
    jac.sum().backward()
    rec("x.grad after jac.sum().backward()", x.grad)


@case("jacobian(strict=True) raises where an output does not depend on an input, where an output does not "
      "depend on the inputs at all, and with create_graph where a derivative is a constant (the message names the "
      "output's index as the input's); strict=False gives zeros there", doc=docs.FUNCTIONAL_JACOBIAN, tags=("error",),
      features=("non-scalar", "higher-order"))
def jacobian_strict(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, 4.0], device=rec.device)
    constant = torch.tensor([5.0, 6.0], device=rec.device)
    with rec.attempt("strict: output 1 independent of input 0"):
        torch.autograd.functional.jacobian(lambda a, b: (a * b, b * 2), (x, y), strict=True)
    with rec.attempt("strict: the output independent of the inputs"):
        torch.autograd.functional.jacobian(lambda a: constant, x, strict=True)
    with rec.attempt("strict: the output is the input"):
        rec("jacobian(identity, strict=True)", torch.autograd.functional.jacobian(lambda a: a, x, strict=True))
    with rec.attempt("strict and create_graph: d output 1 / d input 0 is the constant 2"):
        torch.autograd.functional.jacobian(lambda a, b: (a * b, a * 2 + b * b), (x, y), create_graph=True,
                                           strict=True)
    rec("strict=False: output 1 independent of input 0",
        torch.autograd.functional.jacobian(lambda a, b: (a * b, b * 2), (x, y)))
    rec("strict=False: the output independent of the inputs",
        torch.autograd.functional.jacobian(lambda a: constant, x))


@case("jacobian(vectorize=True) computes the same Jacobian with one batched backward (vmap); it refuses "
      "strict=True", doc=docs.FUNCTIONAL_JACOBIAN, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "vmap", "float64", "higher-order", "autograd.grad"))
def jacobian_vectorize(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0], dtype=dtype, device=rec.device)
    y = torch.tensor([1.5, -0.5], dtype=dtype, device=rec.device)

    def f(a, b):
        return a.exp() * b.sum(), (a[:2] * b).prod()

    rec("vectorize=True", torch.autograd.functional.jacobian(f, (x, y), vectorize=True))
    rec("vectorize=False", torch.autograd.functional.jacobian(f, (x, y)))
    rec("vectorize=True, one input and output", torch.autograd.functional.jacobian(lambda a: a ** 2, x,
                                                                                   vectorize=True))
    rec("vectorize=True, an output independent of an input", torch.autograd.functional.jacobian(
        lambda a, b: a * 2, (x, y), vectorize=True))
    jac = torch.autograd.functional.jacobian(lambda a: a ** 3, x.requires_grad_(), vectorize=True, create_graph=True)
    rec("vectorize and create_graph: requires_grad", jac.requires_grad)
    rec("its gradient", torch.autograd.grad(jac.sum(), x))
    with rec.attempt("vectorize=True with strict=True"):
        torch.autograd.functional.jacobian(lambda a: a * 2, x, vectorize=True, strict=True)


@case("jacobian(strategy=\"forward-mode\", vectorize=True) computes the Jacobian by forward-mode AD, nested in "
      "lists where reverse mode gives tuples; without vectorize, with create_graph or with strict it raises, and "
      "an unknown strategy is refused",
      doc=docs.FUNCTIONAL_JACOBIAN, tags=("error",),
      features=("non-scalar", "forward-ad", "vmap", "higher-order"))
def jacobian_forward_mode(torch, rec):
    x = torch.tensor([0.5, 2.0, -1.0], device=rec.device)
    y = torch.tensor([1.5, -0.5], device=rec.device)

    def f(a, b):
        return a * b.sum(), b ** 2

    rec("forward-mode, vectorize=True",
        torch.autograd.functional.jacobian(f, (x, y), vectorize=True, strategy="forward-mode"))
    rec("one input and output", torch.autograd.functional.jacobian(lambda a: a.sin(), x, vectorize=True,
                                                                   strategy="forward-mode"))
    with rec.attempt("forward-mode without vectorize"):
        torch.autograd.functional.jacobian(f, (x, y), strategy="forward-mode")
    with rec.attempt("forward-mode with create_graph"):
        torch.autograd.functional.jacobian(f, (x, y), vectorize=True, strategy="forward-mode", create_graph=True)
    with rec.attempt("forward-mode with strict"):
        torch.autograd.functional.jacobian(f, (x, y), vectorize=True, strategy="forward-mode", strict=True)
    with rec.attempt("strategy=\"sideways\""):
        torch.autograd.functional.jacobian(f, (x, y), strategy="sideways")


@case("jacobian refuses inputs and outputs that are not tensors (TypeError naming the type and the index)",
      doc=docs.FUNCTIONAL_JACOBIAN, tags=("error",),
      features=("non-scalar",))
def jacobian_of_non_tensors_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with rec.attempt("a function returning a float"):
        torch.autograd.functional.jacobian(lambda a: 2.0, x)
    with rec.attempt("a function returning (tensor, float)"):
        torch.autograd.functional.jacobian(lambda a: (a * 2, 3.0), x)
    with rec.attempt("inputs a list of floats"):
        torch.autograd.functional.jacobian(lambda a: a, [1.0, 2.0])
    with rec.attempt("inputs (tensor, int)"):
        torch.autograd.functional.jacobian(lambda a, b: a * b, (x, 3))


# -- hessian ---------------------------------------------------------------------------------

@case("hessian of a scalar function of a tensor is a tensor of shape input.shape + input.shape; of tuple "
      "inputs, a tuple of tuples: result[i][j] is d2 f / d input i d input j", doc=docs.FUNCTIONAL_HESSIAN,
      dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "float64", "higher-order"))
def hessian_single_and_tuple_inputs(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([[0.5, 2.0], [-1.0, 1.5]], dtype=dtype, device=rec.device)
    y = torch.tensor([3.0, -2.0], dtype=dtype, device=rec.device)
    rec("hessian of sum(x ** 3 * sin(x))", torch.autograd.functional.hessian(lambda a: (a ** 3 * a.sin()).sum(), x))
    hess = rec("hessian of sum(a @ b ** 2)", torch.autograd.functional.hessian(lambda a, b: (a @ b ** 2).sum(),
                                                                               (x, y)))
    rec("shapes", [[tuple(block.shape) for block in row] for row in hess])
    rec("hessian with inputs=(y,)", torch.autograd.functional.hessian(lambda b: (b ** 4).sum(), (y,)))


@case("hessian with create_graph=True can be differentiated; without it the Hessian is detached",
      doc=docs.FUNCTIONAL_HESSIAN,
      features=("non-scalar", "higher-order", "autograd.grad"))
def hessian_create_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    plain = torch.autograd.functional.hessian(lambda t: (t ** 4).sum(), x)
    rec("without create_graph: requires_grad", plain.requires_grad)
    hess = rec("with create_graph", torch.autograd.functional.hessian(lambda t: (t ** 4).sum(), x, create_graph=True))
    rec("third derivative through it", torch.autograd.grad(hess.sum(), x))


@case("hessian(strict=True) raises for a linear function (its Jacobian does not depend on the input) and for an "
      "input the output does not depend on; strict=False gives zeros", doc=docs.FUNCTIONAL_HESSIAN, tags=("error",),
      features=("non-scalar", "higher-order"))
def hessian_strict(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, 4.0], device=rec.device)
    with rec.attempt("strict: a linear function"):
        torch.autograd.functional.hessian(lambda a: (a * 3).sum(), x, strict=True)
    with rec.attempt("strict: the output independent of input 1"):
        torch.autograd.functional.hessian(lambda a, b: (a ** 2).sum(), (x, y), strict=True)
    with rec.attempt("strict: the output independent of the input"):
        torch.autograd.functional.hessian(lambda a: y.sum(), x, strict=True)
    rec("strict=False: a linear function", torch.autograd.functional.hessian(lambda a: (a * 3).sum(), x))
    rec("strict=False: independent of input 1",
        torch.autograd.functional.hessian(lambda a, b: (a ** 2).sum(), (x, y)))


@case("hessian needs a function that returns a single tensor of one element", doc=docs.FUNCTIONAL_HESSIAN,
      tags=("error",),
      features=("non-scalar", "higher-order"))
def hessian_of_a_non_scalar_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with rec.attempt("a function returning a vector"):
        torch.autograd.functional.hessian(lambda a: a ** 2, x)
    with rec.attempt("a function returning a tuple"):
        torch.autograd.functional.hessian(lambda a: ((a ** 2).sum(), a.sum()), x)
    with rec.attempt("a function returning a float"):
        torch.autograd.functional.hessian(lambda a: 1.0, x)
    rec("a function returning a tensor of shape (1, 1)",
        torch.autograd.functional.hessian(lambda a: (a ** 3).sum().reshape(1, 1), x))


@case("hessian(vectorize=True) and outer_jacobian_strategy=\"forward-mode\" (forward over reverse) compute the "
      "same Hessian; forward-mode without vectorize raises, an unknown strategy is refused",
      doc=docs.FUNCTIONAL_HESSIAN, tags=("error",),
      features=("non-scalar", "vmap", "forward-ad", "higher-order"))
def hessian_vectorize_and_outer_strategy(torch, rec):
    x = torch.tensor([0.5, 2.0, -1.0], device=rec.device)
    y = torch.tensor([1.5, -0.5], device=rec.device)

    def f(a, b):
        return (a ** 3).sum() * b.prod()

    rec("reverse-mode, vectorize=False", torch.autograd.functional.hessian(f, (x, y)))
    rec("reverse-mode, vectorize=True", torch.autograd.functional.hessian(f, (x, y), vectorize=True))
    rec("forward-mode, vectorize=True", torch.autograd.functional.hessian(
        f, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode"))
    with rec.attempt("forward-mode without vectorize"):
        torch.autograd.functional.hessian(f, (x, y), outer_jacobian_strategy="forward-mode")
    with rec.attempt("outer_jacobian_strategy=\"sideways\""):
        torch.autograd.functional.hessian(f, (x, y), outer_jacobian_strategy="sideways")


# -- non-square Jacobians ----------------------------------------------------------------------------------------

def _non_square(torch):
    """f: R^3 -> R^2 whose Jacobian [[x1, x0, cos x2], [2 x0, x2, x1 - 3]] differs from every rearrangement of
    itself; g: a 3-vector and a 2 x 3 matrix to a 2-vector and a scalar; h: a 3-vector and a 2-vector to a
    scalar with mixed second derivatives."""
    def f(x):
        return torch.stack([x[0] * x[1] + x[2].sin(), x[0] ** 2 - 3 * x[2] + x[1] * x[2]])

    def g(x, w):
        return w @ x.tanh(), (x * w[1]).sum() * x[0]

    def h(x, y):
        return (x[:2] * y).sum() * x[2] + (y ** 3).sum() + x[0] * y[1] ** 2

    return f, g, h


@case("jacobian of a non-square function (R^3 -> R^2) is 2 x 3, d output i / d input j at [i, j], by every "
      "strategy; with several inputs and outputs each block is output_i.shape + input_j.shape; hessian's mixed "
      "blocks are 3 x 2 and 2 x 3, transposes of each other", doc=docs.FUNCTIONAL_JACOBIAN, dtypes=BOTH,
      tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "float64", "vmap", "forward-ad"))
def jacobian_of_a_non_square_function(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, -2.0, 1.5], dtype=dtype, device=rec.device)
    w = torch.tensor([[1.0, -0.5, 2.0], [0.25, 3.0, -1.0]], dtype=dtype, device=rec.device)
    y = torch.tensor([0.75, -1.25], dtype=dtype, device=rec.device)
    f, g, h = _non_square(torch)
    jacobian = torch.autograd.functional.jacobian
    rec("jacobian(f, x)", jacobian(f, x))
    rec("jacobian(f, x, vectorize=True)", jacobian(f, x, vectorize=True))
    rec("jacobian(f, x, forward-mode)", jacobian(f, x, vectorize=True, strategy="forward-mode"))
    rec("jacobian(f, x.unsqueeze(0)): 2 x 1 x 3", jacobian(lambda t: f(t[0]), x.unsqueeze(0)))
    jac = rec("jacobian(g, (x, w))", jacobian(g, (x, w)))
    rec("its block shapes", [[tuple(block.shape) for block in row] for row in jac])
    rec("jacobian(g, (x, w), vectorize=True)", jacobian(g, (x, w), vectorize=True))
    rec("jacobian(g, (x, w), forward-mode)", jacobian(g, (x, w), vectorize=True, strategy="forward-mode"))
    hess = rec("hessian(h, (x, y))", torch.autograd.functional.hessian(h, (x, y)))
    rec("its block shapes", [[tuple(block.shape) for block in row] for row in hess])
    rec("hessian(h, (x, y), vectorize=True)", torch.autograd.functional.hessian(h, (x, y), vectorize=True))


# -- vjp and jvp -----------------------------------------------------------------------------

@case("vjp returns the function's output and the vector-Jacobian product v^T J, shaped as the inputs; "
      "v may be omitted only for an output of one element", doc=docs.FUNCTIONAL_VJP, dtypes=BOTH,
      tolerances=CHAINED.per_dtype(), tags=("error",),
      features=("non-scalar", "float64"))
def vjp_values_and_v(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0], dtype=dtype, device=rec.device)
    y = torch.tensor([1.5, -0.5], dtype=dtype, device=rec.device)
    v = torch.tensor([1.0, -2.0], dtype=dtype, device=rec.device)
    rec("vjp(exp(x)[:2] * y, (x, y), v)", torch.autograd.functional.vjp(lambda a, b: a.exp()[:2] * b, (x, y), v))
    rec("one input, one output", torch.autograd.functional.vjp(lambda a: a.sin()[1:], x, v))
    rec("two outputs, v a tuple", torch.autograd.functional.vjp(
        lambda a: (a[:2] ** 2, a.sum()), x, (v, torch.tensor(3.0, dtype=dtype, device=rec.device))))
    rec("v omitted, a scalar output", torch.autograd.functional.vjp(lambda a: (a ** 2).sum(), x))
    rec("v omitted, an output of shape (1,)", torch.autograd.functional.vjp(lambda a: (a ** 2).sum(0, True), x))
    with rec.attempt("v omitted, an output of two elements"):
        torch.autograd.functional.vjp(lambda a: a[:2] * 2, x)
    with rec.attempt("v omitted, two outputs"):
        torch.autograd.functional.vjp(lambda a: (a.sum(), a.prod()), x)


@case("jvp returns the function's output and the Jacobian-vector product J v, shaped as the outputs; "
      "v may be omitted only for an input of one element", doc=docs.FUNCTIONAL_JVP, dtypes=BOTH,
      tolerances=CHAINED.per_dtype(), tags=("error",),
      features=("non-scalar", "float64", "higher-order"))
def jvp_values_and_v(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0], dtype=dtype, device=rec.device)
    y = torch.tensor([1.5, -0.5], dtype=dtype, device=rec.device)
    u = torch.tensor([1.0, -2.0, 0.5], dtype=dtype, device=rec.device)
    w = torch.tensor([2.0, 1.0], dtype=dtype, device=rec.device)
    rec("jvp(exp(x)[:2] * y, (x, y), (u, w))",
        torch.autograd.functional.jvp(lambda a, b: a.exp()[:2] * b, (x, y), (u, w)))
    rec("one input, two outputs", torch.autograd.functional.jvp(lambda a: (a.sin(), (a ** 2).sum()), x, u))
    scalar = torch.tensor(2.0, dtype=dtype, device=rec.device)
    rec("v omitted, a 0-d input", torch.autograd.functional.jvp(lambda a: a * y, scalar))
    with rec.attempt("v omitted, an input of three elements"):
        torch.autograd.functional.jvp(lambda a: a * 2, x)
    with rec.attempt("v omitted, two inputs"):
        torch.autograd.functional.jvp(lambda a, b: a * b, (scalar, scalar))


@case("vjp and jvp check v: a tuple of the wrong length, a tensor of the wrong size (the entry named), a tuple "
      "for a single tensor", doc=docs.FUNCTIONAL_VJP, tags=("error",),
      features=("non-scalar",))
def vjp_and_jvp_v_of_the_wrong_shape(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, 4.0, 5.0], device=rec.device)
    two = torch.tensor([1.0, 1.0], device=rec.device)
    three = torch.tensor([1.0, 1.0, 1.0], device=rec.device)
    with rec.attempt("vjp: v of size 3 for an output of size 2"):
        torch.autograd.functional.vjp(lambda a: a * 2, x, three)
    with rec.attempt("vjp: entry 1 of v of the wrong size"):
        torch.autograd.functional.vjp(lambda a: (a * 2, a.sum()), x, (two, two))
    with rec.attempt("vjp: v of one tensor for two outputs"):
        torch.autograd.functional.vjp(lambda a: (a * 2, a * 3), x, (two,))
    with rec.attempt("vjp: v of two tensors for one output"):
        torch.autograd.functional.vjp(lambda a: a * 2, x, (two, two))
    with rec.attempt("jvp: v of size 2 for an input of size 3"):
        torch.autograd.functional.jvp(lambda a: a * 2, y, two)
    with rec.attempt("jvp: entry 0 of v of the wrong size"):
        torch.autograd.functional.jvp(lambda a, b: a * b.sum(), (x, y), (three, three))
    with rec.attempt("jvp: v a float"):
        torch.autograd.functional.jvp(lambda a: a * 2, x, 1.0)
    with rec.attempt("vjp: a function returning a list of floats"):
        torch.autograd.functional.vjp(lambda a: [1.0, 2.0], x, two)


@case("vjp and jvp with create_graph=True return an output and a product that require grad and can be "
      "differentiated; without it both are detached", doc=docs.FUNCTIONAL_VJP,
      features=("non-scalar", "higher-order", "autograd.grad"))
def vjp_and_jvp_create_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    v = torch.tensor([1.0, -1.0], device=rec.device)
    out, product = torch.autograd.functional.vjp(lambda a: a ** 3, x, v)
    rec("vjp without create_graph: requires_grad", (out.requires_grad, product.requires_grad))
    out, product = torch.autograd.functional.vjp(lambda a: a ** 3, x, v, create_graph=True)
    rec("vjp with create_graph: requires_grad", (out.requires_grad, product.requires_grad))
    rec("d(vjp)/dx", torch.autograd.grad(product.sum(), x))
    out, product = torch.autograd.functional.jvp(lambda a: a ** 3, x, v)
    rec("jvp without create_graph: requires_grad", (out.requires_grad, product.requires_grad))
    out, product = torch.autograd.functional.jvp(lambda a: a ** 3, x, v, create_graph=True)
    rec("jvp with create_graph: requires_grad", (out.requires_grad, product.requires_grad))
    rec("d(jvp)/dx", torch.autograd.grad(product.sum(), x))


@case("vjp and jvp with strict=True raise where an output does not depend on the inputs or an input does not "
      "reach the outputs, and with create_graph for a linear function; strict=False gives zeros there",
      doc=docs.FUNCTIONAL_JVP, tags=("error",),
      features=("non-scalar", "higher-order"))
def vjp_and_jvp_strict(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, 4.0], device=rec.device)
    v = torch.tensor([1.0, 1.0], device=rec.device)
    with rec.attempt("vjp strict: the output independent of the inputs"):
        torch.autograd.functional.vjp(lambda a: y * 2, x, v, strict=True)
    with rec.attempt("vjp strict: the output independent of input 1"):
        torch.autograd.functional.vjp(lambda a, b: a * 2, (x, y), v, strict=True)
    with rec.attempt("jvp strict: the output independent of the inputs"):
        torch.autograd.functional.jvp(lambda a: y * 2, x, v, strict=True)
    with rec.attempt("jvp strict: the output independent of input 1"):
        torch.autograd.functional.jvp(lambda a, b: a * 2, (x, y), (v, v), strict=True)
    with rec.attempt("vjp strict and create_graph: a linear function"):
        torch.autograd.functional.vjp(lambda a: a * 2, x, v, create_graph=True, strict=True)
    with rec.attempt("jvp strict and create_graph: a linear function"):
        torch.autograd.functional.jvp(lambda a: a * 2, x, v, create_graph=True, strict=True)
    rec("vjp strict=False: independent of input 1", torch.autograd.functional.vjp(lambda a, b: a * 2, (x, y), v))
    rec("jvp strict=False: the output independent of the inputs",
        torch.autograd.functional.jvp(lambda a: y * 2, x, v))


# -- hvp and vhp -----------------------------------------------------------------------------

@case("hvp and vhp return the function's output and the Hessian-vector (H v) and vector-Hessian (v^T H) "
      "products, shaped as the inputs", doc=docs.FUNCTIONAL_HVP, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "float64", "higher-order"))
def hvp_and_vhp_values(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0], dtype=dtype, device=rec.device)
    y = torch.tensor([1.5, -0.5], dtype=dtype, device=rec.device)
    u = torch.tensor([1.0, -2.0, 0.5], dtype=dtype, device=rec.device)
    w = torch.tensor([2.0, 1.0], dtype=dtype, device=rec.device)

    def f(a, b):
        return (a ** 3 * a.sin()).sum() * (b ** 2).sum()

    rec("hvp(f, (x, y), (u, w))", torch.autograd.functional.hvp(f, (x, y), (u, w)))
    rec("vhp(f, (x, y), (u, w))", torch.autograd.functional.vhp(f, (x, y), (u, w)))
    rec("hvp, one input", torch.autograd.functional.hvp(lambda a: (a.exp() * a).sum(), x, u))
    rec("vhp, one input", torch.autograd.functional.vhp(lambda a: (a.exp() * a).sum(), x, u))
    scalar = torch.tensor(1.5, dtype=dtype, device=rec.device)
    rec("hvp, v omitted for a 0-d input", torch.autograd.functional.hvp(lambda a: a ** 4, scalar))
    rec("vhp, v omitted for an input of shape (1,)", torch.autograd.functional.vhp(lambda a: (a ** 4).sum(),
                                                                                   scalar.reshape(1)))


@case("hvp and vhp refuse a missing v for an input of several elements, a v of the wrong shape, and a function "
      "that does not return a single tensor of one element", doc=docs.FUNCTIONAL_VHP, tags=("error",),
      features=("non-scalar",))
def hvp_and_vhp_bad_arguments_raise(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    three = torch.tensor([1.0, 1.0, 1.0], device=rec.device)
    for name in ("hvp", "vhp"):
        product = getattr(torch.autograd.functional, name)
        with rec.attempt(f"{name}: v omitted, an input of two elements"):
            product(lambda a: (a ** 3).sum(), x)
        with rec.attempt(f"{name}: v of size 3"):
            product(lambda a: (a ** 3).sum(), x, three)
        with rec.attempt(f"{name}: v a tuple of two for one input"):
            product(lambda a: (a ** 3).sum(), x, (x, x))
        with rec.attempt(f"{name}: a function returning a vector"):
            product(lambda a: a ** 3, x, x)
        with rec.attempt(f"{name}: a function returning a tuple"):
            product(lambda a: ((a ** 3).sum(),), x, x)
        with rec.attempt(f"{name}: a function returning an int"):
            product(lambda a: 3, x, x)


@case("hvp and vhp with create_graph=True can be differentiated; without it the output and product are "
      "detached", doc=docs.FUNCTIONAL_HVP,
      features=("non-scalar", "higher-order", "autograd.grad"))
def hvp_and_vhp_create_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    v = torch.tensor([1.0, -1.0], device=rec.device)
    for name in ("hvp", "vhp"):
        product = getattr(torch.autograd.functional, name)
        out, plain = product(lambda a: (a ** 4).sum(), x, v)
        rec(f"{name} without create_graph: requires_grad", (out.requires_grad, plain.requires_grad))
        out, graph = product(lambda a: (a ** 4).sum(), x, v, create_graph=True)
        rec(f"{name} with create_graph: requires_grad", (out.requires_grad, graph.requires_grad))
        rec(f"d({name})/dx", torch.autograd.grad(graph.sum(), x))


@case("hvp and vhp with strict=True raise for a linear function, an input the output does not depend on, and "
      "an output independent of the inputs; strict=False gives zeros", doc=docs.FUNCTIONAL_HVP, tags=("error",),
      features=("non-scalar", "higher-order"))
def hvp_and_vhp_strict(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, 4.0], device=rec.device)
    for name in ("hvp", "vhp"):
        product = getattr(torch.autograd.functional, name)
        with rec.attempt(f"{name} strict: a linear function"):
            product(lambda a: (a * 3).sum(), x, x, strict=True)
        with rec.attempt(f"{name} strict: the output independent of input 1"):
            product(lambda a, b: (a ** 2).sum(), (x, y), (x, y), strict=True)
        with rec.attempt(f"{name} strict: the output independent of the inputs"):
            product(lambda a: y.sum(), x, x, strict=True)
        rec(f"{name} strict=False: a linear function", product(lambda a: (a * 3).sum(), x, x))
        rec(f"{name} strict=False: independent of input 1", product(lambda a, b: (a ** 2).sum(), (x, y), (x, y)))
