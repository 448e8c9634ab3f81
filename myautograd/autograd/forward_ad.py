"""``torch.autograd.forward_ad``: dual levels, ``make_dual`` and ``unpack_dual``, with torch's checks.

The machinery (levels, where tangents live, how ops carry them) is ``myautograd/_autograd/forward.py``;
this module is the public API, written to torch's signatures, so that ``func.jvp`` and friends can
be built on it as torch builds them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _dtype
from .._autograd import forward
from .._autograd.views import make_view
from .._batched import BatchedTensor
from .._dtype import from_numpy
from .._grad_mode import STATE
from .._missing import missing_attribute as _missing_attribute
from .._tensor import Tensor

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


def enter_dual_level() -> int:
    """Enter a new forward-mode level (only one at a time); returns it."""
    return forward.enter_level()


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the level ``level`` (the current one by default): every tangent of that level is deleted."""
    forward.exit_level(level)


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view of the dual tensor) and its tangent (or None)."""

    primal: Tensor
    tangent: Tensor | None


def _check_floating(tensor: Tensor, what: str) -> None:
    if _dtype.kind(tensor._data.dtype) not in "fc":
        raise ValueError(f"Expected {what} to be floating point or complex, but got: {from_numpy(tensor._data.dtype)}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` whose tangent at ``level`` is ``tangent`` (copied only when its layout
    differs from the primal's)."""
    if level is None:
        level = forward.LEVEL
    if level is None:
        raise RuntimeError(forward.NO_LEVEL_MESSAGE)
    _check_floating(tensor, "primal")
    _check_floating(tangent, "tangent")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(forward.size_message(tensor, tangent))
    if forward.tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    with forward.suspended():
        dual = tensor.view_as(tensor)
    if STATE.inference:
        return dual
    if _element_strides(tangent) != _element_strides(tensor):
        if _overlaps_itself(tensor):  # the tangent is copied into memory laid out as the primal's, as torch does
            raise RuntimeError(OVERLAP_MESSAGE)
        tangent = _in_layout_of(tangent, tensor)
    forward.set_tangent(dual, tangent)
    return dual


OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
                   "location. Please clone() the tensor before performing the operation.")


def _overlaps_itself(tensor: Tensor) -> bool:
    """Whether elements of ``tensor`` share memory as torch surely detects it: a dimension of stride 0 and
    more than one element (an ``expand``)."""
    if isinstance(tensor, BatchedTensor):  # under vmap the batch may be an expansion: torch checks each sample
        return False
    data = tensor._data
    return any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape))


def _element_strides(tensor: Tensor) -> tuple:
    data = tensor._data
    return tuple(s // data.itemsize for s in data.strides) if data.size > 1 else ()


def _in_layout_of(tangent: Tensor, primal: Tensor) -> Tensor:
    """A copy of ``tangent`` laid out in memory as ``primal`` is."""
    from .._tensor import make_tensor

    data = np.empty_like(primal._data, dtype=tangent._data.dtype)
    np.copyto(data, tangent._data)
    return make_tensor(data, tangent._requires_grad and STATE.grad_enabled) if not tangent._requires_grad \
        else tangent.clone()


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """The primal of ``tensor`` (a view without tangent) and its tangent at ``level`` (None without one)."""
    if level is None:
        level = forward.LEVEL
    tangent = forward.tangent_of(tensor) if level is not None and level == forward.LEVEL else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with forward.suspended():
        primal = make_view(tensor, tensor._data.view(), "Identity", {})
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """``with dual_level():`` enters a forward-mode level for the block and exits it afterwards."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
