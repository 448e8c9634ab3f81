"""A CPU stand-in for CuPy that enforces the CuPy rules NumPy does not have.

myautograd runs CUDA tensors on CuPy arrays through NumPy's dispatch protocols. Code that is
correct on NumPy can still break on CuPy, and a machine without a GPU cannot show it. This
module lets the tests run myautograd's CUDA path on the CPU: its ``ndarray`` wraps a NumPy array
and refuses what a real ``cupy.ndarray`` refuses. Each rule below was observed on CuPy 14.2 on
an NVIDIA H100 (see ``docs/myautograd.md``, "CUDA"):

* no implicit conversion to NumPy: ``np.asarray``, ``np.array``, ``np.ascontiguousarray`` and
  ``np.lib.stride_tricks.as_strided`` raise ``TypeError`` (``__array__`` refuses);
* no ``numpy.ndarray`` operands, not even 0-d ones, in ufuncs, ``np.stack`` or
  ``np.concatenate`` (``TypeError: Unsupported type <class 'numpy.ndarray'>``); Python numbers
  and NumPy scalars are fine;
* no ``np.add.at`` (``cupy.add.at`` instead) and no ``np.frompyfunc`` ufuncs;
* ``flags`` has ``c_contiguous``, ``f_contiguous`` and ``owndata``, not ``writeable``: no array
  is read-only, a broadcast view included (the stand-in makes NumPy's read-only views of
  writeable memory writeable);
* reductions and other scalar results are 0-d device arrays, not NumPy scalars;
* assigning a non-scalar NumPy array into a slice raises ``ValueError``;
* NumPy arrays are accepted as indices.

Where the stand-in is more lenient than CuPy, the catalog run on a real GPU finds out; where it
is stricter, nothing is lost. ``install(backend_module)`` points myautograd's backend at it.
"""

from __future__ import annotations

import contextlib
import math
import types

import numpy as np

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. "
                       "Please use `.get()` to construct a NumPy array explicitly.")


def _unsupported(value) -> TypeError:
    return TypeError(f"Unsupported type {type(value)}")


def _unwrap_operand(value):
    """An operand of a ufunc or array function: device arrays unwrapped, host arrays refused."""
    if isinstance(value, ndarray):
        return value._a
    if type(value) is np.ndarray:
        raise _unsupported(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap_operand(v) for v in value)
    return value


def _unwrap_index(value):
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, tuple):
        return tuple(_unwrap_index(v) for v in value)
    return value


def _wrap(value):
    """Results come back as device arrays; NumPy scalars become 0-d device arrays."""
    if type(value) is np.ndarray:
        return ndarray(value)
    if isinstance(value, np.generic):
        return ndarray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, array: np.ndarray) -> None:
        self.c_contiguous = array.flags.c_contiguous
        self.f_contiguous = array.flags.f_contiguous
        self.owndata = array.flags.owndata


class Device:
    def __init__(self, id: int = 0) -> None:  # noqa: A002 - CuPy's name
        self.id = id

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def synchronize(self) -> None:
        return None


_DEVICE = Device(0)

# ndarray methods that return arrays (wrapped) and take array arguments (unwrapped).
_METHODS = ("sum", "mean", "var", "std", "prod", "max", "min", "argmax", "argmin", "reshape",
            "transpose", "swapaxes", "copy", "view", "ravel", "squeeze", "take", "repeat", "clip",
            "round", "conj", "conjugate", "nonzero", "cumsum", "cumprod", "argsort", "dot",
            "diagonal", "trace", "all", "any", "flatten")


def _writeable(array: np.ndarray) -> np.ndarray:
    """A writeable alias of a read-only NumPy view (``broadcast_to``) whose memory is writeable."""
    from myautograd._backend import writeable_alias

    alias = writeable_alias(array, repeats_ok=True)
    return array if alias is None else alias


