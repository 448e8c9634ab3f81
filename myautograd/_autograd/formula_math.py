"""``F``: the one math namespace of the derivative formulas, for every kind of value.

A derivative formula (``_ops/derivatives.py`` and its helpers) is written once over ``F`` and
Python operators. What it computes with decides the kind of ``F``:

* **arrays** (NumPy or CuPy): a plain backward (``create_graph=False``), and tangents that need
  no gradient. Nothing is recorded and no tensor is created. ``F`` is ``ArrayMath``.
* **tensors**: a backward under ``create_graph=True`` and tangents that require grad
  (forward-over-reverse). myautograd's own operations compute them, so the formula is itself
  recorded, with torch's node names, and can be differentiated again. ``F`` is ``TensorMath``.

Each primitive is defined once, in ``PRIMITIVES`` below, as the model of HIPS autograd's NumPy
wrapper: its kernel on arrays, and the myautograd operation that computes that kernel on
tensors and records it (most often the tensor method of the same name; for a backward op with
a kernel of its own, the kernel itself, recorded under the node torch names; for data that
carries no gradient, a mask or weights, the kernel's result as a constant tensor). A helper
built from other primitives is written once, over ``F`` (``COMPOSITES``). ``ArrayMath`` and
``TensorMath`` are the two kinds' namespaces built from these; the engine picks one per pass
(``_autograd/modes.py``), so a plain backward calls NumPy directly, at no dispatch cost.
(``ArrayMath`` computes float16 and bfloat16 as torch's kernels do, in float32 rounded once,
which costs a dtype test per call; a plain backward evaluates a node whose gradient is of
another dtype with ``NativeArrayMath``, the same kernels without that test.)
``DispatchMath`` has the same names and picks the kind at each call from the values it is
given (``kind_of``: a tensor among them makes it a tensor call), for code that holds values of
either kind, as forward mode's tangents are.

The tensor side calls operations of the layer above (``myautograd._ops``), which hands them to
``install`` once they exist; ``install`` builds ``TensorMath``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from .. import _backend, _dtype
from .._reduced import in_float32
from .._summation import sum_array
from .._tensor import Tensor, make_tensor
from . import special_functions
from .arithmetic import absolute, power

# Backward ops with a kernel of their own (``elu_backward``, ``hardswish_backward``, ...): name of the
# node torch records for them under create_graph -> kernel(grad, forward_input, **attrs) on arrays.
# Filled by the op modules; their second derivatives are entries of the derivative table.
BACKWARD_KERNELS: dict = {}
# The kernels torch runs in float16 and bfloat16 themselves, each operation rounded (``scalar_t`` arithmetic:
# binary_cross_entropy_backward, whose epsilon is 0 in float16); the others compute in float32, rounded once.
STEPWISE_KERNELS: set = set()


_WIDENED: dict = {}  # kernel -> in_float32(kernel), made once


def backward_kernel(name: str):
    """The kernel of ``BACKWARD_KERNELS[name]`` as torch computes it in every dtype (see ``STEPWISE_KERNELS``)."""
    kernel = BACKWARD_KERNELS[name]
    if name in STEPWISE_KERNELS:
        return kernel
    widened = _WIDENED.get(kernel)
    if widened is None:
        widened = _WIDENED[kernel] = in_float32(kernel)
    return widened


# -- kernels on arrays (longer than a line) -----------------------------------------------------------
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


def log_cumulative_sum_exp(x, dim: int):
    """The running ``log(sum(exp(x)))`` along ``dim`` (logcumsumexp's kernel): as torch's CPU kernel, float32
    accumulated in float64 and each output rounded once; a 0-dim array is itself."""
    if not x.ndim:
        return x.copy()
    wide = x.astype(np.float64) if x.dtype == np.float32 else x
    return np.logaddexp.accumulate(wide, axis=dim).astype(x.dtype, copy=False)


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


def sum_to(x, shape):
    """Sum ``x`` down to ``shape``: undo broadcasting."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead, kept = _reduced_axes(x.shape, shape)
    if lead or kept:  # one reduction, as torch's sum_to, so that the additions are in its order
        x = sum_array(x, lead + tuple(len(lead) + k for k in kept), keepdim=True)
    return x.reshape(shape)


def narrow(x, dim, start, length):
    key = [slice(None)] * x.ndim
    key[dim] = slice(start, start + length)
    return x[tuple(key)]


def roll(x, shifts, dims):
    return np.roll(x, shifts, dims) if dims else np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)


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


