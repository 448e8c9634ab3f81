"""micrograd (``pip install micrograd``) under torch's names: ``--impl micrograd``.

micrograd is a scalar engine: a ``Value`` holds one Python number (``data``), its gradient
(``grad``, a number that starts at 0), its parents and a backward closure. It has ``+``, ``-``,
``*``, ``/``, ``**`` (by a number), ``relu()`` and ``backward()``; nothing else. This adapter
translates, and only translates:

* ``torch.tensor(number, requires_grad=, device=)`` -> ``Value(number)``; a one-element list
  (``[1.5]``, ``[[1.5]]``) is its one number, micrograd's only way to hold it (its shape is not
  kept: micrograd has none). Every micrograd value
  takes part in differentiation, so ``requires_grad`` changes nothing (a value made with
  ``requires_grad=False`` still gets a gradient, and the report shows it); ``device="cpu"`` is
  accepted, since micrograd computes in Python on the CPU. Anything but a single number (a list,
  a ``dtype``) has no micrograd equivalent and raises ``NotImplementedError`` or is an unexpected
  keyword: the suite reports both ``unsupported``.
* On a value: ``grad`` is ``grad`` as micrograd keeps it (a number, 0 before any backward;
  assigning it assigns micrograd's attribute), ``tolist()`` and ``item()`` read ``data``,
  ``backward()`` is ``backward()``, ``relu()`` is ``relu()``, the operators are micrograd's;
  ``add``/``sub``/``mul``/``div``/``pow`` (methods and ``torch.add(a, b)``...) are micrograd's
  ``+``/``-``/``*``/``/``/``**``. ``torch.relu(x)`` is ``x.relu()``.

Everything else stays missing (dtypes, ``shape``, ``requires_grad``, ``is_leaf``, ``grad_fn``,
``sum``, ``exp``, ``no_grad``, ``torch.autograd``, ...) and is reported ``unsupported`` in torch's
spelling. Its profile (``conformance/expectations/micrograd.toml``) marks what a scalar engine
does not aim at as n/a.
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from . import _wrapping

try:
    from micrograd.engine import Value
except ModuleNotFoundError as exc:  # pragma: no cover - exercised by tests/test_adapters.py without micrograd
    raise _wrapping.engine_missing("micrograd", exc) from exc

ENGINE = "micrograd"


class Tensor:
    """A micrograd ``Value`` under torch's names (the value is ``_engine``)."""

    __slots__ = ("_engine", "__weakref__")
    __hash__ = object.__hash__

    @property
    def grad(self) -> Any:
        return self._engine.grad

    @grad.setter
    def grad(self, value: Any) -> None:
        self._engine.grad = WRAPPING.unwrap(value)

    def backward(self) -> None:
        return self._engine.backward()

    def tolist(self) -> Any:
        return self._engine.data

    def item(self) -> Any:
        return self._engine.data

    def relu(self) -> Tensor:
        return WRAPPING.wrap(self._engine.relu())

    def __repr__(self) -> str:
        return repr(self._engine)


WRAPPING = _wrapping.Wrapping(Tensor, lambda value: isinstance(value, Value))
for _name, _method in _wrapping.operators(WRAPPING).items():
    setattr(Tensor, _name, _method)


def tensor(data: Any, device: Any = None, requires_grad: bool = False) -> Tensor:
    if device is not None and str(device) != "cpu":
        raise NotImplementedError(f"micrograd computes in Python on the CPU; device {str(device)!r} has no equivalent")
    data = WRAPPING.unwrap(data)
    if isinstance(data, Value):
        data = data.data
    while isinstance(data, (list, tuple)) and len(data) == 1:  # one element: a scalar engine's one number
        data = data[0]
    if isinstance(data, bool) or not isinstance(data, Number):
        raise NotImplementedError(f"micrograd values hold one number, not {type(data).__name__}")
    return WRAPPING.wrap(Value(data))


def _operator_method(name: str, dunder: str):
    """torch's ``add``/``sub``/``mul``/``div``/``pow`` as micrograd's own operator methods."""
    def method(self, other: Any) -> Tensor:
        return getattr(Tensor, dunder)(self, other)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    return method


OPERATOR_METHODS = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__", "pow": "__pow__"}
for _name, _dunder in OPERATOR_METHODS.items():
    setattr(Tensor, _name, _operator_method(_name, _dunder))

# torch.f(input, ...) is Tensor.f(input, ...): the adapter's own methods, unbound.
namespace = _wrapping.namespace(ENGINE, "micrograd", {
    "Tensor": Tensor, "tensor": tensor,
    **{name: getattr(Tensor, name) for name in ("relu", *OPERATOR_METHODS)},
})
