"""Every derivative formula of myautograd, one entry per backward node (cf. torch's derivatives.yaml).

``derivative(NodeName, "input names", input=formula, ...)`` defines the node torch would create
for the op and how to get each input's gradient. A formula is a lambda whose parameter names say
what it reads (see ``myautograd/_autograd/formulas.py``): ``grad``/``grads``, ``result``, the op's
inputs by name, saved non-tensor arguments, and ``F``, the math namespace that makes the same
formula work on arrays (plain backward) and on tensors (``create_graph=True``). What a node
saves is exactly what the formulas of the inputs needing a gradient read.

Broadcasting and dtype casts need no formula: the engine sums each gradient down to its
input's shape and casts it to its input's dtype, as torch's engine does.

To add an operator: add its entry here, then its forward in the matching ``_ops`` module,
which calls ``record(NODES["Name"], result, inputs, attrs)``.
"""

from __future__ import annotations

import math

from .._autograd.formulas import NODES, derivative

# -- helpers shared by several formulas --------------------------------------------------------


def _between(x, low, high):
    """Mask of elements within [low, high] (either bound may be None)."""
    if low is None:
        return x <= high
    if high is None:
        return x >= low
    return (x >= low) & (x <= high)


def _evenly(F, grad, self, result):
    """Gradient of a full max/min: split evenly among the elements equal to the result."""
    mask = self == result
    count = F.sum(mask)
    return F.where(mask, grad / count, 0)


def _evenly_dims(F, grad, self, result, dim, keepdim):
    """Gradient of amax/amin over ``dim``: split evenly among ties along the reduced dims."""
    if not keepdim:
        grad = F.unsqueeze_dims(grad, dim, self.ndim)
        result = F.unsqueeze_dims(result, dim, self.ndim)
    mask = self == result
    count = F.sum(mask, tuple(dim), True)
    return F.where(mask, grad / count, 0)


def _restore_dims(F, grad, dim, keepdim, sizes):
    """The gradient of a reduction over ``dim`` spread back over the input's sizes."""
    if not keepdim:
        grad = F.unsqueeze_dims(grad, dim, len(sizes))
    return F.expand(grad, sizes)


def _reduced_count(sizes, dim) -> int:
    count = 1
    for d in dim:
        count *= sizes[d % len(sizes)] if sizes else 1
    return count


def _cat_offset(sizes, dim, index) -> int:
    return sum(size[dim] for size in sizes[:index])


def _inverse_permutation(dims):
    inverse = [0] * len(dims)
    for position, d in enumerate(dims):
        inverse[d % len(dims)] = position
    return tuple(inverse)


def _numel(sizes) -> int:
    count = 1
    for size in sizes:
        count *= size
    return count


def _at(dim: int, index) -> tuple:
    """An index that picks ``index`` along ``dim`` and everything along the dims before it."""
    return (slice(None),) * dim + (index,)


def _diagonal_key(sizes, offset, dim1, dim2) -> tuple:
    import numpy as np

    ndim = len(sizes)
    dim1, dim2 = dim1 % ndim, dim2 % ndim
    rows = np.arange(max(0, -offset), min(sizes[dim1], sizes[dim2] - offset))
    cols = rows + offset
    key = [slice(None)] * ndim
    key[dim1], key[dim2] = rows, cols
    return tuple(key)


def _along_dim_key(indices, dim: int) -> tuple:
    """The advanced index that pairs each element of ``indices`` with its position (gather/scatter)."""
    import numpy as np

    grid = list(np.indices(indices.shape, sparse=True))
    grid[dim % indices.ndim] = indices
    return tuple(grid)


def _value_selecting(F, grad, dim, indices, sizes, keepdim):
    """Backward of max/min along ``dim``: the gradient goes to the selected index."""
    index = F.array(indices)
    if not keepdim:
        import numpy as np

        index = np.expand_dims(index, dim)
        grad = F.unsqueeze(grad, dim)
    return F.index_put_zeros(sizes, grad, _along_dim_key(index, dim), grad, True)


def _scatter_positions(F, grad, positions, sizes):
    """Backward of a strided view: each element's gradient added at its position in the base."""
    flat = F.index_put_zeros((_numel(sizes),), grad, (positions.reshape(-1),), F.reshape(grad, (-1,)), True)
    return F.reshape(flat, sizes)


