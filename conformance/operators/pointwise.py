"""Operator table: pointwise arithmetic of two or three operands, rounding and selection.

Each binary arithmetic operator has a ``default`` variant (same shapes, 0-dim, transposed and
empty inputs, Python scalars, invalid calls), a ``broadcast`` variant (its gradients are sums
over the broadcast dimensions, hence the SUMMED class) and a ``forms`` variant: function,
method, operator and in-place spellings must agree with torch's.
"""

from __future__ import annotations

from .spec import B, E, I, R, S, V, op, variant
from .tolerances import CHAINED, ELEMENTARY, EXACT, ROUNDED, SUMMED


def _broadcast(call: str, **domain) -> object:
    return variant(
        S(call, "a column against a row", a=R(3, 1, **domain), b=R(1, 4, **domain)),
        S(call, "a missing leading dimension", a=R(2, 3, 4, **domain), b=R(4, **domain)),
        S(call, "the smaller operand first", a=R(3, **domain), b=R(2, 2, 3, **domain)),
        S(call, "a 0-dim operand", a=R(**domain), b=R(2, 3, **domain)),
        tolerance=SUMMED,
    )


def _forms(function: str, method: str, symbol: str, **domain) -> list:
    return [
        S(f"torch.{function}(a, b)", "function", a=R(2, 3, **domain), b=R(2, 3, **domain)),
        S(f"a.{method}(b)", "method", a=R(2, 3, **domain), b=R(2, 3, **domain)),
        S(f"a {symbol} b", "operator", a=R(2, 3, **domain), b=R(2, 3, **domain)),
        S(f"out = a.clone()\nout {symbol}= b", "augmented assignment on a non-leaf",
          a=R(2, 3, **domain), b=R(2, 3, **domain)),
        S(f"a.clone().{method}_(b)", "in-place method on a non-leaf", a=R(2, 3, **domain), b=R(2, 3, **domain)),
    ]


def _errors(function: str) -> list:
    return [
        E(f"torch.{function}(a, b)", "shapes that do not broadcast", a=R(2, 3), b=R(4)),
        E(f"a.{function}_(b)", "an in-place op cannot broadcast its own operand", a=R(3), b=R(2, 3)),
        E(f"i.{function}_(a)", "an in-place op on an int64 tensor with a float operand", i=I([1, 2, 3]), a=R(3)),
    ]


