"""Indexing: ``t[key]``, ``t[key] = value`` and the gather/scatter family.

Basic indexing (ints, slices, None, Ellipsis) gives views through the same view ops torch
uses, so the graph has torch's nodes (``SelectBackward0``, ``SliceBackward0``,
``UnsqueezeBackward0``); full slices are skipped except when nothing else applies. Advanced
indexing (integer or boolean tensors, lists, arrays) copies (``IndexBackward0``). Assignment
writes through a view (``copy_``/``fill_``, giving the base a ``CopySlices`` node) or, for
advanced keys, with ``index_put_``.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype
from .._autograd.formula_math import BACKWARD_KERNELS, ArrayMath, along_dim_key, at_least_1d, placed_along
from .._autograd.record import record, recorded, records, records_any
from .._autograd.views import make_view
from .._tensor import Tensor, make_tensor
from .common import broadcast_shapes, check_out_dtype, normalize_dim
from .derivatives import NODES
from .inplace import write_out
from .registry import export, method
from .views import select, slice_dim, unsqueeze


def _as_index(item, size: int | None = None):
    """A tensor/list index as a NumPy index array."""
    if isinstance(item, Tensor):
        data = item._data
        if data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return data
    array = np.asarray(item)
    if _dtype.kind(array.dtype) == "f":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return array


def _is_advanced(item) -> bool:
    return isinstance(item, (Tensor, list, range, np.ndarray)) or isinstance(item, bool)


def _consumed(item) -> int:
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, Tensor) and item._data.dtype == np.bool_:
        return item._data.ndim
    if isinstance(item, np.ndarray) and item.dtype == np.bool_:
        return item.ndim
    return 1


def _normalize_key(key, ndim: int) -> list:
    key = list(key) if isinstance(key, tuple) else [key]
    used = sum(_consumed(item) for item in key)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    positions = [i for i, item in enumerate(key) if item is Ellipsis]
    if positions:
        position = positions[0]
        key[position:position + 1] = [slice(None)] * (ndim - used)
    return key


def _check_bounds(index: np.ndarray, size: int, dim: int) -> None:
    if index.dtype.kind in "iu" and index.size:
        bad = index[(index >= size) | (index < -size)]
        if bad.size:
            raise IndexError(f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {dim} with size {size}")


ZERO_DIM_INDEX = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                  "convert a 0-dim tensor to a number")


def _check_zero_dim_index(self: Tensor, key) -> None:
    """torch's errors for an integer index of a 0-dim tensor: 0 is "invalid", others out of bounds."""
    if self._data.ndim == 0 and isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if key == 0:
            raise IndexError(ZERO_DIM_INDEX)
        raise IndexError(f"index {key} is out of bounds for dimension 0 with size 0")


@method(name="__getitem__")
def getitem(self, key):
    _check_zero_dim_index(self, key)
    items = _normalize_key(key, self._data.ndim)
    result, dim, applied, advanced = self, 0, False, []  # dim: in the partly indexed result
    for position, item in enumerate(items):
        if item is None:
            result, dim, applied = unsqueeze(result, dim), dim + 1, True
        elif isinstance(item, slice):
            if item != slice(None):
                result, applied = slice_dim(result, dim, item.start, item.stop, item.step), True
            dim += 1
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            size = result._data.shape[dim]
            if not -size <= item < size:  # torch names the position of the index in the key
                raise IndexError(f"index {item} is out of bounds for dimension {position} with size {size}")
            result, applied = select(result, dim, int(item)), True
        else:
            advanced.append((dim, item))
            dim += _consumed(item)
    if advanced:
        return _advanced_index(result, advanced)
    if applied:
        return result
    if isinstance(key, slice) and result._data.ndim:
        return slice_dim(result, 0, None, None, None)  # x[:] is a slice; x[...] and x[:, ...] are aliases, as in torch
    return make_view(result, result._data.view(), "AliasBackward0", {})


def _advanced_key(data, advanced) -> tuple:
    key: list = [slice(None)] * data.ndim
    for dim, item in advanced:
        index = _as_index(item)
        if index.dtype == np.bool_:
            if index.shape != data.shape[dim:dim + index.ndim]:
                raise IndexError(f"The shape of the mask {list(index.shape)} at index {dim} does not match the shape "
                                 f"of the indexed tensor {list(data.shape)} at index {dim}")
            key[dim:dim + index.ndim] = [index] + [None] * (index.ndim - 1)
        else:
            _check_bounds(index, data.shape[dim], dim)
            key[dim] = index
    return tuple(k for k in key if k is not None)


