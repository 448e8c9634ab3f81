"""The forward-mode rules of the derivative table: how each entry's output tangent is computed.

Every entry of ``derivatives.py`` has a rule (``FormulaNode.forward_rule``, see
``myautograd/_autograd/forward.py``), one of:

* ``"elementwise"``: the entry's backward formulas with the tangent in place of the gradient,
  summed over the inputs. Exact for real element-wise ops, whose Jacobian is diagonal (PyTorch's
  generator derives their forward formulas so: ``auto_element_wise``); complex values take the
  fallback. Listed in ``ELEMENTWISE``.
* a function ``(tangents, values, F)``: written out here, and for the linear and structural entries
  (views, copies, pads, pools, writes, convolution...) in ``forward_rules_linear.py``. The linear
  ops are the op applied to the tangents (``LINEAR``, and ``mean``, ``sum``, ``cat``, ``stack``,
  ``embedding``, ``sort`` in ``RULES``); the others are their derivative written out (``mul``, ``div``, the matrix products,
  ``softmax``, ``std``...), as torch's derivatives.yaml writes them, which also gives torch's values
  where a transposed rule would give ``inf * 0``.
* ``"transpose"``: the fallback, now no entry's rule (a test keeps it so): the Jacobian-vector
  product as the gradient of the backward formulas' inner product with the tangents, in a dummy
  gradient. Complex values still take it where a rule is written for real ones.
* ``None``: torch has no forward formula (set in ``derivatives.py``).

The non-linear entries that are not element-wise in one input (reductions, losses, the backward
kernels recorded under ``create_graph``) have their rules in ``forward_rules_nonlinear.py``; the
views, linear, multilinear ops and writes theirs in ``forward_rules_linear.py``; ``install``
registers both with one call each.

A view's tangent is the same view of its base's tangent (``forward.view_tangents``); its rule
(``forward_rules_linear.VIEWS``) gives it where that view cannot be taken. Rules get the tangents
by input position (None: no tangent) and the values by the names the backward formulas use
(inputs, ``result``, saved arguments).
"""

from __future__ import annotations

from .._autograd import forward
from .._autograd.formulas import NODES
from .._grad_mode import STATE
from .._tensor import Tensor
from . import formula_helpers as H
from . import forward_rules_linear, forward_rules_nonlinear
from .forward_rules_linear import materialized as _materialized

ELEMENTWISE = (
    "NegBackward0", "ExpBackward0", "Exp2Backward0", "Expm1Backward0", "LogBackward0", "Log2Backward0",
    "Log10Backward0", "Log1PBackward0", "SinBackward0", "CosBackward0", "TanBackward0", "SinhBackward0",
    "CoshBackward0", "TanhBackward0", "AsinBackward0", "AcosBackward0", "AtanBackward0", "SigmoidBackward0",
    "ReluBackward0", "SqrtBackward0", "RsqrtBackward0", "ReciprocalBackward0", "SignBackward0",
    "RoundBackward0", "FloorBackward0", "CeilBackward0", "TruncBackward0", "FracBackward0",
    "ErfBackward0", "ErfcBackward0", "AsinhBackward0", "AcoshBackward0", "AtanhBackward0", "RoundBackward1",
    "PowBackward0", "PowBackward1", "PowBackward2", "ClampBackward1", "ClampMinBackward0", "ClampMaxBackward0",
    "ClampMinBackward1", "ClampMaxBackward1",
    "LeakyReluBackward0", "LeakyReluBackward1", "SiluBackward0", "MishBackward0", "SoftplusBackward0",
    "LogSigmoidBackward0", "EluBackward0", "EluBackward1", "CeluBackward0", "HardtanhBackward0",
    "HardswishBackward0", "NanToNumBackward0", "HardsigmoidBackward0", "HardshrinkBackward0", "SoftshrinkBackward0",
    "ThresholdBackward0", "ThresholdBackward1",
    "AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "RsubBackward0", "RsubBackward1", "MulBackward1",
    "DivBackward1",
    "DivBackward2", "RemainderBackward0", "RemainderBackward1", "FmodBackward0", "FmodBackward1",
    "WhereBackward0", "MaskedFillBackward0", "LerpBackward0", "LerpBackward1",
)


