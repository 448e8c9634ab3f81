"""Data types, and torch's type promotion rules (which differ from NumPy's).

A ``dtype`` object prints like torch's (``torch.float32``) because scripts print dtypes and
expect torch's text. Each wraps the NumPy dtype used for storage.

Promotion follows torch: operands are ranked by category (bool < integer < floating < complex).
Tensors with dimensions decide the result unless a zero-dimensional tensor or a Python number
is of a higher category; Python floats count as the default dtype, Python ints as int64.

bfloat16 is stored as ``ml_dtypes.bfloat16``: NumPy has no bfloat16, and ml_dtypes (the package
JAX and TensorFlow use) registers one as a NumPy dtype, so that arrays of it are created, cast,
indexed, viewed and computed on by NumPy itself (its ufuncs compute in float32 and round to
bfloat16, as torch's CPU kernels do). The alternatives were worse: bfloat16 kept in float32
arrays would need every op and every cast to round by hand and would hold 4 bytes per element
(``element_size``, views of the raw bits and ``view(dtype)`` would all be wrong); bits kept in
uint16 arrays would need an implementation of every op. ml_dtypes' dtype has the NumPy kind
``'V'``, not ``'f'``: code that asks whether an array holds floats asks :func:`kind`.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

BOOL, INTEGER, FLOATING, COMPLEX = range(4)


class dtype:
    __slots__ = ("name", "np", "category", "itemsize", "is_signed", "_legacy", "c_name")

    def __init__(self, name: str, np_type, category: int, legacy: str, c_name: str) -> None:
        self.name = name
        self.np = np.dtype(np_type)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_signed = category != BOOL and name != "uint8"
        self._legacy = legacy
        self.c_name = c_name  # the C++ type name some torch messages use, e.g. 'long int'

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOATING

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    @property
    def is_reduced_float(self) -> bool:
        """float16 or bfloat16: the floating types torch's CPU kernels compute in float32 and round."""
        return self.category == FLOATING and self.itemsize == 2

    def to_real(self) -> dtype:
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> dtype:
        return {float32: complex64, float64: complex128, float16: complex64, bfloat16: complex64}.get(self, self)

    @property
    def scalar_type_name(self) -> str:
        """The ScalarType name some torch messages use, e.g. ``Float``."""
        return self._legacy

    def legacy_type_name(self, device_type: str = "cpu") -> str:
        """The legacy type string of ``Tensor.type()``, e.g. ``torch.FloatTensor``."""
        prefix = "torch." if device_type == "cpu" else f"torch.{device_type}."
        return f"{prefix}{self._legacy}Tensor"

    def message_type_name(self, device_type: str = "cpu") -> str:
        """How torch's C++ messages name a tensor's type: ``CPUComplexFloatType``, which torch's Python
        layer rewrites into the legacy name (``torch.FloatTensor``) for the eight dtypes that have one
        in its messages (not bool, bfloat16 or the complex dtypes)."""
        if self._legacy in _REWRITTEN_IN_MESSAGES:
            return self.legacy_type_name(device_type)
        return f"{device_type.upper()}{self._legacy}Type"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


_REWRITTEN_IN_MESSAGES = frozenset(("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"))
bool_ = dtype("bool", np.bool_, BOOL, "Bool", "bool")
uint8 = dtype("uint8", np.uint8, INTEGER, "Byte", "unsigned char")
int8 = dtype("int8", np.int8, INTEGER, "Char", "signed char")
int16 = dtype("int16", np.int16, INTEGER, "Short", "short int")
int32 = dtype("int32", np.int32, INTEGER, "Int", "int")
int64 = dtype("int64", np.int64, INTEGER, "Long", "long int")
float16 = dtype("float16", np.float16, FLOATING, "Half", "c10::Half")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, FLOATING, "BFloat16", "c10::BFloat16")
float32 = dtype("float32", np.float32, FLOATING, "Float", "float")
float64 = dtype("float64", np.float64, FLOATING, "Double", "double")
complex64 = dtype("complex64", np.complex64, COMPLEX, "ComplexFloat", "c10::complex<float>")
complex128 = dtype("complex128", np.complex128, COMPLEX, "ComplexDouble", "c10::complex<double>")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)
BY_NUMPY = {d.np: d for d in ALL}
BY_NAME = {d.name: d for d in ALL}
#: The NumPy dtypes of float16 and bfloat16 (``is_reduced_float``).
REDUCED_FLOATS = frozenset((float16.np, bfloat16.np))
#: The NumPy dtypes of complex64 and complex128.
COMPLEX_FLOATS = frozenset((complex64.np, complex128.np))

