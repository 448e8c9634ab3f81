"""The helpers of the derivative table (``derivatives.py``): formulas too long for one line.

Each is written once over ``F`` (arrays in a plain backward, tensors under ``create_graph``), as
the table's lambdas are, and reads only what its table entry passes it.
"""

from __future__ import annotations

import math

import numpy as np

from .._autograd.formula_math import doubled_middle, kind_of

# -- helpers shared by several formulas --------------------------------------------------------


def between(x, low, high):
    """Mask of elements within [low, high] (either bound may be None)."""
    if low is None:
        return x <= high
    if high is None:
        return x >= low
    return (x >= low) & (x <= high)


def evenly(F, grad, self, result):
    """Gradient of a full max/min: split evenly among the elements equal to the result (the NaNs,
    when the result is NaN)."""
    mask = F.isnan(self) if F.item(result) != F.item(result) else self == result
    count = F.constant(F.array(mask).sum(), grad)  # in grad's dtype: NumPy would divide in float64
    return F.where(mask, grad / count, 0)


def evenly_dims(F, grad, self, result, dim, keepdim):
    """Gradient of amax/amin over ``dim``: split evenly among ties along the reduced dims. (A 0-dim
    input's reduced dim is restored, as torch's, as a dim of size 1, and the gradient summed back.)"""
    if not keepdim:
        grad = F.unsqueeze_dims(grad, dim, max(self.ndim, 1))
        result = F.unsqueeze_dims(result, dim, max(self.ndim, 1))
    mask = self == result
    count = F.constant(F.array(mask).sum(axis=tuple(dim) if mask.ndim else None, keepdims=True), grad)  # grad's dtype
    scaled = grad / count * mask  # as torch's scale_grad_by_count: NaN where no element equals a NaN result
    return F.sum_to(scaled, ()) if scaled.ndim > self.ndim else scaled


def restore_dims(F, grad, dim, keepdim, sizes):
    """The gradient of a reduction over ``dim`` spread back over the input's sizes."""
    if not keepdim:
        grad = F.unsqueeze_dims(grad, dim, len(sizes))
    return F.expand(grad, sizes)


def reduced_count(sizes, dim) -> int:
    count = 1
    for d in dim:
        count *= sizes[d % len(sizes)] if sizes else 1
    return count


def _skipped_by_cat(size) -> bool:
    """A 1-dim empty tensor, which cat skips whatever the other inputs' shapes (a legacy rule)."""
    return len(size) == 1 and size[0] == 0


def cat_input_grad(F, grad, dim, sizes, index):
    """Input ``index``'s part of cat's gradient: its slice along ``dim``, after the inputs before it
    (those cat skipped take no room); a skipped input's is a fresh empty tensor, as torch's."""
    if _skipped_by_cat(sizes[index]):
        return F.zeros((0,), grad)
    offset = sum(size[dim] for size in sizes[:index] if not _skipped_by_cat(size))
    return F.narrow(grad, dim, offset, sizes[index][dim])


def inverse_permutation(dims):
    inverse = [0] * len(dims)
    for position, d in enumerate(dims):
        inverse[d % len(dims)] = position
    return tuple(inverse)


def numel(sizes) -> int:
    count = 1
    for size in sizes:
        count *= size
    return count


def at(dim: int, index) -> tuple:
    """An index that picks ``index`` along ``dim`` and everything along the dims before it."""
    return (slice(None),) * dim + (index,)


def index_select_key(dim: int, index, sizes) -> tuple:
    """Where index_select took its elements: ``index`` along ``dim``; of a 0-dim input (whose one
    index is 0), the input itself."""
    return at(dim, index.reshape(-1)) if len(sizes) else ()


def diagonal_key(sizes, offset, dim1, dim2) -> tuple:
    ndim = len(sizes)
    dim1, dim2 = dim1 % ndim, dim2 % ndim
    rows = np.arange(max(0, -offset), min(sizes[dim1], sizes[dim2] - offset))
    cols = rows + offset
    key = [slice(None)] * ndim
    key[dim1], key[dim2] = rows, cols
    return tuple(key)


def trace_key(sizes) -> tuple:
    """The flat positions of a matrix's diagonal (every ``columns + 1``-th element), as an index key."""
    rows, columns = sizes
    return (np.arange(0, min(rows, columns) * (columns + 1), columns + 1),)


