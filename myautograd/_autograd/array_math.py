"""``F`` on arrays: the math namespace derivative formulas use in a plain backward.

A formula is written once over ``F`` and Python operators (see ``formulas.py``). In a plain
backward (``create_graph=False``) ``F`` is ``ArrayMath``: NumPy (or CuPy) arrays, nothing
recorded, no tensor objects created. Under ``create_graph=True`` it is ``TensorMath``
(``myautograd/_ops/tensor_math.py``), with the same names on tensors, so that the backward is
itself recorded. Only primitives live here; composite backward helpers are written once, over
``F``, in ``derivatives.py``.
"""

from __future__ import annotations

import numpy as np

from .. import _backend

# Backward ops with a kernel of their own (``elu_backward``, ``hardswish_backward``, ...): name of the
# node torch records for them under create_graph -> kernel(grad, forward_input, **attrs) on arrays.
# Filled by the op modules; their second derivatives are entries of the derivative table.
BACKWARD_KERNELS: dict = {}


def power(x, exponent):
    """``x ** exponent`` for a Python-number exponent, as torch's kernel computes it: products for
    the small integer exponents (x * x, x * x * x, 1 / x, 1 / (x * x)), sqrt and 1 / sqrt for the
    halves, the library's pow otherwise."""
    if x.dtype.kind in "fc" and not isinstance(exponent, complex):
        if exponent == 2:
            return x * x
        if exponent == 3:
            return x * x * x
        if exponent == 0.5:
            return np.sqrt(x)
        if exponent == -0.5:
            return 1 / np.sqrt(x)
        if exponent == -1:
            return 1 / x
        if exponent == -2:
            return 1 / (x * x)
    return np.power(x, exponent)


