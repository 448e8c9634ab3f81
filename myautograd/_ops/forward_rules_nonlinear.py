"""The forward-mode rules of the table's non-linear entries that are not element-wise in one input.

Each rule is the entry's derivative written out as torch 2.13's derivatives.yaml writes its
``result:`` forward formula, over ``F`` and tensor methods (it runs on tensors, so that a tangent
that requires grad is recorded: forward-over-reverse). Writing them out, instead of taking the
fallback (``forward.transposed``: the gradient of the backward formulas' inner product with the
tangents), gives torch's values where the two differ at the edges: NaN for the mean of an empty
tensor, torch's own choices at ties, zeros and infinities.

Three kinds of entries are here:

* reductions (``amax``, ``max(dim)``, ``prod``, ``cumprod``, ``var``, ``var_mean``, ``logsumexp``,
  vector norms...) and losses: the derivative of each element, times the tangent, reduced as the
  op reduces (``_reduced_loss``, ``_prod``...);
* ``ELEMENTWISE``: entries element-wise in each input (the backward kernels of the activations
  recorded under ``create_graph``, ``xlogy``, ``gelu``): their Jacobians are diagonal, so their
  backward formulas with the tangent in place of the gradient are the forward rule (the
  ``"elementwise"`` rule of ``forward_rules.py``, as PyTorch's ``auto_element_wise``). A loss's
  backward kernel whose incoming gradient is a scalar (reduced loss) is element-wise too: the
  formula of that input applied to the scalar tangent is the kernel scaled by it;
* rules for backward kernels linear in their incoming gradient (``_softmax_backward_data``...): the
  kernel applied to that gradient's tangent, plus the derivative in the other inputs.

Complex values take the fallback, as the element-wise entries do (``_real_only``), except in the
rules of ``COMPLEX_RULES``.
"""

from __future__ import annotations

from .._autograd import forward
from .._autograd.formulas import NODES
from . import formula_helpers as H
from . import formula_helpers_nn as HN
from . import norm_math as N
from . import solve_math, svd_math

ELEMENTWISE = (
    "GeluBackward0", "GeluBackwardBackward0", "EluBackwardBackward0", "HardswishBackwardBackward0",
    "LogSigmoidBackwardBackward0",
    "SigmoidBackwardBackward0", "SoftplusBackwardBackward0", "TanhBackwardBackward0", "XlogyBackward0",
    "XlogyBackward1", "XlogyBackward2", "BinaryCrossEntropyBackwardBackward0", "SmoothL1LossBackwardBackward0",
)


# -- helpers ----------------------------------------------------------------------------------------
def _dims(dim, ndim: int) -> tuple:
    """The reduced dims, non-negative: all of them for None or ``()``."""
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(d % ndim for d in dims) if ndim else ()


def _summed(tensor, dims: tuple, keepdim: bool):
    """``tensor`` summed over ``dims`` (itself for none: a 0-dim input)."""
    return tensor.sum(dims, keepdim=keepdim) if dims else tensor


def _kept(tensor, dims: tuple, ndim: int, keepdim: bool, F):
    """A reduction's result with its reduced dims back (size 1), to broadcast against the input."""
    return tensor if keepdim or not dims else F.unsqueeze_dims(tensor, dims, ndim)


def _or_zeros(tangent, like, F):
    return tangent if tangent is not None else F.zeros_like(like)


def _real_only(rule, name: str):
    """``rule`` for real values; complex ones take the fallback (the rules here are written for real)."""
    def checked(tangents, values, F):
        if forward._complex(values):
            return forward.transposed(NODES[name], tangents, values, F)
        return rule(tangents, values, F)
    return checked


# -- reductions -------------------------------------------------------------------------------------
def _amax_amin(tangents, values, F):
    """torch's amaxamin_jvp: the mean of the tangents where the input equals the result."""
    return _mean_where_equal(tangents, values["self"], values["result"], values, F)


