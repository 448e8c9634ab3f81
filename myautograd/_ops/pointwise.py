"""Elementwise operations: unary math, and binary arithmetic with torch's type promotion.

Each op computes its result array and, when grad mode is on and an input requires grad,
records the node named in the derivative table. Binary ops take a tensor and a tensor or a
Python number; their operands are cast by torch's promotion rules (``_dtype.result_type``),
which differ from NumPy's for integer/float mixes and for zero-dimensional tensors. float16 and
bfloat16 compute in float32 and round once, a Python number unrounded (``_reduced``).

``UNARY`` and ``BINARY`` map each op name to (node, compute function), so that the in-place
variants (``exp_``, ``add_``) reuse the same computation.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype
from .._autograd import formula_math, forward
from .._autograd.arithmetic import absolute, library_power, multiply, power, scaled
from .._autograd.conjugate_views import ConjugateView
from .._autograd.record import record, record_one, recorded, records, records_any
from .._autograd.views import make_conjugate_view
from .._dtype import REDUCED_FLOATS
from .._grad_mode import STATE
from .._reduced import in_float32
from .._tensor import Tensor, make_tensor
from .common import (
    PY_NUMBERS,
    broadcast_error,
    check_real_parts,
    check_tensor,
    default_float_for,
    device_error,
    plain_number,
    refuse_kernel_dtype,
    type_name,
)
from .derivatives import NODES
from .registry import export
from .signatures import TENSOR_OR_NUMBER, TENSORS_ONLY, match_signature

UNARY: dict[str, tuple] = {}
BINARY: dict[str, tuple] = {}


# -- operands ---------------------------------------------------------------------------------------
def _cpu_scalar_joins(ad, bd):
    """Arrays of two devices: a 0-dim CPU one joins the other's device (as a NumPy scalar, which
    CuPy accepts); any other pair raises torch's device error."""
    if type(bd) is np.ndarray and bd.ndim == 0:
        return ad, bd[()]
    if type(ad) is np.ndarray and ad.ndim == 0:
        return ad[()], bd
    raise device_error(ad, bd)


def operands(a: Tensor, b):
    """The arrays (or array and number) a binary op computes with, cast as torch casts them."""
    ad = a._data
    if isinstance(b, Tensor):
        bd = b._data
        if ad.dtype is not bd.dtype:
            target = _dtype.result_type(a, b).np
            if ad.dtype != target:
                ad = ad.astype(target)
            if bd.dtype != target:
                bd = bd.astype(target)
        if type(ad) is not type(bd):
            return _cpu_scalar_joins(ad, bd)
        return ad, bd
    if isinstance(b, np.generic):
        b = b.item()
    if not isinstance(b, PY_NUMBERS):
        raise TypeError(f"unsupported operand type(s): 'Tensor' and '{type(b).__name__}'")
    kind = _dtype.kind(ad.dtype)
    if kind == "c" or not isinstance(b, (float, complex)) or (kind == "f" and isinstance(b, float)):
        return ad, b
    return ad.astype(_dtype.result_type(a, b).np), b  # an integer tensor and a float, a real one and a complex


def _compute(compute, ad, bd, stepwise: bool = False):
    try:
        return in_float32(compute)(ad, bd) if not stepwise and ad.dtype in REDUCED_FLOATS else compute(ad, bd)
    except ValueError as exc:
        raise _compute_error(exc, ad, bd) from None


# Per floating dtype, Python numbers as 0-d arrays of that dtype: NumPy combines an array with a
# 0-d array of its own type twice as fast as with a Python number, with the same result.
# (Not float16: torch computes it in float32 with the number unrounded.)
_CONSTANTS: dict = {np.dtype(t): {} for t in (np.float32, np.float64, np.complex64, np.complex128)}


def _constant(cache: dict, value, dtype):
    if len(cache) > 4096:
        cache.clear()
    array = cache[value] = np.asarray(value, dtype=dtype)
    return array


