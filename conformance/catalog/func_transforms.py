"""torch.func's differentiation transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``,
``jacrev``, ``jacfwd``, ``hessian``, and the compositions users write with them (per-sample gradients
with ``vmap(grad(f))``, Hessians as ``jacrev(jacrev(f))`` or ``jacfwd(jacrev(f))``, batched ``jvp``).

Each transform takes a function and gives a function; what is checked is what the documentation
promises of the result: its values, the structure it returns (``argnums`` as an int or a tuple,
``has_aux``), and the errors for functions it cannot transform. ``vmap`` itself, ``functional_call``
and the other utilities are the topic ``func_transforms_vmap``.
"""

import warnings

from .. import docs
from ..case import case
from ..operators.tolerances import CHAINED

BOTH = ("float32", "float64")


# -- grad and grad_and_value -----------------------------------------------------------------

@case("grad(f)(x) is the gradient of f's scalar value with respect to x, a plain tensor that does not "
      "require grad", doc=docs.FUNC_GRAD, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "func-transforms", "float64"))
def grad_of_a_scalar_function(torch, rec):
    func = torch.func
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device)
    gradient = func.grad(lambda t: (t.sin() * t).sum())(x)
    rec("grad of sum(sin(x) * x)", gradient)
    rec("x.grad afterwards", x.grad)


@case("grad's argnums picks the argument to differentiate: an int gives that argument's gradient, a "
      "negative int counts from the end, a tuple gives a tuple of gradients in its order",
      doc=docs.FUNC_GRAD, features=("non-scalar", "func-transforms"))
def grad_argnums_int_and_tuple(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([3.0, -1.0], device=rec.device)

    def f(a, b):
        return (a * a * b).sum()

    rec("grad(f)(x, y)", func.grad(f)(x, y))
    rec("grad(f, argnums=1)(x, y)", func.grad(f, argnums=1)(x, y))
    rec("grad(f, argnums=-2)(x, y)", func.grad(f, argnums=-2)(x, y))
    rec("grad(f, argnums=(1, 0))(x, y)", func.grad(f, argnums=(1, 0))(x, y))
    rec("grad(f, argnums=(0,))(x, y)", func.grad(f, argnums=(0,))(x, y))


@case("grad differentiates with respect to every tensor of a nested argument (a dict of a tensor and a "
      "list) and returns the gradients in the same structure", doc=docs.FUNC_GRAD,
      features=("non-scalar", "func-transforms"))
def grad_of_a_nested_argument(torch, rec):
    func = torch.func
    params = {"w": torch.tensor([1.0, 2.0], device=rec.device),
              "pair": [torch.tensor(3.0, device=rec.device), torch.tensor([0.5, -0.5], device=rec.device)]}

    def f(p):
        return (p["w"] * p["pair"][0]).sum() + (p["pair"][1] ** 2).sum()

    rec("grad(f)(params)", func.grad(f)(params))


@case("grad with has_aux=True takes f returning (output, aux) and gives (gradient, aux): aux is returned "
      "as f made it, a dict of tensors included", doc=docs.FUNC_GRAD,
      features=("non-scalar", "func-transforms"))
def grad_has_aux(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, -2.0, 3.0], device=rec.device)

    def f(t):
        loss = (t ** 2).sum()
        return loss, {"loss": loss, "doubled": t * 2}

    gradient, aux = func.grad(f, has_aux=True)(x)
    rec("gradient", gradient)
    rec("aux", aux)


@case("grad_and_value gives (gradient, value); with has_aux=True, (gradient, (value, aux)); with argnums "
      "a tuple, the gradient is a tuple", doc=docs.FUNC_GRAD_AND_VALUE,
      features=("non-scalar", "func-transforms"))
