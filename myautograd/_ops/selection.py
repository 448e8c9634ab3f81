"""Selections along a dim: topk, kthvalue, median, nanmedian, mode, aminmax, and the sorts msort and argsort.

Each picks elements of its input by their order along ``dim``, and its gradient goes back to the
elements picked, through their indices (torch's ``value_selecting_reduction_backward``):
``TopkBackward0`` as sort's node (the values only), ``KthvalueBackward0``, ``MedianBackward1``,
``NanmedianBackward1`` and ``ModeBackward0`` as ``max(dim)``'s. A full ``median()``/``nanmedian()``
(``MedianBackward0``, ``NanmedianBackward0``) splits its gradient evenly among the elements equal to
the result, as a full ``max()``; ``aminmax`` (one ``AminmaxBackward0`` node of two outputs) splits each
output's gradient evenly among the elements equal to it, as amin's and amax's.

The order is NumPy's stable sort, NaN last (the largest, as torch orders it). Where several elements
tie, torch's CPU quickselect (kthvalue, median) returns the index of one of them it does not specify;
myautograd returns the first in the stable order.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, return_types
from .._autograd.record import record, records
from .._tensor import Tensor, make_tensor
from .._user_warnings import warn_from_user_code
from .common import check_out_dtype, check_tensor, normalize_dim
from .derivatives import NODES
from .inplace import RESIZED_OUT, resize_, write_out
from .reduction import sort, sorted_order
from .registry import export


def _line_up(data, axis):
    """``data`` with ``axis`` last (a 0-dim tensor as one element along it)."""
    return np.moveaxis(data, axis, -1) if data.ndim else data.reshape(1)


def _put_back(picked, axis, ndim, keepdim):
    """A reduction's picks (one per line, ``axis`` removed) shaped as torch's result."""
    if ndim == 0:
        return picked.reshape(())
    return np.expand_dims(picked, axis) if keepdim else picked


def _selected(name: str, input: Tensor, axis: int, keepdim: bool, positions, out, node: str):
    """The values at ``positions`` (indices along ``axis``, one per line) and those indices, recorded as
    ``node`` (``dim``, ``keepdim``, ``indices``), or written into ``out``."""
    data = input._data
    index = _backend.host_value(_put_back(positions, axis, data.ndim, True), data, np.int64)  # on data's device
    values = np.take_along_axis(data, index, axis=axis) if data.ndim else data.copy()
    index = index if keepdim or not data.ndim else index.squeeze(axis)
    values = values if keepdim or not data.ndim else values.squeeze(axis)
    indices = make_tensor(_backend.as_array(index.reshape(values.shape), dtype=np.int64))
    if out is not None:
        return _write_reduced(name, input, out, make_tensor(values), indices, keepdim, axis)
    if records(input):
        value_tensor = record(NODES[node], values, (input,), {"dim": axis, "keepdim": keepdim, "indices": indices,
                                                             "self_sym_sizes": data.shape})
    else:
        value_tensor = make_tensor(values)
    return getattr(return_types, name)(value_tensor, indices)


def _write_reduced(name: str, input: Tensor, out, values: Tensor, indices: Tensor, keepdim: bool, axis: int):
    """``out=(values, indices)`` of a reduction along ``axis``: as torch's kernels, both are first sized as
    the result with the dim kept (the values with torch's warning where they held other elements), then
    the dim dropped."""
    if records(input):
        write_out(name, out[0], None)
    kept = tuple(values.shape) if keepdim or not input.ndim else tuple(np.expand_dims(values._data, axis).shape)
    for target, warns in zip(out, (True, False)):
        if tuple(target.shape) != kept:
            if warns and target.numel():
                warn_from_user_code(RESIZED_OUT.format(list(target.shape), list(kept)))
            resize_(target, kept)
            resize_(target, tuple(values.shape))
    return getattr(return_types, name)(write_out(name, out[0], values), write_out(name, out[1], indices))


def _axis(input: Tensor, dim) -> int:
    return normalize_dim(dim, input.ndim)


def _nonempty(name: str, input: Tensor, axis: int) -> None:
    if input.ndim and input.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


@export
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim``, in order, with their indices (TopkBackward0,
    recorded as sort's node)."""
    check_tensor(input, "topk")
    data = input._data
    axis = _axis(input, dim)
    if not 0 <= k <= (data.shape[axis] if data.ndim else 1):
        raise RuntimeError("selected index k out of range")
    if data.ndim == 0:
        order, values = _backend.host_value(0, data, np.int64), data.copy()
    else:
        order = sorted_order(data, axis, largest)[(slice(None),) * axis + (slice(0, k),)]
        values = np.take_along_axis(data, order, axis=axis)
    indices = make_tensor(_backend.as_array(order, dtype=np.int64))
    if out is not None:
        return return_types.topk(write_out("topk", out[0], None if records(input) else make_tensor(values)),
                                 write_out("topk", out[1], indices))
    if records(input):
        value_tensor = record(NODES["TopkBackward0"], values, (input,),
                              {"dim": dim, "indices": indices, "self_sym_sizes": data.shape})
    else:
        value_tensor = make_tensor(values)
    return return_types.topk(value_tensor, indices)


@export
def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim`` (sort's indices)."""
    check_tensor(input, "argsort")
    return sort(input.detach(), dim, descending).indices


@export
def msort(input, *, out=None):
    """``input`` sorted along its first dim: sort's values (SortBackward0)."""
    check_tensor(input, "msort")
    if out is not None:
        return write_out("msort", out, None if records(input) else sort(input, 0).values)
    return sort(input, 0).values


def _ordered_lines(data, axis):
    """The stable order of each line of ``data`` along ``axis`` (NaN last), with ``axis`` moved last."""
    return np.argsort(_line_up(data, axis), axis=-1, kind="stable")


@export
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element along ``dim`` and its index (KthvalueBackward0)."""
    check_tensor(input, "kthvalue")
    axis = _axis(input, dim)
    if not 1 <= k <= (input.shape[axis] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    positions = _ordered_lines(input._data, axis)[..., k - 1]
    return _selected("kthvalue", input, axis, keepdim, positions, out, "KthvalueBackward0")


def _middle(lines, ignore_nan: bool):
    """The position in each line (last axis) of its median: the lower of the two middle elements; a
    line holding NaN gives its first NaN, unless ``ignore_nan``, where the NaNs are left out (a line of
    NaN only gives its first)."""
    order = np.argsort(lines, axis=-1, kind="stable")
    nans = np.isnan(lines)
    counted = lines.shape[-1] - nans.sum(axis=-1) * ignore_nan
    middle = np.maximum(counted - 1, 0) // 2
    positions = np.take_along_axis(order, middle[..., None], axis=-1)[..., 0]
    if not ignore_nan:
        positions = np.where(nans.any(axis=-1), np.argmax(nans, axis=-1), positions)
    return positions


def _median_like(name: str, ignore_nan: bool, full_node: str, dim_node: str):
    def op(input, dim=None, keepdim=False, *, out=None):
        check_tensor(input, name)
        data = input._data
        if dim is None:
            flat = data.reshape(1, -1)
            value = flat[0, _middle(flat, ignore_nan)[0]] if data.size else _backend.host_value(np.nan, data, data.dtype)
            return record(NODES[full_node], value, (input,)) if records(input) else make_tensor(value)
        axis = _axis(input, dim)
        _nonempty(name, input, axis)
        return _selected(name, input, axis, keepdim, _middle(_line_up(data, axis), ignore_nan), out, dim_node)

    op.__name__ = name
    return export(op)


median = _median_like("median", False, "MedianBackward0", "MedianBackward1")
nanmedian = _median_like("nanmedian", True, "NanmedianBackward0", "NanmedianBackward1")


def _most_frequent(lines):
    """The position in each line (last axis) of its mode: the most frequent value (the smallest of
    those as frequent), at its last occurrence, as torch's CPU kernel picks it."""
    flat = _backend.to_numpy(lines).reshape(-1, lines.shape[-1])
    positions = np.empty(flat.shape[0], dtype=np.int64)
    for row, line in enumerate(flat):
        values, counts = np.unique(line, return_counts=True)
        value = values[np.argmax(counts)]
        positions[row] = len(line) - 1 - np.argmax(line[::-1] == value)
    return positions.reshape(lines.shape[:-1])


@export
def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along ``dim`` and its index (ModeBackward0)."""
    check_tensor(input, "mode")
    axis = _axis(input, dim)
    return _selected("mode", input, axis, keepdim, _most_frequent(_line_up(input._data, axis)), out, "ModeBackward0")


@export
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """The smallest and the largest elements, over ``dim`` or all of them."""
    check_tensor(input, "aminmax")
    data = input._data
    if dim is None:
        if data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        axes = None
    else:
        axis = _axis(input, dim)
        if data.ndim and data.shape[axis] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {axis} to have non-zero size.")
        axes = axis if data.ndim else None  # a 0-dim tensor's dim 0 is the tensor itself
    low = _backend.as_array(np.min(data, axis=axes, keepdims=keepdim and data.ndim > 0))
    high = _backend.as_array(np.max(data, axis=axes, keepdims=keepdim and data.ndim > 0))
    if out is not None:
        for target in out:
            check_out_dtype(target, input.dtype)
        recorded = records(input)
        return return_types.aminmax(write_out("aminmax", out[0], None if recorded else make_tensor(low)),
                                    write_out("aminmax", out[1], None if recorded else make_tensor(high)))
    if records(input):
        dims = tuple(range(data.ndim)) if axes is None else (axes,)
        return return_types.aminmax(*record(NODES["AminmaxBackward0"], (low, high), (input,),
                                            {"dim": dims, "keepdim": keepdim}, outputs=2))
    return return_types.aminmax(make_tensor(low), make_tensor(high))
