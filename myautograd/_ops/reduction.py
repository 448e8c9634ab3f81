"""Reductions: sum, mean, max/min, amax/amin, prod, var/std, norms, logsumexp, softmax, arg-reductions.

Overloads keep torch's node names: a full ``sum()`` is ``SumBackward0`` and ``sum(dim)``
``SumBackward1``; a full ``max()`` is ``MaxBackward1`` and ``max(dim)`` ``MaxBackward0``.

float16 and bfloat16 reduce as torch's CPU kernels do: accumulated in float32, the result rounded
once (``_accumulator``, ``_reduced.in_float32``). float32 and float64 sums and means add in torch's
order (``_summation``), so their last bits are torch's.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _backend, _dtype, return_types
from .._autograd.arithmetic import absolute
from .._autograd.record import record, records
from .._dtype import REDUCED_FLOATS
from .._reduced import in_float32
from .._summation import sum_array
from .._tensor import Tensor, make_tensor
from .._user_warnings import warn_from_user_code
from .common import check_tensor, normalize_dim, normalize_dims, read_as, to_dtype
from .derivatives import NODES
from .linalg import nuclear_norm
from .registry import export
from .signatures import invalid_arguments

_NUMEL = "self_sym_numel"


def _dims_arg(dim, ndim: int) -> tuple[int, ...] | None:
    """Normalised reduction dims; None for all dims. A 0-dim tensor's dim 0 (or -1) is the tensor itself: reducing
    over it reduces over no axis of the array, ``()``."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        axes = normalize_dims(dim, ndim)
    else:
        axes = (normalize_dim(dim, ndim),)
    return axes if ndim else ()


def _saved_dims(dim) -> tuple:
    return tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)


def _sum_dtype(data, dtype):
    if dtype is not None:
        return to_dtype(dtype).np
    return np.int64 if data.dtype.kind in "biu" else data.dtype


def _accumulator(result_dtype):
    """The dtype a sum, product or scan of ``result_dtype`` accumulates in: float32 for float16 and bfloat16."""
    return np.float32 if result_dtype in REDUCED_FLOATS else result_dtype


def _summed(data, axes, keepdim: bool):
    """``data`` summed over ``axes`` (None: all) in its accumulator type, in torch's order of additions."""
    keepdims = keepdim if axes is not None else False
    accumulator = _accumulator(data.dtype)
    if accumulator != data.dtype:
        return data.sum(axis=axes, keepdims=keepdims, dtype=accumulator)
    return sum_array(data, axes, keepdims)


@export
def sum(input, dim=None, keepdim=False, *, dtype=None):
    check_tensor(input, "sum")
    data = input._data
    axes = _dims_arg(dim, data.ndim)
    result = _sum_dtype(data, dtype)
    values = read_as(data, result)
    if values.dtype != result:  # sum(dtype=...) adds the values cast to that dtype, as torch does
        values = values.astype(result)
    out = _backend.as_array(_summed(values, axes, keepdim), dtype=result)
    if not records(input):
        return make_tensor(out)
    if dim is None:
        return record(NODES["SumBackward0"], out, (input,), {"self_sym_sizes": data.shape})
    return record(NODES["SumBackward1"], out, (input,),
                  {"dim": _saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": data.shape})


@export(function=False)
def sum_to_size(input, *size):
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    current = input._data.shape
    lead = len(current) - len(shape)
    if lead < 0 or [n for n, m in zip(shape, current[lead:]) if n not in (1, m)]:  # (any: torch.any here)
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(current)}}}.")
    if not shape:  # torch's sum_to: to no dims is a full sum, even of a 0-dim tensor
        return sum(input)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and current[lead + i] != 1)
    out = sum(input, dims, keepdim=True) if dims else input
    return out.reshape(shape) if out._data.shape != shape else out


def _reduced_size(shape: tuple, axes: tuple) -> int:
    count = 1
    for axis in axes:
        count *= shape[axis]
    return count