def _terms(*terms):
    """The sum of the terms that are not None (None when all are)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


def _times(tangent, factor):
    return None if tangent is None else tangent * factor


def _zero_product(tangent, partner, F):
    """``tangent * partner`` where a missing tangent is torch's: an efficient zero tensor, whose
    product is zeros (never NaN) that still depends on ``partner`` where ``partner`` is recorded
    (requires grad, grad mode on). So torch's tangent of ``x * 2`` requires grad when ``x`` does:
    the formula ``other_t * self + self_t * other`` multiplies ``x`` by the zero tangent of 2.
    None where no such term is recorded (a plain zero term changes nothing)."""
    if tangent is not None:
        return tangent * partner
    if isinstance(partner, Tensor) and partner._requires_grad and STATE.grad_enabled:
        return F.where(F.zeros_like(partner).bool(), partner, 0)
    return None


def _mul(tangents, values, F):
    """torch's ``other_t * self + self_t * other``."""
    return _terms(_zero_product(tangents[1], values["self"], F), _times(tangents[0], values["other"]))


def _div(tangents, values, F):
    """torch's ``(self_t - other_t * result) / other``: infinite, not NaN, where other is 0. A subtraction, from
    zeros where self has no tangent: for complex values it scales ``other_t * result`` as torch's sub does (an
    infinite part makes the other part NaN; ``arithmetic.scaled``), where a negation would not."""
    product = _zero_product(tangents[1], values["result"], F)
    if product is None:
        return tangents[0] / values["other"]
    if tangents[0] is not None:
        return (tangents[0] - product) / values["other"]
    return ((0 - product) if product.is_complex() else -product) / values["other"]


def _addcmul(tangents, values, F):
    """torch's ``self_t + value * (tensor1_t * tensor2 + tensor2_t * tensor1)``."""
    products = _terms(_zero_product(tangents[1], values["tensor2"], F), _zero_product(tangents[2], values["tensor1"], F))
    return _terms(tangents[0], _times(products, values["value"]))


def _addcdiv(tangents, values, F):
    """torch's ``self_t + value * (tensor1_t / tensor2 - tensor2_t * (tensor1 / tensor2) / tensor2)``."""
    tensor1, tensor2 = values["tensor1"], values["tensor2"]
    second = _zero_product(tangents[2], tensor1 / tensor2, F)
    quotients = _terms(None if tangents[1] is None else tangents[1] / tensor2,
                       None if second is None else -(second / tensor2))
    return _terms(tangents[0], _times(quotients, values["value"]))


def _select_between(greater_first: bool):
    """maximum/minimum as torch's: ``other_t + where(self == other, 0.5, self > other) * (self_t - other_t)``."""
    def rule(tangents, values, F):
        self, other = values["self"], values["other"]
        chosen = (self > other) if greater_first else (self < other)
        weight = F.where(self == other, 0.5, chosen.to(values["result"].dtype))
        self_t = tangents[0] if tangents[0] is not None else F.zeros_like(values["result"])
        other_t = tangents[1] if tangents[1] is not None else F.zeros_like(values["result"])
        return other_t + weight * (self_t - other_t)
    return rule


def _evenly(tangents, values, F):
    """max()/min() of all elements: the mean of the tangents where the input equals the result (NaN for a NaN input)."""
    mask = (values["self"] == values["result"]).to(tangents[0].dtype)
    return (mask * (tangents[0] / mask.sum())).sum()


def _softmax(tangents, values, F):
    result = values["result"]
    return result * (tangents[0] - _sum_over(tangents[0] * result, values["dim"]))


def _log_softmax(tangents, values, F):
    return tangents[0] - _sum_over(tangents[0] * values["result"].exp(), values["dim"])


