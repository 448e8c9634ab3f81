"""The helpers of the derivative table for the nn functions (``derivatives_nn.py`` and the forward rules):
losses, pooling and embedding, activations, softmax, glu and attention, each too long for one line.

Written once over ``F`` (arrays in a plain backward, tensors under ``create_graph``), as
``formula_helpers`` (the general ones, which these use) and the table's lambdas are.
"""

from __future__ import annotations

import math

import numpy as np

from .formula_helpers import dims_of, numel


def mse_backward(grad, self, target, reduction):
    scale = 2.0 / numel(self.shape) if reduction == 1 else 2.0
    return scale * (self - target) * grad


def mse_double_backward(F, grad, self, reduction):
    """mse_loss_backward's derivative in the input: 2 grad (over numel for a mean)."""
    doubled = F.mul_number(grad, 2.0)
    return F.div_number(doubled, numel(self.shape)) if reduction == 1 else doubled


def smooth_double_backward(F, grad, self, target, reduction, beta, divide: bool):
    """smooth_l1 (``divide``: by beta) and huber backward's derivative in the input: grad strictly
    inside (-beta, beta), 0 outside (over numel for a mean)."""
    x = self - target
    inside = grad * ((x > -beta) & (x < beta))
    if divide:
        inside = F.div_number(inside, beta)
    return F.div_number(inside, numel(self.shape)) if reduction == 1 else inside


def loss_norm(self, reduction) -> float:
    """The factor of a loss gradient: 1 / numel for a mean, else 1."""
    return 1.0 / numel(self.shape) if reduction == 1 else 1.0


def smooth_l1_backward(F, grad, self, target, reduction, beta):
    """torch's kernel: -1, x / beta, 1 (times the norm); the middle branch only strictly inside
    (-beta, beta), so that its derivative is zero at the boundary, as torch's double backward says."""
    x = self - target
    norm = loss_norm(self, reduction)
    return F.where(x <= -beta, -norm * grad, F.where(x >= beta, norm * grad, norm * x * grad / beta))


def huber_backward(F, grad, self, target, reduction, delta):
    x = self - target
    norm = loss_norm(self, reduction)
    return F.where(x <= -delta, -norm * grad * delta, F.where(x >= delta, norm * grad * delta, norm * x * grad))


def loss_scaled(F, values, self, weight, reduction):
    """A loss gradient times the weights, divided by numel for a mean (torch's C++ division by a
    number: DivBackward1 under create_graph)."""
    if weight is not None:
        values = values * weight
    return F.div_number(values, numel(self.shape)) if reduction == 1 else values


def bce_double_backward(F, grad, grad_output, self, target, weight, reduction):
    """torch's binary_cross_entropy_double_backward: the derivative of the input gradient in the input."""
    eps = 1e-12
    plus = self + eps
    minus = 1 - self + eps
    values = (self * self - 2 * self * target + target) / (plus * plus * (minus * minus)) * (grad * grad_output)
    return loss_scaled(F, values, self, weight, reduction)


def bce_double_backward_target(F, grad, grad_output, self, weight, reduction):
    values = -grad * grad_output
    if weight is not None:
        values = values * weight
    values = values / F.clamp_min((1 - self) * self, 1e-12)
    return values / numel(self.shape) if reduction == 1 else values


def nll_selection(shape: tuple, classes, ignore_index: int, weight):
    """What the NLL loss picks from an input of ``shape``: the index of each picked element,
    the classes with ignored ones replaced by 0, and each pick's weight (None: all weights 1)."""
    keep = classes != ignore_index
    if keep.all():
        safe, keep = classes, None
    else:
        safe = np.where(keep, classes, 0)
    if len(shape) == 2:
        key = (np.arange(shape[0]), safe)
    elif len(shape) > 2:
        grid = np.indices(safe.shape, sparse=True)
        key = (grid[0], safe) + tuple(grid[1:])
    else:
        key = (safe,)
    if weight is not None:
        weights = weight[safe] if keep is None else np.where(keep, weight[safe], 0)
    else:
        weights = None if keep is None else keep.astype(float)
    return key, safe, weights