def _advanced_index(input: Tensor, advanced) -> Tensor:
    data = input._data
    key = _advanced_key(data, advanced)
    out = data[key]
    if records(input):
        return record(NODES["IndexBackward0"], out, (input,), {"indices": key, "self_sym_sizes": data.shape})
    return make_tensor(out)


@method(name="__setitem__")
def setitem(self, key, value) -> None:
    _check_zero_dim_index(self, key)
    items = _normalize_key(key, self._data.ndim)
    if any(_is_advanced(item) for item in items):
        advanced = []
        dim = 0
        for item in items:
            if item is None:
                continue
            if _is_advanced(item):
                advanced.append((dim, item))
            dim += _consumed(item)
        basic = tuple(slice(None) if _is_advanced(item) else item for item in items)
        target = getitem(self, basic) if any(i != slice(None) for i in basic) else self
        key = _advanced_key(target._data, [(d, i) for d, i in advanced])
        index_put_(target, key, value)
        return
    view = getitem(self, tuple(items))
    if isinstance(value, Tensor):
        view.copy_(value)
    else:  # torch fills with the number as a 0-dim tensor: an expanded region is refused, and the node
        # (FillBackward3 in the base's CopySlices) has an edge for that tensor, which never requires grad
        view.fill_(make_tensor(np.asarray(value).astype(view._data.dtype)))


@method
def index_put_(self, indices, values, accumulate=False):
    from .inplace import apply_inplace

    key = tuple(_as_index(i) if not isinstance(i, (slice, int)) else i for i in indices) \
        if not isinstance(indices, tuple) or any(isinstance(i, Tensor) for i in indices) else indices
    new = self._data.copy()
    source = values._data if isinstance(values, Tensor) else values
    target_shape = new[key].shape
    if isinstance(values, Tensor) and not _broadcastable(source.shape, target_shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(source.shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target_shape)}")
    if accumulate:
        _backend.scatter_add(new, key, source)
    else:
        new[key] = source
    inputs = (self, values) if isinstance(values, Tensor) else (self, None)
    return apply_inplace(self, new, "IndexPutBackward0", inputs, {"indices": key, "accumulate": accumulate})


def _broadcastable(source: tuple, target: tuple) -> bool:
    """Whether ``source`` broadcasts to ``target`` (as a value written there)."""
    if len(source) > len(target):
        return all(n == 1 for n in source[:len(source) - len(target)]) and _broadcastable(
            source[len(source) - len(target):], target)
    return all(s in (1, t) for s, t in zip(source[::-1], target[::-1]))


@export
def index_put(input, indices, values, accumulate=False):
    return index_put_(input.clone(), indices, values, accumulate)


# A view's gradient placed in zeros of its base's size (slice_backward, select_backward, diagonal_backward).
BACKWARD_KERNELS["placed"] = lambda grad, sizes, key: ArrayMath.index_put_zeros(tuple(sizes), grad, key, grad, False)


def index_put_into_zeros(shape: tuple, like: Tensor, key, values: Tensor, accumulate: bool,
                         node: str = "IndexPutBackward0") -> Tensor:
    """Zeros with ``values`` written at ``key``, recorded as ``node`` (used by formulas under create_graph)."""
    out = ArrayMath.index_put_zeros(shape, like._data, key, values._data, accumulate)
    if records(values):
        cls = NODES[node]  # index_put's node saves accumulate; index_fill's (trace's gradient) does not
        attrs = {"indices": key, "accumulate": accumulate}
        zeros = make_tensor(ArrayMath.zeros(shape, like._data))
        return record(cls, out, (zeros, values), {k: v for k, v in attrs.items() if k in cls._saves})
    return make_tensor(out)


