"""tinygrad (``pip install tinygrad``) under torch's names: ``--impl tinygrad``.

tinygrad's tensor API is close to torch's; its autograd is not built like torch's: there is no
``requires_grad``, no ``grad_fn`` and no backward graph. ``backward()`` differentiates the lazy
forward graph and fills ``.grad`` of every floating-point tensor in it that is still alive;
``Tensor.gradient(*targets)`` returns gradients without filling ``.grad``.

**Backend.** The suite compares on the CPU. tinygrad's ``CPU`` device compiles kernels with
clang (``$CC``, default ``clang``: it passes clang's ``--target``); where no clang is found, the
adapter uses tinygrad's pure-Python ``PYTHON`` backend, which interprets the same kernels
without a compiler (slower, same results). ``CONFORMANCE_TINYGRAD_DEVICE`` overrides the choice. The chosen
backend is tinygrad's default device for the run (``DEV``), and it is what ``device="cpu"``
means here; a tensor on it reports ``device`` ``"cpu"``.

This adapter translates, and only translates:

* ``torch.tensor(data, dtype=, device=, requires_grad=)`` -> ``Tensor(data, device=, dtype=)``;
  ``ones``, ``zeros``, ``full``, ``arange``, ``*_like`` likewise. Without ``dtype``, the dtype
  torch infers is passed (bool, int64, float32: tinygrad would pick int32 for integers). A lone
  number is ``Tensor.full((), number)``: tinygrad's ``Tensor(number)`` is a constant without
  storage, which backward never gives a gradient, where torch's is a tensor like any other. ``requires_grad`` has no
  tinygrad equivalent and changes nothing: tinygrad differentiates every floating-point tensor
  (a tensor made with ``requires_grad=False`` still gets a gradient, and the report shows it).
* ``torch.autograd.grad(outputs, inputs, grad_outputs)`` -> ``outputs.gradient(*inputs,
  gradient=grad_outputs)`` (one output; its ``retain_graph``/``create_graph``/``allow_unused``
  keywords have no tinygrad spelling and stay unsupported).
* torch's keyword spellings: ``dim``/``keepdim`` -> ``axis``/``keepdim``, ``clamp(min, max)`` ->
  ``clamp(min_, max_)``, ``to(dtype)`` -> ``cast``, ``copy_`` -> ``assign``, ``add_`` -> ``+=``;
  ``torch.where(c, a, b)`` -> ``c.where(a, b)``, ``torch.cat(ts, dim)`` -> ``ts[0].cat(*ts[1:], dim=)``.
* Methods with the same name and meaning reach tinygrad's method of that name; tinygrad's
  own behaviour stays (``backward()`` returns the tensor, ``clone()`` copies ``.grad``, ...).
* dtypes: tinygrad's dtypes under torch's names.

Everything else stays missing and is reported ``unsupported`` in torch's spelling:
``requires_grad``, ``is_leaf``, ``grad_fn``, ``retain_grad``, hooks, ``no_grad``,
``torch.autograd.Function``, ``torch.nn``, ``_version``, ``data``, ...
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import numpy as np

from . import _wrapping

try:
    import tinygrad as tg
    from tinygrad import dtypes
    from tinygrad.helpers import DEV
except ModuleNotFoundError as exc:  # pragma: no cover - exercised by tests/test_adapters.py without tinygrad
    raise _wrapping.engine_missing("tinygrad", exc) from exc

ENGINE = "tinygrad"


def choose_backend() -> str:
    """``CPU`` where clang can compile its kernels, else the pure-Python ``PYTHON``.

    tinygrad's CPU device runs ``$CC`` (default ``clang``) with clang's ``--target`` option, so
    only a clang counts.
    """
    chosen = os.environ.get("CONFORMANCE_TINYGRAD_DEVICE")
    if chosen:
        return chosen.upper()
    compiler = os.environ.get("CC") or "clang"
    return "CPU" if "clang" in os.path.basename(compiler) and shutil.which(compiler) else "PYTHON"


BACKEND = choose_backend()
DEV.value = BACKEND

DTYPES = _wrapping.DTypes(ENGINE, {
    "float16": dtypes.float16, "bfloat16": dtypes.bfloat16, "float32": dtypes.float32, "float64": dtypes.float64,
    "int8": dtypes.int8, "int16": dtypes.int16, "int32": dtypes.int32, "int64": dtypes.int64,
    "uint8": dtypes.uint8, "bool": dtypes.bool,
}, {"half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32", "long": "int64"})


def _device(device: Any) -> str:
    """The tinygrad device for torch's ``device`` argument (``cpu`` is the chosen backend)."""
    if device is None or str(device) == "cpu":
        return BACKEND
    raise NotImplementedError(f"this adapter runs tinygrad on the CPU ({BACKEND}); device {str(device)!r} is not mapped")


