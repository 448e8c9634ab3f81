"""Differences along a dim: diff, composed as torch composes it, so its nodes are torch's: the inputs
joined (``CatBackward0``, with ``prepend``/``append``), then ``n`` times the tensor without its first
element minus the tensor without its last (``SubBackward0`` of two ``SliceBackward0``; ``logical_xor`` for
bool); ``n=0`` a copy (``CopyBackwards``)."""

from __future__ import annotations

from .. import _dtype
from .common import check_tensor, normalize_dim
from .creation import zeros_like
from .registry import export
from .shape import cat
from .views import narrow


def _check_joined(input, other) -> None:
    if other is not None and other.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")


@export
def diff(input, n=1, dim=-1, prepend=None, append=None):
    check_tensor(input, "diff")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        _check_joined(input, other)
    axis = normalize_dim(dim, input.ndim)
    joined = [t for t in (prepend, input, append) if t is not None]
    result = cat(joined, axis) if len(joined) > 1 else input
    if n == 0:
        return zeros_like(result).copy_(result)
    length = result.shape[axis] - 1
    for _ in range(min(n, result.shape[axis])):
        later, earlier = narrow(result, axis, 1, length), narrow(result, axis, 0, length)
        result = later.logical_xor(earlier) if result.dtype == _dtype.bool_ else later - earlier
        length -= 1
    return result