def grad_and_value_returns(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([-1.0, 0.5], device=rec.device)

    def f(a, b):
        return (a.exp() * b).sum()

    rec("grad_and_value(f)(x, y)", func.grad_and_value(f)(x, y))
    rec("grad_and_value(f, argnums=(0, 1))(x, y)", func.grad_and_value(f, argnums=(0, 1))(x, y))
    with_aux = func.grad_and_value(lambda a, b: (f(a, b), a.mean()), has_aux=True)(x, y)
    rec("grad_and_value(f, has_aux=True)(x, y)", with_aux)


@case("grad refuses a function whose output is not a scalar tensor, or not a tensor, and with has_aux=True "
      "one that does not return a pair", doc=docs.FUNC_GRAD, tags=("error",),
      features=("non-scalar", "func-transforms"))
def grad_of_a_non_scalar_or_non_tensor_output_raises(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with rec.attempt("grad(lambda t: t * 2)(x): a vector output"):
        func.grad(lambda t: t * 2)(x)
    with rec.attempt("grad(lambda t: t.sum().item())(x): a Python float"):
        func.grad(lambda t: t.sum().item())(x)
    with rec.attempt("grad(lambda t: (t.sum(), t.sum()))(x): a tuple"):
        func.grad(lambda t: (t.sum(), t.sum()))(x)
    with rec.attempt("grad(lambda t: t.sum(), has_aux=True)(x): no (output, aux) pair"):
        func.grad(lambda t: t.sum(), has_aux=True)(x)


@case("grad refuses an argnums beyond the positional arguments, and an integer input", doc=docs.FUNC_GRAD,
      tags=("error",), features=("non-scalar", "func-transforms", "integer-dtypes"))
def grad_of_bad_arguments_raises(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with rec.attempt("grad(f, argnums=1)(x) with one argument"):
        func.grad(lambda t: t.sum(), argnums=1)(x)
    with rec.attempt("grad(f)(an int64 tensor)"):
        func.grad(lambda t: t.sum())(torch.tensor([1, 2], dtype=torch.int64, device=rec.device))


@case("grad(grad(f)) is the second derivative, for every element of a batch computed elementwise",
      doc=docs.FUNC_GRAD, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("func-transforms", "float64"))
def grad_of_grad(torch, rec):
    func = torch.func
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor(0.75, dtype=dtype, device=rec.device)
    rec("grad(sin)(x)", func.grad(torch.sin)(x))
    rec("grad(grad(sin))(x)", func.grad(func.grad(torch.sin))(x))
    rec("grad(grad(grad(x ** 4)))(x)", func.grad(func.grad(func.grad(lambda t: t ** 4)))(x))


# -- vjp ---------------------------------------------------------------------------------------

@case("vjp(f, *primals) returns f's output and a function that takes cotangents and returns one "
      "vector-Jacobian product per primal, as a tuple; it can be called again", doc=docs.FUNC_VJP,
      features=("non-scalar", "func-transforms"))
def vjp_returns_output_and_function(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = torch.tensor([0.5, -1.0], device=rec.device)
    out, vjp_fn = func.vjp(lambda a, b: a * b + a.sin(), x, y)
    rec("out", out)
    rec("callable(vjp_fn)", callable(vjp_fn))
    rec("vjp_fn(ones)", vjp_fn(torch.ones(2, device=rec.device)))
    rec("vjp_fn(cotangent) again", vjp_fn(torch.tensor([2.0, -3.0], device=rec.device)))


@case("vjp with has_aux=True returns (output, vjp_fn, aux); for a tuple output, the cotangents are a tuple "
      "of the same structure", doc=docs.FUNC_VJP,
      features=("non-scalar", "func-transforms"))
def vjp_has_aux_and_tuple_outputs(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, -2.0], device=rec.device)
    out, vjp_fn, aux = func.vjp(lambda t: ((t * 3, t ** 2), {"sum": t.sum()}), x, has_aux=True)
    rec("out", out)
    rec("aux", aux)
    rec("vjp_fn((ones, ones))", vjp_fn((torch.ones(2, device=rec.device), torch.ones(2, device=rec.device))))


@case("vjp_fn refuses cotangents whose structure differs from the output's", doc=docs.FUNC_VJP, tags=("error",),
      features=("non-scalar", "func-transforms"))
def vjp_cotangent_structure_mismatch_raises(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0], device=rec.device)
    _, vjp_fn = func.vjp(lambda t: (t, t * 2), x)
    vjp_fn(torch.ones(2, device=rec.device))


# -- jvp and linearize -------------------------------------------------------------------------

@case("jvp(f, primals, tangents) takes tuples and returns (f(*primals), the Jacobian-vector product); "
      "with has_aux=True, aux third", doc=docs.FUNC_JVP, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "func-transforms", "forward-ad", "float64"))
def jvp_of_a_function(torch, rec):
    func = torch.func
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 1.0, -2.0], dtype=dtype, device=rec.device)
    y = torch.tensor([2.0, 0.0, 1.0], dtype=dtype, device=rec.device)
    vx = torch.tensor([1.0, -1.0, 0.5], dtype=dtype, device=rec.device)
    vy = torch.tensor([0.0, 2.0, 1.0], dtype=dtype, device=rec.device)
    rec("jvp(f, (x, y), (vx, vy))", func.jvp(lambda a, b: a.exp() * b, (x, y), (vx, vy)))
    rec("with has_aux=True", func.jvp(lambda a: (a.sin(), a.cos()), (x,), (vx,), has_aux=True))