OPERATORS = [
    op("add", "torch.add", EXACT, gradgrad=False,
       default=[
           S("torch.add(a, b)", "same shapes", a=R(3, 4), b=R(3, 4)),
           S("torch.add(a, b, alpha=2)", "alpha (a power of two: the product is exact)", a=R(2, 3), b=R(2, 3)),
           S("a + b", "0-dim operands", a=R(), b=R()),
           S("a + b", "a transposed and a strided operand", a=R(3, 4, layout="transposed"),
             b=R(3, 4, layout="strided")),
           S("a + 1.5", "a Python scalar", a=R(4)),
           S("a + b", "empty operands", a=R(0, 3), b=R(0, 3)),
           *_errors("add"),
       ],
       broadcast=_broadcast("torch.add(a, b)"),
       forms=_forms("add", "add", "+")),
    op("sub", "torch.sub", EXACT, gradgrad=False,
       default=[
           S("torch.sub(a, b)", "same shapes", a=R(3, 4), b=R(3, 4)),
           S("torch.sub(a, b, alpha=2)", "alpha", a=R(2, 3), b=R(2, 3)),
           S("a - b", "0-dim operands", a=R(), b=R()),
           S("a - b", "transposed", a=R(3, 4, layout="transposed"), b=R(3, 4)),
           S("2.5 - a", "a Python scalar on the left", a=R(4)),
           *_errors("sub"),
           E("torch.sub(b, b)", "subtraction of bool tensors", b=B([True, False])),
       ],
       broadcast=_broadcast("torch.sub(a, b)"),
       forms=_forms("sub", "sub", "-")),
    op("mul", "torch.mul", EXACT,
       default=[
           S("torch.mul(a, b)", "same shapes", a=R(3, 4), b=R(3, 4)),
           S("a * b", "0-dim operands", a=R(), b=R()),
           S("a * b", "transposed and strided", a=R(3, 4, layout="transposed"), b=R(3, 4, layout="strided")),
           S("a * 1.5", "a Python scalar (the gradient is constant)", a=R(4), gradgrad=False),
           S("a * a", "the same tensor twice", a=R(5)),
           S("a * b", "empty operands", a=R(0, 3), b=R(0, 3)),
           *_errors("mul"),
       ],
       broadcast=_broadcast("torch.mul(a, b)"),
       forms=_forms("mul", "mul", "*")),
    op("div", "torch.div", ROUNDED,
       default=[
           S("torch.div(a, b)", "same shapes", a=R(3, 4), b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("a / b", "0-dim operands", a=R(), b=R(low=0.5, high=2.0)),
           S("a / b", "transposed", a=R(3, 4, layout="transposed"), b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("a / 4.0", "a Python scalar divisor", a=R(4), gradgrad=False),
           S("3.0 / b", "a Python scalar dividend", b=R(4, low=0.5, high=2.0, signed=True)),
           S("a / b", "division by zero: infinities and NaN", a=V([1.0, -1.0, 0.0]), b=V([0.0, 0.0, 0.0])),
           *_errors("div"),
       ],
       broadcast=_broadcast("torch.div(a, b)", low=0.5, high=2.0),
       rounding_mode=variant(
           S("torch.div(a, b)", "true division of finite values (one rounding)",
             a=R(3, 4, low=-4.0, high=4.0), b=R(3, 4, low=0.5, high=2.0, signed=True), grad=False),
           S("torch.div(a, b, rounding_mode='trunc')", "trunc", a=R(3, 4, low=-4.0, high=4.0),
             b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("torch.div(a, b, rounding_mode='floor')", "floor", a=R(3, 4, low=-4.0, high=4.0),
             b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("a.div(2.5, rounding_mode='floor')", "floor by a Python scalar", a=R(5, low=-4.0, high=4.0)),
           E("torch.div(a, b, rounding_mode='round')", "an unknown rounding mode", a=R(2), b=R(2)),
           tolerance=EXACT, gradgrad=False),
       forms=_forms("div", "div", "/", low=0.5, high=2.0)),
    op("true_divide", "torch.true_divide", ROUNDED,
       default=[
           S("torch.true_divide(a, b)", "function", a=R(3, 4), b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("a.true_divide(b)", "method", a=R(3), b=R(3, low=0.5, high=2.0)),
           S("a.clone().true_divide_(b)", "in-place on a non-leaf", a=R(3), b=R(3, low=0.5, high=2.0)),
       ]),
    op("neg", "torch.neg", EXACT, gradgrad=False,
       default=[
           S("torch.neg(x)", "function", x=R(3, 4)),
           S("-x", "operator, transposed", x=R(3, 4, layout="transposed")),
           S("x.neg()", "method, 0-dim", x=R()),
           S("torch.negative(x)", "the alias negative", x=R(4)),
           S("x.clone().neg_()", "in-place on a non-leaf", x=R(4)),
           S("-x", "empty", x=R(0)),
           E("-b", "negation of a bool tensor", b=B([True, False])),
       ]),
    op("pow", "torch.pow", CHAINED,
       tensor_scalar=[
           S("torch.pow(x, 2)", "square", x=R(3, 4)),
           S("x ** 3", "cube", x=R(3, 4, layout="transposed")),
           S("x ** 0.5", "square root of positive values", x=R(5, low=0.2, high=3.0)),
           S("x ** -1.5", "a negative exponent", x=R(5, low=0.2, high=3.0)),
           S("x.pow(0)", "exponent 0: ones, zero gradient", x=R(4), gradgrad=False),
           S("x ** 2.0", "at zero", x=V([0.0, 1.0, -1.0])),
           S("x ** 0.5", "at zero: infinite gradient", x=V([0.0, 4.0])),
           S("x.clone().pow_(2)", "in-place on a non-leaf", x=R(4)),
       ],
       tensor_tensor=[
           S("torch.pow(a, b)", "positive bases", a=R(3, 4, low=0.2, high=2.0), b=R(3, 4)),
           S("a ** b", "broadcast exponent", a=R(2, 3, low=0.2, high=2.0), b=R(3)),
           S("a ** b", "negative bases with integral exponents: NaN gradient for the exponent",
             a=R(4, low=-2.0, high=-0.2), b=V([2.0, 3.0, -1.0, 0.0]), gradgrad=False),
           S("a ** b", "zero base", a=V([0.0, 0.0, 0.0]), b=V([2.0, 0.5, 0.0]), gradgrad=False),
           E("torch.pow(a, b)", "shapes that do not broadcast", a=R(2, 3), b=R(4)),
       ],
       scalar_tensor=[
           S("2 ** x", "an integer base", x=R(3, 4)),
           S("torch.pow(2.5, x)", "a float base, function form", x=R(5)),
           S("0.5 ** x", "a base below one, transposed", x=R(2, 3, layout="transposed")),
       ]),
    # torch.rsub has no docstring of its own; torch.sub documents the subtraction it reverses.
    op("rsub", "torch.sub", EXACT, gradgrad=False,
       default=[
           S("torch.rsub(a, b)", "b - a", a=R(3, 4), b=R(3, 4)),
           S("torch.rsub(a, b, alpha=2)", "b - 2 * a", a=R(3), b=R(3)),
           S("torch.rsub(a, 1.5)", "a Python scalar", a=R(4)),
       ]),
    op("reciprocal", "torch.reciprocal", CHAINED,
       default=[
           S("torch.reciprocal(x)", "function", x=R(3, 4, low=0.3, high=2.0, signed=True)),
           S("x.reciprocal()", "method, transposed", x=R(3, 4, low=0.3, high=2.0, signed=True, layout="transposed")),
           S("x.clone().reciprocal_()", "in-place on a non-leaf", x=R(4, low=0.3, high=2.0)),
           S("torch.reciprocal(x)", "at zero", x=V([0.0, -0.0, 2.0])),
           S("torch.reciprocal(x)", "0-dim", x=R(low=0.3, high=2.0)),
       ]),
    op("remainder", "torch.remainder", ROUNDED, gradgrad=False,
       default=[
           S("torch.remainder(a, b)", "signs of both kinds", a=R(3, 4, low=-5.0, high=5.0),
             b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("a % b", "operator", a=R(5, low=-5.0, high=5.0), b=R(5, low=0.5, high=2.0, signed=True)),
           S("a % 1.5", "a Python scalar divisor", a=R(5, low=-5.0, high=5.0)),
           S("a.remainder(b)", "broadcast divisor", a=R(2, 3, low=-5.0, high=5.0), b=R(3, low=0.5, high=2.0)),
       ]),
    op("fmod", "torch.fmod", ROUNDED, gradgrad=False,
       default=[
           S("torch.fmod(a, b)", "signs of both kinds", a=R(3, 4, low=-5.0, high=5.0),
             b=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("a.fmod(1.5)", "a Python scalar divisor", a=R(5, low=-5.0, high=5.0)),
           S("a.clone().fmod_(b)", "in-place on a non-leaf", a=R(4, low=-5.0, high=5.0), b=R(4, low=0.5, high=2.0)),
       ]),
    op("abs", "torch.abs", EXACT,
       default=[
           S("torch.abs(x)", "function", x=R(3, 4)),
           S("x.abs()", "method, transposed", x=R(3, 4, layout="transposed")),
           S("abs(x)", "Python's abs()", x=R(4)),
           S("torch.abs(x)", "at zero: gradient 0", x=V([0.0, -0.0, -1.5, 2.0])),
           S("x.clone().abs_()", "in-place on a non-leaf", x=R(4)),
           S("torch.absolute(x)", "the alias absolute", x=R()),
       ]),
    op("sign", "torch.sign", EXACT, gradgrad=False,
       default=[
           S("torch.sign(x)", "random values: zero gradient", x=R(3, 4)),
           S("x.sign()", "at zero", x=V([0.0, -0.0, -2.0, 3.0])),
           S("torch.sign(x)", "NaN: torch gives 0 (found by the fuzzer)", x=V([float("nan"), 1.0, float("-inf")])),
           S("x.clone().sign_()", "in-place on a non-leaf", x=R(4)),
       ]),
    op("floor", "torch.floor", EXACT, gradgrad=False,
       default=[
           S("torch.floor(x)", "random values", x=R(3, 4, low=-4.0, high=4.0)),
           S("x.floor()", "integral values and halves", x=V([-2.0, -1.5, 0.0, 0.5, 3.0])),
           S("x.clone().floor_()", "in-place on a non-leaf", x=R(4, low=-4.0, high=4.0)),
       ]),
    op("ceil", "torch.ceil", EXACT, gradgrad=False,
       default=[
           S("torch.ceil(x)", "random values", x=R(3, 4, low=-4.0, high=4.0)),
           S("x.ceil()", "integral values and halves", x=V([-2.0, -1.5, 0.0, 0.5, 3.0])),
       ]),
    op("round", "torch.round", EXACT, gradgrad=False,
       default=[
           S("torch.round(x)", "random values", x=R(3, 4, low=-4.0, high=4.0)),
           S("x.round()", "halves round to even", x=V([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])),
           S("torch.round(x, decimals=1)", "one decimal", x=V([0.25, 1.34, -2.76])),
           S("x.clone().round_()", "in-place on a non-leaf", x=R(4, low=-4.0, high=4.0)),
       ]),
    op("trunc", "torch.trunc", EXACT, gradgrad=False,
       default=[
           S("torch.trunc(x)", "random values", x=R(3, 4, low=-4.0, high=4.0)),
           S("x.trunc()", "integral values and halves", x=V([-2.0, -1.5, 0.0, 0.5])),
           S("torch.fix(x)", "the alias fix", x=R(4, low=-4.0, high=4.0)),
       ]),
    op("frac", "torch.frac", EXACT, gradgrad=False,
       default=[
           S("torch.frac(x)", "random values", x=R(3, 4, low=-4.0, high=4.0)),
           S("x.frac()", "integral values and halves", x=V([-2.0, -1.5, 0.0, 0.5])),
       ]),
    op("clamp", "torch.clamp", EXACT, gradgrad=False,
       default=[
           S("torch.clamp(x, -0.5, 0.5)", "both bounds", x=R(3, 4)),
           S("x.clamp(min=0.0)", "min only", x=R(3, 4, layout="transposed")),
           S("x.clamp(max=0.25)", "max only", x=R(5)),
           S("x.clamp(-1.0, 1.0)", "at the bounds: gradient 1", x=V([-1.0, 1.0, 0.5, -2.0, 2.0])),
           S("x.clamp(1.0, -1.0)", "min above max: every value is max", x=R(4)),
           S("x.clone().clamp_(-0.5, 0.5)", "in-place on a non-leaf", x=R(4)),
           E("torch.clamp(x)", "no bound", x=R(3)),
       ],
       tensor_bounds=[
           S("torch.clamp(x, lo, hi)", "tensor bounds of the same shape", x=R(3, 4), lo=R(3, 4, low=-1.0, high=0.0),
             hi=R(3, 4, low=0.0, high=1.0)),
           S("x.clamp(min=lo)", "a tensor min only", x=R(5), lo=R(5)),
           S("x.clamp(max=hi)", "a tensor max only, at the bound", x=V([0.5, 1.0, 2.0]), hi=V([1.0, 1.0, 1.0])),
           E("torch.clamp(x, lo, 1.0)", "a tensor min with a number max", x=R(3), lo=R(3)),
       ]),
    op("clip", "torch.clip", EXACT, gradgrad=False,
       default=[
           S("torch.clip(x, -0.5, 0.5)", "both bounds", x=R(3, 4)),
           S("x.clip(min=lo)", "a tensor min", x=R(4), lo=R(4)),
           S("x.clip(-1.0, 1.0)", "at the bounds", x=V([-1.0, 1.0, 3.0])),
       ]),
    op("maximum", "torch.maximum", EXACT, gradgrad=False,
       default=[
           S("torch.maximum(a, b)", "random values", a=R(3, 4), b=R(3, 4)),
           S("a.maximum(b)", "ties share the gradient", a=V([1.0, 2.0, -1.0]), b=V([1.0, 0.0, -1.0])),
           S("torch.maximum(a, b)", "NaN propagates", a=V([float("nan"), 1.0]), b=V([0.0, float("nan")])),
           E("torch.maximum(a, b)", "shapes that do not broadcast", a=R(2, 3), b=R(4)),
       ],
       broadcast=variant(S("torch.maximum(a, b)", "broadcast", a=R(3, 1), b=R(1, 4)), tolerance=SUMMED)),
    op("minimum", "torch.minimum", EXACT, gradgrad=False,
       default=[
           S("torch.minimum(a, b)", "random values", a=R(3, 4), b=R(3, 4, layout="transposed")),
           S("a.minimum(b)", "ties share the gradient", a=V([1.0, 2.0, -1.0]), b=V([1.0, 0.0, -1.0])),
           S("torch.minimum(a, b)", "broadcast against a 0-dim tensor (its gradient sums two terms: exact)",
             a=V([0.25, 1.5]), b=V(0.5)),
       ]),
    op("where", "torch.where", EXACT, gradgrad=False,
       default=[
           S("torch.where(c, a, b)", "a condition mask", c=B([[True, False, True], [False, False, True]]),
             a=R(2, 3), b=R(2, 3)),
           S("torch.where(c, a, b)", "broadcast condition and branches (gradients sum two terms: exact)",
             c=B([[True], [False]]), a=R(2), b=R(2, 1)),
           S("torch.where(c, a, 0.0)", "a Python scalar branch", c=B([True, False, True, False]), a=R(4)),
           S("a.where(c, b)", "method form", c=B([False, True, True]), a=R(3), b=R(3)),
           S("torch.where(a > 0, a, b)", "a condition computed from an operand", a=R(5), b=R(5)),
           E("torch.where(a, a, b)", "a float condition", a=R(3), b=R(3)),
           E("torch.where(c, a, b)", "shapes that do not broadcast", c=B([True, False]), a=R(3), b=R(3)),
       ],
       nan_branch=variant(
           S("torch.where(x > 0, x.sqrt(), 0.0)", "the unselected branch has an infinite gradient at 0: NaN",
             x=V([0.0, 1.0, 4.0])),
           S("torch.where(x > 0, x.log(), x)", "the unselected branch is NaN: its zero gradient times NaN",
             x=V([-1.0, 2.0])),
           tolerance=ELEMENTARY)),
    op("lerp", "torch.lerp", ELEMENTARY, gradgrad=("b", "w"),
       default=[
           S("torch.lerp(a, b, 0.3)", "a Python weight", a=R(3, 4), b=R(3, 4), gradgrad=False),
           S("torch.lerp(a, b, w)", "a tensor weight", a=R(3, 4), b=R(3, 4), w=R(3, 4, low=0.0, high=1.0)),
           S("a.lerp(b, 0.75)", "a weight above one half, method form", a=R(5), b=R(5), gradgrad=False),
           S("a.clone().lerp_(b, w)", "in-place on a non-leaf", a=R(4), b=R(4), w=R(4, low=0.0, high=1.0)),
       ]),
    op("addcmul", "torch.addcmul", ELEMENTARY, gradgrad=("t1", "t2"),
       default=[
           S("torch.addcmul(s, t1, t2)", "value 1", s=R(3, 4), t1=R(3, 4), t2=R(3, 4)),
           S("torch.addcmul(s, t1, t2, value=0.5)", "value 0.5", s=R(3, 4), t1=R(3, 4), t2=R(3, 4)),
           S("s.addcmul(t1, t2, value=2)", "method, broadcast", s=R(2, 3), t1=R(3), t2=R(2, 1)),
           S("s.clone().addcmul_(t1, t2)", "in-place on a non-leaf", s=R(3), t1=R(3), t2=R(3)),
       ]),
    op("addcdiv", "torch.addcdiv", ELEMENTARY, gradgrad=("t1", "t2"),
       default=[
           S("torch.addcdiv(s, t1, t2)", "value 1", s=R(3, 4), t1=R(3, 4), t2=R(3, 4, low=0.5, high=2.0, signed=True)),
           S("torch.addcdiv(s, t1, t2, value=-0.5)", "value -0.5", s=R(3, 4), t1=R(3, 4),
             t2=R(3, 4, low=0.5, high=2.0)),
           S("s.clone().addcdiv_(t1, t2, value=2)", "in-place on a non-leaf", s=R(3), t1=R(3),
             t2=R(3, low=0.5, high=2.0)),
       ]),
    op("atan2", "torch.atan2", ELEMENTARY,
       default=[
           S("torch.atan2(a, b)", "all four quadrants", a=R(3, 4), b=R(3, 4)),
           S("a.atan2(b)", "method, broadcast", a=R(2, 3), b=R(3)),
           S("torch.atan2(a, b)", "on the axes", a=V([0.0, 1.0, -1.0, 0.0]), b=V([1.0, 0.0, 0.0, -1.0])),
           S("torch.arctan2(a, b)", "the alias arctan2", a=R(4), b=R(4)),
           S("torch.atan2(a, b)", "at the origin: a gradient of 0 with its sign, not NaN (found by the fuzzer)",
             a=V([0.0, -0.0, 0.0, -0.0, 1.0]), b=V([0.0, 0.0, -0.0, -0.0, 0.0])),
       ]),
]