def _aminmax(tangents, values, F):
    """torch's aminmax_jvp: amin's and amax's, one for each output."""
    return [_mean_where_equal(tangents, values["self"], values[name], values, F) for name in ("result0", "result1")]


def _mean_where_equal(tangents, self, result, values, F):
    """The mean of the tangents where ``self`` equals ``result``, over the reduced dims."""
    dims = _dims(values["dim"], self.ndim)
    mask = self == _kept(result, dims, self.ndim, values["keepdim"], F)
    chosen = _summed(F.where(mask, tangents[0], 0), dims, values["keepdim"])
    return chosen / _summed(mask.to(chosen.dtype), dims, values["keepdim"])


def _max_min_dim(tangents, values, F):
    """max/min along a dim: the tangent at the index chosen (torch's gather_with_keepdimed_indices)."""
    tangent, dim, indices = tangents[0], values["dim"], values["indices"]
    if tangent.ndim == 0:
        return [tangent.clone(), None]
    dim = dim % tangent.ndim
    index = indices if values["keepdim"] else indices.unsqueeze(dim)
    chosen = tangent.gather(dim, index)
    return [chosen if values["keepdim"] else chosen.squeeze(dim), None]


def _logsumexp(tangents, values, F):
    """torch's logsumexp_jvp: the tangents weighted by exp(self - amax), over the sum of those weights."""
    self = values["self"]
    dims = _dims(values["dim"], self.ndim)
    weights = (self - self.amax(dims, keepdim=True)).exp() if self.numel() and dims else self.exp()
    return _summed(weights * tangents[0], dims, values["keepdim"]) / _summed(weights, dims, values["keepdim"])


def _logcumsumexp(tangents, values, F):
    """torch's logcumsumexp_jvp: the tangents weighted by exp(self - its max along dim), cumulatively
    summed, over the cumulative sum of those weights plus 1e-13 (torch's guard against a zero sum)."""
    self, tangent, dim = values["self"], tangents[0], values["dim"]
    if not self.numel():
        return tangent.clone()
    weights = (self - self.amax(dim, keepdim=True)).exp()
    return (weights * tangent).cumsum(dim) / (weights.cumsum(dim) + 1e-13)


def _vector_norm(tangents, values, F):
    """torch's norm_jvp, case by case of ``ord``."""
    self, tangent, norm, ord = values["self"], tangents[0], values["result"], values["ord"]
    dims, keepdim = _dims(values["dim"], self.ndim), values["keepdim"]
    if ord == 0:
        return F.zeros_like(norm)
    if ord == 1:
        return _summed(F.sgn(self) * tangent, dims, keepdim)
    if ord == 2:
        return F.masked_fill(_summed(self * tangent, dims, keepdim) / norm, norm == 0, 0)
    if ord in (float("inf"), float("-inf")):
        kept = _kept(norm, dims, self.ndim, keepdim, F)
        at_extreme = ((self.abs() == kept) | (F.isnan(self) & F.isnan(kept))).to(norm.dtype)
        count = _summed(at_extreme, dims, True)
        return _summed(F.sgn(self) * tangent * at_extreme / count, dims, keepdim)
    magnitude = self.abs()
    if ord < 1:
        powered = F.where(self == 0, 0, F.pow(magnitude, ord - 1))
        return _summed(powered * F.sgn(self) * tangent, dims, keepdim) * F.pow(norm, 1 - ord)
    if ord < 2:
        summed = _summed(F.pow(magnitude, ord - 1) * F.sgn(self) * tangent, dims, keepdim)
    else:
        summed = _summed(F.pow(magnitude, ord - 2) * self * tangent, dims, keepdim)
    return F.masked_fill(summed / F.pow(norm, ord - 1), norm == 0, 0)