@case("jvp refuses primals that are not a tuple, tangents of another structure, and a tangent of another "
      "shape than its primal", doc=docs.FUNC_JVP, tags=("error",),
      features=("non-scalar", "func-transforms", "forward-ad"))
def jvp_of_mismatched_tangents_raises(torch, rec):
    func = torch.func
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    v = torch.ones(2, 2, device=rec.device)
    with rec.attempt("jvp(f, [x], [v]): lists"):
        func.jvp(lambda a: a * 2, [x], [v])
    with rec.attempt("jvp(f, (x,), (v, v)): two tangents for one primal"):
        func.jvp(lambda a: a * 2, (x,), (v, v))
    with rec.attempt("jvp(f, (x,), (tangent of shape (2,),))"):
        func.jvp(lambda a: a * 2, (x,), (torch.ones(2, device=rec.device),))


@case("linearize(f, *primals) returns f's output and a function giving the Jacobian-vector product at "
      "those primals for any tangent, the same as jvp's", doc=docs.FUNC_LINEARIZE,
      features=("non-scalar", "func-transforms", "forward-ad"))
def linearize_gives_a_jvp_function(torch, rec):
    func = torch.func
    x = torch.tensor([0.5, 1.0, 2.0], device=rec.device)
    with warnings.catch_warnings():  # torch traces f with torch.fx, which warns of its own graph (not of f)
        warnings.filterwarnings("ignore", "Attempted to insert a get_attr Node", UserWarning)
        out, jvp_fn = func.linearize(lambda t: t.sin() * t, x)
    rec("out", out)
    for tangent in ([1.0, 0.0, 0.0], [1.0, 2.0, -1.0]):
        v = torch.tensor(tangent, device=rec.device)
        rec(f"jvp_fn({tangent})", jvp_fn(v))
        rec(f"jvp(...)[1] for {tangent}", func.jvp(lambda t: t.sin() * t, (x,), (v,))[1])


# -- Jacobians and Hessians --------------------------------------------------------------------

@case("jacrev(f)(x) is the Jacobian of f at x, outputs by rows; argnums as for grad; has_aux=True gives "
      "(jacobian, aux)", doc=docs.FUNC_JACREV,
      features=("non-scalar", "func-transforms", "vmap"))
def jacrev_of_a_function(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0, 3.0], device=rec.device)
    y = torch.tensor([0.5, -1.0], device=rec.device)

    def f(a, b):
        return torch.stack([a[0] * a[1], a[2] * b[0] + b[1] ** 2])

    rec("jacrev(f)(x, y): 2 x 3", func.jacrev(f)(x, y))
    rec("jacrev(f, argnums=1)(x, y): 2 x 2", func.jacrev(f, argnums=1)(x, y))
    rec("jacrev(f, argnums=(0, 1))(x, y)", func.jacrev(f, argnums=(0, 1))(x, y))
    rec("jacrev(f, has_aux=True)", func.jacrev(lambda a: (f(a, y), a.sum()), has_aux=True)(x))
    rec("jacrev(f, chunk_size=1)(x, y)", func.jacrev(f, chunk_size=1)(x, y))


@case("jacfwd(f)(x) is the same Jacobian as jacrev's, by forward mode; argnums and has_aux as for jacrev",
      doc=docs.FUNC_JACFWD,
      features=("non-scalar", "func-transforms", "vmap", "forward-ad"))
def jacfwd_of_a_function(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0, 3.0], device=rec.device)
    y = torch.tensor([0.5, -1.0], device=rec.device)

    def f(a, b):
        return torch.stack([a[0] * a[1], a[2] * b[0] + b[1] ** 2])

    rec("jacfwd(f)(x, y): 2 x 3", func.jacfwd(f)(x, y))
    rec("jacfwd(f, argnums=1)(x, y): 2 x 2", func.jacfwd(f, argnums=1)(x, y))
    rec("jacfwd(f, argnums=(0, 1))(x, y)", func.jacfwd(f, argnums=(0, 1))(x, y))
    rec("jacfwd(f, has_aux=True)", func.jacfwd(lambda a: (f(a, y), a.sum()), has_aux=True)(x))


@case("The Jacobian of a function of a matrix to a vector has shape output shape + input shape; of a "
      "tuple of outputs, a tuple of Jacobians", doc=docs.FUNC_JACREV,
      features=("non-scalar", "func-transforms", "vmap", "forward-ad"))