def window_view(x, kernel: tuple, stride: tuple, dilation: tuple):
    """The sliding windows of ``x`` (N, C, *spatial) as a view (N, C, *kernel, *windows): element
    [n, c, *k, *o] is x[n, c, *(o * stride + k * dilation)]."""
    spatial = x.shape[2:]
    count = tuple((size - d * (k - 1) - 1) // s + 1 for size, k, s, d in zip(spatial, kernel, stride, dilation))
    steps = x.strides[2:]
    shape = x.shape[:2] + tuple(kernel) + count
    strides = x.strides[:2] + tuple(st * d for st, d in zip(steps, dilation)) + tuple(
        st * s for st, s in zip(steps, stride))
    return _backend.as_strided(x, shape, strides)


def windows_summed(cols, sizes: tuple, kernel: tuple, stride: tuple, dilation: tuple):
    """The adjoint of ``window_view``: each window element (N, C, *kernel, *windows) added back at
    its place in a zero tensor (N, C, *sizes)."""
    out = _zeros(cols.shape[:2] + tuple(sizes), cols)
    count = cols.shape[2 + len(kernel):]
    for offsets in np.ndindex(*kernel):
        target = tuple(slice(k * d, k * d + s * (n - 1) + 1, s)
                       for k, d, s, n in zip(offsets, dilation, stride, count))
        out[(slice(None), slice(None)) + target] += cols[(slice(None), slice(None)) + offsets]
    return out


def _reduced_axes(shape: tuple, target: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    lead = len(shape) - len(target)
    kept = tuple(i for i, size in enumerate(target) if size == 1 and shape[lead + i] != 1)
    return tuple(range(lead)), kept


def _zeros(shape, like):
    shape = tuple(int(n) for n in shape)
    if type(like) is np.ndarray:
        return np.zeros(shape, dtype=like.dtype)
    return np.zeros_like(like, shape=shape)


class ArrayMath:
    """Formula primitives on arrays."""

    recording = False  # whether the formulas' own operations are recorded (create_graph)

    # -- shapes -------------------------------------------------------------------------------
    @staticmethod
    def sum_to(x, shape):
        """Sum ``x`` down to ``shape``: undo broadcasting."""
        shape = tuple(shape)
        if x.shape == shape:
            return x
        lead, kept = _reduced_axes(x.shape, shape)
        if lead:
            x = x.sum(axis=lead)
        if kept:
            x = x.sum(axis=kept, keepdims=True)
        return x.reshape(shape)

    @staticmethod
    def expand(x, shape):
        return _backend.broadcast_to(x, tuple(shape))

    @staticmethod
    def reshape(x, shape):
        return x.reshape(tuple(shape))

    @staticmethod
    def unsqueeze(x, dim):
        return np.expand_dims(x, dim)

    @staticmethod
    def unsqueeze_dims(x, dims, ndim):
        """Re-insert the reduced ``dims`` of an ``ndim``-dimensional input."""
        return np.expand_dims(x, tuple(d % ndim for d in dims)) if ndim else x

    @staticmethod
    def squeeze_dim(x, dim):
        return x.squeeze(axis=dim) if x.ndim and x.shape[dim] == 1 else x

    @staticmethod
    def transpose(x, dim0, dim1):
        return x.swapaxes(dim0, dim1)

    @staticmethod
    def t(x):
        return x.T if x.ndim == 2 else x

    @staticmethod
    def mT(x):  # noqa: N802 - mirrors Tensor.mT
        return x.swapaxes(-1, -2)  # the method: np.swapaxes is a Python wrapper around it

    @staticmethod
    def permute(x, dims):
        return x.transpose(dims)

    @staticmethod
    def flip(x, dims):
        return np.flip(x, axis=tuple(dims))

    @staticmethod
    def narrow(x, dim, start, length):
        key = [slice(None)] * x.ndim
        key[dim] = slice(start, start + length)
        return x[tuple(key)]

    @staticmethod
    def select(x, dim, index):
        """A view, as torch's select (a 0-d array, never a NumPy scalar)."""
        return x[(slice(None),) * dim + (index, Ellipsis)]

    @staticmethod
    def roll(x, shifts, dims):
        return np.roll(x, shifts, dims) if dims else np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)

    @staticmethod
    def diagonal(x, offset, dim1, dim2):
        return np.diagonal(x, offset, dim1, dim2).copy()

    @staticmethod
    def im2col(x, kernel, stride, dilation):
        return window_view(x, kernel, stride, dilation).copy()

    @staticmethod
    def col2im(cols, sizes, kernel, stride, dilation):
        return windows_summed(cols, sizes, kernel, stride, dilation)

    @staticmethod
    def einsum(equation, *operands):
        return np.einsum(equation, *operands, optimize=True)

    @staticmethod
    def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
        """``torch._trilinear``: the operands unsqueezed at their ``expand`` dims, multiplied
        (broadcasting) and summed over ``sumdim``, which goes; one einsum."""
        total = i1.ndim + len(expand1)
        kept = [[d for d in range(total) if d not in expand] for expand in (expand1, expand2, expand3)]
        sizes = [1] * total
        for x, dims in zip((i1, i2, i3), kept):
            for d, n in zip(dims, x.shape):
                sizes[d] = n if n != 1 else sizes[d]
        operands = [np.broadcast_to(x, tuple(sizes[d] for d in dims)) for x, dims in zip((i1, i2, i3), kept)]
        present = set().union(*kept)
        out = [d for d in range(total) if d not in sumdim]
        letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        terms = ",".join("".join(letters[d] for d in dims) for dims in kept)
        equation = terms + "->" + "".join(letters[d] for d in out if d in present)
        result = _backend.as_array(np.einsum(equation, *operands, optimize=True))
        return result.reshape(tuple(sizes[d] for d in out))  # a dim no operand has: size 1

    @staticmethod
    def constant_pad(x, pad):
        """Zeros added (positive pads) or elements cropped (negative ones) at both ends of the last
        dims, as ``torch.nn.functional.pad``'s (before, after) pairs say."""
        widths = [(0, 0)] * x.ndim
        crop = [slice(None)] * x.ndim
        for i in range(len(pad) // 2):
            dim, before, after = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
            widths[dim] = (max(before, 0), max(after, 0))
            crop[dim] = slice(max(-before, 0), x.shape[dim] - max(-after, 0))
        return np.pad(x[tuple(crop)], widths)

    @staticmethod
    def cat(xs, dim):
        return np.concatenate(xs, axis=dim)

    @staticmethod
    def stack(xs, dim):
        return np.stack(xs, axis=dim)

    @staticmethod
    def tril(x, diagonal):
        return np.tril(x, diagonal)

    @staticmethod
    def triu(x, diagonal):
        return np.triu(x, diagonal)

    # -- creation and data ----------------------------------------------------------------------
    @staticmethod
    def zeros(shape, like):
        return _zeros(shape, like)

    @staticmethod
    def zeros_like(x):
        return np.zeros_like(x)

    @staticmethod
    def ones(shape, like):
        return _zeros(shape, like) + 1

    @staticmethod
    def index_put_zeros(shape, like, key, values, accumulate, node=None):
        """Zeros of ``shape`` with ``values`` written (or added, with repeats) at ``key`` (``node``:
        the node recorded under create_graph, see ``TensorMath``)."""
        out = _zeros(shape, like)
        if accumulate:
            _backend.scatter_add(out, key, values)
        else:
            out[key] = values
        return out

    @staticmethod
    def gather(x, dim, index):
        return np.take_along_axis(x, index, axis=dim)

    @staticmethod
    def scatter_zeros(x, dim, index):
        """``x`` with zeros at ``index`` along ``dim`` (gather/scatter positions)."""
        out = x.copy()
        grid = list(np.indices(index.shape, sparse=True))
        grid[dim] = index
        out[tuple(grid)] = 0
        return out

    @staticmethod
    def index(x, key):
        return x[key]

    @staticmethod
    def tanh_backward(grad, output):
        return grad * (1 - output * output)

    @staticmethod
    def sigmoid_backward(grad, output):
        return grad * (1 - output) * output

    @staticmethod
    def masked_backward(node_name, grad, forward_input, mask, scale):
        return np.where(mask, grad, grad * scale if scale else 0)

    @staticmethod
    def backward_op(node_name, grad, *forward_inputs, kernel=None, **attrs):
        """A backward with a kernel of its own (see ``BACKWARD_KERNELS``; ``kernel``: its name, when
        not the node's): here, just the kernel."""
        return BACKWARD_KERNELS[kernel or node_name](grad, *forward_inputs, **attrs)

    @staticmethod
    def array(x):
        return x

    @staticmethod
    def item(x):
        return x.item() if hasattr(x, "item") else x

    @staticmethod
    def mask_at(like, key):
        """A boolean array shaped like ``like``, on its device, True at ``key``."""
        mask = np.zeros_like(like, dtype=bool)
        mask[key] = True
        return mask

    @staticmethod
    def constant(values, like):
        """Values (a mask, weights: host data, or an array already on a device) as an array of
        ``like``'s type on ``like``'s device."""
        if not (hasattr(values, "dtype") and hasattr(values, "shape")) or isinstance(values, np.generic):
            values = np.asarray(values)
        values = values if values.dtype == np.bool_ else values.astype(like.dtype, copy=False)
        if type(values) is np.ndarray and type(like) is not np.ndarray:
            return _backend.to_device(values, _backend.device_of(like))
        return values

    # -- math --------------------------------------------------------------------------------------
    @staticmethod
    def where(condition, a, b):
        return np.where(condition, a, b)

    @staticmethod
    def masked_fill(x, mask, value):
        return np.where(mask, x.dtype.type(value), x)

    @staticmethod
    def reciprocal(x):
        return np.reciprocal(x)

    @staticmethod
    def sum(x, dims=None, keepdim=False):
        return x.sum(axis=dims, keepdims=keepdim)

    @staticmethod
    def prod(x, dim=None, keepdim=False):
        return x.prod(axis=dim, keepdims=keepdim)

    @staticmethod
    def cumprod(x, dim):
        return np.cumprod(x, axis=dim)

    @staticmethod
    def cumsum(x, dim):
        return np.cumsum(x, axis=dim)

    @staticmethod
    def matmul(a, b):
        return np.matmul(a, b)

    @staticmethod
    def to_device(x, device):
        return _backend.to_device(x, device)

    @staticmethod
    def outer(a, b):
        return np.multiply.outer(a, b)

    @staticmethod
    def bmm(a, b):
        return np.matmul(a, b)

    @staticmethod
    def conj(x):
        if x.__class__ is float or x.__class__ is int:
            return x
        return x.conj() if x.dtype.kind == "c" else x

    @staticmethod
    def real(x):
        return x.real

    @staticmethod
    def imag(x):
        return x.imag

    @staticmethod
    def view_as_real(x):
        return np.stack([x.real, x.imag], axis=-1)

    @staticmethod
    def view_as_complex(x):
        return x[..., 0] + 1j * x[..., 1]

    @staticmethod
    def sgn(x):
        """torch's sgn: x / |x| (0 at 0) for complex numbers, the sign otherwise (see ``sign``)."""
        if np.iscomplexobj(x):
            magnitude = np.abs(x)
            return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude))
        return ArrayMath.sign(x)

    @staticmethod
    def sign(x):
        """torch's sign: -1, 0 or 1, and 0 for NaN, where NumPy's gives NaN."""
        out = np.sign(x)
        return np.nan_to_num(out, nan=0.0) if out.dtype.kind == "f" else out

    @staticmethod
    def pow(x, exponent):
        return power(x, exponent) if isinstance(exponent, (int, float)) else np.power(x, exponent)

    @staticmethod
    def div_number(x, number):
        """``x / number`` (a Python number): torch's C++ ``div(Tensor, Scalar)``."""
        return x / number

    @staticmethod
    def mul_number(x, number):
        """``x * number`` (a Python number): torch's C++ ``mul(Tensor, Scalar)``."""
        return x * number

    @staticmethod
    def rsqrt(x):
        return 1 / np.sqrt(x)

    @staticmethod
    def div_rounded(x, y, rounding_mode):
        """``x / y`` rounded down ("floor") or toward zero ("trunc")."""
        return np.floor_divide(x, y) if rounding_mode == "floor" else np.trunc(x / y)

    @staticmethod
    def clamp_min(x, low):
        return np.maximum(x, low)

    @staticmethod
    def isfinite(x):
        return np.isfinite(x)

    @staticmethod
    def isnan(x):
        return np.isnan(x)

    @staticmethod
    def sigmoid(x):
        return 1 / (1 + np.exp(-x))

    @staticmethod
    def log_sigmoid(x):
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def xlogy(x, y):
        y = y if hasattr(y, "dtype") else x.dtype.type(y)
        return np.where(np.isnan(y), y, np.where(x == 0, x.dtype.type(0), x * np.log(y))).astype(x.dtype, copy=False)

    @staticmethod
    def erf(x):
        return _backend.erf(x)

    exp = staticmethod(np.exp)
    log1p = staticmethod(np.log1p)
    log = staticmethod(np.log)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sinh = staticmethod(np.sinh)
    cosh = staticmethod(np.cosh)
    tanh = staticmethod(np.tanh)
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)