def at_least_1d(x):
    """``x``, or a 0-dim ``x`` as a view of its one element: torch's gather and scatter take a 0-dim
    tensor as one of one element."""
    return x.reshape(1) if x.ndim == 0 else x


def index_put_zeros(shape, like, key, values, accumulate, node=None):
    """Zeros of ``shape`` with ``values`` written (or added, with repeats) at ``key`` (``node``:
    the node recorded on tensors)."""
    out = _zeros(shape, like)
    if accumulate:
        _backend.scatter_add(out, key, values)
    else:
        out[key] = values
    return out


def along_dim_key(index, dim: int) -> tuple:
    """torch's gather/scatter positions as an advanced index into ``at_least_1d`` of a tensor: each
    element of ``index`` paired with its own place, ``index`` itself along ``dim``. The index may be
    smaller than the tensor in the other dims; a 0-dim index is one position."""
    if index.ndim == 0:
        return (index,)
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index
    return tuple(grid)


def gather(x, dim, index):
    """torch.gather on arrays: the elements of ``x`` at ``index`` along ``dim``, shaped as ``index``."""
    return at_least_1d(x)[along_dim_key(index, dim)]


def scatter_zeros(x, dim, index):
    """``x`` with zeros at ``index`` along ``dim`` (gather/scatter positions)."""
    out = x.copy()
    at_least_1d(out)[along_dim_key(index, dim)] = 0
    return out


def scatter_into_zeros(shape, like, dim, index, values, add):
    """Zeros of ``shape`` with ``values`` (shaped as ``index``) written, or added with repeats, at
    ``index`` along ``dim``: the backward of gather (added) and of max/min along a dim (written)."""
    return placed_along(_zeros(shape, like), along_dim_key(index, dim), values, add)


def placed_along(out, key, values, add: bool):
    """``values`` written into ``out`` at ``key`` (``along_dim_key``), or added with repeats; ``out`` returned
    (a 0-dim one as its one element)."""
    if add:
        _backend.scatter_add(at_least_1d(out), key, values)
    else:
        at_least_1d(out)[key] = values
    return out


def _tensor_scatter_into_zeros(shape, like, dim, index, values, add):
    """``scatter_into_zeros`` recorded as torch records it: ``scatter_add`` or ``scatter`` of zeros."""
    zeros = like.new_zeros(tuple(int(n) for n in shape))
    return (zeros.scatter_add if add else zeros.scatter)(dim, make_tensor(index), values)


def mask_at(like, key):
    """A boolean array shaped like ``like``, on its device, True at ``key``."""
    mask = np.zeros_like(like, dtype=bool)
    mask[key] = True
    return mask


def constant(values, like):
    """Values (a mask, weights: host data, or an array already on a device) as an array of
    ``like``'s type on ``like``'s device."""
    if not (hasattr(values, "dtype") and hasattr(values, "shape")) or isinstance(values, np.generic):
        values = np.asarray(values)
    values = values if values.dtype == np.bool_ else values.astype(like.dtype, copy=False)
    if type(values) is np.ndarray and type(like) is not np.ndarray:
        return _backend.to_device(values, _backend.device_of(like))
    return values


def conj(x):
    if x.__class__ is float or x.__class__ is int:
        return x
    if x.__class__ is complex:  # a Python number an op was given (``z / (1 + 2j)``)
        return x.conjugate()
    return x.conj() if x.dtype.kind == "c" else x


def sign(x):
    """torch's sign: -1, 0 or 1, and 0 for NaN, where NumPy's gives NaN."""
    out = np.sign(x)
    return np.nan_to_num(out, nan=0.0) if _dtype.kind(out.dtype) == "f" else out