def binary_op(node, compute, attrs: dict | None = None, number_rounded: bool = False, stepwise: bool = False,
              complex_compute=None):
    """The op ``compute(a, b)`` on a tensor ``a`` and a tensor or Python number ``b``, recorded as
    ``node``: operands cast as torch casts them, a number kept in the tensor's float type.
    float16 and bfloat16 compute in float32; a number enters unrounded (torch's mul and div), or
    rounded to the tensor's dtype first where ``number_rounded`` (torch's add and sub); ``stepwise``:
    each NumPy step of ``compute`` rounds, in the dtype (torch's add and sub with an ``alpha``).
    ``complex_compute``: what computes complex operands, where torch's kernel differs from ``compute``."""
    widened = compute if stepwise else in_float32(compute)

    def op(a: Tensor, b) -> Tensor:
        ad = a._data
        number = b.__class__ is float or b.__class__ is int
        cache = _CONSTANTS.get(ad.dtype) if number else None
        if cache is not None:  # a number beside a float32, float64 or complex tensor: the common case
            reduced = False
            if type(ad) is np.ndarray:
                bd = cache.get(b)
                if bd is None:
                    bd = _constant(cache, b, ad.dtype)
            else:
                bd = b  # on CUDA: CuPy takes the number
        else:
            if isinstance(b, np.generic):  # a NumPy scalar: the Python number it holds (common.plain_number)
                return op(a, b.item())
            ad, bd = operands(a, b)
            number = b.__class__ is complex
            reduced = ad.dtype in REDUCED_FLOATS
            if reduced and number_rounded and not hasattr(bd, "shape"):
                bd = _backend.host_value(bd, ad, ad.dtype)
        try:
            if reduced:
                out = widened(ad, bd)
            elif complex_compute is not None and ad.dtype in _dtype.COMPLEX_FLOATS:  # the operands' common dtype
                out = complex_compute(ad, bd)
            else:
                out = compute(ad, bd)
        except ValueError as exc:
            raise _compute_error(exc, ad, bd) from None
        if number:
            if STATE.grad_enabled and a._requires_grad or forward.ACTIVE:  # records(a), inlined: the hottest path
                return record_one(node, out, a, attrs, (b,))
        elif STATE.grad_enabled and (a._requires_grad or isinstance(b, Tensor) and b._requires_grad) or forward.ACTIVE:
            return record(node, out, (a, b), attrs)  # records_any((a, b)), inlined
        return make_tensor(out)

    return op


def _compute_error(exc: ValueError, ad, bd) -> RuntimeError:
    if "broadcast" in str(exc):
        return broadcast_error(ad.shape, getattr(bd, "shape", ()))
    return RuntimeError(str(exc))


# -- arithmetic ---------------------------------------------------------------------------------------
_ADD, _SUB, _MUL, _DIV = (NODES[n] for n in ("AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0"))
_ONE = {"alpha": 1}
_add = binary_op(_ADD, np.add, _ONE, number_rounded=True, complex_compute=lambda x, y: x + scaled(y))
_sub = binary_op(_SUB, np.subtract, _ONE, number_rounded=True, complex_compute=lambda x, y: x - scaled(y))
_mul = binary_op(_MUL, np.multiply, complex_compute=multiply)


def _alpha(alpha, x):
    """``alpha`` as torch's add and sub use it: in float16 and bfloat16, rounded to the dtype, and
    ``y * alpha`` rounded before it is added (as NumPy computes in that dtype)."""
    if x.dtype in REDUCED_FLOATS and not isinstance(x, np.generic):
        return x.dtype.type(alpha)
    return alpha


def _check_alpha(a: Tensor, alpha) -> None:
    if isinstance(alpha, float) and a.dtype.category < _dtype.FLOATING:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


@export
def add(input, other, *, alpha=1, out=None):
    check_tensor(input, "add")
    if out is not None:
        from .inplace import write_out

        return write_out("add", out, add(input, other, alpha=alpha) if not records_any((input, other)) else None)
    alpha = plain_number(alpha)
    if alpha == 1:
        return _add(input, other)
    _check_alpha(input, alpha)
    return binary_op(_ADD, lambda x, y: x + y * _alpha(alpha, x), {"alpha": alpha}, True, True)(input, other)


_BOOL = np.dtype(np.bool_)


def check_bool_sub(a: Tensor, b) -> None:
    """torch refuses a subtraction with a bool operand (a Python bool counts as one)."""
    a_bool = a._data.dtype is _BOOL
    b_bool = isinstance(b, bool) or (isinstance(b, Tensor) and b._data.dtype is _BOOL)
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