def _prod_backward(F, grad, self, result):
    zero = self == 0
    count = F.sum(zero)
    if F.item(count) == 0:
        return grad * result / self
    if F.item(count) > 1:
        return F.zeros_like(self)
    others = F.prod(F.where(zero, 1, self))
    return F.where(zero, grad * others, 0)


def _var_backward(F, grad, self, dim, correction, keepdim):
    dims = tuple(range(self.ndim)) if dim is None else tuple(dim)
    count = _numel([self.shape[d] for d in dims]) if self.ndim else 1
    if dim is not None and not keepdim:
        grad = F.unsqueeze_dims(grad, dims, self.ndim)
    mean = F.sum(self, dims, True) / count
    return (2.0 / (count - correction)) * grad * (self - mean)


def _norm_backward(F, grad, self, result, ord, dim, keepdim):
    if dim is not None and not keepdim:
        grad = F.unsqueeze_dims(grad, dim, self.ndim)
        result = F.unsqueeze_dims(result, dim, self.ndim)
    if ord == 2:
        return self * F.where(result == 0, 0, grad / result)
    if ord == 1:
        return grad * F.sgn(self)
    scale = F.where(result == 0, 0, grad / F.pow(result, ord - 1))
    return self * F.pow(F.abs(self), ord - 2) * scale


def _repeat_backward(F, grad, repeats, sizes):
    lead = len(repeats) - len(sizes)
    grad = F.sum(grad, tuple(range(lead))) if lead else grad
    shape = []
    for count, size in zip(repeats[lead:], sizes):
        shape += [count, size]
    grad = F.reshape(grad, shape)
    return F.sum(grad, tuple(range(0, 2 * len(sizes), 2)))


def _mse_backward(grad, self, target, reduction):
    scale = 2.0 / _numel(self.shape) if reduction == 1 else 2.0
    return scale * (self - target) * grad


def nll_selection(shape: tuple, classes, ignore_index: int, weight):
    """What the NLL loss picks from an input of ``shape``: the index of each picked element,
    the classes with ignored ones replaced by 0, and each pick's weight (None: all weights 1)."""
    import numpy as np

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


def _nll_backward(F, grad, self, target, weight, reduction, ignore_index, total_weight):
    key, safe, weights = nll_selection(tuple(self.shape), F.array(target), ignore_index,
                                       None if weight is None else F.array(weight))
    scale = -1.0 if weights is None else -F.constant(weights, grad)
    if reduction == 1:
        scale = scale / F.item(total_weight)
    values = grad * scale if reduction == 0 else F.expand(grad, safe.shape) * scale
    return F.index_put_zeros(self.shape, grad, key, values, False)  # one element per row: no repeats


def _bce_backward(F, grad, self, target, weight, reduction):
    out = grad * (self - target) / F.clamp_min((1 - self) * self, 1e-12)
    if weight is not None:
        out = out * weight
    return out / _numel(self.shape) if reduction == 1 else out


def _bce_logits_backward(F, grad, self, target, weight, pos_weight, reduction):
    sigmoid = 1 / (1 + F.exp(-self))
    if pos_weight is None:
        out = (sigmoid - target) * grad
    else:
        out = ((pos_weight * target + 1 - target) * sigmoid - pos_weight * target) * grad
    if weight is not None:
        out = out * weight
    return out / _numel(self.shape) if reduction == 1 else out


def _weighted_mean(grad_values, self, weight, reduction):
    out = grad_values if weight is None else grad_values * weight
    return out / _numel(self.shape) if reduction == 1 else out


def _bce_target_backward(F, grad, self, weight, reduction):
    """d/dy of -(y log x + (1-y) log(1-x)), with torch's clamping of the logs at -100."""
    log_x = F.clamp_min(F.log(self), -100)
    log_1mx = F.clamp_min(F.log(1 - self), -100)
    return _weighted_mean(grad * (log_1mx - log_x), self, weight, reduction)