def _dtype(dtype: Any) -> Any:
    return DTYPES.to_engine(dtype)


class Tensor:
    """A tinygrad tensor under torch's names (the tinygrad tensor is ``_engine``)."""

    __slots__ = ("_engine", "__weakref__")
    __hash__ = object.__hash__

    # -- autograd state ------------------------------------------------------------------
    @property
    def grad(self) -> Any:
        return WRAPPING.wrap(self._engine.grad)

    @grad.setter
    def grad(self, value: Any) -> None:
        self._engine.grad = WRAPPING.unwrap(value)

    def backward(self, gradient: Any = None) -> Any:
        return WRAPPING.wrap(self._engine.backward(WRAPPING.unwrap(gradient)))

    # -- data ----------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return DTYPES.of(self._engine.dtype)

    @property
    def shape(self) -> tuple:
        return self._engine.shape

    @property
    def device(self) -> Any:
        device = self._engine.device
        return "cpu" if device == BACKEND else device

    @property
    def ndim(self) -> int:
        return self._engine.ndim

    def dim(self) -> int:
        return self._engine.ndim

    def size(self, dim: Any = None) -> Any:
        return self._engine.size(dim)

    def numel(self) -> Any:
        return self._engine.numel()

    def tolist(self) -> Any:
        return self._engine.tolist()

    def item(self) -> Any:
        return self._engine.item()

    def numpy(self) -> Any:
        return self._engine.numpy()

    def to(self, dtype_or_device: Any) -> Tensor:
        if isinstance(dtype_or_device, _wrapping.DType):
            return WRAPPING.wrap(self._engine.cast(_dtype(dtype_or_device)))
        return WRAPPING.wrap(self._engine.to(_device(dtype_or_device)))

    # -- reductions ----------------------------------------------------------------------
    def sum(self, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
        return WRAPPING.wrap(self._engine.sum(axis=dim, keepdim=keepdim, dtype=_dtype(dtype)))

    def mean(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return WRAPPING.wrap(self._engine.mean(axis=dim, keepdim=keepdim))

    def max(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is not None:
            raise NotImplementedError("tinygrad's max(axis) gives the values only, not torch's (values, indices)")
        return WRAPPING.wrap(self._engine.max())

    def min(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is not None:
            raise NotImplementedError("tinygrad's min(axis) gives the values only, not torch's (values, indices)")
        return WRAPPING.wrap(self._engine.min())

    def argmax(self, dim: Any = None, keepdim: bool = False) -> Tensor:
        return WRAPPING.wrap(self._engine.argmax(axis=dim, keepdim=keepdim))

    def softmax(self, dim: int) -> Tensor:
        return WRAPPING.wrap(self._engine.softmax(axis=dim))

    # -- arithmetic with arguments -------------------------------------------------------
    def pow(self, exponent: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.pow(WRAPPING.unwrap(exponent)))

    def add(self, other: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.add(WRAPPING.unwrap(other)))

    def sub(self, other: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.sub(WRAPPING.unwrap(other)))

    def mul(self, other: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.mul(WRAPPING.unwrap(other)))

    def div(self, other: Any, rounding_mode: Any = None) -> Tensor:
        return WRAPPING.wrap(self._engine.div(WRAPPING.unwrap(other), rounding_mode=rounding_mode))

    def matmul(self, other: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.matmul(WRAPPING.unwrap(other)))

    mm = mv = matmul

    def dot(self, other: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.dot(WRAPPING.unwrap(other)))

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        return WRAPPING.wrap(self._engine.clamp(WRAPPING.unwrap(min), WRAPPING.unwrap(max)))

    def where(self, input: Any, other: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.where(WRAPPING.unwrap(input), WRAPPING.unwrap(other)))

    # -- shape ---------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.reshape(*shape))

    def view(self, *shape: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.view(*shape))

    def permute(self, *dims: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.permute(*dims))

    def t(self) -> Tensor:
        return WRAPPING.wrap(self._engine.T)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return WRAPPING.wrap(self._engine.transpose(dim0, dim1))

    def expand(self, *sizes: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.expand(*sizes))

    def squeeze(self, dim: Any = None) -> Tensor:
        return WRAPPING.wrap(self._engine.squeeze(dim))

    def unsqueeze(self, dim: int) -> Tensor:
        return WRAPPING.wrap(self._engine.unsqueeze(dim))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return WRAPPING.wrap(self._engine.flatten(start_dim, end_dim))

    def split(self, split_size: Any, dim: int = 0) -> Any:
        return WRAPPING.wrap(self._engine.split(split_size, dim))

    def chunk(self, chunks: int, dim: int = 0) -> Any:
        return WRAPPING.wrap(self._engine.chunk(chunks, dim))

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

    def copy_(self, src: Any) -> Tensor:
        return WRAPPING.wrap(self._engine.assign(WRAPPING.unwrap(src)))

    # -- Python protocols ----------------------------------------------------------------
    def __getitem__(self, index: Any) -> Tensor:
        return WRAPPING.wrap(self._engine[WRAPPING.unwrap(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        self._engine[WRAPPING.unwrap(index)] = WRAPPING.unwrap(value)

    def __len__(self) -> int:
        return len(self._engine)

    def __float__(self) -> float:
        return float(self._engine)

    def __int__(self) -> int:
        return int(self._engine)

    def __bool__(self) -> bool:
        return bool(self._engine)

    def __repr__(self) -> str:
        return repr(self._engine)

    def __format__(self, spec: str) -> str:
        return format(self._engine, spec)


WRAPPING = _wrapping.Wrapping(Tensor, lambda value: isinstance(value, tg.Tensor))
for _name, _method in _wrapping.operators(WRAPPING).items():
    setattr(Tensor, _name, _method)


def _same_name_method(name: str):
    """A torch method without arguments but ``self`` that tinygrad has under the same name."""
    def method(self) -> Any:
        return WRAPPING.wrap(getattr(self._engine, name)())

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    return method


SAME_NAME_METHODS = ("exp", "log", "log2", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "abs", "sin", "cos", "neg",
                     "sign", "round", "floor", "ceil", "trunc", "reciprocal", "square", "detach", "clone",
                     "contiguous", "float", "double", "half", "long", "int", "bool")
for _name in SAME_NAME_METHODS:
    setattr(Tensor, _name, _same_name_method(_name))


# -- the namespace's functions -------------------------------------------------------------
def _torch_dtype_of(data: Any) -> Any:
    """torch's dtype for Python data: bool, int64, float32 (torch's defaults; tinygrad would pick int32
    for integers and a weak dtype for a lone number)."""
    try:
        kind = np.asarray(data).dtype.kind
    except (ValueError, TypeError):
        return None
    return {"b": dtypes.bool, "i": dtypes.int64, "u": dtypes.int64, "f": dtypes.float32}.get(kind)


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor with storage of its own, as torch's. A lone number makes a constant without storage
    in tinygrad (never given a gradient), so a 0-d tensor is made by ``Tensor.full((), number)``."""
    data = WRAPPING.unwrap(data)
    if dtype is None and not isinstance(data, (tg.Tensor, np.ndarray)):
        dtype = _torch_dtype_of(data)
    if isinstance(data, (bool, int, float)):
        return WRAPPING.wrap(tg.Tensor.full((), data, dtype=_dtype(dtype), device=_device(device)))
    return WRAPPING.wrap(tg.Tensor(data, device=_device(device), dtype=_dtype(dtype)))


def _shape(size: tuple) -> tuple:
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return WRAPPING.wrap(tg.Tensor.ones(*_shape(size), dtype=_dtype(dtype), device=_device(device)))


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return WRAPPING.wrap(tg.Tensor.zeros(*_shape(size), dtype=_dtype(dtype), device=_device(device)))


def full(size: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    dtype = _torch_dtype_of(fill_value) if dtype is None else dtype
    return WRAPPING.wrap(tg.Tensor.full(tuple(size), fill_value, dtype=_dtype(dtype), device=_device(device)))


def ones_like(input: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return WRAPPING.wrap(WRAPPING.unwrap(input).ones_like(dtype=_dtype(dtype), device=_device(device)))


def zeros_like(input: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return WRAPPING.wrap(WRAPPING.unwrap(input).zeros_like(dtype=_dtype(dtype), device=_device(device)))


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    if _device(device) != BACKEND:  # pragma: no cover - _device allows the backend only
        raise NotImplementedError(device)
    if dtype is None:
        dtype = _torch_dtype_of([start, end if end is not None else start, step])
    return WRAPPING.wrap(tg.Tensor.arange(start, end, step, dtype=_dtype(dtype)))


def where(condition: Any, input: Any, other: Any) -> Tensor:
    return Tensor.where(WRAPPING.wrap(WRAPPING.unwrap(condition)), input, other)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    first, *rest = WRAPPING.unwrap(list(tensors))
    return WRAPPING.wrap(first.cat(*rest, dim=dim))


def stack(tensors: Any, dim: int = 0) -> Tensor:
    first, *rest = WRAPPING.unwrap(list(tensors))
    return WRAPPING.wrap(first.stack(*rest, dim=dim))


# torch.f(input, ...) is Tensor.f(input, ...): the adapter's own methods, unbound.
FUNCTIONS = ("exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "sin", "cos", "neg", "sum", "mean", "max",
             "softmax", "pow", "add", "sub", "mul", "div", "matmul", "mm", "mv", "dot", "clamp")


def _single(value: Any, what: str) -> Any:
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise NotImplementedError(f"tinygrad's gradient() differentiates one output, not {len(value)} {what}")
        return value[0]
    return value


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None) -> Any:
    """``torch.autograd.grad`` -> ``outputs.gradient(*inputs, gradient=grad_outputs)``."""
    output = WRAPPING.unwrap(_single(outputs, "outputs"))
    gradient = WRAPPING.unwrap(_single(grad_outputs, "grad_outputs"))
    if not isinstance(inputs, (list, tuple, Tensor)):
        raise NotImplementedError(f"tinygrad's gradient() takes tensors, not {type(inputs).__name__}")
    targets = WRAPPING.unwrap(tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,))
    return WRAPPING.wrap(output.gradient(*targets, gradient=gradient))


_autograd = _wrapping.submodule("autograd", {"grad": grad})

namespace = _wrapping.namespace(ENGINE, "tinygrad", {
    "Tensor": Tensor, "tensor": tensor, "ones": ones, "zeros": zeros, "full": full, "ones_like": ones_like,
    "zeros_like": zeros_like, "arange": arange, "where": where, "cat": cat, "stack": stack,
    **{name: getattr(Tensor, name) for name in FUNCTIONS},
    "autograd": _autograd,
    **DTYPES.attributes(),
})