def _prod(tangents, values, F):
    """torch's: the gradient for a gradient of ones (products of the others where there are zeros), times the tangent."""
    self, result = values["self"], values["result"]
    return (H.prod_backward(F, F.zeros_like(result) + 1, self, result) * tangents[0]).sum()


def _prod_dim(tangents, values, F):
    self, result, dim, keepdim = values["self"], values["result"], values["dim"], values["keepdim"]
    derivative = H.prod_dim_backward(F, F.zeros_like(result) + 1, self, result, dim, keepdim)
    product = derivative * tangents[0]
    return product.sum(dim % self.ndim, keepdim=keepdim) if self.ndim else product


def _cumprod(tangents, values, F):
    """torch's cumprod_jvp: ``cumsum(t / x) * result``; after a first zero along ``dim``, the
    cumulative product of the input with that zero replaced by its tangent (0 after a second zero)."""
    self, tangent, result, dim = values["self"], tangents[0], values["result"], values["dim"]
    zeros = self == 0
    if self.ndim == 0:
        return F.where(zeros, tangent, tangent / self * result)
    dim = dim % self.ndim
    generic = (tangent / self).cumsum(dim) * result
    first_zero = zeros & (zeros.to(self.dtype).cumsum(dim) == 1)
    after_zero = first_zero.to(self.dtype).cumsum(dim) > 0
    return F.where(after_zero, F.where(first_zero, tangent, self).cumprod(dim), generic)


def _variance(tangent, self, dim, correction, keepdim, F):
    """torch's var_jvp: the variance's gradient for the tangent as incoming gradient, summed over the
    reduced dims; for complex values, for the conjugate tangent, and its real part (the variance is real)."""
    dims = None if dim is None else _dims(dim, self.ndim)
    complex_values = self.is_complex()
    derivative = H.var_backward(F, F.conj(tangent) if complex_values else tangent, self, dims, correction, True)
    summed = _summed(derivative, _dims(dims, self.ndim), keepdim if dim is not None else False)
    return summed.real if complex_values else summed


def _mean(tangent, self, dim, keepdim):
    dims = _dims(dim, self.ndim)
    return tangent.mean(dims, keepdim=keepdim if dim is not None else False) if dims else tangent.clone()


def _var(tangents, values, F):
    return _variance(tangents[0], values["self"], values["dim"], values["correction"], values["keepdim"], F)


def _var_mean(tangents, values, F):
    tangent, self, dim, keepdim = tangents[0], values["self"], values["dim"], values["keepdim"]
    return [_variance(tangent, self, dim, values["correction"], keepdim, F), _mean(tangent, self, dim, keepdim)]


def _deviation(variance_tangent, std, F):
    """A standard deviation's tangent: the variance's over twice the deviation, 0 where that is 0
    (torch masks in place: MaskedFillBackward0)."""
    return F.masked_fill(variance_tangent / (2 * std), std == 0, 0)


def _std(tangents, values, F):
    variance = _variance(tangents[0], values["self"], values["dim"], values["correction"], values["keepdim"], F)
    return _deviation(variance, values["result"], F)


def _std_mean(tangents, values, F):
    tangent, self, dim, keepdim = tangents[0], values["self"], values["dim"], values["keepdim"]
    variance = _variance(tangent, self, dim, values["correction"], keepdim, F)
    return [_deviation(variance, values["result0"], F), _mean(tangent, self, dim, keepdim)]


# -- losses -----------------------------------------------------------------------------------------
def _reduction(values, reduction: int):
    """A loss's element-wise tangents reduced: none (0), mean (1) or sum (2), as torch's apply_loss_reduction."""
    if reduction == 1:
        return values.mean()
    return values.sum() if reduction == 2 else values


