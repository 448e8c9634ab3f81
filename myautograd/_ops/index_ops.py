"""Writes at indices, out of place: index_add, index_copy, index_fill, put and masked_scatter.

Each gives a copy of ``input`` with values written (or added) where an index or a mask says, and
records torch's node: ``IndexAddBackward0``, ``IndexCopyBackward0``, ``IndexFillBackward0`` (a number)
or ``IndexFillBackward1`` (a 0-dim tensor value), ``PutBackward0``, ``MaskedScatterBackward0``. The
positions are saved as the key that picks them out of an array (``formula_helpers.index_select_key``:
the index along ``dim``; of a 0-dim input, the input itself).
"""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._autograd.record import recorded
from .._tensor import Tensor
from .._user_warnings import warn_from_user_code
from .common import broadcast_shapes, check_tensor, normalize_dim
from .derivatives import NODES
from .formula_helpers import index_select_key
from .registry import export


def _positions(input: Tensor, dim, index: Tensor, op: str):
    """``dim`` wrapped and ``index`` as a vector of positions along it, checked as torch checks them."""
    axis = normalize_dim(dim, input.ndim)
    positions = index._data
    if positions.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    if positions.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    positions = positions.reshape(-1)
    size = input.shape[axis] if input.ndim else 1
    if positions.size and (positions.max() >= size or positions.min() < -size):
        bad = positions[(positions >= size) | (positions < -size)][0]
        raise IndexError(f"index {int(bad)} is out of bounds for dimension {axis} with size {size}")
    return axis, positions % size if size else positions


def _check_source(input: Tensor, axis: int, positions, source: Tensor, op: str) -> None:
    """torch's refusals of a ``source`` that does not line up with ``input`` apart from ``dim``."""
    if input.ndim != source.ndim and not (source.ndim == 0 and positions.size == 1):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if source.ndim and [n for d, (n, m) in enumerate(zip(input.shape, source.shape)) if d != axis and n != m]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if (source.shape[axis] if source.ndim else 1) != positions.size:
        raise RuntimeError(f"{op}_(): Number of indices ({positions.size}) should be equal to source.size(dim) "
                           f"({source.shape[axis] if source.ndim else 1})")


def _written(input: Tensor, axis: int, positions, values, add: bool):
    """A copy of ``input`` with ``values`` written (or added, repeats each once) at ``positions`` along ``axis``."""
    out = input._data.copy()
    if input.ndim == 0:  # its one position: the tensor itself
        out[()] = out + values.reshape(()) if add else values.reshape(())
    elif add:
        _backend.scatter_add(out, index_select_key(axis, positions, input.shape), values)
    else:
        out[index_select_key(axis, positions, input.shape)] = values
    return out


@export
def index_add(input, dim, index, source, *, alpha=1):
    check_tensor(input, "index_add")
    axis, positions = _positions(input, dim, index, "index_add")
    _check_source(input, axis, positions, source, "index_add")
    added = source._data * source._data.dtype.type(alpha) if alpha != 1 else source._data
    out = _written(input, axis, positions, added.astype(input._data.dtype, copy=False), add=True)
    return recorded(NODES["IndexAddBackward0"], out, (input, source),
                    {"dim": axis, "index": index, "alpha": alpha, "source_dim": source.ndim})


@export
def index_copy(input, dim, index, source):
    check_tensor(input, "index_copy")
    axis, positions = _positions(input, dim, index, "index_copy")
    _check_source(input, axis, positions, source, "index_copy")
    out = _written(input, axis, positions, source._data.astype(input._data.dtype, copy=False), add=False)
    return recorded(NODES["IndexCopyBackward0"], out, (input, source),
                    {"dim": axis, "index": index, "source_dim": source.ndim})


@export
def index_fill(input, dim, index, value):
    check_tensor(input, "index_fill")
    axis, positions = _positions(input, dim, index, "index_fill")
    key = index_select_key(axis, np.unique(positions), input.shape)  # each position once: the value's gradient
    out = input._data.copy()
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        out[key] = _backend.to_device(value._data, input.device).astype(out.dtype)
        return recorded(NODES["IndexFillBackward1"], out, (input, value), {"indices": key})
    out[key] = out.dtype.type(value)
    return recorded(NODES["IndexFillBackward0"], out, (input,), {"indices": key})


@export
def put(input, index, source, accumulate=False):
    check_tensor(input, "put")
    count = input.numel()
    positions = index._data.reshape(-1)
    if positions.size and (positions.max() >= count or positions.min() < -count):
        bad = int(positions[(positions >= count) | (positions < -count)][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {count} elements.")
    if positions.size != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got source "
                           f"with {source.numel()} elements and index with {positions.size} elements")
    out = input._data.copy()
    flat, values = out.reshape(-1), source._data.reshape(-1).astype(out.dtype, copy=False)
    if accumulate:
        _backend.scatter_add(flat, positions, values)
    else:
        flat[positions] = values
    return recorded(NODES["PutBackward0"], out, (input, source),
                    {"index": index, "accumulate": accumulate, "source_sym_sizes": source._data.shape})


@export
def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the first elements of ``source``, in order, where ``mask`` holds."""
    check_tensor(input, "masked_scatter")
    if mask._data.dtype == np.uint8:
        warn_from_user_code("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
                            "deprecated,please use a mask with dtype torch.bool instead.")
    if mask._data.dtype != np.bool_:  # named as a ScalarType (masked_fill_'s message names the C++ type)
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.scalar_type_name}")
    shape = broadcast_shapes(input._data.shape, mask._data.shape)
    where = np.broadcast_to(mask._data, shape)
    count = int(where.sum())
    if count > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    out = np.broadcast_to(input._data, shape).copy()
    out[where] = source._data.reshape(-1)[:count].astype(out.dtype, copy=False)
    return recorded(NODES["MaskedScatterBackward0"], out, (input, source),
                    {"mask": mask, "self_sym_sizes": input._data.shape, "source_sym_sizes": source._data.shape})
