"""Numbers: derivative formulas whose bugs only values show, and float64 kept in float64.

Each case runs in float32 and float64 (``rec.dtype``) and compares within the tolerance class
of ``conformance.operators.tolerances`` that the computation needs, so a sign error, a missing
transpose or a wrong normalisation in a backward formula is caught, and so is float64 work done
in float32. Inputs are chosen so that the mistakes cannot cancel (non-square matrices,
non-uniform upstream gradients, reductions over a non-leading dim).
"""

from .. import docs
from ..case import case
from ..operators.tolerances import COMPOSITE, ELEMENTARY, EXACT, SUMMED

BOTH = ("float32", "float64")
BROADCASTING = docs.note("general-semantics", "General semantics", page=f"{docs.DOCS_ROOT}/notes/broadcasting.html")


@case("The derivative of sin is cos and the derivative of cos is -sin, at points of both signs",
      doc=docs.docstring("torch.sin"), dtypes=BOTH, tolerances=ELEMENTARY.per_dtype(),
      features=("non-scalar", "autograd.grad"))
def sin_cos_derivative_signs(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0, -2.5], dtype=dtype, requires_grad=True, device=rec.device)
    (d_sin,) = torch.autograd.grad(torch.sin(x).sum(), x)
    rec("d sin(x)/dx", d_sin)
    (d_cos,) = torch.autograd.grad(torch.cos(x).sum(), x)
    rec("d cos(x)/dx", d_cos)


@case("The derivative of tanh is 1 - tanh(x)**2, and its node is TanhBackward0",
      doc=docs.docstring("torch.tanh"), dtypes=BOTH, tolerances=ELEMENTARY.per_dtype(),
      features=("non-scalar", "autograd.grad"))
def tanh_derivative(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([-1.5, -0.2, 0.0, 0.7, 3.0], dtype=dtype, requires_grad=True, device=rec.device)
    y = rec("tanh(x)", torch.tanh(x))
    g = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0], dtype=dtype, device=rec.device)
    rec("vector-Jacobian product", torch.autograd.grad(y, x, g))


@case("mm's gradients are G @ B.T for A and A.T @ G for B: with non-square matrices a missing "
      "transpose gives wrong values or shapes", doc=docs.docstring("torch.mm"), dtypes=BOTH,
      tolerances=SUMMED.per_dtype(),
      features=("non-scalar", "autograd.grad"))
def mm_backward_transposes(torch, rec):
    dtype = getattr(torch, rec.dtype)
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], dtype=dtype, requires_grad=True, device=rec.device)
    b = torch.tensor([[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -2.0, 1.0], [3.0, 1.0, 0.5, -0.5]], dtype=dtype,
                     requires_grad=True, device=rec.device)
    g = torch.tensor([[1.0, -1.0, 2.0, 0.5], [0.0, 3.0, -2.0, 1.0]], dtype=dtype, device=rec.device)
    rec("gradients of A (2x3) and B (3x4)", torch.autograd.grad(a @ b, (a, b), g))


@case("var and std backward: 2 (x - mean) / (N - correction) for var, divided by 2 std for std",
      doc=docs.docstring("torch.var"), dtypes=BOTH, tolerances=COMPOSITE.per_dtype(),
      features=("non-scalar", "autograd.grad"))
def var_std_backward(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([[1.0, 2.0, 4.0, 7.0], [0.5, -1.0, 3.0, 2.0]], dtype=dtype, requires_grad=True, device=rec.device)
    rec("var over dim 1 (correction 1)", torch.autograd.grad(x.var(1).sum(), x))
    rec("var over dim 0, correction 0", torch.autograd.grad(x.var(0, correction=0).sum(), x))
    g = torch.tensor([2.0, -1.0], dtype=dtype, device=rec.device)
    rec("std over dim 1 with a non-uniform upstream gradient", torch.autograd.grad(x.std(1), x, g))
    rec("std of all elements", torch.autograd.grad(x.std(), x))


@case("log_softmax backward is g - softmax(x) * sum(g): with a non-uniform upstream gradient",
      doc=docs.docstring("torch.nn.functional.log_softmax"), dtypes=BOTH, tolerances=COMPOSITE.per_dtype(),
      features=("non-scalar", "autograd.grad", "nn"))
def log_softmax_backward(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]], dtype=dtype, requires_grad=True, device=rec.device)
    y = torch.nn.functional.log_softmax(x, dim=1)
    g = torch.tensor([[1.0, 0.0, -2.0], [0.5, 3.0, 1.0]], dtype=dtype, device=rec.device)
    rec("gradient over dim 1", torch.autograd.grad(y, x, g))
    z = torch.nn.functional.log_softmax(x, dim=0)
    rec("gradient over dim 0", torch.autograd.grad(z, x, g))


