"""Mutants of type promotion: the dtype a binary operation's result takes."""

from __future__ import annotations

from myautograd import _dtype
from myautograd._tensor import Tensor

from ._registry import mutant, op, replace


def _keeps_integer_dtype(original):
    """``original(input, other)`` whose result keeps an integer input's dtype when ``other`` is a Python float."""
    def planted(input, other, *args, **kwargs):
        result = original(input, other, *args, **kwargs)
        if isinstance(other, float) and isinstance(input, Tensor) and input.dtype.category == _dtype.INTEGER:
            return result.to(input.dtype)
        return result

    return planted


@mutant("type promotion", "an integer tensor times a Python float gives an integer (the float taken as an int)")
def int_times_float_stays_int():
    op("mul", _keeps_integer_dtype)
    replace(Tensor, "__mul__", _keeps_integer_dtype)


@mutant("type promotion", "a 0-dim float64 tensor promotes a float32 vector (0-dim tensors ranked as dimensioned)")
def zero_dim_promotes_like_dimensioned():
    def make(original):
        def result_type(*operands):
            ranked = [o.dtype if isinstance(o, Tensor) and o.ndim == 0 and o.dtype.category == _dtype.FLOATING
                      else o for o in operands]
            dimensioned = [d for d in ranked if isinstance(d, _dtype.dtype)]
            rest = [o for o in ranked if not isinstance(o, _dtype.dtype)]
            if not dimensioned:
                return original(*operands)
            widest = dimensioned[0]
            for d in dimensioned[1:]:
                widest = _dtype.promote_types(widest, d)
            return original(*rest, _Dimensioned(widest)) if rest else widest

        return result_type

    replace(_dtype, "result_type", make)


class _Dimensioned:
    """A stand-in operand: a dimensioned tensor of ``dtype``."""

    ndim = 1

    def __init__(self, dtype) -> None:
        self.dtype = dtype
