"""The one layer between tensors and the array library: NumPy on the CPU, CuPy on CUDA.

Everything else in myautograd calls NumPy functions on the arrays it holds. CuPy arrays
implement NumPy's dispatch protocols (``__array_ufunc__``, ``__array_function__``), so the same
calls run on the GPU; only creating arrays and moving them between devices needs to know the
device, and that is done here.
"""

from __future__ import annotations

import math

import numpy as np

from ._device import CPU, device

try:  # CuPy is optional: without it, CUDA is unavailable.
    import cupy as _cupy
    import cupyx as _cupyx
    import cupyx.scipy.special  # noqa: F401 - erf
except Exception:  # ImportError, or a CuPy build that finds no CUDA driver
    _cupy = _cupyx = None


def cuda_available() -> bool:
    if _cupy is None:
        return False
    try:
        return _cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def cuda_device_count() -> int:
    return _cupy.cuda.runtime.getDeviceCount() if cuda_available() else 0


def array_module(dev: device):
    """The array library (numpy or cupy) that holds data for ``dev``."""
    if dev.type == "cpu":
        return np
    if not cuda_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    return _cupy


def device_of(array) -> device:
    """The device of an array; NumPy arrays and scalars (whose ``.device`` is the string "cpu" in
    NumPy 2) are on the CPU."""
    if type(array) is np.ndarray or _cupy is None or not isinstance(array, _cupy.ndarray):
        return CPU
    return device("cuda", int(array.device.id))


def is_cpu_array(array) -> bool:
    return type(array) is np.ndarray


def as_array(value, dtype=None):
    """``value`` (an array, or the scalar a NumPy reduction returns) as an array on the device it
    is on, of ``dtype`` when given. CuPy reductions give 0-d device arrays already; NumPy gives
    scalars, which a tensor never holds."""
    if type(value) is np.ndarray or _cupy is None or not isinstance(value, _cupy.ndarray):
        return np.asarray(value, dtype=dtype)
    return value if dtype is None or value.dtype == dtype else value.astype(dtype)


def host_value(value, like, dtype=None):
    """A host value (a Python number or sequence, or a NumPy array) as an array on ``like``'s device."""
    if type(like) is np.ndarray or _cupy is None:
        return np.asarray(value, dtype=dtype)
    return _cupy.asarray(value, dtype=dtype)


def broadcast_to(array, shape: tuple):
    """``np.broadcast_to`` (a read-only view); for a 0-d NumPy array, built directly, without
    the checks and wrappers that make np.broadcast_to cost microseconds (a reduction's
    gradient, expanded back, is one). Where no element repeats (only dims of size 1 added), a
    plain view, writeable as its array: torch's expand of that kind can be written in place."""
    if array.size == _size_of(shape) and array.ndim <= len(shape):
        return array.reshape(shape)
    if type(array) is np.ndarray and array.ndim == 0:
        view = np.ndarray(shape, array.dtype, array, 0, (0,) * len(shape))
        view.flags.writeable = False
        return view
    return np.broadcast_to(array, shape)


def _size_of(shape: tuple) -> int:
    size = 1
    for n in shape:
        size *= n
    return size


def is_writeable(array) -> bool:
    """Whether writing into ``array`` is allowed and reaches each element once. CuPy has no
    ``writeable`` flag; its broadcast views show as zero strides on dimensions longer than one."""
    if type(array) is np.ndarray:
        return array.flags.writeable
    return all(stride or size == 1 for stride, size in zip(array.strides, array.shape))


def repeats_elements(array) -> bool:
    """Whether several elements of ``array`` share one memory location (an expanded view)."""
    return any(stride == 0 and size > 1 for stride, size in zip(array.strides, array.shape))


class _Interface:
    """An object exposing an array interface, so that NumPy can make an array of it."""

    def __init__(self, interface: dict, base) -> None:
        self.__array_interface__ = interface
        self.base = base


def writeable_alias(array, repeats_ok: bool = False):
    """An array to write ``array``'s memory through, or None where torch would refuse: elements
    that share memory (unless ``repeats_ok``: a fill writes each the same value), or memory
    that is read-only at its owner. A NumPy view of an expanded array is read-only although its
    memory is not: a part of it that repeats nothing (a row of an expanded matrix) can be
    written, as torch writes it."""
    if repeats_elements(array) and not repeats_ok:
        return None
    if type(array) is not np.ndarray:
        return array  # CuPy has no read-only arrays
    if array.flags.writeable:
        return array
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not owner.flags.writeable:
        return None
    interface = dict(array.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    return np.asarray(_Interface(interface, array))


def scatter_add(target, index, values) -> None:
    """``target[index] += values``, adding repeated indices once each (``np.add.at``)."""
    if type(target) is np.ndarray:
        np.add.at(target, index, values)
    else:
        _cupy.add.at(target, index, values)


def address(array) -> int:
    """The address of ``array``'s first element (host or device memory)."""
    if type(array) is np.ndarray:
        return array.__array_interface__["data"][0]
    return int(array.data.ptr)


def as_strided(array, shape, strides):
    """A view of ``array``'s memory with ``shape`` and ``strides`` (in bytes)."""
    if type(array) is np.ndarray:
        return np.lib.stride_tricks.as_strided(array, shape=shape, strides=strides)
    return _cupy.lib.stride_tricks.as_strided(array, shape=shape, strides=strides)


def to_device(array, dev: device):
    """Copy ``array`` to ``dev`` (no copy when it is there already; a NumPy scalar, which arithmetic on 0-dim
    arrays gives, is on the CPU)."""
    if dev.type == "cpu":
        return array if isinstance(array, (np.ndarray, np.generic)) else _cupy.asnumpy(array)
    xp = array_module(dev)
    with _cupy.cuda.Device(dev.index or 0):
        return xp.asarray(array)


_scalar_erf = np.frompyfunc(math.erf, 1, 1)
_scalar_erfc = np.frompyfunc(math.erfc, 1, 1)


def erf(array):
    """The error function: NumPy has none, so math.erf per element on the CPU; CuPy's on CUDA."""
    if type(array) is np.ndarray or _cupy is None:
        return np.asarray(_scalar_erf(array), dtype=array.dtype)
    return _cupyx.scipy.special.erf(array)


def erfc(array):
    """The complementary error function, as ``erf`` (accurate where erf is near 1)."""
    if type(array) is np.ndarray or _cupy is None:
        return np.asarray(_scalar_erfc(array), dtype=array.dtype)
    return _cupyx.scipy.special.erfc(array)


def _scalar_lgamma_of(v: float) -> float:
    """C's lgamma: infinite at 0, the negative integers and -inf (where Python's raises)."""
    if v <= 0 and (math.isinf(v) or v == math.floor(v)):
        return math.inf
    return math.lgamma(v)


_scalar_lgamma = np.frompyfunc(_scalar_lgamma_of, 1, 1)


def lgamma(array):
    """log|Gamma|, as erf: math.lgamma per element in float64 on the CPU (C's infinities at the poles), rounded
    to the array's dtype; CuPy's gammaln on CUDA."""
    if type(array) is np.ndarray or _cupy is None:
        return np.asarray(_scalar_lgamma(array.astype(np.float64)), dtype=np.float64).astype(array.dtype, copy=False)
    return _cupyx.scipy.special.gammaln(array)


def to_numpy(array) -> np.ndarray:
    if type(array) is np.ndarray or _cupy is None:
        return np.asarray(array)
    return _cupy.asnumpy(array)
