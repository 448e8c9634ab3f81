"""Pointwise ops torch builds losses and formulas from: ``xlogy``, and the arithmetic with a Python
number that torch's C++ code records as ``MulBackward1``, ``DivBackward1``, ``AddBackward1`` and
``SubBackward1`` (the Python operators record ``MulBackward0``, ``DivBackward0``... the number
wrapped in a tensor).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._autograd.arithmetic import multiply
from .._autograd.record import recorded
from .._tensor import Tensor
from .derivatives import NODES
from .pointwise import operands
from .registry import export
from .signatures import match_signature

XLOGY_SIGNATURES = ("Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other, *, Tensor out = None",
                    "Tensor input, Number other, *, Tensor out = None")


@export
def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN): XlogyBackward0 (XlogyBackward1
    for a number ``input``, XlogyBackward2 for a number ``other``)."""
    number_self = match_signature("xlogy", XLOGY_SIGNATURES, (input, other)) == 1
    if number_self:
        from .common import as_tensor_like

        self_number, input = input, as_tensor_like(input, other)
    x, y = operands(input, other)
    out = xlogy_values(x, y if hasattr(y, "dtype") else x.dtype.type(y))
    if number_self:
        return recorded(NODES["XlogyBackward1"], out, (other,), {"self": self_number})
    if isinstance(other, Tensor):
        return recorded(NODES["XlogyBackward0"], out, (input, other))
    return recorded(NODES["XlogyBackward2"], out, (input,), {"other": other})


def xlogy_values(x, y):
    """``x * log(y)``; 0 where x is 0, NaN where y is NaN."""
    zero = x.dtype.type(0)
    return np.where(np.isnan(y), y, np.where(x == 0, zero, x * np.log(y))).astype(x.dtype, copy=False)


def mul_by_number(input: Tensor, number) -> Tensor:
    """``input * number`` as torch's C++ ``mul(Tensor, Scalar)``: MulBackward1 (a real tensor times
    a complex number is complex, multiplied as torch's complex kernel multiplies)."""
    data = input._data
    if isinstance(number, complex) and _dtype.kind(data.dtype) != "c":
        data = data.astype(_dtype.from_numpy(data.dtype).to_complex().np)
    if _dtype.kind(data.dtype) == "c":
        out = multiply(data, np.asarray(number, dtype=data.dtype))
    else:
        out = data * (data.dtype.type(number) if _dtype.kind(data.dtype) == "f" else number)
    return recorded(NODES["MulBackward1"], out, (input,), {"other": number})


def div_by_number(input: Tensor, number) -> Tensor:
    """``input / number`` as torch's C++ ``div(Tensor, Scalar)``: DivBackward1."""
    data = input._data
    out = data / (data.dtype.type(number) if _dtype.kind(data.dtype) in "fc" else number)
    return recorded(NODES["DivBackward1"], out, (input,), {"other": number})


def add_number(input: Tensor, number) -> Tensor:
    """``input + number`` as torch's C++ ``add(Tensor, Scalar)``: AddBackward1."""
    data = input._data
    return recorded(NODES["AddBackward1"], data + data.dtype.type(number), (input,))


def sub_number(input: Tensor, number) -> Tensor:
    """``input - number`` as torch's C++ ``sub(Tensor, Scalar)``: SubBackward1."""
    data = input._data
    return recorded(NODES["SubBackward1"], data - data.dtype.type(number), (input,))
