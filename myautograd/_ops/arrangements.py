"""Tensors arranged from others: ``block_diag``, ``meshgrid``, ``cartesian_prod``, ``combinations``,
``repeat_interleave``, ``diag_embed`` and ``diagflat``.

``block_diag`` and ``diag_embed`` have nodes of their own (BlockDiagBackward0, DiagEmbedBackward0); the
others compose as torch's do, so their graphs carry the nodes of their parts: ``meshgrid`` views each input
along its dim and expands it, ``cartesian_prod`` and ``combinations`` stack the grids (flattened, or masked
to the increasing index tuples), ``repeat_interleave`` expands and copies (a number of repeats) or selects
(a tensor of repeats), ``diagflat`` is the ``diag_embed`` of the flattened input.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype
from .._autograd.record import recorded
from .._tensor import Tensor, make_tensor
from .._user_warnings import warn_once
from .common import normalize_dim
from .derivatives import NODES
from .registry import FUNCTIONS, export, function

MESHGRID_INDEXING_WARNING = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."


def _as_matrix_shape(shape: tuple) -> tuple:
    """The block a tensor of up to 2 dims takes in ``block_diag``: a 0-dim one 1x1, a vector one row."""
    return (1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else shape


@function
def block_diag(*tensors):
    """The tensors (of up to 2 dims) as blocks on the diagonal of a matrix, the rest zeros (BlockDiagBackward0;
    the dtypes promoted)."""
    for position, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {position} has "
                               f"{t._data.ndim} dimensions")
    target = _dtype.result_type(*tensors) if tensors else _dtype.get_default_dtype()
    blocks = [_as_matrix_shape(t._data.shape) for t in tensors]
    shape = (sum(rows for rows, _ in blocks) if tensors else 1, sum(columns for _, columns in blocks))
    out = np.zeros_like(tensors[0]._data, dtype=target.np, shape=shape) if tensors else np.zeros(shape, target.np)
    row = column = 0
    for t, (rows, columns) in zip(tensors, blocks):
        out[row:row + rows, column:column + columns] = t._data.reshape(rows, columns)
        row, column = row + rows, column + columns
    return recorded(NODES["BlockDiagBackward0"], out, tuple(tensors),
                    {"tensors_args_sizes": [t._data.shape for t in tensors]})


@function
def meshgrid(*tensors, indexing=None):
    """Each of the 0- or 1-dim tensors expanded over the grid of all their sizes ("ij": in the order given;
    "xy": the first two dims swapped), as torch's views: ViewBackward0 then ExpandBackward0."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warn_once(MESHGRID_INDEXING_WARNING, stacklevel=None)
        indexing = "ij"
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if any(t._data.dtype != tensors[0]._data.dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    ordered = [tensors[1], tensors[0], *tensors[2:]] if swap else list(tensors)
    shape = tuple(t._data.size for t in ordered)
    grids = [t.view(*(-1 if d == i else 1 for d in range(len(shape)))).expand(*shape) for i, t in enumerate(ordered)]
    return tuple([grids[1], grids[0], *grids[2:]] if swap else grids)


def _check_vector(t: Tensor) -> None:
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")


@function
def cartesian_prod(*tensors):
    """The rows of every combination of one element of each vector, as torch's: the flattened grids stacked."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    return stack_grids([grid.flatten() for grid in meshgrid(*tensors, indexing="ij")])


def stack_grids(grids: list) -> Tensor:
    return FUNCTIONS["stack"](grids, 1)


@export
def combinations(input, r=2, with_replacement=False):
    """The ``r``-tuples of the vector's elements in increasing index order (non-decreasing ``with_replacement``),
    as torch's: the grids of ``r`` copies, masked to those index tuples, stacked."""
    _check_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return make_tensor(input._data[:0].copy())
    n = input._data.shape[0]
    indices = np.indices((n,) * r)
    mask = np.ones((n,) * r, dtype=bool)
    for earlier, later in zip(indices[:-1], indices[1:]):
        mask &= (earlier <= later) if with_replacement else (earlier < later)
    mask = make_tensor(_backend.host_value(mask, input._data))
    return stack_grids([grid.masked_select(mask) for grid in meshgrid(*(input,) * r, indexing="ij")])


@export
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element repeated ``repeats`` times along ``dim`` (the flattened input without it): for a number,
    torch's unsqueeze, expand, copy and view; for a tensor of repeats, an index_select of the repeated indices
    (IndexSelectBackward0). Given only a tensor of repeats, the indices each repeated so often."""
    if repeats is None:
        return _repeated_indices(input, output_size)
    if dim is None:
        input, dim = input.flatten(), 0
    dim = normalize_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor) and repeats._data.ndim == 0:
        repeats = repeats.item()
    if not isinstance(repeats, Tensor):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        shape = list(input._data.shape)
        expanded = shape[:dim + 1] + [repeats] + shape[dim + 1:]
        copied = input.unsqueeze(dim + 1).expand(*expanded).clone()
        return copied.view(*shape[:dim], shape[dim] * repeats, *shape[dim + 1:])
    if repeats._data.ndim == 1 and repeats._data.shape[0] == 1:
        repeats = repeats.expand(input._data.shape[dim])
    if repeats._data.ndim == 1 and repeats._data.shape[0] != input._data.shape[dim]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{repeats._data.shape[0]} and input.size({dim}) = {input._data.shape[dim]}")
    return input.index_select(dim, _repeated_indices(repeats, output_size))


def _repeated_indices(repeats: Tensor, output_size) -> Tensor:
    """``repeat_interleave`` of a tensor of repeats alone: index ``i`` repeated ``repeats[i]`` times."""
    counts = repeats._data
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{repeats.dtype.scalar_type_name}'")
    counts = _backend.to_numpy(counts).reshape(-1)
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and int(counts.sum()) != output_size:
        raise RuntimeError("allocated size does not match required size")
    indices = np.repeat(np.arange(counts.shape[0], dtype=counts.dtype), counts)
    return make_tensor(_backend.host_value(indices, repeats._data))


@export
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """The last dim's elements on the diagonal ``offset`` of the new dims ``dim1`` and ``dim2`` (of the
    result), zeros elsewhere (DiagEmbedBackward0)."""
    data = input._data
    ndim = data.ndim + 1
    first, second = normalize_dim(dim1, ndim), normalize_dim(dim2, ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = data.shape[-1] if data.ndim else 1
    size = n + abs(offset)
    out = np.zeros_like(data, shape=data.shape[:-1] + (size, size))
    index = np.arange(n)
    rows, columns = (index, index + offset) if offset >= 0 else (index - offset, index)
    out[..., rows, columns] = data.reshape(data.shape[:-1] + (n,))
    out = np.moveaxis(out, (-2, -1), (first, second))
    out = out.copy()  # row-major, as torch's result
    return recorded(NODES["DiagEmbedBackward0"], out, (input,), {"offset": offset, "dim1": first, "dim2": second})


@export
def diagflat(input, offset=0):
    """The flattened input on the diagonal ``offset`` of a matrix, as torch's ``diag_embed`` of it."""
    return diag_embed(input.reshape(-1), offset)