def _nonempty_dim(name: str, data, axis, shown=None) -> None:
    """torch refuses to select (max, argmax...) along an empty dim, or over an empty tensor without a dim.
    The message shows the dim wrapped (max, argmax), or as given (``shown``: amax, amin)."""
    if axis is None:
        if data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    elif data.ndim and data.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis if shown is None else shown} to have non-zero size.")


def _require_float(input: Tensor, name: str, requested: bool = False) -> None:
    """torch's refusal of an integer ``input`` (``requested``: its dtype is the one the call asked for)."""
    if input.dtype.category < _dtype.FLOATING:
        raise RuntimeError(f"{name}(): could not infer output dtype. {'Optional' if requested else 'Input'} dtype "
                           f"must be either a floating point or complex dtype. Got: {input.dtype.scalar_type_name}")


@export
def mean(input, dim=None, keepdim=False, *, dtype=None):
    check_tensor(input, "mean")
    if dtype is not None:
        input = input.to(to_dtype(dtype))
    _require_float(input, "mean", requested=dtype is not None)
    data = input._data
    axes = _dims_arg(dim, data.ndim)
    count = data.size if axes is None else _reduced_size(data.shape, axes)
    total = _summed(data, axes, keepdim)
    out = _backend.as_array(total / total.dtype.type(count) if count else total * total.dtype.type("nan"),
                            dtype=data.dtype)
    if not records(input):
        return make_tensor(out)
    if dim is None:
        return record(NODES["MeanBackward0"], out, (input,), {"self_sym_sizes": data.shape, _NUMEL: data.size})
    return record(NODES["MeanBackward1"], out, (input,),
                  {"dim": _saved_dims(dim), "keepdim": keepdim, "self_sym_sizes": data.shape})


EXTREME_SIGNATURES = ("Tensor input, *, Tensor out = None", "Tensor input, Tensor other, *, Tensor out = None",
                      "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None")


def _extreme(name: str, reduce_all, arg_reduce, result_type, full_node: str, dim_node: str):
    def op(input, dim=None, keepdim=False, *, out=None):
        if not isinstance(input, Tensor):
            given = (input,) if dim is None else (input, dim) if keepdim is False else (input, dim, keepdim)
            raise invalid_arguments(name, EXTREME_SIGNATURES, given)
        if isinstance(dim, Tensor):
            from . import pointwise

            return (pointwise.maximum if name == "max" else pointwise.minimum)(input, dim)
        data = input._data
        if dim is None:
            if data.size == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            values = _backend.as_array(reduce_all(data))
            if records(input):
                return record(NODES[full_node], values, (input,))
            return make_tensor(values)
        axis = normalize_dim(dim, data.ndim)
        _nonempty_dim(name, data, axis)
        if data.ndim == 0:
            indices = np.zeros((), dtype=np.int64)
            values = data.copy()
        else:
            indices = arg_reduce(data, axis=axis, keepdims=True)
            values = np.take_along_axis(data, indices, axis=axis)
            if not keepdim:
                indices, values = indices.squeeze(axis), values.squeeze(axis)
        index_tensor = make_tensor(_backend.as_array(indices, dtype=np.int64))
        if records(input):
            value_tensor = record(NODES[dim_node], values, (input,),
                                  {"dim": dim, "keepdim": keepdim, "indices": index_tensor, "self_sym_sizes": data.shape})
        else:
            value_tensor = make_tensor(values)
        return result_type(value_tensor, index_tensor)

    op.__name__ = name
    return export(op)


max = _extreme("max", np.max, np.argmax, return_types.max, "MaxBackward1", "MaxBackward0")
min = _extreme("min", np.min, np.argmin, return_types.min, "MinBackward1", "MinBackward0")


