"""The operations of complex numbers that are not plain math: ``angle``, ``polar``, ``vdot``, and the
lazy conjugate and negative bits (``is_conj``, ``is_neg``, ``resolve_conj``, ``resolve_neg``).

torch's ``conj()`` of a complex tensor is a view that only sets a bit, and its ``imag`` a view with
the negative bit; they are resolved when an op reads them. myautograd's ``conj()`` is a view of the
same memory that reads its conjugate (``_autograd/conjugate_views.py``: a write through it reaches
its base, conjugated, and a write into the base shows in it) and says ``is_conj()``; ``imag`` of it
says ``is_neg()`` but is made from the conjugate values (a write into it does not reach the base,
as torch's would); ``resolve_conj``/``resolve_neg`` of them is a copy (``CloneBackward0``), of any
other tensor the tensor itself.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._autograd.record import recorded
from .._tensor import Tensor
from .common import check_real_parts
from .derivatives import NODES
from .registry import export, method
from .shape import clone
from .signatures import match_signature

_CONJ_BIT = "_conj_bit"
_NEG_BIT = "_neg_bit"


def mark(tensor: Tensor, bit: str, on: bool = True) -> Tensor:
    """Set a lazy bit on a tensor an op just made (``conj``: the conjugate, ``imag`` of it: the negative)."""
    if on:
        tensor.__dict__[bit] = True
    return tensor


@method
def is_conj(self) -> bool:
    return self.__dict__.get(_CONJ_BIT, False)


@method
def is_neg(self) -> bool:
    return self.__dict__.get(_NEG_BIT, False)


@export
def resolve_conj(input):
    return clone(input) if is_conj(input) else input


@export
def resolve_neg(input):
    return clone(input) if is_neg(input) else input


def _real_angle(data):
    """torch's angle of a real number: 0, pi below 0, NaN for NaN."""
    return np.where(np.isnan(data), data, np.where(data < 0, data.dtype.type(np.pi), data.dtype.type(0)))


@export
def angle(input):
    data = input._data
    if data.dtype.kind in "biu":
        data = data.astype(_dtype.get_default_dtype().np)
    out = np.angle(data) if data.dtype.kind == "c" else _real_angle(data)
    return recorded(NODES["AngleBackward0"], out, (input,))


@export(method=False)
def polar(abs, angle):  # noqa: A002 - torch's parameter names
    match_signature("polar", ("Tensor abs, Tensor angle, *, Tensor out = None",), (abs, angle))
    check_real_parts(abs, angle)
    a, b = abs._data, angle._data
    out = (a * np.cos(b) + 1j * (a * np.sin(b))).astype(np.result_type(a.dtype, np.complex64))
    return recorded(NODES["PolarBackward0"], out, (abs, angle))
