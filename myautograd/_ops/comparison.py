"""Operations whose results are never differentiable: comparisons, logic, bitwise and integer
arithmetic, and tests of values (``isnan``, ``isclose``, ``equal``)."""

from __future__ import annotations

import numpy as np

from .._tensor import make_tensor
from .pointwise import _compute, operands
from .registry import export


def _no_grad_binary(name: str, compute, aliases=()):
    """A binary op whose result is never differentiable (comparisons, logic, integer division)."""

    def op(input, other):
        ad, bd = operands(input, other)
        return make_tensor(_compute(compute, ad, bd))

    op.__name__ = name
    for exported in (name, *aliases):
        export(op, name=exported)
    return op


eq = _no_grad_binary("eq", np.equal)
ne = _no_grad_binary("ne", np.not_equal, ("not_equal",))
lt = _no_grad_binary("lt", np.less, ("less",))
le = _no_grad_binary("le", np.less_equal, ("less_equal",))
gt = _no_grad_binary("gt", np.greater, ("greater",))
ge = _no_grad_binary("ge", np.greater_equal, ("greater_equal",))
logical_and = _no_grad_binary("logical_and", np.logical_and)
logical_or = _no_grad_binary("logical_or", np.logical_or)
logical_xor = _no_grad_binary("logical_xor", np.logical_xor)
bitwise_and = _no_grad_binary("bitwise_and", np.bitwise_and)
bitwise_or = _no_grad_binary("bitwise_or", np.bitwise_or)
bitwise_xor = _no_grad_binary("bitwise_xor", np.bitwise_xor)
floor_divide = _no_grad_binary("floor_divide", np.floor_divide)


def _no_grad_unary(name: str, compute):
    def op(input):
        return make_tensor(compute(input._data))

    op.__name__ = name
    export(op, name=name)
    return op


logical_not = _no_grad_unary("logical_not", np.logical_not)
bitwise_not = _no_grad_unary("bitwise_not", np.invert)
isnan = _no_grad_unary("isnan", np.isnan)
isinf = _no_grad_unary("isinf", np.isinf)
isfinite = _no_grad_unary("isfinite", np.isfinite)
isposinf = _no_grad_unary("isposinf", np.isposinf)
isneginf = _no_grad_unary("isneginf", np.isneginf)
signbit = _no_grad_unary("signbit", np.signbit)


@export
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    ad, bd = operands(input, other)
    return make_tensor(np.isclose(ad, bd, rtol=rtol, atol=atol, equal_nan=equal_nan))


@export
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    ad, bd = operands(input, other)
    return bool(np.allclose(ad, bd, rtol=rtol, atol=atol, equal_nan=equal_nan))


@export
def equal(input, other) -> bool:
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))
