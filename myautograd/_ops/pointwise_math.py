"""Pointwise math computed as torch's CPU kernels compute it: angle conversions (``deg2rad``, ``rad2deg``),
``logaddexp`` and ``logaddexp2``, ``hypot``, ``copysign``, ``fmax`` and ``fmin`` (NaN-ignoring),
``heaviside``, ``sinc``, ``logit``, ``isreal``, the floating-point parts (``frexp``, ``ldexp``, ``nextafter``)
and the regularized incomplete gamma functions (``igamma``, ``igammac``). Their derivatives are in
``derivatives_pointwise.py``; the dtypes torch has no kernel for are refused by ``refuse_kernel_dtype`` (of the
operands' common dtype), the complex ones of fmax and fmin with their own message.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype, return_types
from .._autograd import special_functions as S
from .._autograd.record import recorded
from .._reduced import in_float32
from .._tensor import Tensor, make_tensor
from .common import check_tensor, default_float_for, refuse_kernel_dtype
from .derivatives import NODES
from .derivatives_pointwise import DEGREES_PER_RADIAN, LOG_2
from .pointwise import binary_op, elementwise, operands
from .registry import export
from .signatures import TENSOR_OR_NUMBER, TENSORS_ONLY, match_signature


def _floating(x):
    """``x``, or, of integers or bools, ``x`` in the default float dtype (as torch's float kernels take them)."""
    return x if x.dtype.kind in "fc" else x.astype(default_float_for(x))


def _scaled(factor: float):
    """``x * factor``, the factor in ``x``'s dtype (torch multiplies by a wrapped number)."""
    return lambda x: x * x.dtype.type(factor)


deg2rad = export(elementwise("deg2rad", NODES["Deg2RadBackward0"], _scaled(1 / DEGREES_PER_RADIAN)))
rad2deg = export(elementwise("rad2deg", NODES["Rad2DegBackward0"], _scaled(DEGREES_PER_RADIAN)))


def _sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0, with pi in ``x``'s dtype."""
    product = x * x.dtype.type(math.pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, x.dtype.type(1), np.sin(product) / product)


sinc = export(elementwise("sinc", NODES["SincBackward0"], _sinc))


def _logaddexp(x, y):
    """torch's kernel: ``max + log1p(exp(-|x - y|))``; an infinity added to itself is itself. Complex operands:
    the one of the larger real part plus ``log1p(exp(other - it))``."""
    if x.dtype.kind == "c":
        y = np.broadcast_to(y, np.broadcast_shapes(x.shape, np.shape(y)))
        larger = np.where(x.real >= y.real, x, y)
        return larger + np.log1p(np.exp(np.where(x.real >= y.real, y, x) - larger))
    with np.errstate(invalid="ignore"):
        spread = np.log1p(np.exp(-np.abs(x - y)))
        return np.where(np.isinf(x) & (x == y), x, np.maximum(x, y) + spread)


def _logaddexp2(x, y):
    """torch's kernel: ``max + log1p(2 ** -|x - y|) / log(2)``; an infinity added to itself is itself."""
    with np.errstate(invalid="ignore"):
        spread = np.log1p(np.exp2(-np.abs(x - y))) * x.dtype.type(1 / LOG_2)
        return np.where(np.isinf(x) & (x == y), x, np.maximum(x, y) + spread)


_BINARY = {
    "logaddexp": binary_op(NODES["LogaddexpBackward0"], _logaddexp),
    "logaddexp2": binary_op(NODES["Logaddexp2Backward0"], _logaddexp2),
    "hypot": binary_op(NODES["HypotBackward0"], np.hypot),
    "fmax": binary_op(NODES["FmaxBackward0"], np.fmax),
    "fmin": binary_op(NODES["FminBackward0"], np.fmin),
}


_INTEGRAL = (_dtype.bool_, _dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64)
_COMPLEX = (_dtype.complex64, _dtype.complex128)


def _tensors_only(name: str, refused: tuple):
    """The op ``name`` of two tensors, refusing anything else with torch's argument parser's message, and the
    common dtypes ``refused`` as torch's kernel does."""
    compute = _BINARY[name]

    def op(input, other):
        match_signature(name, TENSORS_ONLY, (input, other))
        refuse_kernel_dtype(name, input, other, refused)
        return compute(input, other)

    op.__name__ = op.__qualname__ = name
    return export(op)


logaddexp = _tensors_only("logaddexp", _INTEGRAL)
logaddexp2 = _tensors_only("logaddexp2", _INTEGRAL + _COMPLEX)
hypot = _tensors_only("hypot", _INTEGRAL + _COMPLEX)


def _check_real(name: str, input: Tensor, other: Tensor) -> None:
    if input.is_complex() or other.is_complex():
        raise RuntimeError(f"{name} not implemented for complex tensors.")


@export
def fmax(input, other):
    """The larger operand, the number where the other is NaN: FmaxBackward0."""
    match_signature("fmax", TENSORS_ONLY, (input, other))
    _check_real("fmax", input, other)
    return _BINARY["fmax"](input, other)


@export
def fmin(input, other):
    """The smaller operand, the number where the other is NaN: FminBackward0."""
    match_signature("fmin", TENSORS_ONLY, (input, other))
    _check_real("fmin", input, other)
    return _BINARY["fmin"](input, other)


@export
def copysign(input, other):
    """``|input|`` with the sign of ``other``, in a floating dtype: CopysignBackward0 (CopysignBackward1 for a
    number ``other``)."""
    match_signature("copysign", TENSOR_OR_NUMBER, (input, other))
    refuse_kernel_dtype("copysign", input, other, _COMPLEX)
    x, y = operands(input, other)
    x = _floating(x)
    y = _floating(y) if hasattr(y, "dtype") else x.dtype.type(y)
    out = np.copysign(x, y)
    if isinstance(other, Tensor):
        return recorded(NODES["CopysignBackward0"], out, (input, other))
    return recorded(NODES["CopysignBackward1"], out, (input,))


HEAVISIDE_SIGNATURES = ("Tensor input, Tensor values, *, Tensor out = None",)


@export
def heaviside(input, values):
    """0 where ``input`` is negative (or NaN), 1 where positive, ``values`` where 0; not differentiable."""
    match_signature("heaviside", HEAVISIDE_SIGNATURES, (input, values))
    if input.is_complex() or values.is_complex():
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x, v = input._data, values._data
    out = np.where(x == 0, v, x > 0).astype(x.dtype, copy=False)
    return recorded(NODES["NotImplemented"], out, (input, values), {"op": "heaviside"})


@export
def logit(input, eps=None):
    """``log(x / (1 - x))``, ``x`` first clamped to [eps, 1 - eps] where ``eps`` is given: LogitBackward0."""
    check_tensor(input, "logit")
    out = in_float32(lambda x: _logit_values(x, eps))(_floating(input._data))
    return recorded(NODES["LogitBackward0"], out, (input,), {"eps": eps})


def _logit_values(x, eps):
    if eps is not None:
        low = x.dtype.type(eps)
        x = np.clip(x, low, x.dtype.type(1) - low)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log(x / (1 - x))


@export
def isreal(input):
    """Whether each element is real: all of a real tensor, those with no imaginary part of a complex one."""
    check_tensor(input, "isreal")
    data = input._data
    if _dtype.kind(data.dtype) == "c":
        return make_tensor(data.imag == 0)
    return make_tensor(np.ones(data.shape, dtype=np.bool_))


@export
def frexp(input):
    """The mantissa in [0.5, 1) (signed) and the int32 exponent with ``input = mantissa * 2 ** exponent``:
    FrexpBackward0 records the mantissa (the exponent has no gradient)."""
    check_tensor(input, "frexp")
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input._data)
    exponent = make_tensor(exponent.astype(np.int32, copy=False))
    return return_types.frexp(recorded(NODES["FrexpBackward0"], mantissa, (input,), {"exponent": exponent}), exponent)


