"""What the vmap steps of an operator scenario check on the implementation itself.

A sample's ``vmap`` step runs the operator under the implementation's ``torch.func.vmap`` over a
batch (the sample and copies drawn alike, see ``render``) and also runs every member of the batch
alone, on the same implementation; :func:`differing` says which members' results the batched run
does not reproduce, within the operator's tolerance class. The scenario records that list (``[]``
where vmap is right) next to the batched outputs, which are compared with torch's as usual, so a
wrong batching rule fails even where torch's own values would not tell it apart.

The values are read with ``tolist()`` and compared in NumPy: the implementation's own comparison
functions are never trusted to judge it.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def leaves(value: Any) -> list:
    """The tensors (and ``None``) of a result, in order: tuples, lists and named tuples are flattened."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def values_of(leaf: Any) -> np.ndarray | None:
    """A tensor's values as a NumPy array (``None`` for ``None``)."""
    if leaf is None:
        return None
    zero = getattr(leaf, "_is_zerotensor", None)  # torch's efficient zeros (sgn's derivative) refuse tolist()
    if callable(zero) and zero() is True:
        leaf = leaf.clone()
    return np.asarray(leaf.detach().tolist() if hasattr(leaf, "detach") else leaf.tolist())


def reproduces(whole: np.ndarray | None, member: int, own: np.ndarray | None, rtol: float, atol: float) -> bool:
    """Whether the ``member``-th entry of a batched result (along its first dimension) is ``own``, the
    member's result run alone; a result without that entry reproduces nothing."""
    if whole is None or own is None:
        return whole is None and own is None
    if whole.ndim == 0 or whole.shape[0] <= member:
        return False
    return within_tolerance(whole[member], own, rtol, atol)


def within_tolerance(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> bool:
    """Whether two arrays agree: same shape, NaN where the other has NaN, the same infinities, and
    ``|actual - expected| <= atol + rtol * |expected|`` elsewhere (exactly, for integers and bools)."""
    if actual.shape != expected.shape:
        return False
    if actual.dtype.kind in "biu" or expected.dtype.kind in "biu":
        return bool(np.array_equal(actual, expected))
    wide = np.complex128 if "c" in (actual.dtype.kind, expected.dtype.kind) else np.float64
    actual, expected = actual.astype(wide), expected.astype(wide)
    nan = np.isnan(expected)
    if not np.array_equal(np.isnan(actual), nan):
        return False
    finite = np.isfinite(expected) & ~nan
    if not np.array_equal(actual[~finite & ~nan], expected[~finite & ~nan]):
        return False
    return bool(np.all(np.abs(actual[finite] - expected[finite]) <= atol + rtol * np.abs(expected[finite])))


def differing(batched: Any, alone: list, rtol: float, atol: float) -> list[int]:
    """The positions of the members (``alone``: each member's result, run on its own) whose result the
    ``batched`` one (batch dimension first in every tensor) does not reproduce within the tolerance."""
    batched_leaves = [values_of(leaf) for leaf in leaves(batched)]
    found = []
    for member, result in enumerate(alone):
        member_leaves = [values_of(leaf) for leaf in leaves(result)]
        if len(member_leaves) != len(batched_leaves) or not all(
                reproduces(whole, member, own, rtol, atol) for whole, own in zip(batched_leaves, member_leaves)):
            found.append(member)
    return found
