"""Operator table: activation functions of torch.nn.functional (and torch.relu).

Each entry samples random values around the function's kinks, the kinks themselves (where the
derivative is a convention: relu'(0) = 0, hardtanh' = 1 at its bounds), a transposed and an
empty input, and the in-place spellings that torch offers.
"""

from __future__ import annotations

from .spec import E, R, S, V, op
from .tolerances import CHAINED, ELEMENTARY, EXACT, ROUNDED


def _common(call: str, low: float = -3.0, high: float = 3.0) -> list:
    """Random values, a transposed input and an empty one, for the call ``call`` of ``x``."""
    return [
        S(call, "random values", x=R(3, 4, low=low, high=high)),
        S(call, "transposed input", x=R(2, 3, low=low, high=high, layout="transposed")),
        S(call, "empty", x=R(0, 2)),
    ]


OPERATORS = [
    op("relu", "torch.nn.functional.relu", EXACT,
       default=[
           *_common("torch.relu(x)"),
           S("F.relu(x)", "functional form", x=R(5)),
           S("x.relu()", "method form, 0-dim", x=R()),
           S("torch.relu(x)", "at 0: gradient 0", x=V([0.0, -0.0, -1.0, 1.0])),
           S("x.clone().relu_()", "in-place method on a non-leaf", x=R(4)),
           S("F.relu(x.clone(), inplace=True)", "inplace=True on a non-leaf", x=R(4)),
       ]),
    op("relu6", "torch.nn.functional.relu6", EXACT,
       default=[
           *_common("F.relu6(x)", -2.0, 8.0),
           S("F.relu6(x)", "at 0 and 6", x=V([0.0, 6.0, -1.0, 7.0, 3.0])),
       ]),
    op("leaky_relu", "torch.nn.functional.leaky_relu", EXACT,
       default=[
           *_common("F.leaky_relu(x)"),
           S("F.leaky_relu(x, 0.25)", "negative_slope 0.25", x=R(5)),
           S("F.leaky_relu(x, negative_slope=0.2)", "at 0", x=V([0.0, -0.0, -1.0])),
           S("F.leaky_relu_(x.clone(), 0.5)", "in-place function on a non-leaf", x=R(4)),
       ]),
    op("elu", "torch.nn.functional.elu", ELEMENTARY,
       default=[
           *_common("F.elu(x)"),
           S("F.elu(x, alpha=0.5)", "alpha 0.5", x=R(5)),
           S("F.elu(x)", "at 0", x=V([0.0, -0.0, -30.0])),
           S("F.elu_(x.clone())", "in-place function on a non-leaf", x=R(4)),
       ]),
    op("selu", "torch.nn.functional.selu", CHAINED,
       default=[*_common("F.selu(x)"), S("F.selu(x)", "at 0", x=V([0.0, -0.0, 1.0]))]),
    op("celu", "torch.nn.functional.celu", CHAINED,
       default=[
           *_common("F.celu(x)"),
           S("F.celu(x, alpha=0.5)", "alpha 0.5", x=R(5)),
           E("F.celu(x, alpha=0.0)", "alpha 0", x=R(3)),
       ]),
    op("gelu", "torch.nn.functional.gelu", CHAINED,
       exact=[
           *_common("F.gelu(x)"),
           S("F.gelu(x)", "at 0 and far from it", x=V([0.0, -10.0, 10.0])),
           E("F.gelu(x, approximate='cubic')", "an unknown approximation", x=R(3)),
       ],
       tanh=[
           *_common("F.gelu(x, approximate='tanh')"),
           S("F.gelu(x, approximate='tanh')", "at 0 and far from it", x=V([0.0, -10.0, 10.0])),
       ]),
    op("silu", "torch.nn.functional.silu", CHAINED,
       default=[*_common("F.silu(x)", -5.0, 5.0), S("F.silu(x.clone(), inplace=True)", "inplace=True", x=R(4))]),
    op("mish", "torch.nn.functional.mish", CHAINED,
       default=[*_common("F.mish(x)", -5.0, 5.0), S("F.mish(x)", "large arguments", x=V([-30.0, 30.0]))]),
    op("softplus", "torch.nn.functional.softplus", CHAINED,
       default=[
           *_common("F.softplus(x)", -5.0, 5.0),
           S("F.softplus(x, beta=2.0)", "beta 2", x=R(5)),
           # at beta * x == threshold torch's second derivative is 0 (the linear branch) while its value
           # and first derivative come from the curved one; only first derivatives are checked there.
           S("F.softplus(x, beta=2.0, threshold=1.0)", "either side of the threshold, where it turns linear",
             x=V([0.25, 0.5, 0.75, 3.0]), gradgrad=False),
           S("F.softplus(x)", "above the default threshold 20", x=V([19.0, 21.0, -30.0])),
       ]),
    op("softsign", "torch.nn.functional.softsign", ELEMENTARY,
       default=[*_common("F.softsign(x)"), S("F.softsign(x)", "at 0", x=V([0.0, -0.0]))]),
    op("hardtanh", "torch.nn.functional.hardtanh", EXACT,
       default=[
           *_common("F.hardtanh(x)"),
           S("F.hardtanh(x, -0.5, 0.25)", "custom bounds", x=R(5)),
           S("F.hardtanh(x)", "at the bounds: gradient 1", x=V([-1.0, 1.0, 0.0, -1.5, 1.5])),
           S("F.hardtanh_(x.clone())", "in-place function on a non-leaf", x=R(4)),
       ]),
    # torch has no second derivative of hardsigmoid ("derivative for aten::hardsigmoid_backward is not
    # implemented"), so only first-order gradients are checked.
    op("hardsigmoid", "torch.nn.functional.hardsigmoid", ROUNDED, gradgrad=False,
       default=[
           *_common("F.hardsigmoid(x)", -4.0, 4.0),
           S("F.hardsigmoid(x)", "at the kinks -3 and 3", x=V([-3.0, 3.0, 0.0])),
       ]),
    op("hardswish", "torch.nn.functional.hardswish", ELEMENTARY,
       default=[
           *_common("F.hardswish(x)", -4.0, 4.0),
           S("F.hardswish(x)", "at the kinks -3 and 3", x=V([-3.0, 3.0, 0.0])),
       ]),
    op("logsigmoid", "torch.nn.functional.logsigmoid", CHAINED,
       default=[
           *_common("F.logsigmoid(x)", -5.0, 5.0),
           S("F.logsigmoid(x)", "large arguments", x=V([-50.0, 0.0, 50.0])),
       ]),
]