def _symmetric_loss(backward):
    """A loss of ``self - target`` (mse, smooth L1, Huber): ``backward(grad, a, b, **attrs)`` is its
    unreduced gradient in ``a``; the tangent is that gradient for each input's tangent, reduced."""
    def rule(tangents, values, F):
        self, target = values["self"], values["target"]
        terms = []
        if tangents[0] is not None:
            terms.append(backward(F, tangents[0], self, target, values))
        if tangents[1] is not None:
            terms.append(backward(F, tangents[1], target, self, values))
        total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
        return _reduction(total, values["reduction"])
    return rule


def _mse_terms(F, tangent, a, b, values):
    return 2 * (a - b) * tangent


def _smooth_l1_terms(F, tangent, a, b, values):
    return HN.smooth_l1_backward(F, tangent, a, b, 0, values["beta"])


def _huber_terms(F, tangent, a, b, values):
    return HN.huber_backward(F, tangent, a, b, 0, values["delta"])


def _binary_cross_entropy(tangents, values, F):
    self, target, weight = values["self"], values["target"], values["weight"]
    terms = []
    if tangents[0] is not None:
        terms.append(F.backward_op("BinaryCrossEntropyBackwardBackward0", tangents[0], self, target, weight=weight,
                                   reduction=0))
    if tangents[1] is not None:
        terms.append(HN.loss_scaled(F, -F.log(self / (1 - self)) * tangents[1], self, weight, 0))
    return _reduction(terms[0] if len(terms) == 1 else terms[0] + terms[1], values["reduction"])


def _binary_cross_entropy_with_logits(tangents, values, F):
    self, target, weight, pos_weight = values["self"], values["target"], values["weight"], values["pos_weight"]
    terms = []
    if tangents[0] is not None:
        terms.append(HN.bce_logits_backward(F, tangents[0], self, target, weight, pos_weight, 0))
    if tangents[1] is not None:
        terms.append(HN.bce_logits_target_backward(F, tangents[1], self, weight, pos_weight, 0))
    return _reduction(terms[0] if len(terms) == 1 else terms[0] + terms[1], values["reduction"])


def _soft_margin_loss(tangents, values, F):
    """Element-wise in the input: the unreduced backward kernel applied to the tangent, reduced."""
    target = values["target"]
    losses = F.backward_op("SoftMarginLossBackwardBackward0", tangents[0], values["self"],
                           target=F.array(target), reduction=0)
    return _reduction(losses, values["reduction"])


def _nll_loss(tangents, values, F):
    """Linear in the input: the loss of the tangent (torch's ``nll_loss_forward(self_t, ...)``)."""
    return HN.nll_double_backward(F, tangents[0], values["self"], values["target"], values["weight"],
                                 values["reduction"], values["ignore_index"], values["total_weight"])


def _nll_loss_backward(node: str):
    """The NLL gradient, linear in its incoming gradient and constant in the input: the gradient for
    the incoming gradient's tangent (none where only the input has one, as torch's)."""
    formula = HN.nll_formula(node)

    def rule(tangents, values, F):
        if tangents[0] is None:
            return None
        return formula(tangents[0], values["self"], values["target"], values["weight"], values["reduction"],
                       values["ignore_index"], values["total_weight"], F)
    return rule


# -- softmax's backward kernels and max pooling -------------------------------------------------------
def _softmax_backward_data(tangents, values, F):
    """``output * (g - sum(g * output))``: the kernel for g's tangent, plus the derivative in the output."""
    grad_output, output, dim = values["grad_output"], values["output"], values["dim"]
    grad_t, output_t = tangents
    terms = []
    if grad_t is not None:
        terms.append(HN.softmax_backward_data(F, grad_t, output, dim))
    if output_t is not None:
        dims = H.dims_of(dim, output)
        terms.append(output_t * (grad_output - F.sum(grad_output * output, dims, True))
                     - output * F.sum(grad_output * output_t, dims, True))
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _log_softmax_backward_data(tangents, values, F):
    """``g - exp(output) * sum(g)``: the kernel for g's tangent, plus the derivative in the output."""
    grad_output, output, dim = values["grad_output"], values["output"], values["dim"]
    grad_t, output_t = tangents
    terms = []
    if grad_t is not None:
        terms.append(HN.log_softmax_backward_data(F, grad_t, output, dim))
    if output_t is not None:
        terms.append(-output_t * F.exp(output) * F.sum(grad_output, H.dims_of(dim, output), True))
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def _masked_backward(tangents, values, F):
    """leaky_relu's and hardtanh's backward kernels: the kernel for the incoming gradient's tangent
    (none where only the forward input has one: torch's formula reads that tangent alone)."""
    tangent = tangents[0]
    return None if tangent is None else F.where(values["mask"], tangent, tangent * values["scale"])