class ndarray:  # noqa: N801 - CuPy's name
    """A device array: a NumPy array behind CuPy's rules."""

    __array_priority__ = 100
    __hash__ = None

    def __init__(self, array: np.ndarray) -> None:
        assert type(array) is np.ndarray
        if not array.flags.writeable:
            array = _writeable(array)
        self._a = array

    # -- NumPy's protocols --------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_CONVERSION)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at" or ufunc.__name__.endswith("(vectorized)"):
            return NotImplemented
        args = [_unwrap_operand(x) for x in inputs]
        if "out" in kwargs:
            outs = kwargs["out"]
            kwargs["out"] = tuple(_unwrap_operand(o) for o in outs)
            getattr(ufunc, method)(*args, **kwargs)
            return outs[0] if len(outs) == 1 else outs
        return _wrap(getattr(ufunc, method)(*args, **kwargs))

    def __array_function__(self, func, types_, args, kwargs):
        args = _unwrap_operand(args)
        kwargs = {k: _unwrap_operand(v) for k, v in kwargs.items()}
        return _wrap(func(*args, **kwargs))

    # -- attributes ---------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: Flags(self._a))
    device = property(lambda self: _DEVICE)
    T = property(lambda self: ndarray(self._a.T))
    base = property(lambda self: None if self._a.base is None else _wrap(np.asarray(self._a.base)))
    data = property(lambda self: types.SimpleNamespace(ptr=self._a.__array_interface__["data"][0]))

    @property
    def real(self):
        return _wrap(self._a.real)

    @real.setter
    def real(self, value):  # CuPy, like NumPy, writes the parts of a complex array in place
        self._a.real = _unwrap_operand(value)

    @property
    def imag(self):
        return _wrap(self._a.imag)

    @imag.setter
    def imag(self, value):
        self._a.imag = _unwrap_operand(value)

    def get(self) -> np.ndarray:
        return self._a.copy()

    def item(self):
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def astype(self, dtype, copy=True, **kwargs):
        out = self._a.astype(dtype, copy=copy, **kwargs)
        return self if out is self._a else ndarray(out)

    def fill(self, value) -> None:
        self._a.fill(_unwrap_operand(value))

    def sort(self, axis=-1) -> None:
        self._a.sort(axis=axis)

    def put(self, indices, values) -> None:
        self._a.put(_unwrap_index(indices), _unwrap_operand(values))

    def __getattr__(self, name):
        if name not in _METHODS:
            raise AttributeError(f"'ndarray' object has no attribute {name!r}")
        method = getattr(self._a, name)

        def call(*args, **kwargs):
            args = _unwrap_operand(args)
            kwargs = {k: _unwrap_operand(v) for k, v in kwargs.items()}
            out = method(*args, **kwargs)
            return self if out is self._a else _wrap(out)

        return call

    # -- conversions --------------------------------------------------------------------
    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return self._a.__index__()

    def __bool__(self):
        return bool(self._a)

    def __complex__(self):
        return complex(self._a)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(row) for row in self._a)

    def __repr__(self):
        return repr(self._a)

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("device arrays are not pickled by the stand-in")

    # -- indexing -----------------------------------------------------------------------
    def __getitem__(self, index):
        return _wrap(self._a[_unwrap_index(index)])

    def __setitem__(self, index, value):
        if type(value) is np.ndarray and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a[_unwrap_index(index)] = value._a if isinstance(value, ndarray) else value


def _binary(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


def _inplace(ufunc):
    def apply(self, other):
        ufunc(self, other, out=(self,))
        return self

    return apply


for _name, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                      ("floordiv", np.floor_divide), ("mod", np.remainder), ("pow", np.power),
                      ("matmul", np.matmul), ("and", np.bitwise_and), ("or", np.bitwise_or),
                      ("xor", np.bitwise_xor), ("lshift", np.left_shift), ("rshift", np.right_shift)):
    setattr(ndarray, f"__{_name}__", _binary(_ufunc))
    setattr(ndarray, f"__r{_name}__", _binary(_ufunc, reflected=True))
    setattr(ndarray, f"__i{_name}__", _inplace(_ufunc))