def _sum_over(tensor, dim):
    """The sum over ``dim``, kept (a 0-dim tensor's sum over dim 0 is itself)."""
    return tensor.sum(dim, keepdim=True) if tensor.ndim else tensor


def _addmm(tangents, values, F):
    self_t, mat1_t, mat2_t = tangents
    mat1_t = _materialized(mat1_t, values["mat1"], values["mat2"], F)
    mat2_t = _materialized(mat2_t, values["mat2"], values["mat1"], F)
    products = _terms(None if mat1_t is None else mat1_t @ values["mat2"],
                      None if mat2_t is None else values["mat1"] @ mat2_t)
    return _scaled_terms(self_t, products, values)


def _baddbmm(tangents, values, F):
    """addmm's rule, batched: the batches are ``mat1`` and ``mat2``."""
    return _addmm(tangents, {"mat1": values["batch1"], "mat2": values["batch2"], "beta": values["beta"],
                             "alpha": values["alpha"]}, F)


def _addmv(tangents, values, F):
    """addmm's rule, ``mat`` times a vector."""
    return _addmm(tangents, {"mat1": values["mat"], "mat2": values["vec"], "beta": values["beta"],
                             "alpha": values["alpha"]}, F)


def _addbmm(tangents, values, F):
    """torch's ``beta * self_t + alpha * (batch1_t.bmm(batch2).sum(0) + batch1.bmm(batch2_t).sum(0))``."""
    self_t, batch1_t, batch2_t = tangents
    batch1, batch2 = values["batch1"], values["batch2"]
    batch1_t = _materialized(batch1_t, batch1, batch2, F)
    batch2_t = _materialized(batch2_t, batch2, batch1, F)
    products = _terms(None if batch1_t is None else (batch1_t @ batch2).sum(0),
                      None if batch2_t is None else (batch1 @ batch2_t).sum(0))
    return _scaled_terms(self_t, products, values)


def _addr(tangents, values, F):
    """torch's ``beta * self_t + alpha * (outer(vec1_t, vec2) + outer(vec1, vec2_t))``."""
    self_t, vec1_t, vec2_t = tangents
    vec1, vec2 = values["vec1"], values["vec2"]
    vec1_t = _materialized(vec1_t, vec1, vec2, F)
    vec2_t = _materialized(vec2_t, vec2, vec1, F)
    products = _terms(None if vec1_t is None else F.outer(vec1_t, vec2),
                      None if vec2_t is None else F.outer(vec1, vec2_t))
    return _scaled_terms(self_t, products, values)


def _scaled_terms(self_t, products, values):
    """``beta * self_t + alpha * products``, a factor of 1 left out (torch's ``maybe_multiply``)."""
    beta, alpha = values["beta"], values["alpha"]
    return _terms(None if self_t is None else (self_t if beta == 1 else self_t * beta),
                  None if products is None else (products if alpha == 1 else products * alpha))


def _cross(tangents, values, F):
    """torch's ``cross(self_t, other, dim) + cross(self, other_t, dim)``."""
    self, other, dim = values["self"], values["other"], values["dim"]
    self_t = _materialized(tangents[0], self, other, F)
    other_t = _materialized(tangents[1], other, self, F)
    return _terms(None if self_t is None else F.cross(self_t, other, dim),
                  None if other_t is None else F.cross(self, other_t, dim))


def _matrix_product(tangents, values, F):
    """torch's ``self_t @ other + self @ other_t``, a missing tangent zeros where its partner is recorded."""
    names = [name for name in values if name in ("self", "mat2", "vec", "tensor")]
    a, b = values[names[0]], values[names[1]]
    first = _materialized(tangents[0], a, b, F)
    second = _materialized(tangents[1], b, a, F)
    return _terms(None if first is None else _matmul(first, b), None if second is None else _matmul(a, second))


def _matmul(a, b):
    return (a * b).sum() if a.ndim == 1 and b.ndim == 1 else a @ b


def _mean(tangents, values, F):
    return _in_result_dtype(tangents[0], values).mean()