def _max_pool(spatial: int):
    """The tangents at the positions a max pooling of ``spatial`` dims took (torch's gather of ``self_t``
    at the indices)."""
    def rule(tangents, values, F):
        return HN.max_pool_select(F, tangents[0], values["indices"], spatial)
    return rule


# -- glu and prelu --------------------------------------------------------------------------------------
def _glu(tangents, values, F):
    """torch's ``glu_jvp``: ``a_t * sigmoid(b) + a * sigmoid(b) * (1 - sigmoid(b)) * b_t``."""
    a, b = HN.glu_halves(F, values["self"], values["dim"])
    a_t, b_t = HN.glu_halves(F, tangents[0], values["dim"])
    gate = F.sigmoid(b)
    return a_t * gate + a * gate * (1 - gate) * b_t


def _glu_backward(tangents, values, F):
    return HN.glu_backward_tangent(F, tangents[0], tangents[1], values["grad_output"], values["self"], values["dim"])


def _prelu(tangents, values, F):
    """torch's ``where(self >= 0, self_t, weight * self_t + weight_t * self)`` (at 0 the input's tangent, where
    the backward kernel takes the weight's side: measured), each tangent as given."""
    self, weight = values["self"], values["weight"]
    positive = self >= 0
    from_input = None if tangents[0] is None else F.where(positive, tangents[0], weight * tangents[0])
    from_weight = None if tangents[1] is None else F.where(positive, 0, tangents[1] * self)
    if from_input is None or from_weight is None:
        return from_weight if from_input is None else from_input
    return from_input + from_weight


def _prelu_backward(tangents, values, F):
    """The tangents of prelu's backward kernel, torch's: the input's gradient reads the tangents of the incoming
    gradient and of the weight, the weight's those of the incoming gradient and of the input (none where those
    have none), self >= 0 the positive side."""
    grad_output_t, self_t, weight_t = tangents
    grad_output, self, weight = values["grad_output"], values["self"], values["weight"]
    positive = self >= 0
    if values["which"] == 0:
        return _sum_of([None if grad_output_t is None else F.where(positive, grad_output_t, grad_output_t * weight),
                        None if weight_t is None else F.where(positive, 0, grad_output * weight_t)])
    return _sum_of([None if grad_output_t is None else F.where(positive, 0, grad_output_t * self),
                    None if self_t is None else F.where(positive, 0, grad_output * self_t)])


# -- normalization ------------------------------------------------------------------------------------
def _sum_of(terms):
    terms = [term for term in terms if term is not None]
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _normalized_tangent(F, tangent, frame):
    """The tangent of the normalized values: ``rstd * P(t)`` (P as in the input gradient) with the batch's
    statistics, ``t * rstd`` with constant ones."""
    if frame.batch_stats:
        return N._input_grad(F, tangent, frame.xhat, frame.rstd, frame.dims)
    return tangent * frame.rstd


def _affine_tangent(F, frame, input_t, weight, weight_t, bias_t):
    """``xhat * weight + bias``'s tangent."""
    terms = []
    if input_t is not None:
        normalized_t = _normalized_tangent(F, input_t, frame)
        terms.append(normalized_t * frame.view(F, weight) if weight is not None else normalized_t)
    if weight_t is not None:
        terms.append(frame.xhat * frame.view(F, weight_t))
    if bias_t is not None:
        terms.append(frame.view(F, bias_t))
    return _sum_of(terms)


