"""How closely the operator catalog compares values: a few tolerance classes, each with its reason.

A tolerance is given in units in the last place of the dtype (its machine epsilon: 2**-23 for
float32, 2**-52 for float64) and used both as relative and as absolute tolerance, so that
``|actual - expected| <= n * eps * (1 + |expected|)``. Sample values are of order one, which
makes the absolute part one that matters only near zero (cancellation).

Every operator entry names one class; a variant that needs a looser one says so by naming it.
Torch computes exactly (class EXACT) wherever the result is a copy or a single correctly
rounded operation; elsewhere two correct implementations differ by a few units, for the
reason each class states. complex64 and complex128 take the classes of float32 and float64 (their
parts are of that precision), with at least ``COMPLEX_FLOOR_ULPS``: a complex product or quotient is
several real operations (``(a + bi)(c + di) = (ac - bd) + (ad + bc)i``) that vectorized code fuses
(FMA) or groups otherwise than scalar code, so even torch's batched and unbatched complex
multiplications differ in the last place. The real values of a complex item (``abs``, ``angle``,
the real part of a product, the tangents of those) come from the same arithmetic and take the
same floor (``PARTS``): torch's own ``sgn`` of complex128, for one, divides each part by the
magnitude in its vectorized loop but multiplies by the reciprocal in the scalar loop that finishes
an array whose length is not a multiple of the vector block (8 elements with AVX-512, 4 with
AVX2; measured), so ``abs``'s tangent moves by an ulp with the length of the array and the CPU.

float16 and bfloat16 are judged by another rule, :func:`reduced_precision_problem`: fixed
tolerances are wrong there, because how far torch's own result lies from the true one depends on
how its kernel computes (many CPU kernels compute in float32 and round once; some accumulate in
the reduced dtype) and on the conditioning of each sample. The implementation's value and
gradient must be at least as close to a float64 computation of the same samples (the inputs and
``grad_outputs`` as rounded to the reduced dtype, then upcast: the scenario records it on both
sides, under the label of the value followed by ``FLOAT64_SUFFIX``) as torch's own result in that
dtype is, plus a floor of ``FLOOR_ULPS`` units in the last place of the reduced dtype, elementwise:

    |impl - ref64| <= |torch - ref64| + FLOOR_ULPS * eps * (1 + |ref64|)

``eps * (1 + |ref64|)`` is at least the spacing of the reduced dtype's values near ``ref64``, so the
floor lets an implementation round the same result to the neighbouring value (it computed in
float64 where torch computed in float32) without letting through the error of a computation done
in the reduced dtype throughout (a float16 sum of 512 terms accumulated in float16 is off by two
units where torch's, accumulated in float32, is off by a tenth of one). Where the implementation's
values are not values of its dtype at all (a bfloat16 result computed in float32 and never rounded)
the rule says so whatever the distance. This is the
rule Lightning Thunder's consistency tests use against torch (an implementation at least as
accurate as the reference, by a small margin); it is written here from that description.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Machine epsilon of each dtype the operator table runs in (of the parts, for the complex dtypes).
EPSILON = {"float32": 2.0 ** -23, "float64": 2.0 ** -52, "complex64": 2.0 ** -23, "complex128": 2.0 ** -52,
           "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
#: The dtypes judged by the reduced-precision rule rather than by tolerance classes.
REDUCED = ("float16", "bfloat16")
#: What follows a step's label in the label of its float64 computation (recorded in reduced dtypes only).
FLOAT64_SUFFIX = " (in double precision, on the same inputs)"
#: The fewest units in the last place a complex dtype is compared with (see above).
COMPLEX_FLOOR_ULPS = 4
#: The dtype of the parts of each complex dtype, whose values in a complex item take its floor too.
PARTS = {"complex64": "float32", "complex128": "float64"}
#: The floor of the reduced-precision rule, in units in the last place of the reduced dtype.
FLOOR_ULPS = 1


@dataclass(frozen=True)
class Tolerance:
    name: str
    ulps: int
    reason: str

    def per_dtype(self) -> dict[str, tuple[float, float]]:
        """``Case.tolerances``: dtype name -> (rtol, atol); the reduced dtypes are judged by their own rule."""
        return {dtype: self.in_dtype(dtype) for dtype in EPSILON if dtype not in REDUCED}

    def in_dtype(self, dtype: str) -> tuple[float, float]:
        """(rtol, atol) of this class in ``dtype``."""
        ulps = max(self.ulps, COMPLEX_FLOOR_ULPS) if dtype.startswith("complex") else self.ulps
        return (ulps * EPSILON[dtype], ulps * EPSILON[dtype])


EXACT = Tolerance("exact", 0, (
    "the result is a copy or one correctly rounded IEEE operation per element: creation from "
    "Python numbers, copies, casts, views, indexing, gather/scatter, cat/stack, where, selections "
    "(max, min, clamp, relu, sort-free comparisons), rounding functions, and add, sub, mul, div, "
    "neg, abs of finite values and their gradients when those are copies or single products"))
ROUNDED = Tolerance("rounded", 4, (
    "a handful of correctly rounded operations whose grouping another implementation may choose "
    "differently, e.g. the divisor's gradient of div, -g * (a / b) / b against -g * a / (b * b)"))
ELEMENTARY = Tolerance("elementary", 8, (
    "an elementary function per element (exp, log, sin, erf, ...) and its derivative formula; "
    "good libm-style implementations are within one or two ulps of the true value, and torch's "
    "own vectorized and scalar code paths differ from each other by that much"))
CHAINED = Tolerance("chained", 32, (
    "formulas that chain several elementary functions and products per element (gelu, mish, "
    "selu, pow with a tensor exponent, the second derivatives of most functions), so that "
    "rounding errors of each step add up and depend on how the formula is written"))
SUMMED = Tolerance("summed", 32, (
    "sums over up to a few dozen terms (reductions, matrix products, the gradient of a broadcast "
    "operand): the order of summation is not specified and differs between pairwise, vectorized "
    "and sequential loops"))
COMPOSITE = Tolerance("composite", 128, (
    "reductions feeding elementary functions and divisions (softmax, log_softmax and the losses "
    "built on them, var/std, norms, normalization layers, convolutions): summation order and "
    "chained roundings compound"))

CLASSES = (EXACT, ROUNDED, ELEMENTARY, CHAINED, SUMMED, COMPOSITE)


def representable(values: np.ndarray, dtype: str) -> np.ndarray:
    """Whether each (real) value is a value of the reduced ``dtype``: float16 by NumPy's own half, bfloat16 as
    a float32 whose low 16 bits are zero (bfloat16 is float32's upper half). Non-finite values are."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    safe = np.where(finite, values, 0.0)
    single = safe.astype(np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):
            exact = safe.astype(np.float16).astype(np.float64) == safe
    else:
        exact = (single.astype(np.float64) == safe) & ((single.view(np.uint32) & 0xFFFF) == 0)
    return exact | ~finite


def reduced_precision_problem(torch_values, impl_values, float64_values, dtype: str) -> str:
    """Empty when the implementation's values in the reduced ``dtype`` pass the rule of this module against
    torch's values in that dtype and torch's float64 computation of the same inputs; otherwise a short
    account that gives both errors (torch's and the implementation's) at the worst element.
    Arrays of the same shape; NaN matches only NaN, an infinity only the same infinity."""
    expected = np.asarray(torch_values, dtype=complex)
    actual = np.asarray(impl_values, dtype=complex)
    exact = np.asarray(float64_values, dtype=complex)
    if not (expected.shape == actual.shape == exact.shape):
        return f"shapes {list(expected.shape)}, {list(actual.shape)} and float64's {list(exact.shape)}"
    parts = np.concatenate([actual.real.reshape(-1), actual.imag.reshape(-1)])
    strangers = int(np.count_nonzero(~representable(parts, dtype)))
    if strangers:
        return (f"{strangers} of the implementation's values are not {dtype} values (computed in a wider dtype "
                "and not rounded)")
    with np.errstate(all="ignore"):
        torch_error = np.abs(expected - exact)
        impl_error = np.abs(actual - exact)
        allowed = torch_error + FLOOR_ULPS * EPSILON[dtype] * (1 + np.abs(exact))
        close = impl_error <= allowed
    nan_alike = np.isnan(expected) == np.isnan(actual)
    both_nan = np.isnan(expected) & np.isnan(actual)
    nonfinite = ~np.isfinite(expected) | ~np.isfinite(actual)
    same_nonfinite = (expected == actual) | both_nan
    close = np.where(nonfinite, same_nonfinite, close & np.isfinite(allowed) | (expected == actual)) & nan_alike
    if bool(np.all(close)):
        return ""
    bad = int(close.size - np.count_nonzero(close))
    with np.errstate(all="ignore"):
        excess = np.where(close, -np.inf, np.nan_to_num(impl_error - allowed, nan=np.inf))
    worst = np.unravel_index(int(np.argmax(excess)), excess.shape) if excess.ndim else ()
    at = tuple(int(i) for i in worst)
    return (f"mismatched elements: {bad} / {close.size}, against float64 of the same inputs; at index {at}: "
            f"the implementation's error {float(impl_error[worst]):.6g}, torch's own in {dtype} "
            f"{float(torch_error[worst]):.6g} (allowed {float(allowed[worst]):.6g}: torch's error and a floor of "
            f"{FLOOR_ULPS} ulps)")