def diagonal_backward(F, grad, sizes, offset, dim1, dim2):
    """A diagonal's gradient (the diagonal in its last dim) put back in zeros of ``sizes``. Indexed by
    ``diagonal_key``, the diagonal sits where the first of its dims is when the two are adjacent,
    else first (NumPy's rule for index arrays): ``grad`` is lined up on that first."""
    ndim = len(sizes)
    first, second = dim1 % ndim, dim2 % ndim
    at, last = (min(first, second) if abs(first - second) == 1 else 0), grad.ndim - 1
    if at != last:
        grad = F.permute(grad, tuple(range(at)) + (last,) + tuple(range(at, last)))
    return F.backward_op("DiagonalBackwardBackward0", grad, kernel="placed", sizes=tuple(sizes),
                         key=diagonal_key(sizes, offset, dim1, dim2))


def masked_select_backward(F, grad, self, mask):
    """The selected elements' gradients put back where the (broadcast) mask holds."""
    shape = tuple(np.broadcast_shapes(tuple(self.shape), tuple(mask.shape)))
    full_mask = np.broadcast_to(F.array(mask), shape)
    return F.sum_to(F.index_put_zeros(shape, grad, (full_mask,), grad, False), tuple(self.shape))


def value_selecting(F, grad, dim, indices, sizes, keepdim):
    """Backward of max/min along ``dim``: the gradient goes to the selected index."""
    index = F.array(indices)
    if not keepdim and len(sizes):
        index = np.expand_dims(index, dim)
        grad = F.unsqueeze(grad, dim)
    return F.scatter_into_zeros(sizes, grad, dim, index, grad, False)


def scatter_positions(F, grad, positions, sizes):
    """Backward of a strided view: each element's gradient added at its position in the base."""
    flat = F.index_put_zeros((numel(sizes),), grad, (positions.reshape(-1),), F.reshape(grad, (-1,)), True)
    return F.reshape(flat, sizes)


def ones_of(sizes) -> tuple[int, ...]:
    """The dimensions of size one of ``sizes`` (those ``squeeze()`` removes)."""
    return tuple(d for d, n in enumerate(sizes) if n == 1)


def unsqueeze_to(F, grad, dims, sizes):
    """torch's ``unsqueeze_to``, a squeeze's gradient: each of ``dims`` (a dim or several, as given) that
    had size one in ``sizes`` put back, in increasing order, one unsqueeze each."""
    ndim = len(sizes)
    for d in sorted({d % ndim for d in ((dims,) if isinstance(dims, int) else dims)}) if ndim else ():
        if sizes[d] == 1:
            grad = F.unsqueeze(grad, d)
    return grad


def dims_of(dim, x):
    """A softmax's dim as reduction dims: none for a 0-dim tensor (every dim: itself)."""
    return (dim,) if x.ndim else None


def reversed_cumsum(F, x, dim):
    """Sums from each position to the end of ``dim`` (cumsum's backward)."""
    if x.ndim == 0:
        return x * 1
    return F.flip(F.cumsum(F.flip(x, (dim,)), dim), (dim,))


def prod_safe_zeros_backward(F, grad, x, dim):
    """The gradient of a product along ``dim`` that stays right (also its derivative) where ``x`` has
    zeros: each element's factor is the product of the ones before it times the ones after it."""
    size = x.shape[dim]
    if numel(x.shape) == 0:
        return F.expand(grad, x.shape)
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    ones = F.ones(ones_shape, grad)
    before = F.cumprod(F.cat([ones, F.narrow(x, dim, 0, size - 1)], dim), dim)
    after = F.flip(F.cumprod(F.cat([ones, F.flip(F.narrow(x, dim, 1, size - 1), (dim,))], dim), dim), (dim,))
    return grad * (before * after)


def prod_backward(F, grad, self, result):
    """torch's: ``grad * (result / x)`` without zeros; with zeros, products of the others."""
    if self.ndim == 0:
        return grad * 1
    zeros = F.item(F.sum(self == 0))
    if zeros == 0:
        return grad * (result / self)
    if zeros > 1 and not kind_of(self).recording:
        return F.zeros_like(self)
    flat = prod_safe_zeros_backward(F, F.reshape(grad, (1,)), F.reshape(self, (-1,)), 0)
    return F.reshape(flat, self.shape)


def prod_dim_backward(F, grad, self, result, dim, keepdim):
    if self.ndim == 0:
        return grad * 1
    dim = dim % self.ndim
    if not keepdim:
        grad = F.unsqueeze(grad, dim)
        result = F.unsqueeze(result, dim)
    if F.item(F.sum(self == 0)) == 0:
        return grad * (result / self)
    return prod_safe_zeros_backward(F, grad, self, dim)


