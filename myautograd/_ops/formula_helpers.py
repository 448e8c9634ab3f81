"""The helpers of the derivative table (``derivatives.py``): formulas too long for one line (those of the nn
functions, losses to attention, are in ``formula_helpers_nn``).

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


def aminmax_backward(F, grad_min, grad_max, self, min, max, dim, keepdim):
    """Backward of aminmax: amin's gradient and amax's, for the outputs that got one, added."""
    parts = [evenly_dims(F, grad, self, result, dim, keepdim)
             for grad, result in ((grad_min, min), (grad_max, max)) if grad is not None]
    return parts[0] if len(parts) == 1 else parts[0] + parts[1]


def restore_dims(F, grad, dim, keepdim, sizes):
    """The gradient of a reduction over ``dim`` spread back over the input's sizes."""
    if not keepdim:
        grad = F.unsqueeze_dims(grad, dim, len(sizes))
    return F.expand(grad, sizes)


def nansum_backward(F, grad, self, dim, keepdim):
    """Backward of nansum: a sum's gradient, zero where ``self`` is NaN."""
    spread = F.expand(grad, tuple(self.shape)) if dim is None else restore_dims(F, grad, dim, keepdim, tuple(self.shape))
    return spread * ~F.isnan(self)


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


def block_diag_input_grad(F, grad, sizes, index):
    """Input ``index``'s block of block_diag's gradient: its rows and columns after the blocks before it (a
    0-dim input's block is 1x1, a vector's one row), in its shape."""
    blocks = [(1, 1) if len(size) == 0 else (1, size[0]) if len(size) == 1 else tuple(size) for size in sizes]
    row, column = sum(b[0] for b in blocks[:index]), sum(b[1] for b in blocks[:index])
    rows, columns = blocks[index]
    return F.reshape(F.narrow(F.narrow(grad, 0, row, rows), 1, column, columns), tuple(sizes[index]))


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


def source_of_index_write(F, grad, dim, index, source_dim):
    """The gradient of index_add's or index_copy's ``source``: ``grad`` at ``index`` along ``dim`` (a 0-dim
    source's one element as 0-dim)."""
    picked = F.index(grad, index_select_key(dim, F.array(index), tuple(grad.shape)))
    return picked if source_dim or not picked.ndim else F.reshape(picked, ())


def times_alpha(F, grad, alpha):
    """torch's maybe_multiply: ``grad * alpha``, unless alpha is 1."""
    return grad if alpha == 1 else F.mul_number(grad, alpha)


def put_zeros(F, grad, index):
    """``grad`` with zeros at the flat positions ``index`` (put's gradient of ``self``, not accumulating)."""
    flat = F.reshape(grad, (-1,))
    return F.reshape(F.where(F.mask_at(flat, (F.array(index).reshape(-1),)), 0, flat), tuple(grad.shape))


def masked_scatter_source_backward(F, grad, mask, sizes):
    """The gradient of masked_scatter's ``source``: ``grad`` where the mask holds, in order, into the first
    elements of the source's shape (zeros after them)."""
    where = np.broadcast_to(F.array(mask), tuple(grad.shape))
    picked = F.index(grad, (where,))
    missing = numel(sizes) - int(where.sum())
    if missing > 0:
        picked = F.cat([picked, F.zeros((missing,), picked)], 0)
    return F.reshape(picked, tuple(sizes))


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


def cumulative_extreme_backward(F, grad, self, dim, indices):
    """Backward of cummax/cummin: each gradient added at the index its running extreme was taken at."""
    if self.ndim == 0:
        return grad * 1
    return F.scatter_into_zeros(tuple(self.shape), grad, dim, F.array(indices), grad, True)


def logcumsumexp_backward(F, grad, self, result, dim):
    """Backward of logcumsumexp: gradient j is ``sum over i >= j of grad_i exp(self_j - result_i)``, taken as
    torch takes it, in logarithms, the positive and the negative parts of ``grad`` apart (each a reversed
    logcumsumexp), so that nothing overflows: the difference of two exponentials."""
    if self.ndim == 0 or numel(self.shape) == 0:
        return grad * 1
    lowest = float(np.finfo(F.array(self).dtype).min)
    log_size = F.log(F.abs(grad))

    def from_the_end(x):
        return F.flip(F.logcumsumexp(F.flip(x, (dim,)), dim), (dim,))

    positive = F.where(grad > 0, log_size, lowest)
    negative = F.where(grad < 0, log_size, lowest)
    return F.exp(from_the_end(positive - result) + self) - F.exp(from_the_end(negative - result) + self)


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


def not_implemented(op: str):
    raise RuntimeError(f"derivative for aten::{op} is not implemented")


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
