"""Shape operations that copy: cat, stack, clone, contiguous, repeat, flip, tril/triu, roll."""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype, _memory_format
from .._autograd.record import record, records, records_any
from .._grad_mode import STATE
from .._tensor import Tensor, make_tensor, version_counter
from .common import device_error, normalize_dim, normalize_dims
from .derivatives import NODES
from .inplace import write_out
from .registry import export, function


def _common_tensors(tensors, op: str):
    """``tensors`` checked as torch's argument parser checks a list of tensors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}")
    if not tensors:
        if op == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"torch.{op}(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got {type(t).__name__}")
    return tensors


def _common_arrays(tensors, op: str):
    """The arrays of ``tensors``, in their promoted dtype, all on one device."""
    tensors = _common_tensors(tensors, op)
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = _dtype.promote_types(target, t.dtype)
    arrays = [t._data if t._data.dtype == target.np else t._data.astype(target.np) for t in tensors]
    kinds = {type(a) for a in arrays}
    if len(kinds) > 1:
        raise device_error(arrays[0], next(a for a in arrays if type(a) is not type(arrays[0])))
    return arrays


@function
def cat(tensors, dim=0, *, out=None):
    if out is not None:
        return _cat_out(tensors, dim, out)
    arrays = _common_arrays(tensors, "cat")
    for position, a in enumerate(arrays):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    skipped = [a for a in arrays if not (a.ndim == 1 and a.shape[0] == 0)] or arrays
    axis = normalize_dim(dim, skipped[0].ndim)
    for position, a in enumerate(skipped):
        if a.ndim != skipped[0].ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {skipped[0].ndim} and {a.ndim}")
        for d in range(a.ndim):
            if d != axis and a.shape[d] != skipped[0].shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. Expected size "
                                   f"{skipped[0].shape[d]} but got size {a.shape[d]} for tensor number {position} "
                                   "in the list.")
    out = np.concatenate(skipped, axis=axis)
    if records_any(tensors):
        return record(NODES["CatBackward0"], out, tuple(tensors),
                      {"dim": axis, "tensors_args_sizes": [t._data.shape for t in tensors]})
    return make_tensor(out)


def _cat_out(tensors, dim, out: Tensor) -> Tensor:
    """``cat(out=)``: refused where autograd would record it; the result cast into ``out`` where its
    category allows (torch's TypeError where not)."""
    result = None if records_any([*_common_tensors(tensors, "cat"), out]) else cat(tensors, dim)
    if result is not None and not _dtype.can_cast(result.dtype, out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{out.dtype.scalar_type_name}")
    return write_out("cat", out, result)


concat = function(cat, name="concat")
concatenate = function(cat, name="concatenate")


@function
def stack(tensors, dim=0):
    arrays = _common_arrays(tensors, "stack")
    for position, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} at entry 0 "
                               f"and {list(a.shape)} at entry {position}")
    axis = normalize_dim(dim, arrays[0].ndim + 1)
    out = np.stack(arrays, axis=axis)
    if records_any(tensors):
        return record(NODES["StackBackward0"], out, tuple(tensors), {"dim": axis})
    return make_tensor(out)


@function
def hstack(tensors):
    _require_tensors("hstack", tensors)
    return cat(tensors, 0 if tensors[0].dim() == 1 else 1)


@function
def vstack(tensors):
    _require_tensors("vstack", tensors)
    return cat([t.reshape(1, -1) if t.dim() == 1 else t for t in tensors], 0)


def _require_tensors(name: str, tensors) -> None:
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@export
def clone(input, *, memory_format=None):
    data = input._data
    out = _memory_format.arrange(data, memory_format)
    if records(input):
        return record(NODES["CloneBackward0"], out, (input,))
    result = make_tensor(out)
    if input.is_inference() and not STATE.inference:
        version_counter(result)[0] = 1  # torch fills such a clone with an in-place copy, which counts as one version
    return result


@export(function=False)
def contiguous(self, memory_format=_memory_format.contiguous_format):
    if memory_format is _memory_format.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if _memory_format.is_laid_out(self._data, memory_format):
        return self
    return clone(self, memory_format=memory_format)


@export(function=False)
def repeat(self, *repeats):
    repeats = tuple(repeats[0]) if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)) else tuple(repeats)
    data = self._data
    if len(repeats) < data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    out = np.tile(data.reshape((1,) * (len(repeats) - data.ndim) + data.shape), repeats)
    if records(self):
        return record(NODES["RepeatBackward0"], out, (self,), {"repeats": repeats, "self_sym_sizes": data.shape})
    return make_tensor(out)


@export
def flip(input, dims):
    data = input._data
    axes = normalize_dims(dims, data.ndim)
    out = np.flip(data, axis=axes).copy()
    if records(input):
        return record(NODES["FlipBackward0"], out, (input,), {"dims": axes})
    return make_tensor(out)


def _triangle(name: str, compute, node_name: str):
    def op(input, diagonal=0):
        if input._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        out = compute(input._data, diagonal)
        if records(input):
            return record(NODES[node_name], out, (input,), {"diagonal": diagonal})
        return make_tensor(out)

    op.__name__ = name
    return export(op)


tril = _triangle("tril", np.tril, "TrilBackward0")
triu = _triangle("triu", np.triu, "TriuBackward0")


@export
def roll(input, shifts, dims=None):
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, int) else tuple(dims)
    data = input._data
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    axes = tuple(normalize_dim(d, data.ndim, wrap_scalar=False) for d in dims)
    out = np.roll(data, shifts, axes) if axes else np.roll(data.reshape(-1), shifts[0]).reshape(data.shape)
    if records(input):
        return record(NODES["RollBackward0"], out, (input,), {"shifts": shifts, "dims": dims})
    return make_tensor(out)


@export
def diag(input, diagonal=0):
    """A vector to a matrix with it on a diagonal (DiagEmbedBackward0), or a matrix's diagonal as a
    new tensor (DiagonalBackward0_copy)."""
    data = input._data
    if data.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {data.ndim}D")
    out = np.diag(data, diagonal).copy()
    if not records(input):
        return make_tensor(out)
    if data.ndim == 1:
        return record(NODES["DiagEmbedBackward0"], out, (input,), {"offset": diagonal, "dim1": 0, "dim2": 1})
    return record(NODES["DiagonalBackward0_copy"], out, (input,),
                  {"offset": diagonal, "dim1": 0, "dim2": 1, "self_sym_sizes": data.shape})


@export
def trace(input):
    data = input._data
    if data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {data.ndim}")
    # torch's CPU kernel adds the diagonal up in float64 for a float32 matrix, then rounds once
    wide = np.float64 if _dtype.kind(data.dtype) == "f" and isinstance(data, np.ndarray) else None
    out = _backend.as_array(np.trace(data, dtype=wide), dtype=np.int64 if data.dtype.kind in "biu" else data.dtype)
    if records(input):
        return record(NODES["TraceBackward0"], out, (input,), {"self_sym_sizes": data.shape})
    return make_tensor(out)


@export
def tile(input, dims):
    dims = tuple(dims)
    lead = input._data.ndim - len(dims)
    return input.repeat(*((1,) * lead + dims)) if lead > 0 else input.repeat(*dims)


@export
def outer(input, vec2):
    return input.reshape(-1, 1) * vec2


ger = export(outer, name="ger")
