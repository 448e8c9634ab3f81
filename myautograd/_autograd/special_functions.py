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
# The functions the derivative formulas call (formula_math's primitives), and the node torch records each as
RECORDED_AS = {"lgamma": "LgammaBackward0", "digamma": "DigammaBackward0", "erfinv": "ErfinvBackward0",
               "i0": "I0Backward0", "i0e": "SpecialI0EBackward0", "i1": "SpecialI1Backward0",
               "i1e": "SpecialI1EBackward0", "xlog1py": "SpecialXlog1PyBackward0"}
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
    return np.where((x == 0) & ~np.isnan(y), x.dtype.type(0), product)


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


# -- the regularized incomplete gamma functions ---------------------------------------------------------------
# Stirling's series of log Gamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2): B_2k / (2k (2k - 1) a^(2k - 1))
STIRLING_SERIES = tuple(float(BERNOULLI[k - 1] / (2 * k * (2 * k - 1))) for k in range(1, 9))


def _power_factor(a, x):
    """x^a e^-x / Gamma(a), 0 where it underflows. Where a > 10 and x is near a, with d = (x - a) / a, as
    e^(a (log1p(d) - d)) sqrt(a / (2 pi)) e^-(Stirling's series): no cancellation between a log x, x and
    log Gamma(a), which would cost digits in proportion to a."""
    direct = a * np.log(x) - x - lgamma(a)
    near = (a > 10) & (np.abs(x - a) <= 0.4 * a)
    big_a = np.where(near, a, 20.0)
    d = (x - big_a) / big_a
    stirling = sum(c / big_a ** (2 * k + 1) for k, c in enumerate(STIRLING_SERIES))
    uniform = big_a * (np.log1p(d) - d) + 0.5 * np.log(big_a / (2 * math.pi)) - stirling
    return np.exp(np.where(near, uniform, direct))


def _lower_series(a, x):
    """P(a, x) by its power series (DLMF 8.11.4): x^a e^-x / Gamma(a + 1) times sum of x^k / ((a+1)...(a+k))."""
    r, c, total = a.copy(), np.ones_like(a), np.ones_like(a)
    going = a == a
    for _ in range(2000):
        r = r + 1
        c = np.where(going, c * x / r, c)
        total = np.where(going, total + c, total)
        going = going & ~(c <= MACHINE_EPSILON * total)
        if not going.any():
            break
    return total * _power_factor(a, x) / a


def _upper_series(a, x):
    """Q(a, x) for small x (DLMF 8.7.3): 1 - x^a / Gamma(a + 1) + x^a / Gamma(a) sum of (-x)^n / (n! (a + n)),
    written to avoid the cancellation of 1 - P."""
    factor, total = np.ones_like(a), np.zeros_like(a)
    going = a == a
    for n in range(1, 2000):
        factor = np.where(going, factor * -x / n, factor)
        term = factor / (a + n)
        total = np.where(going, total + term, total)
        going = going & ~(np.abs(term) <= MACHINE_EPSILON * np.abs(total))
        if not going.any():
            break
    log_x = np.log(x)
    return -np.expm1(a * log_x - lgamma(1 + a)) - np.exp(a * log_x - lgamma(a)) * total


def _upper_continued_fraction(a, x):
    """Q(a, x) for x > 1.1 above a, by its continued fraction (DLMF 8.9.2), renormalized as it grows."""
    y, z, c = 1 - a, x + 2 - a, np.zeros_like(a)
    p_previous, q_previous, p_last, q_last = np.ones_like(a), x.copy(), x + 1, (x + 2 - a) * x
    answer = p_last / q_last
    going = a == a
    for _ in range(2000):
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        p, q = p_last * z - p_previous * yc, q_last * z - q_previous * yc
        ratio = np.where(q != 0, p / np.where(q != 0, q, 1), answer)
        change = np.where(q != 0, np.abs((answer - ratio) / ratio), 1.0)
        answer = np.where(going, ratio, answer)
        big = np.abs(p) > 4.503599627370496e15
        scale = np.where(big, 2.22044604925031308085e-16, 1.0)
        p_previous, p_last = np.where(going, p_last * scale, p_previous), np.where(going, p * scale, p_last)
        q_previous, q_last = np.where(going, q_last * scale, q_previous), np.where(going, q * scale, q_last)
        going = going & ~(change <= MACHINE_EPSILON)
        if not going.any():
            break
    return answer * _power_factor(a, x)


def _upper_inside(a, x):
    """Q(a, x) for finite a, x > 0: the series or continued fraction the region calls for (torch's choice, less
    its uniform asymptotic expansion for large a near x: these converge there too, more slowly)."""
    series_then_complement = 1 - _lower_series(a, x)
    by_fraction = _upper_continued_fraction(a, np.where(x > 1.1, x, 2.0))
    by_series = _upper_series(a, x)
    small_x = np.where(x <= 0.5, -0.4 / np.log(x) < a, x * 1.1 < a)
    return np.where(x > 1.1, np.where(x < a, series_then_complement, by_fraction),
                    np.where(small_x, series_then_complement, by_series))


def _incomplete_gamma(a, x, upper: bool):
    """P(a, x) (``upper``: Q(a, x) = 1 - P) in float64, rounded to the operands' dtype; NaN below 0, the limits
    at 0 and infinity as torch's."""
    dtype = a.dtype
    a, x = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
    with np.errstate(all="ignore"):
        inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        safe_a, safe_x = np.where(inside, a, 1.0), np.where(inside, x, 1.0)
        value = _upper_inside(safe_a, safe_x) if upper else _lower_inside(safe_a, safe_x)
        one, zero = (0.0, 1.0) if upper else (1.0, 0.0)  # the values at x = inf (or a = 0), and at x = 0 (or a = inf)
        value = np.where(np.isinf(x), one, value)
        value = np.where(np.isinf(a), np.where(np.isinf(x), np.nan, zero), value)
        value = np.where(x == 0, zero, value)
        value = np.where(a == 0, np.where(x > 0, one, np.nan), value)
        value = np.where((x < 0) | (a < 0) | np.isnan(a) | np.isnan(x), np.nan, value)
    return value.astype(dtype, copy=False)


def _lower_inside(a, x):
    """P(a, x) for finite a, x > 0: 1 - Q above 1 and above a, else the power series."""
    return np.where((x > 1) & (x > a), 1 - _upper_inside(a, x), _lower_series(a, x))


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _incomplete_gamma(a, x, upper=False)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _incomplete_gamma(a, x, upper=True)