@case("The target gradient of binary_cross_entropy is (log(1 - p) - log(p)) / N",
      doc=docs.docstring("torch.nn.functional.binary_cross_entropy"), dtypes=BOTH, tolerances=COMPOSITE.per_dtype(),
      features=("non-scalar", "autograd.grad", "nn"))
def bce_target_gradient(torch, rec):
    dtype = getattr(torch, rec.dtype)
    p = torch.tensor([0.2, 0.7, 0.9, 0.5], dtype=dtype, requires_grad=True, device=rec.device)
    t = torch.tensor([0.0, 1.0, 0.3, 0.8], dtype=dtype, requires_grad=True, device=rec.device)
    loss = torch.nn.functional.binary_cross_entropy(p, t)
    rec("loss", loss)
    rec("gradients of p and t", torch.autograd.grad(loss, (p, t)))


@case("The target gradient of binary_cross_entropy_with_logits is -x / N, and pos_weight changes it",
      doc=docs.docstring("torch.nn.functional.binary_cross_entropy_with_logits"), dtypes=BOTH,
      tolerances=COMPOSITE.per_dtype(),
      features=("non-scalar", "autograd.grad", "nn"))
def bce_with_logits_target_gradient(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([-2.0, 0.5, 1.5, 3.0], dtype=dtype, requires_grad=True, device=rec.device)
    t = torch.tensor([0.0, 1.0, 0.3, 0.8], dtype=dtype, requires_grad=True, device=rec.device)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x, t)
    rec("gradients of x and t", torch.autograd.grad(loss, (x, t)))
    pw = torch.tensor([2.0, 0.5, 1.0, 3.0], dtype=dtype, device=rec.device)
    weighted = torch.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=pw)
    rec("gradients with pos_weight", torch.autograd.grad(weighted, (x, t)))


@case("l1_loss backward is sign(x - t) / N for the input and its negative for the target, 0 where they are equal",
      doc=docs.docstring("torch.nn.functional.l1_loss"), dtypes=BOTH, tolerances=EXACT.per_dtype(),
      features=("non-scalar", "autograd.grad", "nn"))
