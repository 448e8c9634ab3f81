"""Python's operators on tensors (``+``, ``*``, ``==``, ``&``, ...), installed as Tensor methods.

``y * 2`` and ``a + b`` are the hot path: ``__mul__`` and ``__add__`` are the ops themselves.
Comparisons with what is not a tensor or a number return NotImplemented, as torch's do.
"""

from __future__ import annotations

import functools

import numpy as np

from .._tensor import Tensor, make_tensor
from .common import PY_NUMBERS
from .comparison import eq, floor_divide, ge, gt, le, lt, ne
from .pointwise import _add, _mul, _scalar_like, abs, div, neg, operands, pow, reciprocal, remainder, rsub, sub
from .registry import method


def _compare(fn):
    """``fn`` as a comparison operator: an operand that is no tensor or number gives Python's answer
    (``x == "a"`` is False, ``x < "a"`` raises Python's TypeError), as torch's operators do."""

    @functools.wraps(fn)  # dtype_refusals.install finds the op underneath and guards the operator too
    def compare(self, other):
        if other is None or not (isinstance(other, (Tensor, np.generic)) or isinstance(other, PY_NUMBERS)):
            return NotImplemented
        return fn(self, other)

    return compare


def _rdiv(self, other):
    return reciprocal(self) * other


OPERATORS = {
    "__add__": _add, "__radd__": _add,  # the hot path (y * 2, a + b): straight to the op
    "__sub__": sub, "__rsub__": rsub,
    "__mul__": _mul, "__rmul__": _mul,
    "__truediv__": div,
    "__rtruediv__": _rdiv, "__rdiv__": _rdiv,  # torch's Python spells b / a as a.reciprocal() * b
    "__floordiv__": floor_divide, "__rfloordiv__": lambda self, other: floor_divide(_scalar_like(other, self), self),
    "__mod__": remainder, "__rmod__": lambda self, other: remainder(other, self),  # a number or a tensor (b % a)
    "__pow__": pow, "__rpow__": lambda self, other: pow(other, self),
    "__neg__": neg, "__pos__": lambda self: self, "__abs__": abs,
    "__eq__": _compare(eq), "__ne__": _compare(ne), "__lt__": _compare(lt), "__le__": _compare(le),
    "__gt__": _compare(gt), "__ge__": _compare(ge),
}


def _bitwise_or_logical(logical, bitwise):
    def op(self, other):
        ad, bd = operands(self, other)
        kind = np.result_type(ad, bd).kind
        if kind == "f" or kind == "c":
            raise TypeError(f"unsupported operand type(s) for {op.__name__}: float tensors")
        return make_tensor((logical if kind == "b" else bitwise)(ad, bd))

    return op


OPERATORS["__and__"] = OPERATORS["__rand__"] = _bitwise_or_logical(np.logical_and, np.bitwise_and)
OPERATORS["__or__"] = OPERATORS["__ror__"] = _bitwise_or_logical(np.logical_or, np.bitwise_or)
OPERATORS["__xor__"] = OPERATORS["__rxor__"] = _bitwise_or_logical(np.logical_xor, np.bitwise_xor)
OPERATORS["__invert__"] = lambda self: make_tensor(np.logical_not(self._data) if self._data.dtype == np.bool_
                                                   else np.invert(self._data))
for _name, _fn in OPERATORS.items():
    method(_fn, name=_name)
