"""The special functions NumPy lacks, on arrays: the log-gamma function and its derivatives (digamma, trigamma,
polygamma through the Hurwitz zeta function).

Each computes as torch's CPU kernel does (the same algorithm, series and cut-offs, in the array's dtype where
torch's kernel computes in it, in float64 where torch's does), so that values agree to the last few units in
the last place: the catalog compares float64 within 1e-12. The series' coefficients are derived here from
the Bernoulli numbers, not copied. The ops (``_ops/special_math.py``) and the derivative formulas
(``formula_math``'s ``digamma`` and ``polygamma``) call them.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import _backend

# B_2, B_4, ..., B_24: the Bernoulli numbers the asymptotic series below are made of
BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
             Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798),
             Fraction(-174611, 330), Fraction(854513, 138), Fraction(-236364091, 2730))
# digamma's asymptotic series: sum of B_2k / (2k x^2k), k = 1..7, highest power first
DIGAMMA_SERIES = tuple(float(BERNOULLI[k - 1] / (2 * k)) for k in range(7, 0, -1))
# the Euler-Maclaurin terms of the Hurwitz zeta function: (2k)! / B_2k, k = 1..12
ZETA_DIVISORS = tuple(float(math.factorial(2 * k) / BERNOULLI[k - 1]) for k in range(1, 13))
PSI_10 = 2.25175258906672110764  # digamma(10) = 1 + 1/2 + ... + 1/9 - Euler's constant
MACHINE_EPSILON = 1.11022302462515654042e-16




def lgamma(x):
    """log|Gamma(x)|: infinite at 0 and the negative integers (C's lgamma, in float64, rounded once)."""
    return _backend.lgamma(x)


def _polynomial(z, coefficients, one):
    """Horner's rule, highest power first, each step in ``z``'s dtype."""
    result = np.zeros_like(z)
    for c in coefficients:
        result = result * z + one.__class__(c)
    return result


def _digamma_at_least_zero(x):
    """digamma of x > 0: the recurrence up to 10, then the asymptotic series, in x's dtype."""
    one = x.dtype.type(1)
    result = np.zeros_like(x)
    below = x < 10
    while below.any():
        result = np.where(below, result - one / x, result)
        x = np.where(below, x + one, x)
        below = x < 10
    z = one / (x * x)
    series = np.where(x < 1.0e17, z * _polynomial(z, DIGAMMA_SERIES, one), 0).astype(x.dtype, copy=False)
    asymptotic = result + np.log(x) - (x.dtype.type(0.5) / x) - series
    return np.where(x == 10, result + x.dtype.type(PSI_10), asymptotic)


def digamma(x):
    """The logarithmic derivative of Gamma: -inf at +0 and inf at -0, NaN at the negative integers; below 0,
    by reflection about 1/2 (pi / tan(pi r) of x's fractional part r, in float64)."""
    with np.errstate(all="ignore"):
        negative = x < 0
        fraction = np.modf(x.astype(np.float64))[0]
        reflection = (math.pi / np.tan(math.pi * fraction)).astype(x.dtype, copy=False)
        result = _digamma_at_least_zero(np.where(negative, x.dtype.type(1) - x, x))
        result = np.where(negative, result - reflection, result)
        result = np.where(x == 0, np.copysign(x.dtype.type(np.inf), -x), result)
        return np.where(negative & (x == np.trunc(x)), x.dtype.type(np.nan), result)


def trigamma(x):
    """The derivative of digamma: reflected below 1/2, six steps of the recurrence, then the asymptotic series."""
    t = x.dtype.type
    pi = t(math.pi)
    with np.errstate(all="ignore"):
        reflected = x < t(0.5)
        sin_pi_x = np.sin(pi * x)
        result = np.where(reflected, -((pi * pi) / (sin_pi_x * sin_pi_x)), t(0))
        x = np.where(reflected, t(1) - x, x)
        for _ in range(6):
            result = result + t(1) / (x * x)
            x = x + t(1)
        ixx = t(1) / (x * x)
        result = result + (t(1) + t(1) / (t(2) * x) + ixx * (t(1 / 6) - ixx * (t(1 / 30) - ixx * t(1 / 42)))) / x
        return np.where(reflected, -result, result)


def zeta(s: float, q):
    """The Hurwitz zeta function sum over k >= 0 of (q + k) ** -s, in float64 but for its first term, q ** -s in
    q's dtype (as torch's kernel): the terms summed directly up to q + k > 9 (at least nine of them), then
    twelve Euler-Maclaurin terms, each stage stopping once a term is below the machine epsilon of the sum.
    Infinite at s = 1 and at the non-positive integers q; NaN for s < 1, and for q <= 0 with s not an integer."""
    with np.errstate(all="ignore"):
        first = np.power(q, q.dtype.type(-s)).astype(np.float64)
        q = q.astype(np.float64)
        out = np.full_like(q, np.nan)
        infinite = (s == 1) | ((q <= 0) & (q == np.floor(q)))
        undefined = (s < 1) | ((q <= 0) & (s != np.floor(s)))
        if s >= 1:
            out = np.where(infinite, np.inf, out)
        active = ~(infinite | undefined)
        total, a, b, steps = first, q, np.zeros_like(q), 0
        going = active & ((steps < 9) | (a <= 9.0))
        while going.any():
            steps += 1
            a = np.where(going, a + 1, a)
            b = np.where(going, np.power(a, -s), b)
            total = np.where(going, total + b, total)
            small = going & (-MACHINE_EPSILON * total < b) & (b < MACHINE_EPSILON * total)
            out, active = np.where(small, total, out), active & ~small
            going = active & ((steps < 9) | (a <= 9.0))
        w = a
        total = total + b * w / (s - 1)
        total = total - 0.5 * b
        a, k = np.ones_like(q), 0.0
        for divisor in ZETA_DIVISORS:
            a = a * (s + k)
            b = b / w
            term = a * b / divisor
            total = total + term
            small = active & (np.abs(term / total) < MACHINE_EPSILON)
            out, active = np.where(small, total, out), active & ~small
            k += 1
            a = a * (s + k)
            b = b / w
            k += 1
        return np.where(active, total, out)


def polygamma(n: int, x):
    """The n-th derivative of digamma: digamma, trigamma, else (-1) ** (n + 1) n! zeta(n + 1, x), n! as
    exp(lgamma(n + 1)) in x's dtype."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    t = x.dtype.type
    factorial = np.exp(t(math.lgamma(n + 1)))
    with np.errstate(all="ignore"):
        return t(1 if n % 2 else -1) * factorial * zeta(float(t(n + 1)), x).astype(x.dtype, copy=False)


def xlog1py(x, y):
    """``x * log1p(y)``; 0 where x is 0 (unless y is NaN)."""
    with np.errstate(all="ignore"):
        product = x * np.log1p(y)
    return np.where((x == 0) & ~np.isnan(y), x.dtype.type(0) if hasattr(x, "dtype") else 0.0, product)


# -- the inverse error function ---------------------------------------------------------------------------
def erfinv(y):
    """The inverse of erf: infinite at +-1, NaN beyond. A closed-form first guess (Winitzki's, within 2e-3),
    then Newton's steps on erf in float64 until they no longer move it, rounded once."""
    v = y.astype(np.float64)
    with np.errstate(all="ignore"):
        log_term = np.log1p(-v * v)
        a = 0.147
        base = 2 / (math.pi * a) + log_term / 2
        x = np.copysign(np.sqrt(np.sqrt(base * base - log_term / a) - base), v)
        inside = np.abs(v) < 1
        x = np.where(inside, x, 0.0)
        for _ in range(6):
            x = x - np.where(inside, (_backend.erf(x) - v) / (2 / math.sqrt(math.pi) * np.exp(-x * x)), 0.0)
        x = np.where(np.abs(v) == 1, np.copysign(np.inf, v), np.where(inside, x, np.nan))
    return x.astype(y.dtype, copy=False)


# -- modified Bessel functions of the first kind, orders 0 and 1 -------------------------------------------
SERIES_LIMIT = 30.0  # below: the power series; above: the asymptotic expansion


def _bessel_series(order: int, x):
    """sum over k of (x/2) ** (2k + order) / (k! (k + order)!), |x| <= SERIES_LIMIT: all terms positive."""
    quarter_square = x * x / 4
    term = np.ones_like(x) if order == 0 else np.abs(x) / 2
    total = term.copy()
    for k in range(1, 120):
        term = term * quarter_square / (k * (k + order))
        total = total + term
    return total


def _bessel_asymptotic(order: int, x):
    """e^-|x| I_order(|x|) for |x| > SERIES_LIMIT: sum over k of (-1)^k a_k / |x|^k over sqrt(2 pi |x|), with
    a_k = prod over j <= k of (4 order^2 - (2j - 1)^2) / (k! 8^k)."""
    ax = np.abs(x)
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, 40):
        term = -term * (4 * order * order - (2 * k - 1) ** 2) / (8 * k * ax)
        total = total + term
    return total / np.sqrt(2 * math.pi * ax)


def _scaled_bessel(order: int, x):
    """e^-|x| I_order(|x|) in float64 (the sign of an odd order left to the caller)."""
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        small = np.abs(x) <= SERIES_LIMIT
        near = np.exp(-np.abs(x)) * _bessel_series(order, np.where(small, x, 0.0))
        far = _bessel_asymptotic(order, np.where(small, SERIES_LIMIT + 1, x))
        return np.where(small, near, far)


def i0e(x):
    """e^-|x| I0(x)."""
    return np.where(np.isinf(x), 0.0, _scaled_bessel(0, x)).astype(x.dtype, copy=False)


def i1e(x):
    """e^-|x| I1(x), odd."""
    return np.where(np.isinf(x), 0.0, np.copysign(_scaled_bessel(1, x), x)).astype(x.dtype, copy=False)


def i0(x):
    """I0(x), infinite where it overflows (NaN at the infinities, as torch's)."""
    with np.errstate(over="ignore", invalid="ignore"):
        big = np.exp(np.abs(x.astype(np.float64)))
        return (big * _scaled_bessel(0, x)).astype(x.dtype, copy=False)


def i1(x):
    """I1(x), odd, infinite where it overflows (NaN at the infinities, as torch's)."""
    with np.errstate(over="ignore", invalid="ignore"):
        big = np.exp(np.abs(x.astype(np.float64)))
        return np.copysign(big * _scaled_bessel(1, x), x).astype(x.dtype, copy=False)


# -- the scaled complementary error function -----------------------------------------------------------------
def _exp_of_square(v):
    """e^(v^2) in float64 without the rounding of v^2 (up to 1e-14 relatively near v = 10): v^2 as the sum of
    its rounded value and the rounding error (Dekker's product), e^error taken to first order."""
    split = v * 134217729.0  # 2^27 + 1
    high = split - (split - v)
    low = v - high
    square = v * v
    error = ((high * high - square) + 2 * high * low) + low * low
    return np.exp(square) * (1 + error)


def _erfcx_of_positive(v):
    """erfcx of float64 v >= 0 (anything else is read as 0)."""
    near = _exp_of_square(np.where(v < 10, v, 0.0)) * _backend.erfc(np.where((v >= 0) & (v < 10), v, 0.0))
    w = np.where(v >= 10, v, 10.0)
    term, total = np.ones_like(w), np.ones_like(w)
    for k in range(1, 30):
        term = -term * (2 * k - 1) / (2 * w * w)
        total = total + term
    return np.where(v < 10, near, total / (w * math.sqrt(math.pi)))


def erfcx(x):
    """e^(x^2) erfc(x). From 0 to 10, as it says (erfc is a normal number there), then by its asymptotic series
    1/(x sqrt(pi)) sum of (-1)^k (2k - 1)!! / (2 x^2)^k, in float64 and rounded once. Below 0, as torch's
    kernel, in x's dtype: 2 e^(x^2) - erfcx(-x), only 2 e^(x^2) below -6.1; infinite below -26.7."""
    with np.errstate(all="ignore"):
        v = x.astype(np.float64)
        positive = _erfcx_of_positive(np.abs(v)).astype(x.dtype, copy=False)
        doubled = x.dtype.type(2) * np.exp(x * x)
        negative = np.where(x < -6.1, doubled, doubled - positive)
        out = np.where(x >= 0, positive, np.where(x < -26.7, x.dtype.type(np.inf), negative))
        return np.where(np.isnan(x), x, out)
