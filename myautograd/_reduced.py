"""float16 and bfloat16 computed as torch's CPU kernels compute them: in float32, rounded once.

torch's CPU kernels for the reduced-precision floats load each element as a float32, do the
whole operation in float32 (a reduction accumulates in float32, a matrix product too) and round
the result to the tensor's dtype once, at the end; a Python number beside the tensor enters that
float32 computation as it is, never rounded to float16 or bfloat16 first. NumPy (and ml_dtypes)
round after each of their own ufuncs instead, so an operation written as several NumPy calls
(``1 / np.sqrt(x)``, a sum that adds in float16, ``x * 0.1`` with 0.1 rounded to float16) rounds
several times. Measured on the operator table: where myautograd's float16 value differed from
torch's, the float32 computation rounded once gave torch's bits.

:func:`in_float32` wraps an array kernel (one torch kernel: an op's forward, or one primitive of
the derivative formulas) so that reduced-precision arrays among its arguments are widened to
float32 and its floating result rounded back to their type. Other dtypes pass through untouched,
at the cost of one dtype test per argument.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._dtype import REDUCED_FLOATS

_FLOAT32 = np.dtype(np.float32)
_ndarray = np.ndarray


def reduced_type(*values):
    """The NumPy dtype of the first float16 or bfloat16 array among ``values``; None without one."""
    for value in values:
        dtype = getattr(value, "dtype", None)
        if dtype is not None and dtype in REDUCED_FLOATS and not isinstance(value, np.generic):
            return dtype
    return None


def _reduced_argument(args: tuple, kwargs: dict):
    """``reduced_type`` of the arguments, then of the elements of list and tuple arguments (in one
    pass over ``args``: every kernel call on other dtypes pays for this)."""
    sequences = None
    for value in args:
        cls = value.__class__
        if cls is list or cls is tuple:
            sequences = (sequences or []) + [value]
        elif cls is not _ndarray or value.dtype in REDUCED_FLOATS:
            dtype = reduced_type(value)
            if dtype is not None:
                return dtype
    return (reduced_type(*kwargs.values()) if kwargs else None) or (
        reduced_type(*(v for sequence in sequences for v in sequence)) if sequences else None)


def widen(value):
    """A float16 or bfloat16 array as float32 (exact); anything else as it is."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype in REDUCED_FLOATS and not isinstance(value, np.generic):
        return value.astype(_FLOAT32)
    return value


def round_to(value, dtype):
    """A float32 result (an array, or a tuple or list of them) rounded once to ``dtype``."""
    if isinstance(value, (tuple, list)):
        return type(value)(round_to(v, dtype) for v in value)
    if getattr(value, "dtype", None) == _FLOAT32:
        return value.astype(dtype)
    return value


def in_float32(compute: Callable) -> Callable:
    """``compute`` (arrays and other arguments -> array) computing float16 and bfloat16 arrays in
    float32, its floating result rounded once to their type; sequences of arrays (``cat``'s) count."""

    def kernel(*args, **kwargs):
        target = _reduced_argument(args, kwargs)
        if target is None:
            return compute(*args, **kwargs)
        args = [type(a)(widen(v) for v in a) if isinstance(a, (list, tuple)) else widen(a) for a in args]
        kwargs = {key: widen(value) for key, value in kwargs.items()}
        return round_to(compute(*args, **kwargs), target)

    kernel.__name__ = getattr(compute, "__name__", "kernel")
    kernel.__wrapped__ = compute
    return kernel