def _layer_frame(F, values):
    return N._layer_frame(F, values["input"], values["normalized_count"], values["eps"], 0)


def _batch_frame(F, values):
    return N._batch_frame(F, values["input"], values["running_mean"], values["running_var"], values["training"],
                          values["eps"], 0)


def _layer_norm(frame_of):
    def rule(tangents, values, F):
        input_t, weight_t, bias_t = tangents
        return _affine_tangent(F, frame_of(F, values), input_t, values["weight"], weight_t, bias_t)
    return rule


def _group_norm(tangents, values, F):
    """The output's tangent, and those of the mean and rstd of each group (the node's other outputs)."""
    input_t, weight_t, bias_t = tangents
    x, weight, mean, rstd, groups = values["input"], values["weight"], values["result1"], values["result2"], values["groups"]
    shape = tuple(x.shape)
    grouped = N._grouped(F, x, groups)
    rstd_k = F.unsqueeze(rstd, 2)
    xhat = (grouped - F.unsqueeze(mean, 2)) * rstd_k
    view = N._channel_view
    terms, mean_t, rstd_t = [], None, None
    if input_t is not None:
        grouped_t = N._grouped(F, input_t, groups)
        normalized_t = F.reshape(N._input_grad(F, grouped_t, xhat, rstd_k, (2,)), shape)
        terms.append(normalized_t * view(F, weight, x.ndim) if weight is not None else normalized_t)
        count = grouped.shape[2]
        mean_t = F.sum(grouped_t, (2,)) / count
        rstd_t = -(rstd * rstd) * (F.sum(xhat * (grouped_t - F.unsqueeze(mean_t, 2)), (2,)) / count)
    if weight_t is not None:
        terms.append(F.reshape(xhat, shape) * view(F, weight_t, x.ndim))
    if bias_t is not None:
        terms.append(view(F, bias_t, x.ndim))
    return [_sum_of(terms), mean_t, rstd_t]


def _norm_backward(frame_of, double_backward):
    """A layer's gradient ``which`` (0 input, 1 weight, 2 bias) as one op, on (grad_output, input, weight):
    the gradient of the incoming gradient's tangent and of the weight's (the gradient is linear in each);
    in the input, xhat's tangent for the weight's gradient, and for the input's the second derivative,
    which is symmetric: its backward formula with the tangent in place of the gradient."""
    def rule(tangents, values, F):
        grad_t, input_t, weight_t = tangents
        grad_output, weight, which = values["grad_output"], values["weight"], values["which"]
        frame = frame_of(F, values)
        terms = [None if grad_t is None else N._grad(F, grad_t, weight, which, frame)]
        if input_t is not None and which == 1:
            terms.append(_summed(grad_output * _normalized_tangent(F, input_t, frame), frame.weight_dims, False))
        if input_t is not None and which == 0:
            terms.append(double_backward(F, input_t, values))
        if weight_t is not None and which == 0:
            terms.append(N._grad(F, grad_output, weight_t, 0, frame))
        return _sum_of(terms)
    return rule


def _layer_norm_backward(tangents, values, F):
    """Layer norm's gradient as one op; torch gives the gradients of an empty input no tangent (measured: none of
    the three, whichever inputs are dual)."""
    if values["input"].numel() == 0:
        return None
    return _layer_norm_gradient(tangents, values, F)


def _layer_norm_second(F, tangent, values):
    return N.layer_norm_double_backward(F, tangent, values["grad_output"], values["input"], values["weight"],
                                        values["normalized_count"], values["eps"], 0, 1)


_layer_norm_gradient = _norm_backward(_layer_frame, _layer_norm_second)