def nll_backward(F, grad, self, target, weight, reduction, ignore_index, total_weight):
    if reduction == 1 and F.item(total_weight) == 0:
        return F.zeros_like(self)  # every target ignored: torch writes no gradient
    key, safe, weights = nll_selection(tuple(self.shape), F.array(target), ignore_index,
                                       None if weight is None else F.array(weight))
    scale = -1.0 if weights is None else -F.constant(weights, grad)
    if reduction == 1:
        scale = scale / F.item(total_weight)
    values = grad * scale if reduction == 0 else F.expand(grad, safe.shape) * scale
    return F.index_put_zeros(self.shape, grad, key, values, False)  # one element per row: no repeats


def _planes(indices, sizes, spatial: int):
    planes = numel(sizes[:-spatial])
    return planes, (np.arange(planes).reshape(-1, 1), indices.reshape(planes, -1))


def max_pool_backward(F, grad, self, indices, spatial: int, accumulate: bool = True):
    """Each window's gradient added at the input element it took (``indices`` into each plane of
    ``spatial`` dims); without ``accumulate``, put there, the last of repeated indices winning:
    max_unpool, whose tangent is its own placement of the input's tangent."""
    sizes = tuple(self.shape)
    planes, key = _planes(F.array(indices), sizes, spatial)
    summed = F.index_put_zeros((planes, numel(sizes[-spatial:])), grad, key, F.reshape(grad, (planes, -1)),
                               accumulate)
    return F.reshape(summed, sizes)


def max_pool_select(F, grad, indices, spatial: int):
    """The elements of ``grad`` (shaped as the input) that max pooling took: the pooling of ``grad``."""
    positions = F.array(indices)
    sizes = tuple(grad.shape)
    planes, key = _planes(positions, sizes, spatial)
    return F.reshape(F.index(F.reshape(grad, (planes, -1)), key), tuple(positions.shape))


def gather_pad_formula(node: str):
    """A reflection/replication pad's gradient: the kernel that adds each output's gradient at its
    source, recorded under create_graph as ``node``."""
    def formula(grad, self, key, F):
        return F.backward_op(node, grad, self, kernel="gather_pad_backward", key=key)

    return formula


def embedding_backward(F, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """Each row's gradient summed into the weight row it came from; none for ``padding_idx``; divided
    by how often each index occurs with ``scale_grad_by_freq``."""
    positions = F.array(indices).reshape(-1)
    width = grad.shape[-1]
    rows = F.reshape(grad, (-1, width))
    if scale_grad_by_freq:
        counts = np.bincount(np.asarray(positions.tolist(), dtype=np.int64), minlength=num_weights)
        rows = rows / F.constant(counts[positions.tolist()].reshape(-1, 1), rows)
    if padding_idx >= 0:
        keep = F.constant(np.asarray(positions.tolist()) != padding_idx, rows)
        rows = F.where(F.reshape(keep, (-1, 1)), rows, 0)
    return F.index_put_zeros((num_weights, width), grad, (positions,), rows, True)


def nll_formula(node: str):
    """The NLL loss's input gradient, the kernel ``nll_loss_backward`` recorded (under create_graph) as ``node``."""
    def formula(grad, self, target, weight, reduction, ignore_index, total_weight, F):
        return F.backward_op(node, grad, self, kernel="nll_loss_backward", target=target, weight=weight,
                             reduction=reduction, ignore_index=ignore_index, total_weight=total_weight)

    return formula


def nll_double_backward(F, grad, self, target, weight, reduction, ignore_index, total_weight):
    """The derivative of the NLL gradient in its incoming gradient: the NLL loss of ``grad`` itself."""
    key, safe, weights = nll_selection(tuple(self.shape), F.array(target), ignore_index,
                                       None if weight is None else F.array(weight))
    picked = F.index(grad, key)
    values = -picked if weights is None else picked * -F.constant(weights, grad)
    if reduction == 0:
        return values
    total = F.sum(values)
    return total / F.item(total_weight) if reduction == 1 else total


def bce_logits_backward(F, grad, self, target, weight, pos_weight, reduction):
    if pos_weight is None:
        values = F.sigmoid(self) - target
    else:
        scaled = pos_weight * target
        values = (scaled + 1 - target) * F.sigmoid(self) - scaled
    return loss_scaled(F, values * grad, self, weight, reduction)


def bce_logits_target_backward(F, grad, self, weight, pos_weight, reduction):
    if pos_weight is None:
        values = -self * grad
    else:
        values = (F.log_sigmoid(-self) - F.log_sigmoid(self) * pos_weight) * grad
    return loss_scaled(F, values, self, weight, reduction)


def mish_backward(F, grad, self):
    """torch's differentiable mish backward: tanh(softplus(x)) + x sigmoid(x) (1 - tanh(softplus(x))^2)."""
    sigmoid = 1 / (1 + F.exp(-self))
    tanh_softplus = F.tanh(F.log1p(F.exp(self)))
    return grad * (tanh_softplus + self * sigmoid * (1 - tanh_softplus * tanh_softplus))


def elu_double_backward(F, grad, grad_output, x, alpha, scale, input_scale, is_result):
    """The derivative of elu_backward in its input (or output): zero where x >= 0."""
    if is_result:
        return F.where(x < 0, grad * grad_output * input_scale, 0)
    inner = F.backward_op("EluBackwardBackward0", grad * grad_output * input_scale, x, alpha=alpha, scale=scale,
                          input_scale=input_scale, is_result=False)
    return F.where(x < 0, inner, 0)


def gelu_backward(F, grad, self, approximate):
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        inner = k * (self + 0.044715 * self * self * self)
        t = F.tanh(inner)
        return grad * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * k * (1 + 3 * 0.044715 * self * self))
    cdf = 0.5 * (1 + F.erf(self / math.sqrt(2.0)))
    pdf = F.exp(-0.5 * self * self) / math.sqrt(2.0 * math.pi)
    return grad * (cdf + self * pdf)