def _amax_like(name: str, reduce, node: str):
    def op(input, dim=(), keepdim=False):
        data = input._data
        axes = _dims_arg(dim, data.ndim)
        if axes is None:
            if data.size == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
        else:
            for axis, given in zip(axes, dim if isinstance(dim, (tuple, list)) else (dim,)):
                _nonempty_dim(name, data, axis, shown=given)
        out = _backend.as_array(reduce(data, axis=axes if data.ndim else None, keepdims=keepdim))  # 0-dim: dim 0 is itself
        if records(input):
            return record(NODES[node], out, (input,),
                          {"dim": _saved_dims(dim) if axes is not None else tuple(range(data.ndim)), "keepdim": keepdim})
        return make_tensor(out)

    op.__name__ = name
    return export(op)


amax = _amax_like("amax", np.max, "AmaxBackward0")
amin = _amax_like("amin", np.min, "AminBackward0")


def _arg(name: str, reduce):
    def op(input, dim=None, keepdim=False):
        data = input._data
        if dim is None:
            _nonempty_dim(name, data, None)
            return make_tensor(_backend.as_array(reduce(data), dtype=np.int64))
        axis = normalize_dim(dim, data.ndim)
        _nonempty_dim(name, data, axis)
        reduced = reduce(data, axis=axis, keepdims=keepdim)
        return make_tensor(_backend.as_array(reduced, dtype=np.int64))

    op.__name__ = name
    return export(op)


argmax = _arg("argmax", np.argmax)
argmin = _arg("argmin", np.argmin)


@export
def prod(input, dim=None, keepdim=False, *, dtype=None):
    data = input._data
    if dim is None:
        result = _sum_dtype(data, dtype)
        out = _backend.as_array(read_as(data, result).prod(dtype=_accumulator(result)), dtype=result)
        if records(input):
            return record(NODES["ProdBackward0"], out, (input,))
        return make_tensor(out)
    axis = normalize_dim(dim, data.ndim)
    result = _sum_dtype(data, dtype)
    out = _backend.as_array(read_as(data, result).prod(axis=axis if data.ndim else None,
                                                       keepdims=keepdim and data.ndim > 0, dtype=_accumulator(result)),
                            dtype=result)
    if records(input):
        return record(NODES["ProdBackward1"], out, (input,), {"dim": dim, "keepdim": keepdim})
    return make_tensor(out)


def _correction(unbiased, correction) -> int:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _var_like(name: str, node: str, finish, with_mean: bool = False):
    def op(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):
            unbiased, dim = dim, None
        _require_float(input, name)
        data = input._data
        axes = _dims_arg(dim, data.ndim)
        ddof = _correction(unbiased, correction)
        count = data.size if axes is None else _reduced_size(data.shape, axes)
        if (count if data.size else 0) - ddof <= 0:  # torch counts an empty input's reduction as 0 elements
            # (for a complex input torch reduces the real and the imaginary parts apart: each warns)
            for _ in range(2 if data.dtype.kind == "c" else 1):
                warn_from_user_code(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
                                    "the reduction factor (input numel divided by output numel).")
        keep = keepdim if axes is not None else False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            variance = _variance(data, axes, ddof, keep)
        out = _backend.as_array(_finish(finish, variance), dtype=variance.dtype)  # a complex input's variance is real
        attrs = {"dim": None if axes is None else _saved_dims(dim), "correction": ddof, "keepdim": keepdim}
        if not with_mean:
            if records(input):
                return record(NODES[node], out, (input,), attrs)
            return make_tensor(out)
        total = data.sum(axis=axes, keepdims=keep, dtype=_accumulator(data.dtype))
        mean_out = _backend.as_array(total / total.dtype.type(count) if count else total * total.dtype.type("nan"),
                                     dtype=data.dtype)
        if records(input):
            return record(NODES[node], (out, mean_out), (input,), attrs, outputs=2)
        return make_tensor(out), make_tensor(mean_out)

    op.__name__ = name
    return export(op, method=not with_mean)


_variance = in_float32(lambda data, axes, ddof, keep: data.var(axis=axes, ddof=ddof, keepdims=keep))
_finish = in_float32(lambda finish, variance: finish(variance))  # std: the float32 variance's square root, rounded once