def _mean_dims(tangents, values, F):
    return _in_result_dtype(tangents[0], values).mean(values["dim"], keepdim=values["keepdim"])


def _sum(tangents, values, F):
    return _in_result_dtype(tangents[0], values).sum()


def _sum_dims(tangents, values, F):
    return _in_result_dtype(tangents[0], values).sum(values["dim"], keepdim=values["keepdim"])


def _nansum(tangents, values, F):
    """torch's: the tangent where ``self`` is not NaN, summed as nansum sums."""
    tangent = _in_result_dtype(tangents[0], values).masked_fill(values["self"].isnan(), 0)
    return tangent.sum() if values["dim"] is None else tangent.sum(values["dim"], keepdim=values["keepdim"])


def _embedding(tangents, values, F):
    return tangents[0][values["indices"]]


def _abs(tangents, values, F):
    """torch's: the tangent times the sign, or, for complex input, the real part of the conjugate of
    the tangent times the sign."""
    self = values["self"]
    if self.is_complex():
        return (F.conj(tangents[0]) * F.sgn(self)).real
    return tangents[0] * F.sgn(self)


def _sgn(tangents, values, F):
    """torch's: sgn's backward formula, a self-adjoint real-linear map, applied to the tangent (0 at 0; 0 for real input)."""
    return H.sgn_backward(F, tangents[0], values["self"], values["result"])


def _atan2(tangents, values, F):
    """torch's ``(other * self_t - self * other_t) / (self**2 + other**2)``: NaN at the origin."""
    self, other = values["self"], values["other"]
    return _terms(_times(tangents[0], other), _times(tangents[1], -self)) / (self * self + other * other)


def _clamp_tensors(tangents, values, F):
    """torch's clamp_jvp: the tangent of whichever of input, min and max the result took (max where min > max)."""
    self, low, high = values["self"], values["min"], values["max"]
    self_t, low_t, high_t = (t if t is not None else F.zeros_like(values["result"]) for t in tangents)
    if low is not None and high is not None:
        return F.where(low > high, high_t, F.where(self < low, low_t, F.where(self > high, high_t, self_t)))
    if low is not None:
        return F.where(self > low, self_t, low_t)
    return F.where(self < high, self_t, high_t)


def _in_result_dtype(tangent, values):
    """A reduction's tangent in the result's dtype where the op casts (``sum(dtype=...)``)."""
    result = values["result"]
    return tangent.to(result.dtype) if result.dtype != values["self"].dtype else tangent


def _zeros_without_grad_output(name: str):
    """For a backward kernel torch records (threshold_backward, max_pool's): zeros where only the
    forward input has a tangent (torch's ``zeros_like(self_t) + ...``), else the transposed rule."""
    def rule(tangents, values, F):
        if tangents[0] is None:
            return F.zeros_like(values["result"])
        return forward.transposed(NODES[name], tangents, values, F)
    return rule


def _mse_double_backward(tangents, values, F):
    """torch raises for a mean mse_loss whose target has no tangent (pytorch/pytorch#123996: its zero
    tangent is an immutable ZeroTensor written in place); the catalog checks the same exception."""
    if values["reduction"] == 1 and tangents[1] is not None and tangents[2] is None:
        raise RuntimeError("ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() "
                           "if you want a mutable tensor.")
    return forward.transposed(NODES["MseLossBackwardBackward0"], tangents, values, F)


def _sort(tangents, values, F):
    """The tangents taken in the values' order."""
    tangent = tangents[0]
    return tangent.gather(values["dim"], values["indices"]) if tangent.ndim else tangent.clone()


def _clone(tangents, values, F):
    return tangents[0].clone()


# -- linear ops: the op applied to the tangents ---------------------------------------------------
def _each_or_zeros(tangents, sizes, like, F):
    """Every input's tangent, zeros of its size for one without."""
    return [t if t is not None else F.zeros(size, like) for t, size in zip(tangents, sizes)]


