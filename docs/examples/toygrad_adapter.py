"""The worked example of ``docs/writing-an-adapter.md``: toygrad under torch's names.

    PYTHONPATH=docs/examples python -m conformance run --impl toygrad_adapter:namespace \\
        --expectations docs/examples/toygrad.toml --device cpu -k seed

What it translates: ``torch.tensor(number, requires_grad=, device="cpu")`` -> ``Number(number,
tracked=)``; ``requires_grad`` -> ``tracked``; ``grad`` -> ``gradient``; ``backward()`` ->
``backprop()``; ``is_leaf`` -> ``operation is None`` (torch's definition, on toygrad's state);
``+``, ``*``, ``**``, ``torch.add``, ``torch.mul`` -> ``plus``, ``times``, ``power``; ``tolist()``
and ``item()`` -> ``value``; ``dtype`` and ``torch.float64`` -> a dtype object for toygrad's one
precision. Everything else stays missing, so the suite reports it unsupported in
torch's spelling: ``grad_fn`` (toygrad has no node objects), ``requires_grad_``, ``detach``,
``torch.autograd``, dtypes, ``shape``, ``device``...
"""

from __future__ import annotations

import types
import weakref
from typing import Any

import toygrad


class DType:
    """A dtype object: one per dtype, its repr in the engine's spelling (``toygrad.float64``), which the
    suite reads as ``torch.float64`` because ``__conformance_module__`` names toygrad."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"toygrad.{self.name}"


FLOAT64 = DType("float64")


class Tensor:
    """A toygrad Number under torch's names. One wrapper per Number while it lives (see ``wrap``),
    so that ``a is b`` on wrappers says what it says on the Numbers."""

    __slots__ = ("_number", "__weakref__")

    @property
    def requires_grad(self) -> bool:
        return self._number.tracked

    @property
    def is_leaf(self) -> bool:
        return not self._number.tracked or self._number.operation is None

    @property
    def dtype(self) -> DType:
        return FLOAT64  # Number.precision is "double"

    @property
    def grad(self) -> Tensor | None:
        return wrap(self._number.gradient)

    def backward(self) -> None:
        self._number.backprop()

    def tolist(self) -> float:
        return self._number.value

    def item(self) -> float:
        return self._number.value

    def add(self, other: Any) -> Tensor:
        return wrap(self._number.plus(unwrap(other)))

    def mul(self, other: Any) -> Tensor:
        return wrap(self._number.times(unwrap(other)))

    def __pow__(self, exponent: float) -> Tensor:
        return wrap(self._number.power(exponent))

    __add__ = __radd__ = add
    __mul__ = __rmul__ = mul

    def __repr__(self) -> str:
        return repr(self._number)


_wrappers: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def wrap(number: toygrad.Number | None) -> Tensor | None:
    if number is None:
        return None
    wrapper = _wrappers.get(id(number))
    if wrapper is None or wrapper._number is not number:
        wrapper = object.__new__(Tensor)
        wrapper._number = number
        _wrappers[id(number)] = wrapper
    return wrapper


def unwrap(value: Any) -> Any:
    return value._number if isinstance(value, Tensor) else value


def tensor(data: Any, requires_grad: bool = False, device: Any = None) -> Tensor:
    if device is not None and str(device) != "cpu":
        raise NotImplementedError(f"toygrad computes on the CPU; device {str(device)!r} has no equivalent")
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise NotImplementedError(f"toygrad numbers hold one number, not {type(data).__name__}")
    return wrap(toygrad.Number(data, tracked=requires_grad))


namespace = types.ModuleType("toygrad_adapter.namespace", "toygrad under torch's names")
namespace.__conformance_module__ = "toygrad"  # texts naming toygrad are read as naming torch
namespace.__version__ = toygrad.__version__
namespace.Tensor = Tensor
namespace.tensor = tensor
namespace.add = Tensor.add
namespace.mul = Tensor.mul
namespace.float64 = FLOAT64