var = _var_like("var", "VarBackward0", lambda v: v)
std = _var_like("std", "StdBackward0", np.sqrt)
var_mean = _var_like("var_mean", "VarMeanBackward0", lambda v: v, with_mean=True)
std_mean = _var_like("std_mean", "StdMeanBackward0", np.sqrt, with_mean=True)


def _vector_norm(input: Tensor, ord, dim, keepdim: bool) -> Tensor:
    data = input._data
    axes = _dims_arg(dim, data.ndim)
    out = _norm_of(data, ord, axes, keepdim)
    if records(input):
        return record(NODES["LinalgVectorNormBackward0"], out, (input,),
                      {"ord": ord, "dim": None if axes is None else _saved_dims(dim), "keepdim": keepdim})
    return make_tensor(out)


@in_float32
def _norm_of(data, ord, axes, keepdim):
    magnitude = absolute(data)
    if ord == 2:
        out = np.sqrt((magnitude * magnitude).sum(axis=axes, keepdims=keepdim))
    elif ord == float("inf"):
        out = magnitude.max(axis=axes, keepdims=keepdim)
    elif ord == float("-inf"):
        out = magnitude.min(axis=axes, keepdims=keepdim)
    elif ord == 1:
        out = magnitude.sum(axis=axes, keepdims=keepdim)
    elif ord == 0:
        out = (magnitude != 0).sum(axis=axes, keepdims=keepdim).astype(magnitude.dtype)
    else:
        out = (magnitude ** ord).sum(axis=axes, keepdims=keepdim) ** (1.0 / ord)
    return _backend.as_array(out, dtype=magnitude.dtype)


@export
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "nuc":
        return nuclear_norm(input, dim, keepdim)
    ord = 2 if p in ("fro", None) else p
    return _vector_norm(input, ord, dim, keepdim)


@export(method=False)
def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    return _vector_norm(input, ord, dim, keepdim)


@export
def logsumexp(input, dim, keepdim=False):
    data = input._data
    axes = _dims_arg(dim, data.ndim) or tuple(range(data.ndim))
    out = _backend.as_array(_logsumexp_of(data, axes, keepdim), dtype=data.dtype)
    if records(input):
        return record(NODES["LogsumexpBackward0"], out, (input,), {"dim": _saved_dims(dim), "keepdim": keepdim})
    return make_tensor(out)


def _logsumexp_of(data, axes, keepdim):
    """torch's logsumexp is composite (max, exp, sum, log, add): in float16 and bfloat16 each step rounds."""
    peak = np.max(data, axis=axes, keepdims=True) if data.size else np.zeros((1,) * data.ndim, data.dtype)
    peak = np.where(np.isfinite(peak), peak, 0)
    out = np.log(np.exp(data - peak).sum(axis=axes, keepdims=True)) + peak
    return out.squeeze(axes) if not keepdim else out


def _peak_along(data, axis):
    """The maximum along ``axis``, kept as a dim of size 1; -inf where ``axis`` is empty, so that an empty input
    gives an empty softmax as torch's does."""
    return np.max(data, axis=axis, keepdims=True, initial=-np.inf)


def _softmax_data(data, axis):
    shifted = data - _peak_along(data, axis)
    exps = np.exp(shifted)
    return shifted, exps, exps.sum(axis=axis, keepdims=True)


@export
def softmax(input, dim=None, dtype=None, *, _stacklevel=3):
    if dtype is not None:
        input = input.to(to_dtype(dtype))
    data = input._data if _dtype.kind(input._data.dtype) in "fc" else input._data.astype(_dtype.get_default_dtype().np)
    axis = normalize_dim(dim, data.ndim)
    out = _softmax_of(data, axis)
    if records(input):
        return record(NODES["SoftmaxBackward0"], out, (input,), {"dim": dim})
    return make_tensor(out)


@export
def log_softmax(input, dim=None, dtype=None, *, _stacklevel=3):
    if dtype is not None:
        input = input.to(to_dtype(dtype))
    data = input._data
    axis = normalize_dim(dim, data.ndim)
    out = _log_softmax_of(data, axis)
    if records(input):
        return record(NODES["LogSoftmaxBackward0"], out, (input,), {"dim": dim})
    return make_tensor(out)