def sgn(x):
    """torch's sgn: x / |x| (0 at 0) for complex numbers, the sign otherwise (see ``sign``)."""
    if np.iscomplexobj(x):
        magnitude = absolute(x)
        at_zero = magnitude == 0
        divisor = np.where(at_zero, 1, magnitude)
        out = np.empty_like(x)  # each part divided (NumPy's complex / real multiplies by 1 / |x|: other bits)
        out.real = x.real / divisor
        out.imag = x.imag / divisor
        return np.where(at_zero, 0, out)
    return sign(x)


def xlogy(x, y):
    y = y if hasattr(y, "dtype") else x.dtype.type(y)
    return np.where(np.isnan(y), y, np.where(x == 0, x.dtype.type(0), x * np.log(y))).astype(x.dtype, copy=False)


def masked_backward(grad, mask, scale):
    """relu's ``threshold_backward`` and its kin: ``grad`` where ``mask``, ``grad * scale`` elsewhere."""
    return np.where(mask, grad, grad * scale if scale else 0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def tanh_backward(grad, output):
    """torch's kernel: the gradient times the conjugate of the derivative, read from the output."""
    return grad * conj(1 - output * output)


def sigmoid_backward(grad, output):
    return grad * conj((1 - output) * output)


# torch's fft normalization (0 none, 1 by the root of the size, 2 by the size) -> NumPy's norm, for a
# forward transform and for an inverse one (the kernels of ``_ops/fourier.py``'s primitives)
_NUMPY_FORWARD = ("backward", "ortho", "forward")
_NUMPY_INVERSE = ("forward", "ortho", "backward")


def c2c_kernel(x, dims, normalization: int, forward: bool):
    if forward:
        return np.fft.fftn(x, axes=dims, norm=_NUMPY_FORWARD[normalization])
    return np.fft.ifftn(x, axes=dims, norm=_NUMPY_INVERSE[normalization])


def r2c_kernel(x, dims, normalization: int, onesided: bool):
    transform = np.fft.rfftn if onesided else np.fft.fftn
    return transform(x, axes=dims, norm=_NUMPY_FORWARD[normalization])


def c2r_kernel(x, dims, normalization: int, last_dim_size: int):
    sizes = [x.shape[d] for d in dims[:-1]] + [last_dim_size]
    return np.fft.irfftn(x, s=sizes, axes=dims, norm=_NUMPY_INVERSE[normalization])


def doubled_middle(x, dims, full_size: int):
    """The weights of c2r's gradient: 2 for the frequencies 1 .. full - half along the last dim, 1 elsewhere."""
    half = x.shape[dims[-1]]
    weights = np.ones(half, dtype=np.float64)
    weights[1:1 + max(full_size - half, 0)] = 2.0
    shape = [1] * x.ndim
    shape[dims[-1]] = half
    return weights.reshape(shape)


# -- the tensor side: how a kernel's operation is found on tensors ---------------------------------------
def method(name: str, *, spread: bool = False) -> Callable:
    """The tensor method ``name`` of the first argument, with the other arguments; ``spread``: the
    second argument (a shape, dims) passed as separate ones (``x.expand(*shape)``)."""
    if spread:
        return lambda x, sizes: getattr(x, name)(*tuple(sizes))
    return lambda x, *args: getattr(x, name)(*args)


class Operations:
    """myautograd's operations the tensor side calls, defined above this layer: ``install`` is
    given them by ``myautograd._ops``."""

    NAMES = ("recorded", "nodes", "copy_into_new", "index_put_into_zeros", "im2col", "col2im", "einsum",
             "trilinear", "constant_pad", "cat", "stack", "where", "div_by_number", "mul_by_number", "logsigmoid",
             "fft_c2c", "fft_r2c", "linalg_solve")


OPS = Operations()


def recorded_kernel(kernel: Callable, node_name: str) -> Callable:
    """The tensor side of a backward op with a kernel of its own whose arguments are all tensors
    (``tanh_backward(grad, output)``): the kernel on their arrays, recorded as ``node_name``."""
    def on_tensors(*tensors):
        return OPS.recorded(OPS.nodes[node_name], kernel(*(t._data for t in tensors)), tensors)

    return on_tensors


def masked_backward_on_tensors(node_name, grad, forward_input, mask, scale):
    """``masked_backward`` recorded as ``node_name`` (relu's ``ThresholdBackwardBackward0``, ...) on
    grad and the forward input, the mask and scale saved."""
    out = masked_backward(grad._data, mask._data, scale)
    return OPS.recorded(OPS.nodes[node_name], out, (grad, forward_input), {"mask": mask, "scale": scale})


def as_constant(kernel: Callable) -> Callable:
    """The tensor side of a primitive whose result carries no gradient (a mask, weights): the
    kernel on the arrays, as a tensor."""
    return lambda *args: make_tensor(kernel(*(a._data if isinstance(a, Tensor) else a for a in args)))


def backward_op_on_arrays(node_name, grad, *forward_inputs, kernel=None, kernel_args=None, **attrs):
    """A backward with a kernel of its own (see ``BACKWARD_KERNELS``; ``kernel``: its name, when
    not the node's; ``kernel_args``: what the kernel reads besides the node's attributes)."""
    return backward_kernel(kernel or node_name)(grad, *forward_inputs, **attrs, **(kernel_args or {}))


def backward_op_on_tensors(node_name, grad, *forward_inputs, kernel=None, kernel_args=None, **attrs):
    """The kernel on the tensors' arrays, recorded as ``node_name`` (on grad and the forward
    inputs, saving ``attrs``), whose derivatives are in the table."""
    arrays = {k: v._data if isinstance(v, Tensor) else v for k, v in attrs.items()}
    inputs = (None if x is None else x._data for x in forward_inputs)
    out = backward_kernel(kernel or node_name)(grad._data, *inputs, **arrays, **(kernel_args or {}))
    return OPS.recorded(OPS.nodes[node_name], out, (grad, *forward_inputs), attrs)


def _tensor_sum_to(x, shape):
    if tuple(x.shape) == tuple(shape):
        return x
    return x.sum() if not tuple(shape) else x.sum_to_size(*tuple(shape))  # to 0-dim: a full sum, as torch


def _tensor_index(x, key):
    """``x[key]`` for a key saved as arrays (on the device): index arrays become tensors."""
    if isinstance(key, tuple):
        key = tuple(make_tensor(k) if hasattr(k, "shape") and hasattr(k, "dtype") else k for k in key)
    return x[key]


def _same(fn: Callable) -> tuple[Callable, Callable]:
    """A primitive whose code is the same on both kinds."""
    return fn, fn


# name: (on arrays, on tensors). A tensor side given as a string is the operation of that name
# that ``install`` was given (``OPS``).
PRIMITIVES: dict[str, tuple] = {
    # shapes
    "sum_to": (sum_to, _tensor_sum_to),
    "expand": (lambda x, shape: _backend.broadcast_to(x, tuple(shape)), method("expand", spread=True)),
    "reshape": _same(lambda x, shape: x.reshape(tuple(shape))),
    "unsqueeze": (np.expand_dims, method("unsqueeze")),
    "squeeze_dim": (lambda x, dim: x.squeeze(axis=dim) if x.ndim and x.shape[dim] == 1 else x, method("squeeze")),
    "transpose": (lambda x, dim0, dim1: x.swapaxes(dim0, dim1) if x.ndim else x, method("transpose")),
    "t": (lambda x: x.T if x.ndim == 2 else x, method("t")),
    "permute": (lambda x, dims: x.transpose(dims), method("permute", spread=True)),
    "flip": (lambda x, dims: np.flip(x, axis=tuple(dims)), lambda x, dims: x.flip(tuple(dims))),
    "rot90": (lambda x, k, dims: np.rot90(x, k, axes=tuple(dims)).copy(), method("rot90")),
    "narrow": (narrow, method("narrow")),
    "select": (lambda x, dim, index: x[(slice(None),) * dim + (index, Ellipsis)],  # a view, never a NumPy scalar
               method("select")),
    "roll": (roll,
             lambda x, shifts, dims: x.roll(shifts, dims if dims else None)),
    "diagonal": (lambda x, offset, dim1, dim2: np.diagonal(x, offset, dim1, dim2).copy(), method("diagonal")),
    "im2col": (lambda x, kernel, stride, dilation: window_view(x, kernel, stride, dilation).copy(), "im2col"),
    "col2im": (windows_summed, "col2im"),
    "einsum": (lambda equation, *operands: np.einsum(equation, *operands, optimize=True), "einsum"),
    "trilinear": (trilinear, "trilinear"),
    "fft_c2c": (c2c_kernel, "fft_c2c"),
    "fft_r2c": (r2c_kernel, "fft_r2c"),
    "constant_pad": (constant_pad, lambda x, pad: OPS.constant_pad(x, pad, 0.0)),
    "cat": (lambda xs, dim: np.concatenate(xs, axis=dim), lambda xs, dim: OPS.cat(list(xs), dim)),
    "stack": (lambda xs, dim: np.stack(xs, axis=dim), lambda xs, dim: OPS.stack(list(xs), dim)),
    "tril": (np.tril, method("tril")),
    "triu": (np.triu, method("triu")),
    # creation and data
    "zeros": (_zeros, lambda shape, like: like.new_zeros(tuple(int(n) for n in shape))),
    "zeros_like": (np.zeros_like, lambda x: x.new_zeros(tuple(x.shape))),
    "ones": (lambda shape, like: _zeros(shape, like) + 1, lambda shape, like: like.new_ones(tuple(int(n) for n in shape))),
    "index_put_zeros": (index_put_zeros,
                        lambda shape, like, key, values, accumulate, node="IndexPutBackward0":
                        OPS.index_put_into_zeros(tuple(shape), like, key, values, accumulate, node)),
    "gather": (gather, lambda x, dim, index: x.gather(dim, make_tensor(index))),
    "scatter_into_zeros": (scatter_into_zeros, _tensor_scatter_into_zeros),
    "scatter_zeros": (scatter_zeros, lambda x, dim, index: x.scatter(dim, make_tensor(index), 0.0)),
    "index": (operator.getitem, _tensor_index),
    "tanh_backward": (tanh_backward, recorded_kernel(tanh_backward, "TanhBackwardBackward0")),
    "sigmoid_backward": (sigmoid_backward, recorded_kernel(sigmoid_backward, "SigmoidBackwardBackward0")),
    "masked_backward": (lambda node_name, grad, forward_input, mask, scale: masked_backward(grad, mask, scale),
                        masked_backward_on_tensors),
    "backward_op": (backward_op_on_arrays, backward_op_on_tensors),
    "array": _same(lambda x: x._data if hasattr(x, "_data") else x),
    "item": _same(lambda x: x.item() if hasattr(x, "item") else x),
    "mask_at": (mask_at, as_constant(mask_at)),
    "constant": (constant, as_constant(constant)),
    "copy_into_new": (None, "copy_into_new"),  # a leaf's first gradient under create_graph (CopyBackwards)
    # math
    "where": (np.where, "where"),
    "masked_fill": (lambda x, mask, value: np.where(mask, x.dtype.type(value), x), method("masked_fill")),
    "reciprocal": (np.reciprocal, method("reciprocal")),
    "sum": (lambda x, dims=None, keepdim=False: sum_array(x, dims, keepdim),
            lambda x, dims=None, keepdim=False: x.sum() if dims is None else x.sum(tuple(dims), keepdim=keepdim)),
    "prod": (lambda x, dim=None, keepdim=False: x.prod(axis=dim, keepdims=keepdim),
             lambda x, dim=None, keepdim=False: x.prod() if dim is None else x.prod(dim, keepdim=keepdim)),
    "cumprod": (lambda x, dim: np.cumprod(x, axis=dim), method("cumprod")),
    "cumsum": (lambda x, dim: np.cumsum(x, axis=dim), method("cumsum")),
    "logcumsumexp": (log_cumulative_sum_exp, method("logcumsumexp")),
    "matmul": (np.matmul, method("matmul")),
    "bmm": (np.matmul, method("bmm")),
    "cross": (lambda a, b, dim: np.cross(a, b, axis=dim), method("cross")),
    "linalg_solve": (np.linalg.solve, "linalg_solve"),  # A X = B, B a (batch of) matrices
    "to_device": (_backend.to_device, method("to")),
    "conj": (conj, lambda x: x.conj() if isinstance(x, Tensor) and x._data.dtype.kind == "c" else
             x.conjugate() if x.__class__ is complex else x),
    "real": _same(lambda x: x.real),
    "imag": _same(lambda x: x.imag),
    "view_as_real": (lambda x: np.stack([x.real, x.imag], axis=-1), method("view_as_real")),
    "view_as_complex": (lambda x: x[..., 0] + 1j * x[..., 1], method("view_as_complex")),
    "sign": (sign, method("sign")),
    "sgn": (sgn, method("sgn")),
    "pow": (lambda x, exponent: power(x, exponent) if isinstance(exponent, (int, float, complex)) else np.power(x, exponent),
            method("pow")),
    "div_number": (operator.truediv, "div_by_number"),  # x / a Python number: torch's C++ div(Tensor, Scalar)
    "mul_number": (operator.mul, "mul_by_number"),  # x * a Python number: torch's C++ mul(Tensor, Scalar)
    "rsqrt": (lambda x: 1 / np.sqrt(x), method("rsqrt")),
    "div_rounded": (lambda x, y, rounding_mode: np.floor_divide(x, y) if rounding_mode == "floor" else np.trunc(x / y),
                    lambda x, y, rounding_mode: x.div(y, rounding_mode=rounding_mode)),
    "clamp_min": (np.maximum, method("clamp_min")),
    "isfinite": (np.isfinite, method("isfinite")),
    "isnan": (np.isnan, method("isnan")),
    "sigmoid": (sigmoid, method("sigmoid")),
    "log_sigmoid": (lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), "logsigmoid"),
    "xlogy": (xlogy, method("xlogy")),
    "erf": (_backend.erf, method("erf")),
    **{name: (getattr(special_functions, name), recorded_kernel(getattr(special_functions, name), node))
       for name, node in special_functions.RECORDED_AS.items()},  # on tensors, recorded as torch's nodes
    "polygamma": (special_functions.polygamma, lambda n, x: OPS.recorded(
        OPS.nodes["PolygammaBackward0"], special_functions.polygamma(n, x._data), (x,), {"n": n})),
    "abs": (absolute, operator.methodcaller("abs")),
    **{name: (getattr(np, name), operator.methodcaller(name))
       for name in ("exp", "exp2", "log", "log1p", "sin", "cos", "sinh", "cosh", "tanh", "sqrt")},
}


