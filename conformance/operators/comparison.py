"""Operator table: comparisons and logical operators, whose bool outputs never require grad.

The inputs require grad, so each sample also checks that the result does not (and has no node).
Values are compared exactly: a comparison is exact.
"""

from __future__ import annotations

from .spec import B, E, R, S, V, op
from .tolerances import EXACT

NAN = float("nan")


def comparison(name: str, symbol: str) -> object:
    return op(name, f"torch.{name}", EXACT, differentiable=False,
              default=[
                  S(f"torch.{name}(a, b)", "function, equal values included",
                    a=V([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]]), b=V([[1.0, 0.0, 4.0], [-1.0, 0.25, -0.0]])),
                  S(f"a {symbol} b", "operator, broadcast", a=R(3, 1), b=R(4)),
                  S(f"a.{name}(0.5)", "method with a Python scalar", a=V([0.25, 0.5, 0.75])),
                  S(f"a {symbol} b", "NaN compares unequal to everything", a=V([NAN, 1.0, NAN]), b=V([NAN, NAN, 1.0])),
                  E(f"torch.{name}(a, b)", "shapes that do not broadcast", a=R(2, 3), b=R(4)),
              ])


def logical(name: str, arity: int) -> object:
    call = f"torch.{name}(a, b)" if arity == 2 else f"torch.{name}(a)"
    method = f"a.{name}(b)" if arity == 2 else f"a.{name}()"
    both = {"a": V([0.0, 1.5, -0.0, float("nan")]), "b": V([2.0, 0.0, 0.0, 1.0])} if arity == 2 \
        else {"a": V([0.0, 1.5, -0.0, float("nan")])}
    return op(name, f"torch.{name}", EXACT, differentiable=False,
              default=[
                  S(call, "zero, negative zero and NaN", **both),
                  S(method, "method form on bool tensors",
                    **({"a": B([True, False, True]), "b": B([True, True, False])} if arity == 2 else
                       {"a": B([True, False])})),
              ])


OPERATORS = [
    comparison("eq", "=="),
    comparison("ne", "!="),
    comparison("lt", "<"),
    comparison("le", "<="),
    comparison("gt", ">"),
    comparison("ge", ">="),
    logical("logical_and", 2),
    logical("logical_or", 2),
    logical("logical_xor", 2),
    logical("logical_not", 1),
    op("isnan", "torch.isnan", EXACT, differentiable=False,
       default=[S("torch.isnan(a)", "NaN and infinities", a=V([float("nan"), float("inf"), 1.0])),
                S("a.isnan()", "method form", a=R(2, 3))]),
]