def l1_loss_backward(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([1.0, -2.0, 3.0, 0.5], dtype=dtype, requires_grad=True, device=rec.device)
    t = torch.tensor([0.0, 1.0, 3.0, 2.0], dtype=dtype, requires_grad=True, device=rec.device)
    rec("mean: gradients of x and t", torch.autograd.grad(torch.nn.functional.l1_loss(x, t), (x, t)))
    summed = torch.nn.functional.l1_loss(x, t, reduction="sum")
    rec("sum: gradients of x and t", torch.autograd.grad(summed, (x, t)))


@case("A reduction over a non-leading dim with keepdim=False sends each upstream gradient back along that dim",
      doc=docs.docstring("torch.sum"), dtypes=BOTH, tolerances=SUMMED.per_dtype(),
      features=("non-scalar", "autograd.grad"))
def reduction_over_middle_dim(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.arange(24, dtype=dtype, device=rec.device).reshape(2, 3, 4).requires_grad_()
    g = torch.tensor([[1.0, -1.0, 2.0, 0.5], [3.0, 0.0, -2.0, 1.0]], dtype=dtype, device=rec.device)
    rec("sum(1)", torch.autograd.grad(x.sum(1), x, g))
    rec("mean(1)", torch.autograd.grad(x.mean(1), x, g))
    rec("amax(1)", torch.autograd.grad(x.amax(1), x, g))
    h = torch.tensor([[1.0, -1.0, 2.0], [3.0, 0.0, -2.0]], dtype=dtype, device=rec.device)
    rec("prod(-1)", torch.autograd.grad((x / 10).prod(-1), x, h))


@case("Operands of different rank broadcast together: each gradient is the upstream gradient summed over "
      "that operand's broadcast dims", doc=BROADCASTING, dtypes=BOTH, tolerances=SUMMED.per_dtype(),
      features=("non-scalar", "autograd.grad"))
def broadcast_reductions_between_ranks(torch, rec):
    dtype = getattr(torch, rec.dtype)
    a = torch.tensor([[[1.0, 2.0, 3.0, 4.0]], [[0.5, -1.0, 2.0, 0.0]]], dtype=dtype, requires_grad=True,
                     device=rec.device)  # (2, 1, 4)
    b = torch.tensor([[2.0], [-1.0], [0.5]], dtype=dtype, requires_grad=True, device=rec.device)  # (3, 1)
    y = a * b  # (2, 3, 4)
    g = torch.arange(24, dtype=dtype, device=rec.device).reshape(2, 3, 4) - 11.5
    rec("gradients of a (2, 1, 4) and b (3, 1)", torch.autograd.grad(y, (a, b), g))
    c = torch.tensor([1.0, -2.0, 3.0, 0.5], dtype=dtype, requires_grad=True, device=rec.device)  # (4,)
    rec("gradients of a (2, 1, 4) and c (4,) through a - c", torch.autograd.grad(a - c, (a, c), g[:, :1, :]))


@case("tensor([0.1, 0.2], dtype=torch.float64) holds exactly the float64 values of 0.1 and 0.2, "
      "and item() and tolist() give them back", doc=docs.docstring("torch.tensor"), dtypes=("float64",),
      tolerances={"float64": (0.0, 0.0), "float": (0.0, 0.0)},
      features=("non-scalar", "float64"))
def float64_tensor_built_exactly(torch, rec):
    x = torch.tensor([0.1, 0.2], dtype=torch.float64, device=rec.device)
    rec("x", x)
    rec("x.tolist()", x.tolist())
    rec("x[0].item()", x[0].item())
    rec("x.sum().item()", x.sum().item())
    third = torch.tensor(1 / 3, dtype=torch.float64, device=rec.device)
    rec("torch.tensor(1 / 3, dtype=torch.float64).item()", third.item())


@case("float64 arithmetic stays in float64: 1e8 + 1 - 1e8 is 1, where float32 would give 0",
      doc=docs.docstring("torch.sum"), dtypes=("float64",), tolerances={"float64": (0.0, 0.0), "float": (0.0, 0.0)},
      features=("non-scalar", "float64"))
def float64_sum_keeps_precision(torch, rec):
    x = torch.tensor([1e8, 1.0, -1e8], dtype=torch.float64, device=rec.device)
    rec("x.sum()", x.sum())
    rec("x[0] + x[1] - x[0]", x[0] + x[1] - x[0])
    y = torch.tensor([16777216.0], dtype=torch.float64, device=rec.device) + 1
    rec("2**24 + 1", y)
    rec("cumsum", x.cumsum(0))


@case("Gradients of float64 leaves are computed in float64, to the last digits",
      doc=docs.TENSOR_BACKWARD, dtypes=("float64",), tolerances=ELEMENTARY.per_dtype(),
      features=("non-scalar", "float64"))
def float64_gradients(torch, rec):
    x = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64, requires_grad=True, device=rec.device)
    w = torch.tensor([1.1, -2.3, 0.7], dtype=torch.float64, requires_grad=True, device=rec.device)
    y = (torch.exp(x * w) + x * x * 3.3).sum()
    y.backward()
    rec("y", y)
    rec("x.grad", x.grad)
    rec("w.grad", w.grad)
    rec("x.grad.dtype", x.grad.dtype)


@case("batch_norm in training updates running_mean, then running_var, and only then reads weight and bias: "
      "a tensor passed as several of them is read updated; the kernel writes them behind autograd, so their "
      "_version does not change (found by the fuzzer)",
      doc=docs.docstring("torch.nn.functional.batch_norm"), dtypes=BOTH, tolerances=COMPOSITE.per_dtype(),
      features=("non-scalar", "nn", "version-counter"))
def batch_norm_running_stats_updated_before_the_affine_step(torch, rec):
    dtype = getattr(torch, rec.dtype)
    F = torch.nn.functional
    x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [3.0, 3.0, 1.0], [-2.0, 0.1, 0.3]], dtype=dtype,
                     device=rec.device)
    stats = torch.tensor([0.5, -1.5, 2.0], dtype=dtype, device=rec.device)
    rec("running_mean and running_var one tensor", F.batch_norm(x, stats, stats, training=True, momentum=0.3))
    rec("that tensor after", stats)
    shared = torch.tensor([0.5, -1.5, 2.0], dtype=dtype, device=rec.device)
    rec("every argument one tensor", F.batch_norm(x, shared, shared, shared, shared, training=True, momentum=0.3))
    rec("that tensor after", shared)
    rec("the versions of the two tensors written", [stats._version, shared._version])


@case("group_norm's node saves its input, the weight, and the mean and rstd it computed as outputs of its own: "
      "under create_graph the weight's gradient reads them, so it requires grad even when neither the input nor "
      "the output's gradient does, and its derivative flows back into the same node; modifying the input in place "
      "breaks the backward even when only the bias requires grad (found by the fuzzer)",
      doc=docs.docstring("torch.nn.functional.group_norm"), dtypes=BOTH, tolerances=COMPOSITE.per_dtype(),
      tags=("hard",),
      features=("non-scalar", "nn", "autograd.grad", "higher-order", "in-place", "version-counter", "views"))