# Helpers built from the primitives, written once over F.
def _unsqueeze_dims(F, x, dims, ndim):
    """Re-insert the reduced ``dims`` of an ``ndim``-dimensional input."""
    for d in sorted(d % ndim for d in dims) if ndim else ():
        x = F.unsqueeze(x, d)
    return x


def _mT(F, x):  # noqa: N802 - mirrors Tensor.mT
    return F.transpose(x, -1, -2)


def _outer(F, a, b):
    return F.reshape(a, tuple(a.shape) + (1,) * b.ndim) * b


COMPOSITES: dict[str, Callable] = {"unsqueeze_dims": _unsqueeze_dims, "mT": _mT, "outer": _outer}


def _namespace(name: str, doc: str, functions: dict[str, Callable | None], recording: bool) -> type:
    """A class whose attributes are ``functions`` and the composites bound to it; ``recording``:
    whether the formulas' own operations are recorded (create_graph)."""
    attributes = {key: staticmethod(fn) for key, fn in functions.items() if fn is not None}
    namespace = type(name, (), {"__doc__": doc, "__module__": __name__, "recording": recording, **attributes})
    for key, composite in COMPOSITES.items():
        setattr(namespace, key, staticmethod(_bound(composite, namespace)))
    return namespace


def _bound(composite: Callable, namespace: type) -> Callable:
    def helper(*args):
        return composite(namespace, *args)

    helper.__name__ = composite.__name__.lstrip("_")
    return helper


