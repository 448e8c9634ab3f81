"""Operations whose results are never differentiable: comparisons, logic, bitwise and integer
arithmetic, and tests of values (``isnan``, ``isclose``, ``equal``)."""

from __future__ import annotations

import numpy as np

from .._tensor import make_tensor
from .pointwise import _compute, operands
from .registry import export
from .signatures import TENSOR_OR_NUMBER, TENSORS_ONLY, match_signature


def _no_grad_binary(name: str, compute, aliases=(), signatures=None):
    """A binary op whose result is never differentiable (comparisons, logic, integer division); with
    ``signatures``, a call that fits none of them is refused with torch's parser's message, under the
    name it was called by (``torch.less(2, x)`` is ``less()``'s)."""

    def named(called: str):
        def op(input, other):
            if signatures is not None:
                match_signature(called, signatures, (input, other))
            ad, bd = operands(input, other)
            return make_tensor(_compute(compute, ad, bd))

        op.__name__ = called
        return export(op, name=called)

    first = named(name)
    for alias in aliases:
        named(alias).__wrapped__ = first  # the same op to dtype_refusals.install, which guards it under both names
    return first


eq = _no_grad_binary("eq", np.equal, signatures=TENSOR_OR_NUMBER)
ne = _no_grad_binary("ne", np.not_equal, ("not_equal",), TENSOR_OR_NUMBER)
lt = _no_grad_binary("lt", np.less, ("less",), TENSOR_OR_NUMBER)
le = _no_grad_binary("le", np.less_equal, ("less_equal",), TENSOR_OR_NUMBER)
gt = _no_grad_binary("gt", np.greater, ("greater",), TENSOR_OR_NUMBER)
ge = _no_grad_binary("ge", np.greater_equal, ("greater_equal",), TENSOR_OR_NUMBER)
logical_and = _no_grad_binary("logical_and", np.logical_and, signatures=TENSORS_ONLY)
logical_or = _no_grad_binary("logical_or", np.logical_or, signatures=TENSORS_ONLY)
logical_xor = _no_grad_binary("logical_xor", np.logical_xor, signatures=TENSORS_ONLY)
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


ISCLOSE_SIGNATURES = ("Tensor input, Tensor other, float rtol = 1e-05, float atol = 1e-08, bool equal_nan = False",)


@export
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    match_signature("isclose", ISCLOSE_SIGNATURES, (input, other, rtol, atol, equal_nan))
    for name, tolerance in (("rtol", rtol), ("atol", atol)):
        if tolerance < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tolerance}")
    ad, bd = operands(input, other)
    return make_tensor(np.isclose(ad, bd, rtol=rtol, atol=atol, equal_nan=equal_nan))


@export
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    ad, bd = operands(input, other)
    return bool(np.allclose(ad, bd, rtol=rtol, atol=atol, equal_nan=equal_nan))


@export
def equal(input, other) -> bool:
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))