def _bce_logits_target_backward(F, grad, self, weight, pos_weight, reduction):
    """d/dy of (1-y)x + (1 + (p-1)y) softplus(-x)."""
    if pos_weight is None:
        values = -self
    else:
        softplus_neg = F.log(1 + F.exp(-self))
        values = (pos_weight - 1) * softplus_neg - self
    return _weighted_mean(grad * values, self, weight, reduction)


def _gelu_backward(F, grad, self, approximate):
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        inner = k * (self + 0.044715 * self * self * self)
        t = F.tanh(inner)
        return grad * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * k * (1 + 3 * 0.044715 * self * self))
    cdf = 0.5 * (1 + F.erf(self / math.sqrt(2.0)))
    pdf = F.exp(-0.5 * self * self) / math.sqrt(2.0 * math.pi)
    return grad * (cdf + self * pdf)


# -- pointwise, one input ----------------------------------------------------------------------
derivative("NegBackward0", "self", self=lambda grad: -grad)
derivative("ExpBackward0", "self", self=lambda grad, result, F: grad * F.conj(result))
derivative("Exp2Backward0", "self", self=lambda grad, result: grad * result * math.log(2.0))
derivative("Expm1Backward0", "self", self=lambda grad, result: grad * (result + 1))
derivative("LogBackward0", "self", self=lambda grad, self, F: grad / F.conj(self))
derivative("Log2Backward0", "self", self=lambda grad, self: grad / (self * math.log(2.0)))
derivative("Log10Backward0", "self", self=lambda grad, self: grad / (self * math.log(10.0)))
derivative("Log1PBackward0", "self", self=lambda grad, self: grad / (self + 1))
derivative("SinBackward0", "self", self=lambda grad, self, F: grad * F.cos(self))
derivative("CosBackward0", "self", self=lambda grad, self, F: grad * -F.sin(self))
derivative("TanBackward0", "self", self=lambda grad, result: grad * (1 + result * result))
derivative("SinhBackward0", "self", self=lambda grad, self, F: grad * F.cosh(self))
derivative("CoshBackward0", "self", self=lambda grad, self, F: grad * F.sinh(self))
derivative("TanhBackward0", "self", self=lambda grad, result, F: F.tanh_backward(grad, result))
derivative("AsinBackward0", "self", self=lambda grad, self, F: grad / F.sqrt(1 - self * self))
derivative("AcosBackward0", "self", self=lambda grad, self, F: -grad / F.sqrt(1 - self * self))
derivative("AtanBackward0", "self", self=lambda grad, self: grad / (self * self + 1))
derivative("SigmoidBackward0", "self", self=lambda grad, result, F: F.sigmoid_backward(grad, result))
derivative("ReluBackward0", "self",
           self=lambda grad, result, F: F.masked_backward("ThresholdBackwardBackward0", grad, result, result > 0, 0))