@export
def index_select(input, dim, index, *, out=None):
    if out is not None:
        if out.dtype != input.dtype:
            raise RuntimeError("index_select(): self and result must have the same scalar type")
        return write_out("index_select", out, None if records(input) else index_select(input, dim, index))
    data = input._data
    axis = normalize_dim(dim, data.ndim)
    positions = index._data if isinstance(index, Tensor) else _as_index(index)
    if positions.dtype not in (np.int32, np.int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if positions.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if data.ndim == 0 and positions.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {positions.size} value(s)")
    positions = positions.reshape(-1)
    size = _sizes_of(data)[axis]
    if positions.size and (positions.max() >= size or positions.min() < 0):
        raise IndexError("index out of range in self")
    out = np.take(at_least_1d(data), positions, axis=axis)
    if data.ndim == 0:
        out = out.reshape(())
    if records(input):
        return record(NODES["IndexSelectBackward0"], out, (input,),
                      {"dim": axis, "index": index, "self_sym_sizes": data.shape})
    return make_tensor(out)


def _along_dim_positions(data, index, axis: int, op: str, src=None):
    """gather's and scatter's index as an array, checked as torch checks it (nothing when it is empty):
    its dtype, its rank (a 0-dim tensor counts as one dim), its size in each dim (within the input's
    apart from ``axis``, and within ``src``'s), then each position within the dim."""
    positions = index._data if isinstance(index, Tensor) else _as_index(index)
    if not positions.size:
        return positions
    if positions.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    what = "input" if op == "gather" else "self"
    ndim = max(data.ndim, 1)
    if max(positions.ndim, 1) != ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
    if src is not None and max(src.ndim, 1) != ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    sizes, index_sizes = _sizes_of(data), _sizes_of(positions)
    too_large = any(index_sizes[d] > sizes[d] for d in range(ndim) if d != axis)
    if op == "gather" and too_large:
        d = next(d for d in range(ndim) if d != axis and index_sizes[d] > sizes[d])
        raise RuntimeError(f"Size does not match at dimension {d} expected index {list(positions.shape)} to be no "
                           f"larger than self {list(data.shape)} apart from dimension {axis}")
    if src is None and too_large:
        raise RuntimeError(f"Expected index {list(positions.shape)} to be no larger than self {list(data.shape)} "
                           f"apart from dimension {axis}")
    if src is not None and (too_large or any(n > m for n, m in zip(index_sizes, _sizes_of(src)))):
        raise RuntimeError(f"Expected index {list(positions.shape)} to be no larger than self {list(data.shape)} "
                           f"apart from dimension {axis} and to be no larger size than src {list(src.shape)}")
    bad = positions[(positions >= sizes[axis]) | (positions < 0)]
    if bad.size:
        raise RuntimeError(f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {axis} with size "
                           f"{sizes[axis]}")
    return positions


def _sizes_of(array) -> tuple:
    """An array's sizes, a 0-dim one's as one dim of one element (gather and scatter's view)."""
    return tuple(array.shape) or (1,)


@export
def gather(input, dim, index, *, sparse_grad=False, out=None):
    if out is not None:
        check_out_dtype(out, input.dtype)
        return write_out("gather", out, None if records(input) else gather(input, dim, index))
    data = input._data
    axis = normalize_dim(dim, data.ndim)
    positions = _along_dim_positions(data, index, axis, "gather")
    out = ArrayMath.gather(data, axis, positions) if positions.size else np.zeros_like(data, shape=positions.shape)
    if records(input):
        return record(NODES["GatherBackward0"], out, (input,), {"dim": axis, "index": index,
                                                               "self_sym_sizes": data.shape})
    return make_tensor(out)


def scattered(data, axis: int, index, source, add: bool):
    """A copy of ``data`` with ``source`` (a tensor, or a number) written, or added with repeats, at
    ``index`` along ``axis``: scatter, scatter_add and their in-place forms (whose refusals all say
    ``scatter()``, as torch's)."""
    if isinstance(source, Tensor):
        if source._data.dtype != data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        positions = _along_dim_positions(data, index, axis, "scatter", source._data)
        values = at_least_1d(source._data)[tuple(slice(0, n) for n in _sizes_of(positions))]
        values = values.reshape(positions.shape)
    else:
        positions = _along_dim_positions(data, index, axis, "scatter")
        values = data.dtype.type(source)
    out = data.copy()
    if not positions.size:
        return out
    return placed_along(out, along_dim_key(positions, axis), values, add)


@export
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    data = input._data
    axis = normalize_dim(dim, data.ndim)
    source = value if src is None else src
    out = scattered(data, axis, index, source, False)
    if isinstance(source, Tensor):
        return recorded(NODES["ScatterBackward0"], out, (input, source), {"dim": axis, "index": index})
    return recorded(NODES["ScatterBackward1"], out, (input,), {"dim": axis, "index": index})


@export
def scatter_add(input, dim, index, src):
    data = input._data
    axis = normalize_dim(dim, data.ndim)
    out = scattered(data, axis, index, src, True)
    return recorded(NODES["ScatterAddBackward0"], out, (input, src), {"dim": axis, "index": index})


@export
def take(input, index, *, out=None):
    """``input.flatten()[index]``, shaped like ``index``: TakeBackward0."""
    if out is not None:
        result = None if records_any((input, out)) else take(input, index)
        if result is not None and out.dtype != input.dtype:
            raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                               f"{input.dtype.scalar_type_name} and out.dtype = {out.dtype.scalar_type_name}")
        return write_out("take", out, result)
    data = input._data
    positions = _as_index(index)
    if positions.size and (positions.max() >= data.size or positions.min() < -data.size):
        bad = int(positions[(positions >= data.size) | (positions < -data.size)].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {data.size} elements.")
    out = data.reshape(-1)[positions]
    if records(input):
        return record(NODES["TakeBackward0"], out, (input,), {"index": index, "self_sym_sizes": data.shape})
    return make_tensor(out)


def check_mask(mask: Tensor, op: str = "masked_fill_") -> None:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype {mask.dtype.c_name}")


def masked_values(input: Tensor, mask: Tensor, value):
    """``input`` with ``value`` (a number, or a 0-dim tensor) where ``mask`` holds, and its recording."""
    check_mask(mask)
    data = input._data
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        filler = _backend.to_device(value._data, input.device).astype(data.dtype)
        return np.where(mask._data, filler, data), "MaskedFillBackward1", (input, value)
    return np.where(mask._data, data.dtype.type(value), data), "MaskedFillBackward0", (input,)


@export
def masked_fill(input, mask, value):
    out, node, inputs = masked_values(input, mask, value)
    return recorded(NODES[node], out, inputs, {"mask": mask})


@export
def masked_select(input, mask, *, out=None):
    if out is not None:
        result = None if records_any((input, out)) else masked_select(input, mask)
        if result is not None and out.dtype != input.dtype:
            raise RuntimeError("masked_select(): self and result must have the same scalar type")
        return write_out("masked_select", out, result)
    check_mask(mask, "masked_select:")
    shape = broadcast_shapes(mask._data.shape, input._data.shape)
    data = np.broadcast_to(input._data, shape)
    out = data[np.broadcast_to(mask._data, shape)]
    return recorded(NODES["MaskedSelectBackward0"], out, (input,), {"mask": mask})


@export
def nonzero(input, *, as_tuple=False):
    """The positions of the nonzero elements; a 0-dim tensor's, as torch's, those of one element in one
    dim (``as_tuple``) or in none: ``(1, 0)`` when it is nonzero, ``(0, 0)`` when not."""
    data = input._data
    positions = np.nonzero(at_least_1d(data))
    if data.ndim == 0 and not as_tuple:
        return make_tensor(np.zeros((positions[0].size, 0), np.int64))
    if as_tuple:
        return tuple(make_tensor(p.astype(np.int64)) for p in positions)
    return make_tensor(np.stack(positions, axis=1).astype(np.int64) if positions else np.zeros((0, 0), np.int64))


@export
def argwhere(input):
    return nonzero(input)


@export(method=False)
def take_along_dim(input, indices, dim=None):
    """torch's composite: with ``dim``, negative indices counted from the end of ``dim``, ``input`` and
    ``indices`` broadcast to each other apart from ``dim`` (``expand``), then ``gather``; without, a
    ``gather`` of the flattened values (``view``), where a negative index is out of bounds."""
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if indices.dtype != _dtype.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.scalar_type_name}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    axis = normalize_dim(dim, input.ndim)
    indices = _counted_from_the_end(indices, input.shape[axis])
    indices_shape = _broadcast_apart_from(indices.shape, input.shape, axis)
    input_shape = _broadcast_apart_from(input.shape, indices.shape, axis)
    return gather(input.expand(input_shape), axis, indices.expand(indices_shape))


def _counted_from_the_end(indices: Tensor, size: int) -> Tensor:
    """take_along_dim's indices with the negative ones counted from the end of a dim of ``size``."""
    positions = indices._data
    return make_tensor(np.where(positions < 0, positions + size, positions))


def _broadcast_apart_from(shape, other, axis: int) -> tuple:
    """``shape`` broadcast against ``other`` in every dim but ``axis``, where it keeps its own size."""
    other = list(other)
    other[axis] = shape[axis]
    return broadcast_shapes(other, shape)