# The primitives that compute (one torch kernel each): in float16 and bfloat16, in float32 and rounded once.
# (rsqrt: torch rounds the square root, then its reciprocal.)
COMPUTING = frozenset((
    "einsum", "trilinear", "col2im", "tanh_backward", "sigmoid_backward", "masked_backward",
    "reciprocal", "sum", "prod", "cumprod", "cumsum", "logcumsumexp", "matmul", "bmm", "cross", "sign", "sgn", "pow",
    "div_number",
    "mul_number", "clamp_min", "sigmoid", "log_sigmoid", "xlogy", "erf",
    "exp", "log", "log1p", "sin", "cos", "sinh", "cosh", "tanh", "sqrt", "abs",
))
ArrayMath = _namespace("ArrayMath", "Formula primitives on arrays of any dtype: NumPy (CuPy) kernels, nothing recorded.",
                       {name: in_float32(on_arrays) if name in COMPUTING else on_arrays
                        for name, (on_arrays, _) in PRIMITIVES.items()}, recording=False)
# The same primitives with no reduced-precision test at each call: what a backward pass uses for a
# gradient that is not float16 or bfloat16 (``ArrayMode.math``), the common case, at no cost.
NativeArrayMath = _namespace("NativeArrayMath",
                             "Formula primitives on arrays other than float16 and bfloat16: the kernels as they are.",
                             {name: on_arrays for name, (on_arrays, _) in PRIMITIVES.items()}, recording=False)