#: torch warns this (once per process) when it allocates a complex32 tensor.
COMPLEX_HALF_WARNING = "ComplexHalf support is experimental and many operators don't support it yet."


def refuse_complex_half(op: str) -> NotImplementedError:
    """The error for an op whose result torch makes complex32 (of float16 parts): myautograd has no complex32
    (NumPy has no complex type of two float16 parts; the profile declares the feature missing)."""
    return NotImplementedError(f"myautograd does not implement torch.complex32 (ComplexHalf), which torch.{op} of "
                               "float16 values makes (see docs/myautograd.md)")
_BFLOAT16 = bfloat16.np
ALIASES = {
    "bool": bool_, "half": float16, "float": float32, "double": float64, "short": int16,
    "int": int32, "long": int64, "cfloat": complex64, "cdouble": complex128,
}

_default = [float32]


def kind(np_dtype) -> str:
    """NumPy's kind letter of ``np_dtype`` (``'f'``, ``'c'``, ``'i'``, ``'u'``, ``'b'``), with bfloat16 a float
    (``'f'``: ml_dtypes registers it as ``'V'``)."""
    letter = np_dtype.kind
    return "f" if letter == "V" and np_dtype == _BFLOAT16 else letter


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """The dtype of Python floats and of floating factories without a dtype (and, through it, of
    Python complex numbers: complex64, or complex128 for float64)."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if d.category != FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


def from_numpy(np_dtype) -> dtype:
    try:
        return BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                        "uint64, uint32, uint16, uint8, and bool.") from None


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types: the smallest type both can be cast to, by torch's lattice."""
    if a is b:
        return a
    if a.category != b.category:
        high, low = (a, b) if a.category > b.category else (b, a)
        if high.category == COMPLEX and low is float64:
            return complex128
        return high
    if a.category == FLOATING:  # float16 and bfloat16 meet in float32; otherwise the wider wins
        if a.itemsize == b.itemsize:
            return float32
        return a if a.itemsize > b.itemsize else b
    return BY_NUMPY[np.promote_types(a.np, b.np)]


def _python_scalar_dtype(value) -> dtype:
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return get_default_dtype()
    if isinstance(value, complex):
        return default_complex()
    raise TypeError(f"unsupported operand type {type(value).__name__}")


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge the type of a lower-priority operand group into a higher-priority one.

    The higher group keeps its type unless the lower group is of a higher category; then the
    category rises (a float keeps its width when it becomes complex).
    """
    if higher is None:
        return lower
    if lower is None or higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return higher.to_complex() if higher.category == FLOATING else lower
    if higher.category == FLOATING:
        return higher
    if higher.category == BOOL or lower.category == FLOATING:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> dtype:
    """torch.result_type over tensors (objects with ``dtype`` and ``ndim``) and Python numbers."""
    dimensioned = zero_dim = wrapped = None
    for operand in operands:
        if isinstance(operand, (bool, int, float, complex)):
            d = _python_scalar_dtype(operand)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
        elif operand.ndim == 0:
            zero_dim = operand.dtype if zero_dim is None else promote_types(zero_dim, operand.dtype)
        else:
            dimensioned = operand.dtype if dimensioned is None else promote_types(dimensioned, operand.dtype)
    return _combine(dimensioned, _combine(zero_dim, wrapped))


def can_cast(source: dtype, target: dtype) -> bool:
    """torch.can_cast: no casting to a lower category."""
    return source.category <= target.category


class finfo:
    """torch.finfo: the numerical limits of a floating dtype (of a complex dtype's parts); the
    default dtype's without an argument."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtype | None = None) -> None:
        type = get_default_dtype() if type is None else type
        if not isinstance(type, dtype) or type.category < FLOATING:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        real = type.to_real()
        info = ml_dtypes.finfo(real.np) if real is bfloat16 else np.finfo(real.np)
        self.bits = real.itemsize * 8
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = real.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")