def _batch_norm_second(F, tangent, values):
    return N.batch_norm_double_backward(F, tangent, values["grad_output"], values["input"], values["weight"],
                                        values["running_mean"], values["running_var"], values["training"],
                                        values["eps"], 0, 1)


RULES = {
    "AmaxBackward0": _amax_amin,
    "AminBackward0": _amax_amin,
    "AminmaxBackward0": _aminmax,
    "MaxBackward0": _max_min_dim,
    "MinBackward0": _max_min_dim,
    **dict.fromkeys(("KthvalueBackward0", "MedianBackward1", "NanmedianBackward1", "ModeBackward0"), _max_min_dim),
    "LogsumexpBackward0": _logsumexp,
    "LogcumsumexpBackward0": _logcumsumexp,
    "LinalgVectorNormBackward0": _vector_norm,
    "ProdBackward0": _prod,
    "ProdBackward1": _prod_dim,
    "CumprodBackward0": _cumprod,
    "MseLossBackward0": _symmetric_loss(_mse_terms),
    "SmoothL1LossBackward0": _symmetric_loss(_smooth_l1_terms),
    "HuberLossBackward0": _symmetric_loss(_huber_terms),
    "BinaryCrossEntropyBackward0": _binary_cross_entropy,
    "BinaryCrossEntropyWithLogitsBackward0": _binary_cross_entropy_with_logits,
    "SoftMarginLossBackward0": _soft_margin_loss,
    "NllLossBackward0": _nll_loss,
    "NllLoss2DBackward0": _nll_loss,
    "NllLossBackwardBackward0": _nll_loss_backward("NllLossBackwardBackward0"),
    "NllLoss2DBackwardBackward0": _nll_loss_backward("NllLoss2DBackwardBackward0"),
    "SoftmaxBackwardDataBackward0": _softmax_backward_data,
    "LogSoftmaxBackwardDataBackward0": _log_softmax_backward_data,
    **{f"{name}{n}D{suffix}Backward0": _max_pool(n) for n in (2, 3)
       for name, suffix in (("MaxPool", "WithIndices"), ("AdaptiveMaxPool", ""), ("FractionalMaxPool", ""))},
    "LeakyReluBackwardBackward0": _masked_backward,
    "HardtanhBackwardBackward0": _masked_backward,
    "HardshrinkBackwardBackward0": _masked_backward,
    "SoftshrinkBackwardBackward0": _masked_backward,
    "GluBackward0": _glu,
    "GluBackwardBackward0": _glu_backward,
    "PreluKernelBackwardBackward0": _prelu_backward,
    "PreluKernelBackward0": _prelu,
    "NativeLayerNormBackward0": _layer_norm(_layer_frame),
    "NativeBatchNormBackward0": _layer_norm(_batch_frame),
    "NativeGroupNormBackward0": _group_norm,
    "NativeLayerNormBackwardBackward0": _layer_norm_backward,
    "NativeBatchNormBackwardBackward0": _norm_backward(_batch_frame, _batch_norm_second),
    "LinalgSvdBackward0": svd_math.svd_jvp,
    "LinalgInvExBackward0": solve_math.inv_jvp,
    "LinalgSolveExBackward0": solve_math.solve_jvp,
    "LinalgDetBackward0": solve_math.det_jvp,
    "LinalgSlogdetBackward0": solve_math.slogdet_jvp,
}


# Rules written for complex values as well.
COMPLEX_RULES = {
    "VarBackward0": _var,
    "VarMeanBackward0": _var_mean,
    "StdBackward0": _std,
    "StdMeanBackward0": _std_mean,
}


def install() -> None:
    """Give this module's entries their forward rules."""
    for name in ELEMENTWISE:
        NODES[name].forward_rule = "elementwise"
    for name, rule in RULES.items():
        NODES[name].forward_rule = _real_only(rule, name)
    for name, rule in COMPLEX_RULES.items():
        NODES[name].forward_rule = rule