def cumprod_backward(F, grad, self, result, dim):
    """torch's: the reversed cumulative sum of ``grad * result`` over ``x`` without zeros; with
    zeros, for each position k the sum over i >= k of grad_i times the product of x_j, j <= i, j != k,
    written into position k of a zero tensor (recorded as CopySlices under create_graph, as torch's)."""
    if numel(self.shape) <= 1:
        return grad * 1
    dim = dim % self.ndim
    size = self.shape[dim]
    if size == 1:
        return grad * 1
    if F.item(F.sum(self == 0)) == 0:
        return reversed_cumsum(F, result * grad, dim) / self
    ones_shape = list(self.shape)
    ones_shape[dim] = 1
    ones = F.ones(ones_shape, grad)
    grad_input = F.zeros(self.shape, grad)
    for k in range(size):
        if k == 0:
            omitted = F.cat([ones, F.cumprod(F.narrow(self, dim, 1, size - 1), dim)], dim)
        else:
            until_k = F.prod(F.narrow(self, dim, 0, k), dim, True)
            if k == size - 1:
                omitted = until_k
            else:
                after = F.cumprod(F.narrow(self, dim, k + 1, size - k - 1), dim)
                omitted = F.cat([until_k, F.expand(until_k, after.shape) * after], dim)
        grad_input[at(dim, k)] = F.sum(F.narrow(grad, dim, k, size - k) * omitted, (dim,))
    return grad_input


def var_backward(F, grad, self, dim, correction, keepdim):
    dims = tuple(range(self.ndim)) if dim is None else tuple(dim)
    count = numel([self.shape[d] for d in dims]) if self.ndim else 1
    if dim is not None and not keepdim:
        grad = F.unsqueeze_dims(grad, dims, self.ndim)
    mean = F.sum(self, dims, True) / count
    degrees = count - correction
    if degrees <= 0 and (dim is None or self.ndim == 0):
        # torch's closed form for a whole-tensor reduction with no degree of freedom: 2 / 0 times
        # (self - mean) is NaN where self equals the mean (inf * 0) and inf elsewhere, NaN included;
        # real numbers, also for a complex input (whose gradient is then NaN + 0j, not NaN + NaNj)
        like = F.real(self) if is_complex(self) else self
        return grad * F.where(self == mean, F.constant(math.nan, like), F.constant(math.inf, like))
    scale = 2.0 / degrees if degrees else math.copysign(math.inf, degrees)  # as C++ divides: 2 / 0 is inf
    return scale * grad * (self - mean)


def output_grad(grads, index):
    """The gradient of output ``index`` of a multi-output node, None when it got none."""
    return grads[index] if index < len(grads) else None


def var_mean_backward(F, grad_var, grad_mean, self, dim, correction, keepdim):
    """The gradient through var_mean's (or std_mean's, given d var) outputs, those that got one."""
    total = None if grad_var is None else var_backward(F, grad_var, self, dim, correction, keepdim)
    if grad_mean is not None:
        dims = tuple(range(self.ndim)) if dim is None else tuple(dim)
        count = numel([self.shape[d] for d in dims]) if self.ndim else 1
        if dim is not None and not keepdim:
            grad_mean = F.unsqueeze_dims(grad_mean, dims, self.ndim)
        spread = F.expand(grad_mean, self.shape) / count
        total = spread if total is None else total + spread
    return total


def norm_backward(F, grad, self, result, ord, dim, keepdim):
    """torch's gradient of a vector norm, case by case of ``ord``; none at all for the count of
    nonzero elements (``ord`` 0), as torch's."""
    if ord == 0:
        return None
    if dim is not None and not keepdim:
        grad = F.unsqueeze_dims(grad, dim, self.ndim)
        result = F.unsqueeze_dims(result, dim, self.ndim)
    if ord == 1:
        return F.sgn(self) * grad
    if ord == 2:
        return grad * F.where(result == 0, 0, self / result)
    if ord in (float("inf"), float("-inf")):
        magnitude = F.abs(self)
        mask = (magnitude == result) | F.isnan(magnitude)
        count = F.sum(mask, None if dim is None else tuple(dim), True)
        return F.sgn(self) * F.where(mask, grad / count, 0)
    if ord < 1:
        scaled = F.sgn(self) * F.where(self == 0, 0, F.pow(F.abs(self), ord - 1))
        return scaled * grad * F.pow(result, 1 - ord)
    scale = F.where(result == 0, 0, grad / F.pow(result, ord - 1))
    if ord < 2:
        return F.sgn(self) * F.pow(F.abs(self), ord - 1) * scale
    return self * F.pow(F.abs(self), ord - 2) * scale


def is_complex(x) -> bool:
    """A complex array or tensor."""
    return getattr(x, "_data", x).dtype.kind == "c"