derivative("AbsBackward0", "self", self=lambda grad, self, F: grad * F.sgn(self))
derivative("SqrtBackward0", "self", self=lambda grad, result: grad / (2 * result))
derivative("RsqrtBackward0", "self", self=lambda grad, result: -0.5 * grad * result * result * result)
derivative("ReciprocalBackward0", "self", self=lambda grad, result: -grad * (result * result))
derivative("SignBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("SgnBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("RoundBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("FloorBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("CeilBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("TruncBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("FracBackward0", "self", self=lambda grad: grad)
derivative("ErfBackward0", "self",
           self=lambda grad, self, F: grad * (2.0 / math.sqrt(math.pi)) * F.exp(-(self * self)))
derivative("PowBackward0", "self", saves="exponent",
           self=lambda grad, self, exponent, F: F.zeros_like(grad) if exponent == 0
           else grad * exponent * F.pow(self, exponent - 1))
derivative("PowBackward1", "self exponent",
           self=lambda grad, self, exponent, F: F.where(exponent == 0, 0, grad * exponent * F.pow(self, exponent - 1)),
           exponent=lambda grad, self, exponent, result, F:
           F.where((self == 0) & (exponent >= 0), 0, grad * result * F.log(self)))
derivative("PowBackward2", "exponent", saves="self",
           exponent=lambda grad, self, result, F: F.zeros_like(grad) if self == 0
           else grad * result * math.log(self))
derivative("ClampBackward1", "self", saves="min max",
           self=lambda grad, self, min, max, F: F.where(_between(self, min, max), grad, 0))
derivative("ClampMinBackward0", "self", saves="min", self=lambda grad, self, min, F: F.where(self >= min, grad, 0))
derivative("ClampMaxBackward0", "self", saves="max", self=lambda grad, self, max, F: F.where(self <= max, grad, 0))
derivative("LeakyReluBackward0", "self", saves="negative_slope",
           self=lambda grad, self, negative_slope, F:
           F.masked_backward("LeakyReluBackwardBackward0", grad, self, self > 0, negative_slope))
derivative("SiluBackward0", "self",
           self=lambda grad, self, F: grad * (1 / (1 + F.exp(-self))) * (1 + self * (1 - 1 / (1 + F.exp(-self)))))
derivative("SoftplusBackward0", "self", saves="beta threshold",
           self=lambda grad, self, beta, threshold, F:
           F.where(self * beta > threshold, grad, grad * (1 - 1 / (1 + F.exp(self * beta)))))
derivative("EluBackward0", "self", saves="alpha",
           self=lambda grad, self, alpha, F: F.where(self > 0, grad, grad * alpha * F.exp(self)))
derivative("HardtanhBackward0", "self", saves="min_val max_val",
           self=lambda grad, self, min_val, max_val, F:
           F.masked_backward("HardtanhBackwardBackward0", grad, self, (self > min_val) & (self < max_val), 0))
derivative("ConjBackward0", "self", self=lambda grad, F: F.conj(grad))
derivative("ConjPhysicalBackward0", "self", self=lambda grad, F: F.conj(grad))
derivative("NanToNumBackward0", "self", self=lambda grad, self, F: grad * F.isfinite(self))

# Backward ops that torch records with the forward input as an input too (so, under create_graph,
# their result requires grad whenever that input does): the gradient kept where ``mask`` holds,
# scaled by ``scale`` elsewhere.
for _name in ("ThresholdBackwardBackward0", "LeakyReluBackwardBackward0", "HardtanhBackwardBackward0"):
    derivative(_name, "grad_output self", saves="mask scale",
               grad_output=lambda grad, mask, scale, F: F.where(mask, grad, grad * scale),
               self=lambda grad, F: F.zeros_like(grad))

# torch's tanh_backward and sigmoid_backward: one recorded op each under create_graph
derivative("TanhBackwardBackward0", "grad_output output",
           grad_output=lambda grad, output, F: F.tanh_backward(grad, F.conj(output)),
           output=lambda grad, output, grad_output, F: F.conj(grad) * F.conj(-2 * F.conj(output) * grad_output))
derivative("SigmoidBackwardBackward0", "grad_output output",
           grad_output=lambda grad, output, F: F.sigmoid_backward(grad, F.conj(output)),
           output=lambda grad, output, grad_output, F: F.conj(grad) * grad_output * (-2 * F.conj(output) + 1))

# -- pointwise, several inputs ------------------------------------------------------------------
derivative("AddBackward0", "self other", saves="alpha",
           self=lambda grad: grad,
           other=lambda grad, alpha: grad if alpha == 1 else grad * alpha)
derivative("SubBackward0", "self other", saves="alpha",
           self=lambda grad: grad,
           other=lambda grad, alpha: -grad if alpha == 1 else -grad * alpha)
derivative("RsubBackward0", "self other", saves="alpha",
           self=lambda grad, alpha: -grad if alpha == 1 else -grad * alpha,
           other=lambda grad: grad)
derivative("RsubBackward1", "self", saves="alpha", self=lambda grad, alpha: -grad if alpha == 1 else -grad * alpha)
derivative("MulBackward0", "self other",
           self=lambda grad, other, F: grad * F.conj(other),
           other=lambda grad, self, F: grad * F.conj(self))
derivative("DivBackward0", "self other",
           self=lambda grad, other, F: grad / F.conj(other),
           other=lambda grad, self, other, F: -grad * F.conj((self / other) / other))
derivative("MaximumBackward0", "self other",
           self=lambda grad, self, other, F: F.where(self == other, grad / 2, F.where(self > other, grad, 0)),
           other=lambda grad, self, other, F: F.where(self == other, grad / 2, F.where(other > self, grad, 0)))
derivative("MinimumBackward0", "self other",
           self=lambda grad, self, other, F: F.where(self == other, grad / 2, F.where(self < other, grad, 0)),
           other=lambda grad, self, other, F: F.where(self == other, grad / 2, F.where(other < self, grad, 0)))
derivative("Atan2Backward0", "self other",
           self=lambda grad, self, other: grad * other / (self * self + other * other),
           other=lambda grad, self, other: -grad * self / (self * self + other * other))
derivative("WhereBackward0", "self other", saves="condition",
           self=lambda grad, condition, F: F.where(condition, grad, 0),
           other=lambda grad, condition, F: F.where(condition, 0, grad))
derivative("MaskedFillBackward0", "self", saves="mask", self=lambda grad, mask, F: F.where(mask, 0, grad))
derivative("LerpBackward0", "self end", saves="weight",
           self=lambda grad, weight: grad * (1 - weight),
           end=lambda grad, weight: grad * weight)
derivative("AddcmulBackward0", "self tensor1 tensor2", saves="value",
           self=lambda grad: grad,
           tensor1=lambda grad, tensor2, value: grad * tensor2 * value,
           tensor2=lambda grad, tensor1, value: grad * tensor1 * value)

# -- linear algebra ---------------------------------------------------------------------------------
derivative("MmBackward0", "self mat2",
           self=lambda grad, mat2, F: F.matmul(grad, F.mT(F.conj(mat2))),
           mat2=lambda grad, self, F: F.matmul(F.mT(F.conj(self)), grad))
derivative("BmmBackward0", "self mat2",
           self=lambda grad, mat2, F: F.matmul(grad, F.mT(F.conj(mat2))),
           mat2=lambda grad, self, F: F.matmul(F.mT(F.conj(self)), grad))
derivative("MvBackward0", "self vec",
           self=lambda grad, vec, F: F.outer(grad, F.conj(vec)),
           vec=lambda grad, self, F: F.matmul(F.mT(F.conj(self)), grad))
derivative("DotBackward0", "self tensor",
           self=lambda grad, tensor, F: grad * F.conj(tensor),
           tensor=lambda grad, self, F: grad * F.conj(self))
derivative("AddmmBackward0", "self mat1 mat2", saves="beta alpha",
           self=lambda grad, beta: grad if beta == 1 else grad * beta,
           mat1=lambda grad, mat2, alpha, F: F.matmul(grad, F.mT(mat2)) * alpha if alpha != 1
           else F.matmul(grad, F.mT(mat2)),
           # (grad^T mat1)^T rather than mat1^T grad: the same product, laid out so that for
           # linear (mat2 = weight.t()) the weight's gradient comes out row-major, as the weight is.
           mat2=lambda grad, mat1, alpha, F: F.mT(F.matmul(F.mT(grad), mat1)) * alpha if alpha != 1
           else F.mT(F.matmul(F.mT(grad), mat1)))

# -- reductions ------------------------------------------------------------------------------------
derivative("SumBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.expand(grad, self_sym_sizes))
derivative("SumBackward1", "self", saves="dim keepdim self_sym_sizes",
           self=lambda grad, dim, keepdim, self_sym_sizes, F: _restore_dims(F, grad, dim, keepdim, self_sym_sizes))
derivative("MeanBackward0", "self", saves="self_sym_sizes self_sym_numel",
           self=lambda grad, self_sym_sizes, self_sym_numel, F: F.expand(grad, self_sym_sizes) / self_sym_numel)
derivative("MeanBackward1", "self", saves="dim keepdim self_sym_sizes",
           self=lambda grad, dim, keepdim, self_sym_sizes, F:
           _restore_dims(F, grad, dim, keepdim, self_sym_sizes) / _reduced_count(self_sym_sizes, dim))
derivative("MaxBackward1", "self", self=lambda grad, self, result, F: _evenly(F, grad, self, result))
derivative("MinBackward1", "self", self=lambda grad, self, result, F: _evenly(F, grad, self, result))
for _name in ("MaxBackward0", "MinBackward0"):
    derivative(_name, "self", saves="dim keepdim indices self_sym_sizes", multi_output=True,
               self=lambda grads, dim, keepdim, indices, self_sym_sizes, F:
               _value_selecting(F, grads[0], dim, indices, self_sym_sizes, keepdim))
derivative("AmaxBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F: _evenly_dims(F, grad, self, result, dim, keepdim))
derivative("AminBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F: _evenly_dims(F, grad, self, result, dim, keepdim))
derivative("ProdBackward0", "self", self=lambda grad, self, result, F: _prod_backward(F, grad, self, result))
derivative("VarBackward0", "self", saves="dim correction keepdim",
           self=lambda grad, self, dim, correction, keepdim, F: _var_backward(F, grad, self, dim, correction, keepdim))
derivative("StdBackward0", "self", saves="dim correction keepdim",
           self=lambda grad, self, result, dim, correction, keepdim, F:
           _var_backward(F, grad / (2 * result), self, dim, correction, keepdim))
derivative("LogsumexpBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F:
           (grad if keepdim else F.unsqueeze_dims(grad, dim, self.ndim))
           * F.exp(self - (result if keepdim else F.unsqueeze_dims(result, dim, self.ndim))))
derivative("LinalgVectorNormBackward0", "self", saves="ord dim keepdim",
           self=lambda grad, self, result, ord, dim, keepdim, F: _norm_backward(F, grad, self, result, ord, dim, keepdim))
derivative("SoftmaxBackward0", "self", saves="dim",
           self=lambda grad, result, dim, F: (grad - F.sum(grad * result, (dim,), True)) * result)
derivative("LogSoftmaxBackward0", "self", saves="dim",
           self=lambda grad, result, dim, F: grad - F.exp(result) * F.sum(grad, (dim,), True))
derivative("CumsumBackward0", "self", saves="dim",
           self=lambda grad, dim, F: F.flip(F.cumsum(F.flip(grad, (dim,)), dim), (dim,)))

# -- shape and views ---------------------------------------------------------------------------------
derivative("ViewBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
derivative("UnsafeViewBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
derivative("ExpandBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.sum_to(grad, self_sym_sizes))
derivative("TBackward0", "self", self=lambda grad, F: F.t(grad))
derivative("TransposeBackward0", "self", saves="dim0 dim1", self=lambda grad, dim0, dim1, F: F.transpose(grad, dim0, dim1))
derivative("PermuteBackward0", "self", saves="dims", self=lambda grad, dims, F: F.permute(grad, _inverse_permutation(dims)))
for _name in ("SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward4"):
    derivative(_name, "self", saves="self_sym_sizes", self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
derivative("UnsqueezeBackward0", "self", saves="dim", self=lambda grad, dim, F: F.squeeze_dim(grad, dim))
derivative("SelectBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, _at(dim, index), grad, False))
derivative("SliceBackward0", "self", saves="dim start end step self_sym_sizes",
           self=lambda grad, dim, start, end, step, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, _at(dim, slice(start, end, step)), grad, False))
derivative("IndexPutBackward0", "self values", saves="indices accumulate",
           self=lambda grad, indices, accumulate, F: grad if accumulate else F.where(F.mask_at(grad, indices), 0, grad),
           values=lambda grad, indices, F: F.index(grad, indices))
derivative("IndexBackward0", "self", saves="indices self_sym_sizes",
           self=lambda grad, indices, self_sym_sizes, F: F.index_put_zeros(self_sym_sizes, grad, indices, grad, True))
derivative("DiagonalBackward0", "self", saves="offset dim1 dim2 self_sym_sizes",
           self=lambda grad, offset, dim1, dim2, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, _diagonal_key(self_sym_sizes, offset, dim1, dim2), grad, False))
derivative("AsStridedBackward0", "self", saves="positions self_sym_sizes",
           self=lambda grad, positions, self_sym_sizes, F: _scatter_positions(F, grad, positions, self_sym_sizes))
derivative("UnfoldBackward0", "self", saves="positions self_sym_sizes",
           self=lambda grad, positions, self_sym_sizes, F: _scatter_positions(F, grad, positions, self_sym_sizes))
derivative("UnbindBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.stack(_fill_zeros(F, grads, result_shapes), dim))
derivative("SplitBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.cat(_fill_zeros(F, grads, result_shapes), dim))
derivative("SplitWithSizesBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.cat(_fill_zeros(F, grads, result_shapes), dim))
derivative("CatBackward0", "tensors", saves="dim tensors_args_sizes",
           each=lambda grad, input_index, dim, tensors_args_sizes, F:
           F.narrow(grad, dim, _cat_offset(tensors_args_sizes, dim, input_index), tensors_args_sizes[input_index][dim]))
derivative("StackBackward0", "tensors", saves="dim", each=lambda grad, input_index, dim, F: F.select(grad, dim, input_index))
derivative("CloneBackward0", "self", self=lambda grad: grad)
derivative("AliasBackward0", "self", self=lambda grad: grad)
derivative("ToCopyBackward0", "self", saves="self_device", self=lambda grad, self_device, F: F.to_device(grad, self_device))
derivative("CopyBackwards", "self src", cpp_name=True,
           self=lambda grad, F: F.zeros_like(grad),
           src=lambda grad: grad)
derivative("FillBackward2", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("FillBackward3", "self value", self=lambda grad, F: F.zeros_like(grad), value=lambda grad, F: F.sum(grad))
derivative("ZeroBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("RepeatBackward0", "self", saves="repeats self_sym_sizes",
           self=lambda grad, repeats, self_sym_sizes, F: _repeat_backward(F, grad, repeats, self_sym_sizes))
derivative("FlipBackward0", "self", saves="dims", self=lambda grad, dims, F: F.flip(grad, dims))
derivative("IndexSelectBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, _at(dim, F.array(index)), grad, True))
derivative("GatherBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, _along_dim_key(F.array(index), dim), grad, True))
derivative("TrilBackward0", "self", saves="diagonal", self=lambda grad, diagonal, F: F.tril(grad, diagonal))
derivative("TriuBackward0", "self", saves="diagonal", self=lambda grad, diagonal, F: F.triu(grad, diagonal))
derivative("ViewAsRealBackward0", "self", self=lambda grad, F: F.view_as_complex(grad))
derivative("ViewAsComplexBackward0", "self", self=lambda grad, F: F.view_as_real(grad))
derivative("ComplexBackward0", "real imag",
           real=lambda grad, F: F.real(grad),
           imag=lambda grad, F: F.imag(grad))

# -- losses and nn ------------------------------------------------------------------------------------
derivative("MseLossBackward0", "self target", saves="reduction",
           self=lambda grad, self, target, reduction: _mse_backward(grad, self, target, reduction),
           target=lambda grad, self, target, reduction: -_mse_backward(grad, self, target, reduction))
derivative("NllLossBackward0", "self", saves="target weight reduction ignore_index total_weight",
           self=lambda grad, self, target, weight, reduction, ignore_index, total_weight, F:
           _nll_backward(F, grad, self, target, weight, reduction, ignore_index, total_weight))
derivative("BinaryCrossEntropyBackward0", "self target", saves="weight reduction",
           self=lambda grad, self, target, weight, reduction, F: _bce_backward(F, grad, self, target, weight, reduction),
           target=lambda grad, self, weight, reduction, F: _bce_target_backward(F, grad, self, weight, reduction))
derivative("BinaryCrossEntropyWithLogitsBackward0", "self target", saves="weight pos_weight reduction",
           self=lambda grad, self, target, weight, pos_weight, reduction, F:
           _bce_logits_backward(F, grad, self, target, weight, pos_weight, reduction),
           target=lambda grad, self, weight, pos_weight, reduction, F:
           _bce_logits_target_backward(F, grad, self, weight, pos_weight, reduction))
derivative("NativeDropoutBackward0", "self", saves="mask scale", self=lambda grad, mask, scale: grad * mask * scale)
derivative("BernoulliBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("GeluBackward0", "self", saves="approximate",
           self=lambda grad, self, approximate, F: _gelu_backward(F, grad, self, approximate))


def _fill_zeros(F, grads, shapes):
    """Multi-output views: zeros for the outputs that received no gradient."""
    filled = []
    reference = next(g for g in grads if g is not None)
    for index, shape in enumerate(shapes):
        grad = grads[index] if index < len(grads) else None
        filled.append(F.zeros(shape, reference) if grad is None else grad)
    return filled


__all__ = ["NODES"]