@in_float32
def _softmax_of(data, axis):
    _, exps, total = _softmax_data(data, axis)
    return exps / total


@in_float32
def _log_softmax_of(data, axis):
    """``x - (max + log(sum(exp(x - max))))``, the order of torch's kernel (in float32 for float16 and bfloat16)."""
    peak = _peak_along(data, axis)
    return data - (peak + np.log(np.exp(data - peak).sum(axis=axis, keepdims=True)))


def scan(accumulate, data, dim, dtype=None):
    """``np.cumsum``/``np.cumprod`` along ``dim`` (float16 and bfloat16 accumulated in float32); a 0-dim
    tensor stays 0-dim."""
    result = data.dtype if dtype is None else np.dtype(dtype)
    out = accumulate(read_as(data, result), axis=normalize_dim(dim, data.ndim), dtype=_accumulator(result))
    out = out.astype(result, copy=False)
    return out.reshape(data.shape) if data.ndim == 0 else out


@export
def cumsum(input, dim, *, dtype=None):
    data = input._data
    out = scan(np.cumsum, data, dim, _sum_dtype(data, dtype))
    if records(input):
        return record(NODES["CumsumBackward0"], out, (input,), {"dim": dim})
    return make_tensor(out)


@export
def cumprod(input, dim, *, dtype=None):
    data = input._data
    out = scan(np.cumprod, data, dim, _sum_dtype(data, dtype))
    if records(input):
        return record(NODES["CumprodBackward0"], out, (input,), {"dim": dim})
    return make_tensor(out)


@export
def all(input, dim=None, keepdim=False):
    axes = _dims_arg(dim, input._data.ndim)
    return make_tensor(_backend.as_array(np.all(input._data, axis=axes, keepdims=keepdim if axes else False)))


@export
def any(input, dim=None, keepdim=False):
    axes = _dims_arg(dim, input._data.ndim)
    return make_tensor(_backend.as_array(np.any(input._data, axis=axes, keepdims=keepdim if axes else False)))


@export
def count_nonzero(input, dim=None):
    axes = _dims_arg(dim, input._data.ndim)
    return make_tensor(_backend.as_array(np.count_nonzero(input._data, axis=axes), dtype=np.int64))


def sorted_order(data, axis: int, descending: bool):
    """The indices that sort ``data`` along ``axis``, stably (torch's CPU sort), ascending or descending;
    NaN is the largest value, as in torch (last ascending, first descending)."""
    if not descending:
        return np.argsort(data, axis=axis, kind="stable")
    if data.dtype.kind == "f":
        return np.lexsort((-data, ~np.isnan(data)), axis=axis)
    return np.argsort(~data if data.dtype.kind == "b" else -data, axis=axis, kind="stable")


_NOT_GIVEN = object()  # an argument left out, where torch's overload depends on whether it is given


@export
def sort(input, dim=-1, descending=False, stable=_NOT_GIVEN):
    """The values along ``dim`` in order (stably, as torch's CPU sort), with their indices: SortBackward0,
    or SortBackward1 when ``stable`` is given (even as None or False: torch's overload with it)."""
    check_tensor(input, "sort")
    data = input._data
    if data.ndim == 0:
        order, values = np.zeros((), dtype=np.int64), data.copy()
    else:
        axis = normalize_dim(dim, data.ndim)
        order = sorted_order(data, axis, descending)
        values = np.take_along_axis(data, order, axis=axis)
    indices = make_tensor(_backend.as_array(order, dtype=np.int64))
    if records(input):
        saved_dim = normalize_dim(dim, data.ndim) if data.ndim else 0
        node = "SortBackward0" if stable is _NOT_GIVEN else "SortBackward1"
        value_tensor = record(NODES[node], values, (input,),
                              {"dim": saved_dim, "indices": indices, "self_sym_sizes": data.shape})
    else:
        value_tensor = make_tensor(values)
    return return_types.sort(value_tensor, indices)