def real_nonnegative(F, x):
    """``x >= 0``; for a complex ``x``, a real part >= 0 and no imaginary part (where torch's pow gradient
    counts ``0 ** x`` as a constant)."""
    if is_complex(x):
        return (F.imag(x) == 0) & (F.real(x) >= 0)
    return x >= 0


def angle_backward(F, grad, self):
    """torch's: i z / |z|^2 times the (real) gradient, 0 at 0; zeros for a real input, whose angle is constant."""
    if not is_complex(self):
        return F.zeros_like(self)
    return F.where(self == 0, 0, grad * self / F.pow(F.abs(self), 2) * 1j)


def sgn_backward(F, grad, self, result):
    """torch's: (g - s^2 conj(g)) / (2 |z|) for s = sgn(z), filled with 0 where z is 0 (in place in torch:
    MaskedFillBackward0, whose tangent is 0 there too); 0 for real input."""
    if not is_complex(self):
        return F.zeros_like(grad)
    magnitude = F.abs(self)
    return F.masked_fill((grad - result * result * F.conj(grad)) / (2 * magnitude), magnitude == 0, 0)


def polar_backward(F, grad, result, input_index):
    """torch's: abs gets Re(conj(g) sgn(result)), angle Re(conj(g) i result)."""
    if input_index == 0:
        return F.real(F.conj(grad) * F.sgn(result))
    return F.real(F.conj(grad) * (result * 1j))


def whole_spectrum(F, grad, dims, size):
    """A one-sided spectrum's gradient zero-padded along the last transformed dim to the signal's ``size``."""
    dim = dims[-1]
    missing = size - grad.shape[dim]
    if missing <= 0:
        return grad
    shape = list(grad.shape)
    shape[dim] = missing
    return F.cat((grad, F.zeros(shape, grad)), dim)


def c2r_backward(F, grad, dims, normalization):
    """A one-sided r2c of the gradient, the frequencies 1 .. n - half along the last dim doubled."""
    half = F.fft_r2c(grad, dims, normalization, True)
    if grad.shape[dims[-1]] - half.shape[dims[-1]] <= 0:
        return half
    return half * F.constant(doubled_middle(half, dims, grad.shape[dims[-1]]), half)


def repeat_backward(F, grad, repeats, sizes):
    lead = len(repeats) - len(sizes)
    grad = F.sum(grad, tuple(range(lead))) if lead else grad
    shape = []
    for count, size in zip(repeats[lead:], sizes):
        shape += [count, size]
    grad = F.reshape(grad, shape)
    return F.sum(grad, tuple(range(0, 2 * len(sizes), 2)))


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


def not_implemented(op: str):
    raise RuntimeError(f"derivative for aten::{op} is not implemented")


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

def fill_zeros(F, grads, shapes):
    """Multi-output views: zeros for the outputs that received no gradient."""
    filled = []
    reference = next(g for g in grads if g is not None)
    for index, shape in enumerate(shapes):
        grad = grads[index] if index < len(grads) else None
        filled.append(F.zeros(shape, reference) if grad is None else grad)
    return filled


def atan2_reciprocal(F, self, other):
    """``1 / (self² + other²)`` for atan2's gradients, 0 where both are 0: there torch's gradient is 0
    (its sign that of the other factor), not NaN."""
    squares = self * self + other * other
    return F.masked_fill(F.reciprocal(squares), squares == 0, 0)


def column_major(array) -> bool:
    """A matrix laid out column by column (a transposed row-major one), as torch's matrix-product
    backward tests its inputs' strides."""
    return array.ndim == 2 and array.strides[0] == array.itemsize and array.strides[1] == array.shape[0] * array.itemsize


def times(F, product, alpha):
    """``product * alpha``, left as it is for an alpha of 1 (torch's ``maybe_multiply``)."""
    return product if alpha == 1 else F.mul_number(product, alpha)


def mm_mat1_backward(F, grad, mat2, mat1_column_major: bool, alpha):
    """The first factor's gradient of ``mat1 @ mat2``, laid out as torch lays it: column-major
    (``(mat2 grad^T)^T``) for a column-major input."""
    if mat1_column_major:
        return times(F, F.t(F.matmul(mat2, F.t(grad))), alpha)
    return times(F, F.matmul(grad, F.t(mat2)), alpha)


def mm_mat2_backward(F, grad, mat1, mat2_column_major: bool, alpha):
    """The second factor's gradient of ``mat1 @ mat2`` (``(grad^T mat1)^T`` for a column-major one)."""
    if mat2_column_major:
        return times(F, F.t(F.matmul(F.t(grad), mat1)), alpha)
    return times(F, F.matmul(F.t(mat1), grad), alpha)


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
