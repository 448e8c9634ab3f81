"""MyGrad (``pip install mygrad``) under torch's names: ``--impl mygrad``.

MyGrad is an autograd engine on NumPy with NumPy's API. This adapter translates, and only
translates:

* ``torch.tensor(data, dtype=, requires_grad=, device=)`` -> ``mygrad.tensor(data, dtype=,
  constant=not requires_grad)``; ``ones``, ``zeros``, ``full``, ``arange`` and the ``*_like``
  factories likewise. Where torch infers float32 for Python floats, the adapter passes
  ``dtype=float32`` (MyGrad, like NumPy, would infer float64). MyGrad computes on the CPU only:
  ``device="cpu"`` is accepted, any other device raises ``NotImplementedError``.
* On a tensor: ``requires_grad`` is ``not constant``; ``grad_fn`` is ``creator`` (MyGrad's
  ``Operation``, which is ``torch.autograd.graph.Node`` here); ``is_leaf`` is torch's
  definition on those two (``not requires_grad or grad_fn is None``); ``grad`` is MyGrad's
  gradient as it is, a NumPy array (``x.grad = None`` is ``null_grad()``); ``_base`` is
  ``base``; ``tolist()`` reads ``data``; ``backward(gradient)`` is ``backward(grad)``.
* Methods and functions whose MyGrad equivalent differs only in name or keyword spelling
  (``dim``/``keepdim`` -> ``axis``/``keepdims``, ``clamp`` -> ``clip``, ``cat`` ->
  ``concatenate``, ``transpose`` -> ``swapaxes``, ``add_`` -> ``+=``, ``to(dtype)`` ->
  ``astype(dtype, copy=False)``, ``no_grad()`` -> ``no_autodiff``, ``abs(x)`` -> ``absolute``,
  ...). MyGrad's own
  behaviour stays: its casts leave the graph, its backward clears the graph and does not
  accumulate, a non-scalar backward sums.
* dtypes: ``float32`` and the others are MyGrad's (NumPy's) dtypes under torch's names.

Everything else stays missing and is reported ``unsupported`` in torch's spelling:
``detach``, ``clone``, ``requires_grad_``, ``retain_grad``, hooks, ``torch.autograd.grad``,
``torch.autograd.Function``, ``Tensor.device``, ``_version``, ``torch.nn``, ``torch.optim``, ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _wrapping

try:
    import mygrad as mg
    from mygrad.operation_base import Operation
except ModuleNotFoundError as exc:  # pragma: no cover - exercised by tests/test_adapters.py without MyGrad
    raise _wrapping.engine_missing("mygrad", exc) from exc

ENGINE = "mygrad"

DTYPES = _wrapping.DTypes(ENGINE, {
    "float16": np.dtype("float16"), "float32": np.dtype("float32"), "float64": np.dtype("float64"),
    "int8": np.dtype("int8"), "int16": np.dtype("int16"), "int32": np.dtype("int32"), "int64": np.dtype("int64"),
    "uint8": np.dtype("uint8"), "bool": np.dtype("bool"),
}, {"half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32", "long": "int64"})


def _engine_dtype(dtype: Any) -> Any:
    return None if dtype is None else np.dtype(DTYPES.to_engine(dtype))


def _check_device(device: Any) -> None:
    if device is not None and str(device) != "cpu":
        raise NotImplementedError(f"MyGrad computes on the CPU only; device {str(device)!r} has no equivalent")


def _constant(requires_grad: bool) -> bool:
    return not requires_grad


class Tensor:
    """A MyGrad tensor under torch's names (the MyGrad tensor is ``_engine``)."""

    __slots__ = ("_engine", "__weakref__")
    __array_ufunc__ = None  # an operator with a NumPy array on the left comes back here
    __hash__ = object.__hash__

    # -- autograd state ------------------------------------------------------------------
    @property
    def grad(self) -> Any:
        return self._engine.grad

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is not None:
            raise NotImplementedError("MyGrad's gradient cannot be assigned; only None (null_grad()) can")
        self._engine.null_grad()

    @property
    def requires_grad(self) -> bool:
        return not self._engine.constant

    @requires_grad.setter
    def requires_grad(self, value: Any) -> None:
        raise NotImplementedError("MyGrad's constant flag is fixed when a tensor is made")

    @property
    def grad_fn(self) -> Any:
        return self._engine.creator

    @property
    def is_leaf(self) -> bool:
        return self._engine.constant or self._engine.creator is None

    def backward(self, gradient: Any = None) -> None:
        return self._engine.backward(WRAPPING.unwrap(gradient))

    # -- data ----------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return DTYPES.of(self._engine.dtype)

    @property
    def shape(self) -> tuple:
        return self._engine.shape

    @property
    def ndim(self) -> int:
        return self._engine.ndim

    def dim(self) -> int:
        return self._engine.ndim

    def numel(self) -> int:
        return self._engine.size

    @property
    def data(self) -> np.ndarray:
        return self._engine.data

    @data.setter
    def data(self, value: Any) -> None:
        raise NotImplementedError("MyGrad has no way to replace a tensor's data")

    @property
    def _base(self) -> Any:
        return WRAPPING.wrap(self._engine.base)

    @property
    def T(self) -> Tensor:
        return WRAPPING.wrap(self._engine.T)

    def tolist(self) -> Any:
        return self._engine.data.tolist()

    def item(self) -> Any:
        return self._engine.item()

    def numpy(self) -> np.ndarray:
        return mg.asarray(self._engine)

    def to(self, dtype_or_device: Any) -> Tensor:
        if isinstance(dtype_or_device, _wrapping.DType):
            return WRAPPING.wrap(self._engine.astype(_engine_dtype(dtype_or_device), copy=False))
        _check_device(dtype_or_device)
        return self

    def float(self) -> Tensor:
        return self.to(DTYPES.by_name["float32"])

    def double(self) -> Tensor:
        return self.to(DTYPES.by_name["float64"])

    def long(self) -> Tensor:
        return self.to(DTYPES.by_name["int64"])

    # -- reductions and shape ------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return WRAPPING.wrap(mg.sum(self._engine, axis=dim, keepdims=keepdim))

    def mean(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return WRAPPING.wrap(mg.mean(self._engine, axis=dim, keepdims=keepdim))

    def max(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is not None:
            raise NotImplementedError("MyGrad's max(axis) gives the values only, not torch's (values, indices)")
        return WRAPPING.wrap(mg.max(self._engine))

    def reshape(self, *shape: Any) -> Tensor:
        return WRAPPING.wrap(mg.reshape(self._engine, shape[0] if len(shape) == 1 else shape))

    def t(self) -> Tensor:
        return WRAPPING.wrap(mg.transpose(self._engine))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return WRAPPING.wrap(mg.swapaxes(self._engine, dim0, dim1))

    def permute(self, *dims: Any) -> Tensor:
        return WRAPPING.wrap(mg.transpose(self._engine, dims[0] if len(dims) == 1 else dims))

    def unsqueeze(self, dim: int) -> Tensor:
        return WRAPPING.wrap(mg.expand_dims(self._engine, dim))

    def squeeze(self, dim: Any = None) -> Tensor:
        return WRAPPING.wrap(mg.squeeze(self._engine, axis=dim))

    def expand(self, *sizes: Any) -> Tensor:
        return WRAPPING.wrap(mg.broadcast_to(self._engine, sizes[0] if len(sizes) == 1 else sizes))

    def flatten(self) -> Tensor:
        return WRAPPING.wrap(self._engine.flatten())

    # -- in place ------------------------------------------------------------------------
    def add_(self, other: Any) -> Tensor:
        self._engine += WRAPPING.unwrap(other)
        return self

    def sub_(self, other: Any) -> Tensor:
        self._engine -= WRAPPING.unwrap(other)
        return self

    def mul_(self, other: Any) -> Tensor:
        self._engine *= WRAPPING.unwrap(other)
        return self

    def div_(self, other: Any) -> Tensor:
        self._engine /= WRAPPING.unwrap(other)
        return self

    # -- Python protocols ----------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        return WRAPPING.wrap(self._engine[WRAPPING.unwrap(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        self._engine[WRAPPING.unwrap(index)] = WRAPPING.unwrap(value)

    def __len__(self) -> int:
        return len(self._engine)

    def __iter__(self):
        return (WRAPPING.wrap(item) for item in self._engine)

    def __float__(self) -> float:
        return float(self._engine)

    def __int__(self) -> int:
        return int(self._engine)

    def __index__(self) -> int:
        return self._engine.__index__()

    def __bool__(self) -> bool:
        return bool(self._engine)

    def __repr__(self) -> str:
        return repr(self._engine)

    def __str__(self) -> str:
        return str(self._engine)

    def __format__(self, spec: str) -> str:
        return format(self._engine, spec)


WRAPPING = _wrapping.Wrapping(Tensor, lambda value: isinstance(value, mg.Tensor))
for _name, _method in _wrapping.operators(WRAPPING).items():
    setattr(Tensor, _name, _method)


# -- the namespace's functions -------------------------------------------------------------
def _default_dtype(data: Any, dtype: Any) -> Any:
    """torch's default float dtype (float32) where the data are Python floats and no dtype is given."""
    if dtype is not None:
        return _engine_dtype(dtype)
    if isinstance(data, (mg.Tensor, np.ndarray)):
        return None
    return np.dtype("float32") if np.asarray(data).dtype == np.float64 else None


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _check_device(device)
    data = WRAPPING.unwrap(data)
    return WRAPPING.wrap(mg.tensor(data, dtype=_default_dtype(data, dtype), constant=_constant(requires_grad)))


def _shape(size: tuple) -> Any:
    return size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _check_device(device)
    return WRAPPING.wrap(mg.ones(_shape(size), dtype=_engine_dtype(dtype) or np.float32,
                                 constant=_constant(requires_grad)))


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _check_device(device)
    return WRAPPING.wrap(mg.zeros(_shape(size), dtype=_engine_dtype(dtype) or np.float32,
                                  constant=_constant(requires_grad)))


def full(size: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _check_device(device)
    return WRAPPING.wrap(mg.full(size, fill_value, dtype=_default_dtype(fill_value, dtype),
                                 constant=_constant(requires_grad)))


def ones_like(input: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _check_device(device)
    return WRAPPING.wrap(mg.ones_like(WRAPPING.unwrap(input), dtype=_engine_dtype(dtype),
                                      constant=_constant(requires_grad)))


def zeros_like(input: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    _check_device(device)
    return WRAPPING.wrap(mg.zeros_like(WRAPPING.unwrap(input), dtype=_engine_dtype(dtype),
                                       constant=_constant(requires_grad)))


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    _check_device(device)
    bounds = (start,) if end is None else (start, end, step)
    return WRAPPING.wrap(mg.arange(*bounds, dtype=_default_dtype(list(bounds), dtype),
                                   constant=_constant(requires_grad)))


def _function(name: str, engine_function, **fixed: Any):
    """A torch function of tensors only, calling ``engine_function`` on the engine's tensors."""
    def function(*tensors: Any) -> Any:
        return WRAPPING.wrap(engine_function(*WRAPPING.unwrap(tensors), **fixed))

    function.__name__ = function.__qualname__ = name
    return function


def _method(name: str, engine_function):
    """A torch method without arguments but ``self``, calling ``engine_function`` on the engine's tensor."""
    def method(self) -> Any:
        return WRAPPING.wrap(engine_function(self._engine))

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    return method


UNARY = {"exp": mg.exp, "log": mg.log, "sqrt": mg.sqrt, "tanh": mg.tanh, "sin": mg.sin, "cos": mg.cos,
         "abs": mg.absolute, "sigmoid": mg.nnet.sigmoid, "relu": mg.nnet.relu, "neg": mg.negative}
for _name, _engine_function in UNARY.items():
    setattr(Tensor, _name, _method(_name, _engine_function))


def _pow(self, exponent: Any) -> Tensor:
    return WRAPPING.wrap(mg.power(self._engine, WRAPPING.unwrap(exponent)))


def _clamp(self, min: Any = None, max: Any = None) -> Tensor:
    return WRAPPING.wrap(mg.clip(self._engine, WRAPPING.unwrap(min), WRAPPING.unwrap(max)))


def _matmul(self, other: Any) -> Tensor:
    return WRAPPING.wrap(mg.matmul(self._engine, WRAPPING.unwrap(other)))


Tensor.pow = _pow
Tensor.clamp = _clamp
Tensor.matmul = Tensor.mm = Tensor.mv = Tensor.dot = _matmul
# Python's abs(x) is torch.abs(x); MyGrad's Tensor has no __abs__ (abs() of it raises TypeError), and
# its absolute is the same function
Tensor.__abs__ = _method("__abs__", mg.absolute)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    return WRAPPING.wrap(mg.concatenate(WRAPPING.unwrap(list(tensors)), axis=dim))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    return WRAPPING.wrap(mg.stack(WRAPPING.unwrap(list(tensors)), axis=dim))


def where(condition: Any, input: Any, other: Any) -> Tensor:
    return WRAPPING.wrap(mg.where(WRAPPING.unwrap(condition), WRAPPING.unwrap(input), WRAPPING.unwrap(other)))


def softmax(input: Any, dim: int) -> Tensor:
    return WRAPPING.wrap(mg.nnet.softmax(WRAPPING.unwrap(input), axis=dim))


def no_grad() -> Any:
    """torch's ``no_grad()`` makes a context manager; MyGrad's ``no_autodiff`` is one already."""
    return mg.no_autodiff


def is_grad_enabled() -> bool:
    return bool(mg.no_autodiff.state)


_autograd = _wrapping.submodule("autograd", {"graph": _wrapping.submodule("autograd.graph", {"Node": Operation})})

namespace = _wrapping.namespace(ENGINE, "mygrad", {
    "Tensor": Tensor, "tensor": tensor, "ones": ones, "zeros": zeros, "full": full, "ones_like": ones_like,
    "zeros_like": zeros_like, "arange": arange,
    **{name: _function(name, engine_function) for name, engine_function in UNARY.items()},
    "add": _function("add", mg.add), "sub": _function("sub", mg.subtract), "mul": _function("mul", mg.multiply),
    "div": _function("div", mg.divide), "pow": _function("pow", mg.power), "matmul": _function("matmul", mg.matmul),
    "mm": _function("mm", mg.matmul), "mv": _function("mv", mg.matmul), "dot": _function("dot", mg.matmul),
    "clamp": Tensor.clamp,
    "cat": cat, "stack": stack, "where": where, "softmax": softmax, "sum": Tensor.sum, "mean": Tensor.mean,
    "no_grad": no_grad, "is_grad_enabled": is_grad_enabled, "autograd": _autograd,
    **DTYPES.attributes(),
})