@export
def sub(input, other, *, alpha=1):
    check_tensor(input, "sub")
    check_bool_sub(input, other)
    alpha = plain_number(alpha)
    if alpha == 1:
        return _sub(input, other)
    _check_alpha(input, alpha)
    return binary_op(_SUB, lambda x, y: x - y * _alpha(alpha, x), {"alpha": alpha}, True, True)(input, other)


subtract = export(sub, name="subtract")


RSUB_SIGNATURES = ("Tensor input, Tensor other, *, Number alpha = 1", "Tensor input, Number other, Number alpha = 1")


@export
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``: what ``2 - x`` computes (RsubBackward1 for a number)."""
    match_signature("rsub", RSUB_SIGNATURES, (input, other))
    check_bool_sub(input, other)
    if isinstance(other, Tensor):
        return binary_op(NODES["RsubBackward0"], lambda x, y: y - x * _alpha(alpha, x), {"alpha": alpha},
                         stepwise=True)(input, other)
    ad, bd = operands(input, other)
    if ad.dtype in REDUCED_FLOATS:  # as torch's sub: the number rounded to the dtype first
        bd = _backend.host_value(bd, ad, ad.dtype)
    out = _compute(lambda x, y: y - x * _alpha(alpha, x) if alpha != 1 else y - scaled(x), ad, bd, stepwise=alpha != 1)
    return recorded(NODES["RsubBackward1"], out, (input,), {"alpha": alpha})


@export
def mul(input, other):
    check_tensor(input, "mul")
    return _mul(input, other)


multiply = export(mul, name="multiply")


def _true_divide(x, y):
    if x.dtype.kind in "biu" and (not hasattr(y, "dtype") or y.dtype.kind in "biu") and not isinstance(y, float):
        target = _dtype.get_default_dtype().np
        x = x.astype(target)
        y = y.astype(target) if hasattr(y, "astype") else y
    return np.true_divide(x, y)


def _rounded_quotient(x, y, rounding_mode: str):
    """``x / y`` rounded as torch's kernels round it: floor division as Python's (and torch's)
    ``divmod`` computes it, truncation of the true quotient."""
    if rounding_mode == "floor":
        return np.floor_divide(x, y)
    if x.dtype.kind in "iu" and (not hasattr(y, "dtype") or y.dtype.kind in "iu") and not isinstance(y, float):
        return np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y))
    return np.trunc(np.true_divide(x, y))


_div = binary_op(_DIV, _true_divide)


@export
def div(input, other, *, rounding_mode=None):
    check_tensor(input, "div")
    if rounding_mode is None:
        return _div(input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    ad, bd = operands(input, other)
    quotient = _compute(lambda x, y: _rounded_quotient(x, y, rounding_mode), ad, bd)
    return recorded(NODES["DivBackward2"], _backend.as_array(quotient), (input, other),
                    {"rounding_mode": rounding_mode})


divide = export(div, name="divide")
true_divide = export(div, name="true_divide")


@export
def neg(input):
    check_tensor(input, "neg")
    if input._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return _negate(input)


negative = export(neg, name="negative")


def _pow_compute(x, y):
    if getattr(x, "dtype", np.float32).kind in "iu" and isinstance(y, int) and y < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(y, (int, float, complex)) and hasattr(x, "dtype"):
        return power(x, y)
    return library_power(x, y)


_pow_tensor = binary_op(NODES["PowBackward1"], _pow_compute)


POWER_COMBINATION = (
    "{name}() received an invalid combination of arguments - got ({given}), but expected one of:\n"
    " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
    " * (Number self, Tensor exponent, *, Tensor out = None)\n"
    " * (Tensor input, Number exponent, *, Tensor out = None)\n"
)


def _check_power_operands(name: str, input, exponent) -> None:
    """torch's signatures of ``pow`` and ``float_power``: a tensor, and a tensor or a number either side."""
    tensors = [isinstance(v, Tensor) for v in (input, exponent)]
    if not any(tensors) or not all(t or isinstance(v, PY_NUMBERS) for t, v in zip(tensors, (input, exponent))):
        raise TypeError(POWER_COMBINATION.format(name=name, given=f"{type_name(input)}, {type_name(exponent)}"))


@export
def pow(input, exponent):
    input, exponent = plain_number(input), plain_number(exponent)
    _check_power_operands("pow", input, exponent)
    if not isinstance(input, Tensor):
        return _scalar_pow(input, exponent)
    if isinstance(exponent, Tensor):
        _check_pow_dtype(_dtype.result_type(input, exponent))
        return _pow_tensor(input, exponent)
    ad, e = operands(input, exponent)
    out = _compute(_pow_compute, ad, e)
    if isinstance(exponent, bool) and ad.dtype is _BOOL:
        out = out.astype(np.bool_)  # torch keeps a bool base with a bool exponent bool
    return recorded(NODES["PowBackward0"], out, (input,), {"exponent": exponent})


def _check_pow_dtype(result: _dtype.dtype) -> None:
    if result is _dtype.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")


def _scalar_pow(base, exponent: Tensor) -> Tensor:
    """``2 ** x``: PowBackward2."""
    base = plain_number(base)
    target = _dtype.result_type(exponent, base)
    _check_pow_dtype(target)
    out = in_float32(lambda e: library_power(e.dtype.type(base), e))(exponent._data.astype(target.np, copy=False))
    if records(exponent):
        return record(NODES["PowBackward2"], out, (exponent,), {"self": base})
    return make_tensor(out)


@export
def square(input):
    return pow(input, 2)


@export
def float_power(input, exponent):
    """``pow`` in double precision (complex128 where an operand is complex): each tensor is cast first
    (ToCopyBackward0 where its dtype changes), a number is taken as it is, as torch's."""
    input, exponent = plain_number(input), plain_number(exponent)
    _check_power_operands("float_power", input, exponent)
    operands_ = (input, exponent)
    complex_ = any(isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex()) for v in operands_)
    target = _dtype.complex128 if complex_ else _dtype.float64
    input, exponent = (v.to(target) if isinstance(v, Tensor) else v for v in operands_)
    return pow(input, exponent)