def jacobian_shapes(torch, rec):
    func = torch.func
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device)
    rec("jacrev(lambda m: m.sum(0))(x)", func.jacrev(lambda m: m.sum(0))(x))
    rec("jacfwd(lambda m: (m.sum(), m[0] * 2))(x)", func.jacfwd(lambda m: (m.sum(), m[0] * 2))(x))


@case("hessian(f)(x) is the matrix of second derivatives of f's scalar value, equal to jacrev(jacrev(f)) "
      "and to jacfwd(jacrev(f))", doc=docs.FUNC_HESSIAN, dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "func-transforms", "vmap", "forward-ad", "float64"))
def hessian_and_its_compositions(torch, rec):
    func = torch.func
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device)

    def f(t):
        return (t.sin() * t.flip(0)).sum() + (t ** 3).sum()

    rec("hessian(f)(x)", func.hessian(f)(x))
    rec("jacrev(jacrev(f))(x)", func.jacrev(func.jacrev(f))(x))
    rec("jacfwd(jacrev(f))(x)", func.jacfwd(func.jacrev(f))(x))
    rec("hessian(f, argnums=1)(z, x) of f(x)", func.hessian(lambda z, t: f(t) * z, argnums=1)(
        torch.tensor(2.0, dtype=dtype, device=rec.device), x))


@case("jacrev and jacfwd of a non-square function (R^3 -> R^2) give the 2 x 3 Jacobian, d output i / d input j "
      "at [i, j]; with several inputs (argnums) and outputs each block is output.shape + input.shape; hessian of "
      "two inputs of sizes 3 and 2 has 3 x 2 and 2 x 3 mixed blocks", doc=docs.FUNC_JACFWD, dtypes=BOTH,
      tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "func-transforms", "vmap", "forward-ad", "float64"))
def jacobians_of_non_square_functions(torch, rec):
    func = torch.func
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, -2.0, 1.5], dtype=dtype, device=rec.device)
    w = torch.tensor([[1.0, -0.5, 2.0], [0.25, 3.0, -1.0]], dtype=dtype, device=rec.device)
    y = torch.tensor([0.75, -1.25], dtype=dtype, device=rec.device)

    def f(t):
        return torch.stack([t[0] * t[1] + t[2].sin(), t[0] ** 2 - 3 * t[2] + t[1] * t[2]])

    def g(t, m):
        return m @ t.tanh(), (t * m[1]).sum() * t[0]

    def h(t, v):
        return (t[:2] * v).sum() * t[2] + (v ** 3).sum() + t[0] * v[1] ** 2

    rec("jacrev(f)(x)", func.jacrev(f)(x))
    rec("jacfwd(f)(x)", func.jacfwd(f)(x))
    rec("jacrev(f)(x) of a 1 x 3 input: 2 x 1 x 3", func.jacrev(lambda t: f(t[0]))(x.unsqueeze(0)))
    rec("jacfwd(f)(x) of a 1 x 3 input", func.jacfwd(lambda t: f(t[0]))(x.unsqueeze(0)))
    rec("jacrev(g, argnums=(0, 1))(x, w)", func.jacrev(g, argnums=(0, 1))(x, w))
    rec("jacfwd(g, argnums=(0, 1))(x, w)", func.jacfwd(g, argnums=(0, 1))(x, w))
    rec("jacfwd(g, argnums=1)(x, w): blocks 2 x 2 x 3 and 2 x 3", func.jacfwd(g, argnums=1)(x, w))
    rec("hessian(h, argnums=(0, 1))(x, y)", func.hessian(h, argnums=(0, 1))(x, y))
    rec("jacrev(jacfwd(h, argnums=1))(x, y): 2 x 3", func.jacrev(func.jacfwd(h, argnums=1))(x, y))


# -- compositions ------------------------------------------------------------------------------

@case("vmap(grad(loss), in_dims=(None, 0, 0)) gives per-sample gradients: the gradient of each sample's "
      "loss with respect to the shared weights, stacked", doc=docs.note(
          "per-sample-grads-the-efficient-way-using-function-transforms",
          "Per-sample-grads, the efficient way, using function transforms", page=docs.PER_SAMPLE_GRADS_TUTORIAL),
      dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "func-transforms", "vmap", "float64"))