@export
def ldexp(input, other):
    """``input * 2 ** other``, in a floating dtype: LdexpBackward0."""
    match_signature("ldexp", TENSORS_ONLY, (input, other))
    x, y = operands(input, other)
    x = _floating(x)
    y = y.astype(x.dtype, copy=False)
    return recorded(NODES["LdexpBackward0"], x * np.exp2(y), (input, other))


@export
def nextafter(input, other):
    """The next number of the dtype after ``input`` towards ``other``: NextafterBackward0 (the gradient passes to
    ``input`` where it differs from ``other``, none to ``other``)."""
    match_signature("nextafter", TENSORS_ONLY, (input, other))
    refuse_kernel_dtype("nextafter", input, other, _INTEGRAL + _COMPLEX)
    x, y = operands(input, other)
    return recorded(NODES["NextafterBackward0"], np.nextafter(x, y), (input, other))


def _incomplete_gamma(name: str, kernel, node: str):
    """``igamma`` or ``igammac`` of two tensors (differentiable in ``other`` only, as torch's)."""

    def op(input, other):
        match_signature(name, TENSORS_ONLY, (input, other))
        refuse_kernel_dtype(name, input, other, _INTEGRAL + _COMPLEX)
        x, y = operands(input, other)
        return recorded(NODES[node], in_float32(kernel)(x, y), (input, other))

    op.__name__ = op.__qualname__ = name
    return export(op)


igamma = _incomplete_gamma("igamma", S.igamma, "IgammaBackward0")
igammac = _incomplete_gamma("igammac", S.igammac, "IgammacBackward0")