# -- unary math -----------------------------------------------------------------------------------------
_INTEGRAL = frozenset(np.dtype(t) for t in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64))
# The input dtypes an elementwise op treats apart, in one lookup: integers (computed in the default
# float dtype) and float16 and bfloat16 (computed in float32).
_SPECIAL_INPUTS = {**{dtype: "integral" for dtype in _INTEGRAL}, **{dtype: "reduced" for dtype in REDUCED_FLOATS}}


def elementwise(name: str, node, compute, keep_int: bool = False, stepwise: bool = False):
    """The op ``compute`` (array -> array) on one tensor, recorded as ``node``; integer inputs
    compute in the default float dtype unless ``keep_int``; float16 and bfloat16 in float32, rounded
    once, unless ``stepwise`` (each NumPy step of ``compute`` rounds, as torch's kernel does)."""
    widened = compute if stepwise else in_float32(compute)

    def op(input):
        if input.__class__ is not Tensor and not isinstance(input, Tensor):
            check_tensor(input, name)
        data = input._data
        special = _SPECIAL_INPUTS.get(data.dtype)  # None for float32, float64 and complex: most calls
        if special == "integral" and not keep_int:
            data = data.astype(default_float_for(data))
            special = _SPECIAL_INPUTS.get(data.dtype)
        out = widened(data) if special == "reduced" else compute(data)
        if STATE.grad_enabled and input._requires_grad or forward.ACTIVE:  # records(input), inlined: the hottest path
            # a complex input's abs or angle is real: not of the input's dtype
            return record_one(node, out, input, elementwise=special is None and out.dtype is data.dtype)
        return make_tensor(out)

    op.__name__ = op.__qualname__ = name
    return op


_negate = elementwise("neg", NODES["NegBackward0"], np.negative, keep_int=True)
_conjugate_physical = elementwise("conj_physical", NODES["ConjPhysicalBackward0"], np.conj)