for _name, _ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                      ("eq", np.equal), ("ne", np.not_equal)):
    setattr(ndarray, f"__{_name}__", _binary(_ufunc))
ndarray.__neg__ = lambda self: np.negative(self)
ndarray.__pos__ = lambda self: np.positive(self)
ndarray.__abs__ = lambda self: np.absolute(self)
ndarray.__invert__ = lambda self: np.invert(self)


# -- the module's functions ---------------------------------------------------------------
def asarray(value, dtype=None, order=None):
    if isinstance(value, ndarray):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    return ndarray(np.array(value, dtype=dtype, order=order or "K", copy=True))


def array(value, dtype=None, copy=True, order="K", ndmin=0):
    if isinstance(value, ndarray):
        value = value._a
    return ndarray(np.array(value, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asnumpy(value, *args, **kwargs):
    return value._a.copy() if isinstance(value, ndarray) else np.asarray(value)


def _creation(name):
    maker = getattr(np, name)

    def create(*args, **kwargs):
        args = _unwrap_operand(args)
        kwargs = {k: _unwrap_operand(v) for k, v in kwargs.items()}
        return _wrap(maker(*args, **kwargs))

    create.__name__ = name
    return create


def _as_strided(x, shape=None, strides=None):
    return ndarray(np.lib.stride_tricks.as_strided(x._a, shape=shape, strides=strides))


def _scatter_add(a, slices, value):
    np.add.at(a._a, _unwrap_index(slices), _unwrap_operand(value))


def _erf(x):
    return _wrap(np.vectorize(math.erf, otypes=[x.dtype])(x._a))


def _erfc(x):
    return _wrap(np.vectorize(math.erfc, otypes=[x.dtype])(x._a))


def _gammaln(x):
    poles = (x._a <= 0) & (x._a == np.floor(x._a))
    values = np.vectorize(lambda v: math.inf if v <= 0 and v == math.floor(v) else math.lgamma(v), otypes=[x.dtype])
    return _wrap(np.where(poles, np.inf, values(np.where(poles, 1.0, x._a))).astype(x._a.dtype))


def module() -> types.ModuleType:
    """A fresh ``cupy`` stand-in module (with ``cuda``, ``lib`` and ``cupyx``-style helpers)."""
    mod = types.ModuleType("cupy")
    mod.__doc__ = __doc__
    mod.ndarray = ndarray
    mod.asarray = asarray
    mod.array = array
    mod.asnumpy = asnumpy
    for name in ("empty", "zeros", "ones", "full", "arange", "eye", "linspace", "logspace", "empty_like",
                 "zeros_like", "ones_like", "full_like", "concatenate", "stack", "where", "tril", "triu"):
        setattr(mod, name, _creation(name))
    mod.add = types.SimpleNamespace(at=_scatter_add)
    mod.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))
    mod.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, getDevice=lambda: 0),
        Device=lambda id=0: _DEVICE,  # noqa: A002
    )
    return mod


def extras_module() -> types.ModuleType:
    """The ``cupyx`` stand-in: ``scipy.special.erf``, ``erfc`` and ``gammaln``."""
    mod = types.ModuleType("cupyx")
    mod.scipy = types.SimpleNamespace(special=types.SimpleNamespace(erf=_erf, erfc=_erfc, gammaln=_gammaln))
    return mod


@contextlib.contextmanager
def installed(backend):
    """Within the block, ``backend`` (myautograd's ``_backend`` module) uses the stand-in."""
    saved = backend._cupy, backend._cupyx
    backend._cupy, backend._cupyx = module(), extras_module()
    try:
        yield backend._cupy
    finally:
        backend._cupy, backend._cupyx = saved