def gelu_second_derivative(F, self, approximate):
    """gelu''(x): pdf(x) (2 - x²) exactly; for the tanh approximation, with t = tanh(u),
    u = k (x + c x³) and u' = k (1 + 3 c x²): (1 - t²) (u' - x t u'² + 3 c k x²)."""
    if approximate == "tanh":
        k, c = math.sqrt(2.0 / math.pi), 0.044715
        t = F.tanh(k * (self + c * self * self * self))
        slope = k * (1 + 3 * c * self * self)
        return (1 - t * t) * (slope - self * t * slope * slope + 3 * c * k * self * self)
    pdf = F.exp(-0.5 * self * self) / math.sqrt(2.0 * math.pi)
    return pdf * (2 - self * self)


def softmax_input_gradient(grad, result, dim, F):
    """The gradient of softmax's input: torch's ``_softmax_backward_data`` kernel, with its own derivative."""
    return F.backward_op("SoftmaxBackwardDataBackward0", grad, result, dim=dim)


def softmax_backward_data(F, grad, output, dim):
    """softmax's backward kernel: ``(grad - sum(grad * output)) * output`` along ``dim``."""
    return (grad - F.sum(grad * output, dims_of(dim, output), True)) * output


def log_softmax_backward_data(F, grad, output, dim):
    """log_softmax's backward kernel: ``grad - exp(output) * sum(grad)`` along ``dim``."""
    return grad - F.exp(output) * F.sum(grad, dims_of(dim, output), True)


def softmax_double_backward(F, grad, grad_output, output, dim):
    """The derivative of softmax's backward in the forward output: for incoming ``grad``,
    ``grad_output (grad - sum(grad output)) - grad sum(grad_output output)``."""
    dims = dims_of(dim, output)
    return grad_output * (grad - F.sum(grad * output, dims, True)) - grad * F.sum(grad_output * output, dims, True)


def softplus_backward(F, grad, self, beta, threshold):
    """softplus's backward kernel: ``grad * sigmoid(beta x)``, ``grad`` where ``beta x`` passes the threshold."""
    scaled = self * beta
    return F.where(scaled > threshold, grad, grad * F.exp(scaled) / (F.exp(scaled) + 1))


def log_sigmoid_backward(F, grad, self):
    """logsigmoid's backward kernel: ``grad / (1 + exp(x))``."""
    return grad / (1 + F.exp(self))


def log_sigmoid_double_backward(F, grad, self):
    z = F.sigmoid(self)
    return grad * (z - 1) * z