def group_norm_saves_its_statistics_as_outputs(torch, rec):
    dtype = getattr(torch, rec.dtype)
    F = torch.nn.functional
    x = torch.tensor([[1.0, 2.0, 4.0, 0.5], [3.0, -1.0, 2.5, 2.0]], dtype=dtype, device=rec.device).reshape(2, 4, 1)
    w = torch.tensor([1.0, 2.0, 3.0, 0.5], dtype=dtype, device=rec.device, requires_grad=True)
    b = torch.tensor([0.5, -1.0, 0.0, 2.0], dtype=dtype, device=rec.device, requires_grad=True)
    (dw,) = torch.autograd.grad(F.group_norm(x, 2, w, b).sum(), w, create_graph=True)
    rec("d sum / d w, and whether it requires grad", [dw, dw.requires_grad, type(dw.grad_fn).__name__])
    (dw * torch.tensor([1.0, -2.0, 3.0, 0.5], dtype=dtype, device=rec.device)).sum().backward()
    rec("w.grad and b.grad after backward through the mean and rstd alone", [w.grad, b.grad])
    xr = x.clone().requires_grad_()
    y = F.group_norm(xr, 2, w, b)
    (dw,) = torch.autograd.grad((y * torch.arange(8.0, dtype=dtype, device=rec.device).view(2, 4, 1)).sum(), w,
                                create_graph=True)
    rec("the second derivative in the input, through the weight's gradient",
        torch.autograd.grad((dw * torch.tensor([1.0, -2.0, 3.0, 0.5], dtype=dtype, device=rec.device)).sum(), xr))
    only_bias = F.group_norm(x, 2, None, b)
    x.add_(1)
    only_bias.sum().backward()


@case("On the CPU, trace adds a float32 matrix's diagonal up in double precision and rounds once: a diagonal that "
      "cancels in float32 leaves a tiny positive trace, whose abs() has gradient +1 there, not 0 "
      "(found by the fuzzer)",
      doc=docs.docstring("torch.trace"), devices=("cpu",), tags=("hard",),
      features=("non-scalar", "autograd.grad"))
def trace_of_float32_adds_up_in_double_on_cpu(torch, rec):
    x = torch.tensor([[-0.1, 0.6, -0.4], [1.0, -1.6, -0.5], [-1.75, -1.75, 1.7]], requires_grad=True)
    t = x.trace()
    rec("x.trace()", t)
    rec("the diagonal summed in float32", x.diagonal().sum())
    rec("d |trace| / d x", torch.autograd.grad(t.abs(), x))


@case("batch_norm's node saves running_mean and running_var in training mode too, though its gradients there "
      "read only the batch's statistics: modifying one in place after the forward fails the backward "
      "(found by the fuzzer)",
      doc=docs.docstring("torch.nn.functional.batch_norm"), tags=("hard", "error"),
      features=("non-scalar", "nn", "in-place", "version-counter"))
def batch_norm_saves_the_running_statistics_in_training(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[-0.3, -1.5, 0.75], [-1.5, -1.2, 1.25], [-0.1, -1.4, -0.3]], requires_grad=True,
                     device=rec.device)
    mean, var = torch.zeros(3, device=rec.device), torch.ones(3, device=rec.device)
    y = F.batch_norm(x, mean, var, training=True, momentum=0.5)
    mean.add_(1)
    rec("running_mean's version", mean._version)
    y.sum().backward()


@case("On the CPU, a column times a row (mm with an inner size of 1, several rows and columns) is formed from "
      "the products themselves, so 0 * -1.7 stays -0.0, which atan2 tells from +0.0; with one row or one "
      "column the product is summed from +0.0 (found by the fuzzer)",
      doc=docs.docstring("torch.mm"), devices=("cpu",), tags=("hard",),
      features=("non-scalar",))
def outer_product_by_mm_keeps_signed_zeros_on_cpu(torch, rec):
    column = torch.tensor([[1.0], [-0.5], [0.0]], requires_grad=True)
    row = torch.tensor([[-1.7, -0.6]])
    minus_one = torch.tensor(-1.0)
    rec("atan2(column @ row, -1)", torch.atan2(column @ row, minus_one))
    rec("atan2(column[2:] @ row, -1)", torch.atan2(column[2:] @ row, minus_one))
    rec("atan2(column @ row[:, :1], -1)", torch.atan2(column @ row[:, :1], minus_one))