def unary(name: str, node_name: str, compute, keep_int: bool = False, aliases=(), stepwise: bool = False):
    """An exported elementwise op (``torch.exp`` and ``Tensor.exp``), its aliases, and its entry in
    ``UNARY`` for the in-place variant."""
    node = NODES[node_name]
    op = elementwise(name, node, compute, keep_int, stepwise)
    UNARY[name] = (node, compute if stepwise else in_float32(compute), keep_int)
    export(op)
    for alias in aliases:
        export(op, name=alias)
    return op


def _relu(x):
    return np.maximum(x, 0) if x.dtype != np.bool_ else x


def _erf(x):
    return _backend.erf(x)


def _erfc(x):
    return _backend.erfc(x)


exp = unary("exp", "ExpBackward0", np.exp)
exp2 = unary("exp2", "Exp2Backward0", np.exp2)
expm1 = unary("expm1", "Expm1Backward0", np.expm1)
log = unary("log", "LogBackward0", np.log)
log2 = unary("log2", "Log2Backward0", np.log2)
log10 = unary("log10", "Log10Backward0", np.log10)
log1p = unary("log1p", "Log1PBackward0", np.log1p)
sin = unary("sin", "SinBackward0", np.sin)
cos = unary("cos", "CosBackward0", np.cos)
tan = unary("tan", "TanBackward0", np.tan)
sinh = unary("sinh", "SinhBackward0", np.sinh)
cosh = unary("cosh", "CoshBackward0", np.cosh)
tanh = unary("tanh", "TanhBackward0", np.tanh)
asin = unary("asin", "AsinBackward0", np.arcsin, aliases=("arcsin",))
acos = unary("acos", "AcosBackward0", np.arccos, aliases=("arccos",))
atan = unary("atan", "AtanBackward0", np.arctan, aliases=("arctan",))
sigmoid = unary("sigmoid", "SigmoidBackward0", formula_math.sigmoid)
relu = unary("relu", "ReluBackward0", _relu, keep_int=True)
abs = unary("abs", "AbsBackward0", absolute, keep_int=True, aliases=("absolute",))
sqrt = unary("sqrt", "SqrtBackward0", np.sqrt)
# torch's float16 and bfloat16 rsqrt rounds the square root, then its reciprocal (measured)
rsqrt = unary("rsqrt", "RsqrtBackward0", lambda x: 1 / np.sqrt(x), stepwise=True)
reciprocal = unary("reciprocal", "ReciprocalBackward0", lambda x: 1 / x)
sign = unary("sign", "SignBackward0", formula_math.sign, keep_int=True)
sgn = unary("sgn", "SgnBackward0", formula_math.sgn, keep_int=True)
_round = unary("round", "RoundBackward0", np.round, keep_int=True)


def round_decimals(data, decimals: int):
    """torch's rounding to ``decimals`` places: half to even of ``x * 10**d`` (of ``x / 10**-d``), scaled back,
    with the power of ten in the tensor's type."""
    scale = data.dtype.type(10.0 ** (-decimals if decimals < 0 else decimals))
    if decimals < 0:
        return np.rint(data / scale) * scale
    return np.rint(data * scale) / scale


@export
def round(input, *, decimals=None):
    """Half to even: ``round.decimals`` (RoundBackward1) wherever ``decimals`` is given, 0 too, as torch's."""
    if decimals is None:
        return _round(input)
    return recorded(NODES["RoundBackward1"], round_decimals(input._data, decimals), (input,))

floor = unary("floor", "FloorBackward0", np.floor, keep_int=True)
ceil = unary("ceil", "CeilBackward0", np.ceil, keep_int=True)
trunc = unary("trunc", "TruncBackward0", np.trunc, keep_int=True, aliases=("fix",))
frac = unary("frac", "FracBackward0", lambda x: x - np.trunc(x))
erf = unary("erf", "ErfBackward0", _erf)
erfc = unary("erfc", "ErfcBackward0", _erfc)
asinh = unary("asinh", "AsinhBackward0", np.arcsinh, aliases=("arcsinh",))
acosh = unary("acosh", "AcoshBackward0", np.arccosh, aliases=("arccosh",))
atanh = unary("atanh", "AtanhBackward0", np.arctanh, aliases=("arctanh",))


@export
def conj_physical(input):
    if not input.is_complex():
        return input
    return _conjugate_physical(input)


