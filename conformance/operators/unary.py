"""Operator table: elementary functions of one tensor (exp, log, trigonometric, hyperbolic, erf).

Every entry has the same five samples (random values in the function's domain, the method form
on a transposed input, a 0-dim and an empty input, the in-place form on a non-leaf), plus the
points where torch's value or derivative is a convention: at the edge of the domain (sqrt and
log at 0, asin at 1) and outside it (NaN values, and the gradient torch gives there).
"""

from __future__ import annotations

from .spec import R, S, V, op
from .tolerances import CHAINED, ELEMENTARY, EXACT

INF = float("inf")
HALF_PI_MULTIPLES = [0.0, 1.5707963267948966, 3.141592653589793, -1.5707963267948966]


def unary(name: str, low: float = -2.0, high: float = 2.0, tolerance=ELEMENTARY, *, inplace: bool = True,
          gradgrad: bool = True, doc: str | None = None, extra: tuple = ()):
    domain = {"low": low, "high": high}
    samples = [
        S(f"torch.{name}(x)", "random values in the domain", x=R(3, 4, **domain)),
        S(f"x.{name}()", "method form, transposed input", x=R(3, 4, layout="transposed", **domain)),
        S(f"torch.{name}(x)", "0-dim", x=R(**domain)),
        S(f"torch.{name}(x)", "empty", x=R(0, 3, **domain)),
    ]
    if inplace:
        samples.append(S(f"x.clone().{name}_()", "in-place on a non-leaf", x=R(5, **domain)))
    # torch has no derivative for the in-place asinh_, acosh_ and atanh_ (NotImplementedError): they
    # are left out rather than demanding that error of an implementation.
    return op(name, doc or f"torch.{name}", tolerance, gradgrad=gradgrad, default=[*samples, *extra])


OPERATORS = [
    unary("exp", -3.0, 3.0, extra=(
        S("torch.exp(x)", "overflow and the limits", x=V([0.0, -INF, 100.0, -100.0])),)),
    unary("exp2", -3.0, 3.0),
    unary("expm1", -2.0, 2.0, extra=(
        S("torch.expm1(x)", "tiny arguments, where expm1 is accurate and exp(x) - 1 is not",
          x=V([1e-5, -1e-5, 1e-3])),)),
    unary("log", 0.1, 4.0, extra=(
        S("torch.log(x)", "at 0 (-inf, infinite gradient) and below (NaN, gradient 1/x)", x=V([0.0, -1.0, 1.0]),
          gradgrad=False),)),
    unary("log2", 0.1, 4.0, extra=(S("torch.log2(x)", "powers of two", x=V([0.5, 1.0, 8.0])),)),
    unary("log10", 0.1, 4.0, extra=(S("torch.log10(x)", "powers of ten", x=V([0.001, 1.0, 100.0])),)),
    unary("log1p", -0.9, 3.0, extra=(
        S("torch.log1p(x)", "at -1 and tiny arguments", x=V([-1.0, 1e-5, -1e-5]), gradgrad=False),)),
    unary("sqrt", 0.05, 4.0, extra=(
        S("torch.sqrt(x)", "at 0: infinite gradient; below 0: NaN", x=V([0.0, -1.0, 4.0]), gradgrad=False),)),
    unary("rsqrt", 0.1, 4.0, extra=(
        S("torch.rsqrt(x)", "at 0: infinity", x=V([0.0, 0.25]), gradgrad=False),)),
    unary("square", -2.0, 2.0, EXACT, extra=(S("x.square()", "at 0", x=V([0.0, -0.5])),)),
    unary("sin", -3.0, 3.0, extra=(S("torch.sin(x)", "multiples of pi/2", x=V(HALF_PI_MULTIPLES)),)),
    unary("cos", -3.0, 3.0, extra=(S("torch.cos(x)", "multiples of pi/2", x=V(HALF_PI_MULTIPLES)),)),
    unary("tan", -1.3, 1.3, CHAINED),
    unary("asin", -0.9, 0.9, CHAINED, extra=(
        S("torch.asin(x)", "at the ends of the domain: infinite gradient", x=V([1.0, -1.0, 0.0]), gradgrad=False),)),
    unary("acos", -0.9, 0.9, CHAINED, extra=(
        S("torch.acos(x)", "at the ends of the domain: infinite gradient", x=V([1.0, -1.0, 0.0]), gradgrad=False),)),
    unary("atan", -3.0, 3.0),
    unary("sinh", -2.0, 2.0),
    unary("cosh", -2.0, 2.0),
    unary("tanh", -2.0, 2.0, extra=(S("torch.tanh(x)", "saturation", x=V([-20.0, 0.0, 20.0])),)),
    unary("asinh", -3.0, 3.0, CHAINED, inplace=False),
    unary("acosh", 1.1, 3.0, CHAINED, inplace=False, extra=(
        S("torch.acosh(x)", "at 1: infinite gradient; below 1: NaN", x=V([1.0, 0.5, 2.0]), gradgrad=False),)),
    unary("atanh", -0.9, 0.9, CHAINED, inplace=False, extra=(
        S("torch.atanh(x)", "at the ends of the domain", x=V([1.0, -1.0, 0.5]), gradgrad=False),)),
    unary("sigmoid", -4.0, 4.0, extra=(S("torch.sigmoid(x)", "saturation", x=V([-100.0, 0.0, 100.0])),)),
    unary("erf", -2.0, 2.0, extra=(S("torch.erf(x)", "saturation", x=V([-6.0, 0.0, 6.0])),)),
    unary("erfc", -2.0, 2.0, extra=(S("torch.erfc(x)", "large arguments", x=V([-6.0, 0.0, 6.0])),)),
]
