"""Shape functions torch composes from other ops, and the two it records with nodes of their own.

Composed, so the nodes recorded are those of the parts, as torch's: ``ravel`` (``contiguous`` then
``view``), ``positive`` (the tensor itself), ``broadcast_tensors`` (``expand`` where the shape changes),
``broadcast_shapes``, ``atleast_1d``/``2d``/``3d`` (``reshape`` of a 0-dim tensor, ``unsqueeze`` of
the others), ``flipud``/``fliplr`` (``flip``), ``column_stack``/``dstack`` (``cat``),
``hsplit``/``vsplit``/``dsplit`` (``tensor_split``), ``split_with_sizes`` (``split``).

With nodes of their own: ``rot90`` (``Rot90Backward0``) and ``unsafe_split``/``unsafe_chunk``
(``UnsafeSplitBackward0``: split's parts as new tensors, not views).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import _dtype
from .._autograd.record import record, records
from .._size import Size
from .._tensor import Tensor, make_tensor
from .common import broadcast_shapes as _broadcast_shapes
from .common import normalize_dim
from .derivatives import NODES
from .registry import export, function
from .shape import cat, contiguous, flip
from .signatures import invalid_arguments
from .views import expand, reshape, split, tensor_split, unsqueeze, view


@export
def ravel(input):
    return view(contiguous(input), -1)


@export
def positive(input):
    if input.dtype is _dtype.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@function
def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, refused as torch's Python function refuses a mismatch (it names
    the first dim, counted from the end, and the shape so far)."""
    shapes = [(shape,) if isinstance(shape, int) else shape for shape in shapes if shape is not None]
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max((len(shape) for shape in shapes), default=0)
    for position, shape in enumerate(shapes):
        for dim in range(-1, -len(shape) - 1, -1):
            size = shape[dim]
            if size == common[dim] or size == 1:
                continue
            if common[dim] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {dim}! Mismatching "
                                   f"argument at index {position} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            common[dim] = size
    return Size(common)


@function
def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = _broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def _at_least(name: str, make):
    """``atleast_<n>d``: one tensor gives one, several (or a list of them) a tuple, as torch's."""
    def op(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return make(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tensors[0]
        return tuple(make(t) for t in tensors)

    op.__name__ = name
    function(op, name=name)


def _at_least_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, 1, 1, 1)
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if t.ndim == 2 else t


_at_least("atleast_1d", lambda t: reshape(t, 1) if t.ndim == 0 else t)
_at_least("atleast_2d", lambda t: reshape(t, 1, 1) if t.ndim == 0 else unsqueeze(t, 0) if t.ndim == 1 else t)
_at_least("atleast_3d", _at_least_3d)


@export
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, [0])


@export
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, [1])


@export
def rot90(input, k=1, dims=(0, 1)):
    """``input`` turned ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``: Rot90Backward0."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == input.ndim:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    axes = (normalize_dim(dims[0], input.ndim), normalize_dim(dims[1], input.ndim))
    out = np.rot90(input._data, k, axes=axes).copy()
    if records(input):
        return record(NODES["Rot90Backward0"], out, (input,), {"k": k, "dims": list(axes)})
    return make_tensor(out)


@function
def column_stack(tensors):
    if len(tensors) == 0:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return cat([reshape(t, t.numel(), 1) if t.ndim <= 1 else t for t in tensors], 1)


@function
def dstack(tensors):
    if len(tensors) == 0:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_at_least_3d(t) for t in tensors], 2)


def _split_along(name: str, dim: int, min_dims: int):
    """``hsplit``/``vsplit``/``dsplit``: tensor_split along ``dim``, whose size must divide by a number of sections."""
    def op(input, indices_or_sections):
        if input.ndim < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        axis = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
            size = input.shape[axis]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {axis}, but the size of the "
                                   f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
        elif not (isinstance(indices_or_sections, (list, tuple))
                  and all(isinstance(i, int) for i in indices_or_sections)):
            raise invalid_arguments(name, ("Tensor input, int sections", "Tensor input, tuple of ints indices"),
                                    (input, indices_or_sections))
        return tensor_split(input, indices_or_sections, axis)

    op.__name__ = name
    export(op, name=name)


_split_along("hsplit", 1, 1)
_split_along("vsplit", 0, 2)
_split_along("dsplit", 2, 3)


@export
def split_with_sizes(input, split_sizes, dim=0):
    return split(input, list(split_sizes), dim)


@export
def unsafe_split(input, split_size, dim=0):
    """split's parts as new tensors (UnsafeSplitBackward0), which may be modified in place."""
    axis = normalize_dim(dim, input.ndim)
    size = input.shape[axis]
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    parts = [part._data.copy() for part in split(make_tensor(input._data), split_size, axis)]
    attrs = {"dim": axis, "result_shapes": [p.shape for p in parts]}
    if not records(input):
        return tuple(make_tensor(p) for p in parts)
    if len(parts) == 1:
        return (record(NODES["UnsafeSplitBackward0"], parts[0], (input,), attrs),)
    return record(NODES["UnsafeSplitBackward0"], tuple(parts), (input,), attrs, outputs=len(parts))


@export
def unsafe_chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input.shape[normalize_dim(dim, input.ndim)]
    return unsafe_split(input, max(math.ceil(size / chunks), 1), dim)