@export
def conj(input):
    """torch's conjugate view: the same memory read as its conjugate, saying ``is_conj()``; of a conjugate view, a
    plain view of the memory (``_autograd/conjugate_views.py``)."""
    if not input.is_complex():
        return input
    out = make_conjugate_view(input)
    if out.__class__ is ConjugateView:
        out.__dict__["_conj_bit"] = True
    return out


_maximum = binary_op(NODES["MaximumBackward0"], np.maximum)
_minimum = binary_op(NODES["MinimumBackward0"], np.minimum)
def _in_floats(x, y):
    """arctan2 with integer and bool operands in the default float dtype (NumPy's would take float16 for int8)."""
    if x.dtype.kind not in "fc":
        x = x.astype(default_float_for(x))
        y = y.astype(x.dtype) if hasattr(y, "astype") else y
    return np.arctan2(x, y)


_atan2 = binary_op(NODES["Atan2Backward0"], _in_floats)


def _check_extreme_operands(name: str, input: Tensor, other) -> None:
    match_signature(name, TENSORS_ONLY, (input, other))
    if input.is_complex() or other.is_complex():
        raise RuntimeError(f"{name} not implemented for complex tensors.")


@export
def maximum(input, other):
    _check_extreme_operands("maximum", input, other)
    return _maximum(input, other)


@export
def minimum(input, other):
    _check_extreme_operands("minimum", input, other)
    return _minimum(input, other)


@export
def atan2(input, other):
    match_signature("atan2", TENSORS_ONLY, (input, other))
    return _atan2(input, other)


arctan2 = export(atan2, name="arctan2")


@export(method=False, name="complex")
def make_complex(real, imag):
    """``torch.complex(real, imag)`` (named so as not to hide Python's ``complex``)."""
    check_real_parts(check_tensor(real, "complex", "real", 1), check_tensor(imag, "complex", "imag", 2))
    if real._data.dtype == np.float16:
        raise _dtype.refuse_complex_half("complex")
    out = real._data + 1j * imag._data
    out = out.astype(np.complex64 if real._data.dtype == np.float32 else np.complex128)
    return recorded(NODES["ComplexBackward0"], out, (real, imag))


@export
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    out = np.nan_to_num(input._data, nan=nan, posinf=posinf, neginf=neginf)
    return recorded(NODES["NanToNumBackward0"], out, (input,))


# -- remainder and fmod ------------------------------------------------------------------------------------
def _scalar_like(value, like: Tensor) -> Tensor:
    """A Python number as a 0-dim tensor of the type it takes beside ``like`` (``3 % x``)."""
    value = plain_number(value)
    target = _dtype.result_type(like, value)
    return make_tensor(_backend.host_value(value, like._data, target.np))


def _modulo(name: str, compute, tensor_node: str, number_node: str, refused: tuple, signatures: tuple):
    """``remainder`` and ``fmod``: differentiable in the dividend, and in a tensor divisor; no kernel for
    results of the ``refused`` dtypes (torch's NotImplementedError names the kernel and its device)."""

    def op(input, other):
        match_signature(name, signatures, (input, other))
        if not isinstance(input, Tensor):  # 3 % x: remainder's (Number self, Tensor other)
            input = _scalar_like(input, other)
        refuse_kernel_dtype(name, input, other, refused)
        ad, bd = operands(input, other)
        out = _backend.as_array(_compute(compute, ad, bd))
        if isinstance(other, Tensor):
            return recorded(NODES[tensor_node], out, (input, other))
        return recorded(NODES[number_node], out, (input,))

    op.__name__ = name
    return export(op)


fmod = _modulo("fmod", np.fmod, "FmodBackward1", "FmodBackward0", (_dtype.bool_, _dtype.complex64, _dtype.complex128),
               TENSOR_OR_NUMBER)
remainder = _modulo("remainder", np.remainder, "RemainderBackward1", "RemainderBackward0",
                    (_dtype.bool_, _dtype.complex64, _dtype.complex128),
                    (TENSORS_ONLY[0], "Number self, Tensor other", TENSOR_OR_NUMBER[1]))

BINARY.update({"add": add, "sub": sub, "mul": mul, "div": div, "pow": pow})