def glu_halves(F, x, dim):
    """The two halves of ``x`` along ``dim`` that glu multiplies: ``a * sigmoid(b)``."""
    half = x.shape[dim] // 2
    return F.narrow(x, dim, 0, half), F.narrow(x, dim, half, half)


def glu_backward(F, grad, self, dim):
    """glu's gradient, both halves: ``grad * sigmoid(b)`` and ``grad * a * sigmoid(b) * (1 - sigmoid(b))``."""
    a, b = glu_halves(F, self, dim)
    gate = F.sigmoid(b)
    return F.cat((grad * gate, grad * a * gate * (1 - gate)), dim)


def glu_backward_in_grad_output(F, grad, self, dim):
    """The derivative of glu's gradient in the incoming gradient (it is linear in it), for the gradient ``grad``
    of both halves: ``grad_a * sigmoid(b) + grad_b * a * sigmoid'(b)``."""
    a, b = glu_halves(F, self, dim)
    grad_a, grad_b = glu_halves(F, grad, dim)
    gate = F.sigmoid(b)
    return grad_a * gate + grad_b * a * gate * (1 - gate)


def glu_backward_in_self(F, grad, grad_output, self, dim):
    """The derivative of glu's gradient in its input, for the gradient ``grad`` of both halves: in ``a``,
    ``grad_b * grad_output * sigmoid'(b)``; in ``b``, ``(grad_a + grad_b * a * (1 - 2 sigmoid(b))) * grad_output *
    sigmoid'(b)``."""
    a, b = glu_halves(F, self, dim)
    grad_a, grad_b = glu_halves(F, grad, dim)
    gate = F.sigmoid(b)
    slope = grad_output * gate * (1 - gate)
    return F.cat((grad_b * slope, (grad_a + grad_b * a * (1 - 2 * gate)) * slope), dim)


def glu_backward_tangent(F, grad_output_t, self_t, grad_output, self, dim):
    """The tangent of glu's gradient: the gradient of the incoming gradient's tangent, plus its derivative in the
    input along the input's tangent (halves ``grad_output * sigmoid'(b) * b_t`` and
    ``grad_output * (a_t sigmoid'(b) + a sigmoid''(b) b_t)``)."""
    terms = [] if grad_output_t is None else [glu_backward(F, grad_output_t, self, dim)]
    if self_t is not None:
        a, b = glu_halves(F, self, dim)
        a_t, b_t = glu_halves(F, self_t, dim)
        gate = F.sigmoid(b)
        slope = grad_output * gate * (1 - gate)
        terms.append(F.cat((slope * b_t, slope * (a_t + a * (1 - 2 * gate) * b_t)), dim))
    return None if not terms else terms[0] if len(terms) == 1 else terms[0] + terms[1]


# -- attention -------------------------------------------------------------------------------------
def safe_softmax(F, x, dim: int):
    """softmax over ``dim``, where a slice of -inf only gives zeros (torch's ``_safe_softmax``, which attention
    uses: a query whose keys are all masked attends to nothing). The largest value of each slice is subtracted
    as a constant: it cancels in the ratio, so every derivative is exact."""
    values = F.array(x)
    peak = values.max(dim, keepdims=True)
    empty = peak == -np.inf
    exps = F.exp(x - F.constant(np.where(empty, 0.0, peak), values))
    return exps / (F.sum(exps, (dim,), True) + F.constant(empty * 1.0, values))  # 0 / 1 where all are masked


def attention_probabilities(F, query, key, scale: float, bias):
    """``safe_softmax(query @ key^T * scale + bias)`` over the keys (``bias``: an additive mask array, or None)."""
    scores = F.mul_number(F.matmul(query, F.mT(key)), scale)
    if bias is not None:
        scores = scores + F.constant(bias, F.array(scores))
    return safe_softmax(F, scores, -1)


def attention_score_gradient(F, grad, query, key, value, scale: float, bias):
    """The gradient of the scaled scores of ``softmax(scores) @ value``: ``P * (dP - sum(dP * P))`` over the
    keys, where ``dP = grad @ value^T``."""
    p = attention_probabilities(F, query, key, scale, bias)
    dp = F.matmul(grad, F.mT(value))
    return p * (dp - F.sum(dp * p, (-1,), True))