TensorMath: type | None = None  # built by install(), once myautograd's operations exist
_ONE_KERNEL: dict = {}


def one_kernel(computation: Callable) -> Callable:
    """``computation(F, *arrays, ...)`` as one torch kernel computes it: with ``NativeArrayMath``, and
    float16 and bfloat16 arrays widened to float32 and the results rounded once (a convolution, a
    normalization layer and its backward; ``ArrayMath`` would round after every primitive)."""
    kernel = _ONE_KERNEL.get(computation)
    if kernel is None:
        kernel = _ONE_KERNEL[computation] = in_float32(lambda *args, **kwargs: computation(NativeArrayMath, *args,
                                                                                             **kwargs))
    return kernel


def _tensor_side(on_tensors) -> Callable | None:
    if isinstance(on_tensors, str):
        return getattr(OPS, on_tensors)
    return on_tensors


def install(**operations: Callable) -> None:
    """Take the operations the tensor side calls (``Operations.NAMES``) and build ``TensorMath``
    (``myautograd._ops`` calls this once its operations are defined)."""
    global TensorMath
    if set(operations) != set(Operations.NAMES):
        raise ValueError(f"install: expected {sorted(Operations.NAMES)}, got {sorted(operations)}")
    for name, operation in operations.items():
        setattr(OPS, name, operation)
    TensorMath = _namespace("TensorMath", "Formula primitives on tensors, recorded by myautograd's own operations.",
                            {name: _tensor_side(on_tensors) for name, (_, on_tensors) in PRIMITIVES.items()},
                            recording=True)


def _holds_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    return (value.__class__ is list or value.__class__ is tuple) and any(isinstance(v, Tensor) for v in value)


def kind_of(*values, **named) -> type:
    """The namespace for these values: ``TensorMath`` when one of them (or an element of a list
    or tuple among them) is a tensor, else ``ArrayMath``."""
    for value in (*values, *named.values()):
        if _holds_tensor(value):
            return TensorMath
    return ArrayMath


def _dispatching(name: str) -> Callable:
    def dispatch(*args, **kwargs):
        return getattr(kind_of(*args, **kwargs), name)(*args, **kwargs)

    dispatch.__name__ = name
    return dispatch


DispatchMath = type("DispatchMath", (), {
    "__doc__": "The names of ArrayMath and TensorMath; each call picks the kind from its values (``kind_of``).",
    "__module__": __name__,
    **{name: staticmethod(_dispatching(name)) for name in (*PRIMITIVES, *COMPOSITES)},
})
