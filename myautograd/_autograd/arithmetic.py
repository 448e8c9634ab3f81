"""Arithmetic on arrays as torch's CPU kernels compute it, where NumPy's own rounds otherwise: a power
with a number (products for small integer exponents; ones and the base for 0 and 1, before any kernel),
the complex product (no fused multiply-add), the complex magnitude (the correctly rounded hypotenuse) and
the complex power (the C library's ``cpow``), and add's and sub's complex second operand (``scaled``). The
formulas reach them through ``formula_math``'s
primitives; the ops of ``myautograd._ops`` call them directly.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _backend, _dtype


def power(x, exponent):
    """``x ** exponent`` for a Python-number exponent, as torch's kernel computes it: products for
    the small integer exponents (x * x, x * x * x, 1 / x, 1 / (x * x)), sqrt and 1 / sqrt for the
    halves, the library's pow otherwise; and, as torch's pow does before any kernel, ones for an
    exponent 0 and a copy of ``x`` for 1, whatever ``x`` holds (NaN, or a complex 0 whose pow is NaN)."""
    if exponent == 0:
        return np.ones_like(x)
    if exponent == 1:
        return x.copy()
    if _dtype.kind(x.dtype) in "fc" and not isinstance(exponent, complex):
        if exponent == 2:
            return x * x
        if exponent == 3:
            return x * x * x
        if exponent == 0.5:
            return np.sqrt(x)
        if exponent == -0.5:
            return 1 / np.sqrt(x)
        if exponent == -1:
            return 1 / x
        if exponent == -2:
            return 1 / (x * x)
    return library_power(x, exponent)


_COMPLEX = _dtype.COMPLEX_FLOATS  # a module global: one lookup on every multiplication


def _complex_operand(value) -> bool:
    cls = value.__class__
    if cls is float or cls is int:
        return False
    return cls is complex or getattr(value, "dtype", None) in _COMPLEX


def multiply(x, y, out=None):
    """``x * y`` as torch's kernels multiply: for complex values, ``(ac - bd) + (ad + bc)i`` with each
    product and sum rounded in the parts' precision (no fused multiply-add, which NumPy's complex
    multiplication may use); real values as NumPy multiplies them."""
    if not (x.__class__ is complex or y.__class__ is complex  # _complex_operand, inlined: every real mul comes here
            or getattr(x, "dtype", None) in _COMPLEX or getattr(y, "dtype", None) in _COMPLEX):
        return np.multiply(x, y, out=out)
    result_type = np.result_type(x, y)
    like = x if hasattr(x, "shape") else y
    x, y = (_array_of(v, like, result_type) for v in (x, y))
    product = np.empty_like(like, shape=np.broadcast_shapes(x.shape, y.shape), dtype=result_type)
    with np.errstate(all="ignore"):
        product.real = x.real * y.real - x.imag * y.imag
        product.imag = x.real * y.imag + x.imag * y.real
    if out is None:
        return product
    out[...] = product
    return out


def scaled(y):
    """``y`` as torch's add and sub take their second operand: ``alpha * y``, with ``alpha = 1`` multiplied in as a
    complex number, so that an infinite part of a complex ``y`` makes NaN of the other part (inf * 0; torch's
    ``0j - complex(inf, 1)`` is ``-inf + nan j``). Real and finite values are returned as they are."""
    if getattr(y, "dtype", None) in _COMPLEX and not bool(np.isfinite(y).all()):
        return multiply(1, y)
    return y


_LONG_ENOUGH = np.finfo(np.longdouble).nmant >= 63  # x86's 80-bit long double: 64 bits of mantissa


def absolute(x):
    """``|x|`` as torch's CPU kernels compute it. For complex numbers, the hypotenuse of the parts,
    correctly rounded (the C library's ``hypot`` for complex128; ``hypotf`` for complex64, which
    NumPy's float32 hypot matches), where NumPy's abs of complex values is an ulp off for about a
    third of them (measured on a million). complex128: squared and summed in long double, where a
    result near a midpoint of two doubles (about 2 in 10,000) is recomputed by ``math.hypot``."""
    if x.dtype.kind != "c" or type(x) is not np.ndarray:
        return np.abs(x)
    if x.dtype == np.complex64 or not _LONG_ENOUGH:
        return np.hypot(x.real, x.imag) if x.dtype == np.complex64 else _hypot_each(x)
    real, imag = x.real.astype(np.longdouble), x.imag.astype(np.longdouble)
    with np.errstate(invalid="ignore"):
        wide = np.asarray(np.sqrt(real * real + imag * imag))  # (a 0-d result is an array, which the fixes below write)
    result = wide.astype(np.float64)
    near_midpoint = np.abs(wide - result) > 0.49 * np.spacing(result)
    infinite = np.isinf(x.real) | np.isinf(x.imag)  # hypot(inf, nan) is inf
    result[infinite] = np.inf
    near_midpoint &= ~infinite & np.isfinite(result)
    if near_midpoint.any():
        result[near_midpoint] = _hypot_each(x[near_midpoint])
    return result


def _hypot_each(z):
    return np.array([math.hypot(v.real, v.imag) for v in z.ravel().tolist()], dtype=np.float64).reshape(z.shape)


#: The type a real power of float32 or float64 values is computed in on the CPU, then rounded once.
_WIDER_POWER = {np.dtype(np.float32): np.dtype(np.float64), np.dtype(np.float64): np.dtype(np.longdouble)}


def _real_power(x, exponent):
    """``np.power`` of real values, computed on the CPU in a wider type and rounded once to the result's.
    NumPy's own float32 and float64 power (SVML's, on a CPU with AVX-512) is off by an ulp where torch's
    kernel is correctly rounded, and a tangent or gradient that cancels makes that ulp a difference:
    measured on 200,000 pairs (bases in [0.01, 9], exponents in [-9, 9]), NumPy's differs from torch's
    on 20% of float32 and 6% of float64 ones, this on 1.8% and 1.7% (long double's ``powl`` costs
    about 1.4 us an element). Each operand is first rounded to the result's type, as torch casts a
    number to the tensor's dtype."""
    result_type = np.result_type(x, exponent)
    wide = _WIDER_POWER.get(result_type)
    arrays = [v for v in (x, exponent) if hasattr(v, "shape") and not isinstance(v, np.generic)]
    if wide is None or not all(_backend.is_cpu_array(v) for v in arrays):
        return np.power(x, exponent)
    x, exponent = (np.asarray(v, dtype=result_type).astype(wide) for v in (x, exponent))
    return np.power(x, exponent).astype(result_type)


def library_power(x, exponent):
    """``np.power``, except where NumPy's complex power leaves the C library's ``cpow`` (which torch's
    complex kernel calls: ``exp(exponent * log(x))``): NumPy multiplies repeatedly for small integral
    exponents and answers 0 ** y itself (1 for 0 ** 0, where ``exp(0 * log(0))`` is NaN); real values
    are ``_real_power``'s."""
    if not (_complex_operand(x) or _complex_operand(exponent)):
        return _real_power(x, exponent)
    with np.errstate(all="ignore"):
        result = np.power(x, exponent)
        complex_type = np.result_type(result)
        x, exponent = (_array_of(v, result, complex_type) for v in (x, exponent))
        integral = ((exponent.imag == 0) & (exponent.real == np.round(exponent.real))
                    & (np.abs(exponent.real) < 100))
        special = (x == 0) | integral
        if not np.any(special):
            return result
        through_log = np.exp(exponent * np.log(x))
        return np.where(special, through_log, result).astype(complex_type, copy=False)


def _array_of(value, like, dtype):
    """``value`` (an array or a Python number) as an array of ``dtype`` on ``like``'s device."""
    if hasattr(value, "shape"):
        return value.astype(dtype, copy=False)
    return _backend.host_value(value, like, dtype)
