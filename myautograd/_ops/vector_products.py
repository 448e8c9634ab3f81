"""Products beside the matrix products: the cross product (``torch.cross``, ``torch.linalg.cross``), ``inner``,
``kron`` and ``torch.linalg.vecdot``.

The cross product has its own node (LinalgCrossBackward0); the others compose as torch's do, so their graphs
carry the nodes of their parts: ``inner`` is a product with a 0-dim operand or a ``tensordot`` over the last
dims, ``kron`` a product of the operands viewed with interleaved dims of one (``_unsafe_view``), ``vecdot`` a
``vdot`` of two vectors or the sum over ``dim`` of the products (conjugating ``x``).
"""

from __future__ import annotations

import numpy as np

from .._autograd.record import recorded
from .._user_warnings import warn_once
from .common import broadcast_error, normalize_dim
from .contraction import tensordot
from .derivatives import NODES
from .linalg import _unsafe_view, vdot
from .registry import export

CROSS_DEFAULT_DIM_WARNING = (
    "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or simply "
    "use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross in a future "
    "release.")


@export
def cross(input, other, dim=None):
    """The cross product along ``dim``; without it, along the first dim of length 3 (torch's deprecated default,
    with its warning once per process)."""
    if dim is None:
        warn_once(CROSS_DEFAULT_DIM_WARNING, stacklevel=None)
        sizes = input._data.shape
        if input._data.ndim == other._data.ndim:
            sizes = np.broadcast_shapes(sizes, other._data.shape) if _broadcasts(sizes, other._data.shape) else sizes
        dim = next((d for d, size in enumerate(sizes) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


def _broadcasts(a: tuple, b: tuple) -> bool:
    return all(x == y or x == 1 or y == 1 for x, y in zip(a, b))


def linalg_cross(input, other, *, dim=-1):
    """``torch.linalg.cross``: the cross product of the vectors along ``dim`` (of length 3), the other dims
    broadcast (LinalgCrossBackward0)."""
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    axis = normalize_dim(dim, a.ndim)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[axis]} and "
                           f"{b.shape[axis]}")
    if not _broadcasts(a.shape, b.shape):
        raise broadcast_error(a.shape, b.shape)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_type_name} but found "
                           f"{other.dtype.scalar_type_name}")
    return recorded(NODES["LinalgCrossBackward0"], np.cross(a, b, axis=axis), (input, other), {"dim": axis})


@export
def inner(input, other):
    """The sum of the products over the last dims (a product, for a 0-dim operand), as torch's ``tensordot``."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    return tensordot(input, other, dims=([-1], [-1]))


@export
def kron(input, other):
    """The Kronecker product: each element of ``input`` times ``other``, in blocks. As torch computes it: the
    operands viewed with their dims interleaved with dims of one (the shorter shape padded in front), their
    product viewed back (UnsafeViewBackward0 of MulBackward0)."""
    ndim = max(input._data.ndim, other._data.ndim)
    a_shape = (1,) * (ndim - input._data.ndim) + input._data.shape
    b_shape = (1,) * (ndim - other._data.ndim) + other._data.shape
    a = _unsafe_view(input, tuple(n for size in a_shape for n in (size, 1)))
    b = _unsafe_view(other, tuple(n for size in b_shape for n in (1, size)))
    return _unsafe_view(a * b, tuple(x * y for x, y in zip(a_shape, b_shape)))


def vecdot(x, y, *, dim=-1):
    """``torch.linalg.vecdot``: the conjugate of ``x`` times ``y``, summed over ``dim`` (two vectors: their
    ``vdot``, as torch's)."""
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.scalar_type_name}")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype.scalar_type_name} and y of type {y.dtype.scalar_type_name} instead")
    if x._data.ndim == 1 and y._data.ndim == 1:
        return vdot(x, y)
    return (x.conj() * y).sum(dim)
