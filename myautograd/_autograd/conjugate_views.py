"""Conjugate views: torch's ``conj()`` of a complex tensor is a view that shares its memory and reads, and
writes, the conjugate (the conjugate bit, ``is_conj()``).

NumPy has no conjugate view. A ``ConjugateView`` keeps the memory it shares (a NumPy view of its source's
array) in the slot where a tensor keeps its values, and its ``_data`` is the conjugate of that memory,
computed at each read: every op reads the conjugate values, as torch's ops resolve the bit. A write into
it stores the conjugate into the shared memory (``write``), so its base changes as torch's does; a write
into the base shows at the view's next read. Where autograd locates a view in its base (``views``: the
positions a CopySlices node or a regenerated ``grad_fn`` covers) it reads the shared memory (``shared``).

A view of a conjugate view (a slice of it, its ``imag``) is made from the conjugate values and is not tied
to the shared memory: a write into it does not reach the base (torch's would). ``conj()`` of a conjugate
view is a plain view of the memory again, as torch's.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor

_SLOT = Tensor.__dict__["_data"]  # the slot descriptor that holds a tensor's array


def shared(tensor: Tensor):
    """The array ``tensor`` keeps: its values, or for a conjugate view the memory it shares."""
    return _SLOT.__get__(tensor)


class ConjugateView(Tensor):
    """A tensor whose values are the conjugate of the memory it shares (see the module docstring)."""

    __slots__ = ()

    @property
    def _data(self):
        return conjugated(_SLOT.__get__(self))

    @_data.setter
    def _data(self, values) -> None:  # new values bound to it (``.data = ...``): read back as given
        _SLOT.__set__(self, conjugated(values))


def conjugated(array):
    """The conjugate of an array, as an array of its type (NumPy gives a scalar for a 0-dim one)."""
    result = array.conj()
    return result if type(result) is type(array) else np.asarray(result)


def is_conjugate_view(tensor) -> bool:
    return tensor.__class__ is ConjugateView


def become_conjugate_view(view: Tensor) -> Tensor:
    """``view`` (made by ``views.make_view`` over the shared memory) read as its conjugate from now on."""
    view.__class__ = ConjugateView
    return view