def per_sample_gradients(torch, rec):
    func = torch.func
    dtype = getattr(torch, rec.dtype)
    weights = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], dtype=dtype, device=rec.device)
    inputs = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0], [2.0, 2.0, -2.0], [0.5, 0.5, 0.5]],
                          dtype=dtype, device=rec.device)
    targets = torch.tensor([0.0, 1.0, -1.0, 2.0], dtype=dtype, device=rec.device)

    def loss(w, sample, target):
        prediction = (w @ sample).tanh().sum()
        return (prediction - target) ** 2

    per_sample = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(weights, inputs, targets)
    rec("per-sample gradients", per_sample)
    rec("sample 2's gradient alone", func.grad(loss)(weights, inputs[2], targets[2]))


@case("vmap(jvp) pushes a batch of tangents through one function: each row is the Jacobian-vector product "
      "of its tangent", doc=docs.note("batch-jacobian-and-batch-hessian", "Batch Jacobian and Batch Hessian",
                                     page=docs.JACOBIANS_HESSIANS_TUTORIAL),
      features=("non-scalar", "func-transforms", "vmap", "forward-ad"))
def vmap_of_jvp(torch, rec):
    func = torch.func
    x = torch.tensor([1.0, 2.0, -0.5], device=rec.device)
    tangents = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, -1.0, 2.0]], device=rec.device)

    def push(v):
        return func.jvp(lambda t: t.exp() * t.sum(), (x,), (v,))[1]

    rec("vmap(push)(tangents)", func.vmap(push)(tangents))
    rec("jacfwd(f)(x) @ tangents.T, the same by columns", func.jacfwd(lambda t: t.exp() * t.sum())(x) @ tangents.T)


# -- what the transforms take ------------------------------------------------------------------

@case("A transform takes an operator itself as its function: jacrev(torch.sin), jacfwd(torch.sin), "
      "hessian(torch.sin) and vmap of jvp(torch.sin) give what the same through a lambda gives",
      doc=docs.FUNC_JACREV, tolerances=CHAINED.per_dtype(), features=("non-scalar", "func-transforms", "vmap", "forward-ad"))
def transform_of_an_operator_itself(torch, rec):
    func = torch.func
    x = torch.tensor([0.5, -1.0, 2.0], device=rec.device)
    rec("jacrev(torch.sin)(x)", func.jacrev(torch.sin)(x))
    rec("jacfwd(torch.sin)(x)", func.jacfwd(torch.sin)(x))
    rec("hessian(torch.sin)(x)", func.hessian(torch.sin)(x))
    tangents = torch.eye(3, device=rec.device)
    rec("vmap of jvp(torch.sin, (x,), (v,))", func.vmap(lambda v: func.jvp(torch.sin, (x,), (v,))[1])(tangents))
    rec("vjp(torch.exp, x)'s product", func.vjp(torch.exp, x)[1](torch.ones(3, device=rec.device)))


@case("grad and vjp take an inference tensor as input: its gradient is a normal tensor that does not require grad",
      doc=docs.FUNC_GRAD, features=("non-scalar", "func-transforms", "vmap", "inference-mode"))
def transforms_of_an_inference_tensor(torch, rec):
    func = torch.func
    with torch.inference_mode():
        x = torch.tensor([[0.4, 1.0, -0.7]], device=rec.device)
    w = torch.tensor([0.5, -1.0, 0.0], device=rec.device)

    def f(a, b):
        return ((a.abs() + a) * b).sum()

    gradient = func.grad(f)(x[0], w)
    rec("grad(f)(x[0], w)", gradient)
    rec("its is_inference()", gradient.is_inference())
    rec("vmap(grad(f), in_dims=(0, None))(x, w)", func.vmap(func.grad(f), in_dims=(0, None))(x, w))
    rec("vjp(f, x[0], w)'s products", func.vjp(f, x[0], w)[1](torch.tensor(1.0, device=rec.device)))


@case("jacrev of a function whose outputs are empty gives an empty Jacobian, which requires grad where the "
      "backward formulas read an input that does (leaky_relu's), and not where they do not (frac's)",
      doc=docs.FUNC_JACREV, features=("non-scalar", "func-transforms", "vmap", "nn"))
def jacrev_with_empty_outputs(torch, rec):
    func, F = torch.func, torch.nn.functional
    x = torch.tensor([1.0, -2.0, 3.0], device=rec.device, requires_grad=True)
    empty = torch.tensor([], device=rec.device, requires_grad=True)
    rec("jacrev(leaky_relu)(empty)", func.jacrev(lambda a: F.leaky_relu(a, 0.25))(empty))
    rec("jacrev(frac)(empty)", func.jacrev(torch.frac)(empty))
    rec("jacrev(leaky_relu of x[:0])(x)", func.jacrev(lambda a: F.leaky_relu(a[:0], 0.25))(x))
