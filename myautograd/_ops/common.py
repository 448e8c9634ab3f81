"""Argument handling shared by the ops: checking inputs, dims, dtypes and devices, with torch's messages."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._backend import device_of, host_value
from .._grad_mode import STATE
from .._tensor import Tensor, make_tensor
from .._user_warnings import warn_once

PY_NUMBERS = (bool, int, float, complex)


def plain_number(value):
    """A NumPy scalar (``np.float64(0.5)``, ``np.sqrt(2.0)``) as the Python number it holds, as torch
    takes it: a number that does not promote a float32 tensor. Saved in a node as it came, NumPy's
    float64 scalar made the gradient float64 (``grad * other``); anything else is returned as it is."""
    return value.item() if isinstance(value, np.generic) else value
COMPLEX_TO_REAL_WARNING = "Casting complex values to real discards the imaginary part"


def read_as(array, np_dtype):
    """``array``, or its real part where it is complex and ``np_dtype`` a real number type: a cast or
    a reduction into a real dtype, with torch's warning, once per process as torch gives it (NumPy's
    own ComplexWarning would come at each cast). Into bool, a complex value is whether it is nonzero."""
    if array.dtype.kind == "c" and np.dtype(np_dtype).kind not in "cb":
        warn_once(COMPLEX_TO_REAL_WARNING, stacklevel=None)
        return array.real
    return array


def cast(array, np_dtype, copy: bool = True):
    """``array.astype(np_dtype)``, a complex array into a real dtype as ``read_as`` reads it."""
    return read_as(array, np_dtype).astype(np_dtype, copy=copy)


def type_name(value) -> str:
    """An argument's type as torch's argument parser names it in its messages."""
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def check_tensor(value, op: str, arg: str = "input", position: int = 1) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")
    return value


def check_real_parts(first: Tensor, second: Tensor) -> None:
    """The two parts of ``torch.complex``/``torch.polar``: Half, Float or Double, of one dtype (torch's messages)."""
    if not all(t._data.dtype in (np.float16, np.float32, np.float64) for t in (first, second)):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{first.dtype.scalar_type_name} and {second.dtype.scalar_type_name}")
    if first.dtype != second.dtype:
        raise RuntimeError(f"Expected object of scalar type {first.dtype.scalar_type_name} but got scalar type "
                           f"{second.dtype.scalar_type_name} for second argument")


def normalize_dim(dim: int, ndim: int, wrap_scalar: bool = True) -> int:
    """``dim`` wrapped into ``[0, ndim)``, with torch's errors; a 0-dim tensor takes dim 0 and -1 unless
    not ``wrap_scalar`` (the ops torch refuses on one: ``roll``, ``unbind``, the FFTs)."""
    limit = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    if ndim == 0 and not wrap_scalar:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -limit <= dim < limit:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-limit}, {limit - 1}], but got {dim})")
    return int(dim) % limit


def normalize_dims(dims, ndim: int, unique: bool = True) -> tuple[int, ...]:
    """Dims wrapped into ``[0, ndim)``; with ``unique``, a dim listed twice raises torch's error."""
    if isinstance(dims, (int, np.integer)):
        dims = (dims,)
    wrapped = tuple(normalize_dim(d, ndim) for d in dims)
    if unique and len(set(wrapped)) != len(wrapped):
        repeated = next(d for i, d in enumerate(wrapped) if d in wrapped[:i])
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return wrapped


def broadcast_error(a_shape: tuple, b_shape: tuple) -> RuntimeError:
    ndim = max(len(a_shape), len(b_shape))
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        a = a_shape[len(a_shape) - 1 - offset] if offset < len(a_shape) else 1
        b = b_shape[len(b_shape) - 1 - offset] if offset < len(b_shape) else 1
        if a != b and a != 1 and b != 1:
            return RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                                f"at non-singleton dimension {i}")
    return RuntimeError(f"shapes {list(a_shape)} and {list(b_shape)} cannot be broadcast")


def broadcast_shapes(*shapes) -> tuple:
    result: tuple = ()
    for shape in shapes:
        try:
            result = np.broadcast_shapes(result, tuple(shape))
        except ValueError:
            raise broadcast_error(result, tuple(shape)) from None
    return result


def device_error(a, b) -> RuntimeError:
    first, second = str(device_of(a)), str(device_of(b))
    return RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                        f"{first} and {second}!")


def as_tensor_like(value, like: Tensor) -> Tensor:
    """A Python number as a 0-dim tensor of the type torch would give it next to ``like``."""
    if isinstance(value, Tensor):
        return value
    dtype = _dtype.result_type(like, value) if like.dtype.category < _dtype._python_scalar_dtype(value).category \
        else like.dtype
    return make_tensor(host_value(value, like._data, dtype.np))


def check_castable(result: _dtype.dtype, target: _dtype.dtype) -> None:
    """torch's refusal to write a result into a tensor of a lower category (in place, or out=)."""
    if not _dtype.can_cast(result, target):
        raise RuntimeError(f"result type {result.scalar_type_name} can't be cast to the desired output type "
                           f"{target.scalar_type_name}")


def check_out_dtype(out: Tensor, dtype: _dtype.dtype) -> None:
    """torch's refusal of an ``out=`` tensor of another dtype than the result's, for the ops that take none other."""
    if out.dtype != dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtype.c_name}, but got {out.dtype.c_name} instead")


def to_dtype(value) -> _dtype.dtype | None:
    if value is None or isinstance(value, _dtype.dtype):
        return value
    if value is float:
        return _dtype.float64
    if value is int:
        return _dtype.int64
    if value is bool:
        return _dtype.bool_
    if value is complex:
        return _dtype.complex128
    if isinstance(value, str):
        return _dtype.ALIASES.get(value) or _dtype.BY_NAME[value]
    return _dtype.BY_NUMPY[np.dtype(value)]


def default_float_for(array) -> np.dtype:
    """Integer and bool inputs of floating ops compute in the default dtype."""
    return array.dtype if _dtype.kind(array.dtype) in "fc" else _dtype.get_default_dtype().np


def refuse_kernel_dtype(name: str, input: Tensor, other, refused: tuple) -> None:
    """torch's refusal of a binary kernel with no loop for the operands' common dtype, one of ``refused``: its
    NotImplementedError names the kernel and its device (``"fmod_cpu" not implemented for 'Bool'``)."""
    result = _dtype.result_type(input, other)
    if result in refused:
        raise NotImplementedError(f"\"{name}_{input.device.type}\" not implemented for '{result.scalar_type_name}'")


def refuse_requires_grad(function: str, **arguments) -> None:
    """torch's autograd refuses, with grad mode on and before its kernel runs, an argument it has no
    derivative for that requires grad (a loss's ``weight``, batch norm's running statistics)."""
    if STATE.grad_enabled:
        for name, value in arguments.items():
            if value is not None and value.requires_grad:
                raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument "
                                   f"'{name}'. This input cannot have requires_grad True.")
