"""Pointwise ops with bounds or of three operands: clamp/clip, where, lerp, addcmul, addcdiv.

They compute as torch's CPU kernels do (``lerp`` from whichever end is nearer the weight,
``addcdiv`` as ``self + value * t1 / t2``), so that results agree to the last bit where the
operations are the same, and record torch's nodes (``ClampBackward0`` for tensor bounds,
``ClampBackward1`` for numbers, ``LerpBackward0``/``LerpBackward1`` for a number or tensor
weight).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._autograd.record import recorded
from .._reduced import in_float32
from .._tensor import Tensor
from .common import broadcast_shapes, check_tensor, plain_number, type_name
from .derivatives import NODES
from .pointwise import operands
from .registry import export, method

CLAMP_COMBINATION = (
    "clamp() received an invalid combination of arguments - got ({given}), but expected one of:\n"
    " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
    " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
)


def clamp_values(data, low, high):
    """``min(max(x, low), high)``: NaN stays NaN, and where ``low > high`` every value is ``high``."""
    if low is not None:
        data = np.maximum(data, low)
    if high is not None:
        data = np.minimum(data, high)
    return data


_clamp_in_float32 = in_float32(clamp_values)  # float16 and bfloat16: the bounds unrounded, the result rounded


def _clamp_tensors(input: Tensor, min, max) -> Tensor:
    bounds = [b for b in (min, max) if b is not None]
    if any(not isinstance(b, Tensor) for b in bounds):
        raise TypeError(CLAMP_COMBINATION.format(given=", ".join(type_name(v) for v in (input, min, max)
                                                                  if v is not None)))
    target = _dtype.result_type(input, *bounds)
    arrays = [t._data.astype(target.np, copy=False) for t in (input, *bounds)]
    broadcast_shapes(*(a.shape for a in arrays))
    out = clamp_values(arrays[0], None if min is None else arrays[1], None if max is None else arrays[-1])
    return recorded(NODES["ClampBackward0"], out, (input, min, max))


@export
def clamp(input, min=None, max=None):
    check_tensor(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensors(input, min, max)
    return recorded(NODES["ClampBackward1"], _clamped_by_numbers(input, min, max), (input,), {"min": min, "max": max})


def _clamped_by_numbers(input: Tensor, low, high):
    """``clamp_values`` with Python-number bounds: float16 and bfloat16 computed in float32 and rounded (a
    bfloat16 array beside a Python float is float32 to NumPy), in the dtype torch promotes to (an integer
    tensor and a float bound: the default dtype)."""
    target = _dtype.result_type(input, *(v for v in (low, high) if v is not None)).np
    return _clamp_in_float32(input._data, low, high).astype(target, copy=False)


clip = export(clamp, name="clip")


@export
def clamp_min(input, min):
    if isinstance(min, Tensor):
        return _clamp_tensors(input, min, None)
    return recorded(NODES["ClampMinBackward0"], _clamped_by_numbers(input, min, None), (input,), {"min": min})


@export
def clamp_max(input, max):
    if isinstance(max, Tensor):
        return _clamp_tensors(input, None, max)
    return recorded(NODES["ClampMaxBackward0"], _clamped_by_numbers(input, None, max), (input,), {"max": max})


# -- where -------------------------------------------------------------------------------------------
def _branch_type(input, other):
    a = input if isinstance(input, Tensor) else None
    b = other if isinstance(other, Tensor) else None
    if a is None and b is None:
        return _dtype.result_type(input, other)
    if a is None:
        return _dtype.result_type(b, input)
    if b is None:
        return _dtype.result_type(a, other)
    return _dtype.result_type(a, b)


@export(method=False)
def where(condition, input=None, other=None):
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or condition._data.dtype != np.bool_:
        name = condition.dtype.scalar_type_name if isinstance(condition, Tensor) else type(condition).__name__
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {name}")
    target = _branch_type(input, other)
    ad = input._data if isinstance(input, Tensor) else input
    bd = other._data if isinstance(other, Tensor) else other
    shapes = [x.shape for x in (condition._data, ad, bd) if hasattr(x, "shape")]
    broadcast_shapes(*shapes)
    out = np.where(condition._data, ad, bd).astype(target.np, copy=False)
    return recorded(NODES["WhereBackward0"], out, (input, other), {"condition": condition})


@method(name="where")
def where_method(self, condition, other):
    """``x.where(condition, y)``: ``torch.where(condition, x, y)``."""
    return where(condition, self, other)


# -- lerp, addcmul, addcdiv ------------------------------------------------------------------------------
def lerp_values(start, end, weight):
    """torch's lerp: ``start + w * (end - start)`` for ``|w| < 0.5``, else ``end + (w - 1) * (end - start)``,
    which is exact at ``w == 1``. In float32 torch's kernel fuses the multiply and the add (one rounding,
    seen on 2-25% of elements): computed in float64, where the float32 product is exact, and rounded once
    (float64's fused rounding is not reproduced)."""
    difference = end - start
    small = np.abs(weight) < 0.5
    if difference.dtype == np.float32:
        if isinstance(weight, np.generic):  # a number: a scalar, which CuPy takes with its arrays
            coefficient = np.float64(weight if small else weight - np.float32(1))
        else:
            coefficient = np.where(small, weight, weight - 1).astype(np.float64)
        base = np.where(small, start, end)
        return (coefficient * difference.astype(np.float64) + base).astype(np.float32)
    return np.where(small, start + weight * difference, end - difference * (1 - weight))


@export
def lerp(input, end, weight):
    weight = plain_number(weight)
    if isinstance(weight, Tensor):
        a, b = operands(input, end)
        w = weight._data.astype(a.dtype, copy=False)
        broadcast_shapes(a.shape, b.shape, w.shape)
        return recorded(NODES["LerpBackward1"], in_float32(lerp_values)(a, b, w), (input, end, weight))
    a, b = operands(input, end)
    broadcast_shapes(a.shape, b.shape)
    out = in_float32(lambda a, b: lerp_values(a, b, a.dtype.type(weight)))(a, b).astype(a.dtype, copy=False)
    return recorded(NODES["LerpBackward0"], out, (input, end), {"weight": weight})


def _scaled(value, data):
    """``value`` as torch passes a Scalar to a kernel of ``data``'s type."""
    return data.dtype.type(value) if _dtype.kind(data.dtype) in "fc" else value


def addcmul_values(s, t1, t2, value):
    return s + _scaled(value, s) * t1 * t2


def addcdiv_values(s, t1, t2, value):
    return s + _scaled(value, s) * t1 / t2


def _three(input, tensor1, tensor2):
    arrays = [t._data for t in (input, tensor1, tensor2)]
    target = np.result_type(*arrays)
    broadcast_shapes(*(a.shape for a in arrays))
    return [a.astype(target, copy=False) for a in arrays]


@export
def addcmul(input, tensor1, tensor2, *, value=1):
    value = plain_number(value)
    s, t1, t2 = _three(input, tensor1, tensor2)
    return recorded(NODES["AddcmulBackward0"], in_float32(addcmul_values)(s, t1, t2, value), (input, tensor1, tensor2),
                    {"value": value})


@export
def addcdiv(input, tensor1, tensor2, *, value=1):
    value = plain_number(value)
    s, t1, t2 = _three(input, tensor1, tensor2)
    return recorded(NODES["AddcdivBackward0"], in_float32(addcdiv_values)(s, t1, t2, value), (input, tensor1, tensor2),
                    {"value": value})
