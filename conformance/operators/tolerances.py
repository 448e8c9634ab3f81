"""How closely the operator catalog compares values: a few tolerance classes, each with its reason.

A tolerance is given in units in the last place of the dtype (its machine epsilon: 2**-23 for
float32, 2**-52 for float64) and used both as relative and as absolute tolerance, so that
``|actual - expected| <= n * eps * (1 + |expected|)``. Sample values are of order one, which
makes the absolute part one that matters only near zero (cancellation).

Every operator entry names one class; a variant that needs a looser one says so by naming it.
Torch computes exactly (class EXACT) wherever the result is a copy or a single correctly
rounded operation; elsewhere two correct implementations differ by a few units, for the
reason each class states.
"""

from __future__ import annotations

from dataclasses import dataclass

EPSILON = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}


@dataclass(frozen=True)
class Tolerance:
    name: str
    ulps: int
    reason: str

    def per_dtype(self) -> dict[str, tuple[float, float]]:
        """``Case.tolerances``: dtype name -> (rtol, atol)."""
        return {dtype: (self.ulps * eps, self.ulps * eps) for dtype, eps in EPSILON.items()}


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