def _cat(tangents, values, F):
    return F.cat(_each_or_zeros(tangents, values["tensors_args_sizes"], values["result"], F), values["dim"])


def _stack(tangents, values, F):
    size = values["result"].select(values["dim"], 0).shape
    return F.stack(_each_or_zeros(tangents, [size] * len(tangents), values["result"], F), values["dim"])


def _linear(apply):
    """A rule for an op of one tensor input, linear in it: ``apply(tangent, values)``."""
    def rule(tangents, values, F):
        return apply(tangents[0], values)
    return rule


LINEAR = {
    "ExpandBackward0": lambda t, v: t.expand(tuple(v["result"].shape)),
    "RepeatBackward0": lambda t, v: t.repeat(*v["repeats"]),
    "FlipBackward0": lambda t, v: t.flip(v["dims"]),
    "IndexSelectBackward0": lambda t, v: t.index_select(v["dim"], v["index"]),
    "GatherBackward0": lambda t, v: t.gather(v["dim"], v["index"]),
    "CumsumBackward0": lambda t, v: _in_result_dtype(t, v).cumsum(v["dim"]),
    "TraceBackward0": lambda t, v: t.trace(),
    "TrilBackward0": lambda t, v: t.tril(v["diagonal"]),
    "TriuBackward0": lambda t, v: t.triu(v["diagonal"]),
}


RULES = {
    "MulBackward0": _mul,
    "DivBackward0": _div,
    "AddcmulBackward0": _addcmul,
    "AddcdivBackward0": _addcdiv,
    "MaximumBackward0": _select_between(greater_first=True),
    "MinimumBackward0": _select_between(greater_first=False),
    "MaxBackward1": _evenly,
    "MinBackward1": _evenly,
    "MedianBackward0": _evenly,
    "NanmedianBackward0": _evenly,
    "SoftmaxBackward0": _softmax,
    "SafeSoftmaxBackward0": _softmax,
    "LogSoftmaxBackward0": _log_softmax,
    "MmBackward0": _matrix_product,
    "BmmBackward0": _matrix_product,
    "MvBackward0": _matrix_product,
    "DotBackward0": _matrix_product,
    "AddmmBackward0": _addmm,
    "BaddbmmBackward0": _baddbmm,
    "AddmvBackward0": _addmv,
    "AddbmmBackward0": _addbmm,
    "AddrBackward0": _addr,
    "LinalgCrossBackward0": _cross,
    "MeanBackward0": _mean,
    "MeanBackward1": _mean_dims,
    "SumBackward0": _sum,
    "SumBackward1": _sum_dims,
    "NansumBackward0": _nansum,
    "EmbeddingBackward0": _embedding,
    "CloneBackward0": _clone,
    "SortBackward0": _sort,
    "SortBackward1": _sort,
    "TopkBackward0": _sort,
    "CummaxBackward0": _sort,
    "CumminBackward0": _sort,
    "CatBackward0": _cat,
    "StackBackward0": _stack,
    "Atan2Backward0": _atan2,
    "SgnBackward0": _sgn,
    "AbsBackward0": _abs,
    "ClampBackward0": _clamp_tensors,
    "ThresholdBackwardBackward0": _zeros_without_grad_output("ThresholdBackwardBackward0"),
    **{name: _zeros_without_grad_output(name) for name in (
        f"{pool}{n}D{suffix}BackwardBackward0" for n in (2, 3)
        for pool, suffix in (("MaxPool", "WithIndices"), ("AdaptiveMaxPool", ""), ("FractionalMaxPool", "")))},
    "MseLossBackwardBackward0": _mse_double_backward,
}


def install() -> None:
    """Give the table's entries their forward rules (an entry left out keeps ``"transpose"``)."""
    forward_rules_linear.install()
    for name in ELEMENTWISE:
        NODES[name].forward_rule = "elementwise"
    for name, rule in RULES.items():
        NODES[name].forward_rule = rule
    for name, apply in LINEAR.items():
        NODES[name].forward_rule = _linear(apply)
    forward_rules_nonlinear.install()
