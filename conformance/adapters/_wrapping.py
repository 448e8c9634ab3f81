"""What the shipped adapters share: identity-keeping wrappers, torch-named dtypes, a namespace.

* :class:`Wrapping` puts an engine's tensor inside the adapter's ``Tensor`` class, one wrapper
  per engine object for as long as the wrapper lives (so ``is`` on wrappers is ``is`` on the
  engine's objects), and takes wrappers out again before a value reaches the engine.
* :func:`operators` builds the arithmetic and comparison operators of a wrapper class: each
  one calls the same operator on the engine's object.
* :class:`DType` names an engine's dtype the way torch names it. Its repr is
  ``<engine>.<torch name>`` (``mygrad.float32``): the suite's ``module_name`` rule reads the
  engine's module name as ``torch``, so the same dtype compares equal and another one shows
  under the engine's name.
* :func:`namespace` builds the module-like object an adapter exposes.
* :func:`engine_missing` is the one-line error an adapter raises when its engine is not
  installed.
"""

from __future__ import annotations

import operator
import types
import weakref
from collections.abc import Callable
from typing import Any

BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift")
COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
UNARY = ("neg", "pos", "abs", "invert")


class Wrapping:
    """Wraps engine objects of one kind in ``cls`` (whose instances keep the object in ``_engine``)."""

    def __init__(self, cls: type, is_engine_tensor: Callable[[Any], bool]) -> None:
        self.cls = cls
        self.is_engine_tensor = is_engine_tensor
        self._by_id: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def wrap(self, value: Any) -> Any:
        """The wrapper of an engine tensor (the same one while it lives); lists and tuples item by item."""
        if self.is_engine_tensor(value):
            wrapper = self._by_id.get(id(value))
            if wrapper is None or wrapper._engine is not value:
                wrapper = object.__new__(self.cls)
                wrapper._engine = value
                self._by_id[id(value)] = wrapper
            return wrapper
        if type(value) in (list, tuple):
            return type(value)(self.wrap(item) for item in value)
        return value

    def unwrap(self, value: Any) -> Any:
        """The engine's object inside a wrapper; lists and tuples item by item; anything else as it is."""
        if isinstance(value, self.cls):
            return value._engine
        if type(value) in (list, tuple):
            return type(value)(self.unwrap(item) for item in value)
        return value


def operators(wrapping: Wrapping, names: tuple[str, ...] = BINARY + COMPARISONS + UNARY) -> dict[str, Callable]:
    """``__add__``, ``__radd__``, ``__iadd__``, ``__lt__``, ``__neg__``... applying Python's operator to
    the engine's objects, so an operator the engine lacks raises the ``TypeError`` Python raises for it.
    """
    methods: dict[str, Callable] = {}
    for name in names:
        if name in UNARY:
            methods[f"__{name}__"] = _unary(wrapping, name)
        elif name in COMPARISONS:
            methods[f"__{name}__"] = _binary(wrapping, name, reflected=False)
        else:
            function = "and_" if name == "and" else "or_" if name == "or" else name
            methods[f"__{name}__"] = _binary(wrapping, function, reflected=False)
            methods[f"__r{name}__"] = _binary(wrapping, function, reflected=True)
            methods[f"__i{name}__"] = _in_place(wrapping, f"i{name}")
    return methods


def _unary(wrapping: Wrapping, name: str) -> Callable:
    apply = getattr(operator, name)

    def method(self):
        return wrapping.wrap(apply(self._engine))

    method.__name__ = f"__{name}__"
    return method


def _binary(wrapping: Wrapping, name: str, reflected: bool) -> Callable:
    apply = getattr(operator, name)

    def method(self, other):
        other = wrapping.unwrap(other)
        return wrapping.wrap(apply(other, self._engine) if reflected else apply(self._engine, other))

    method.__name__ = f"__r{name.rstrip('_')}__" if reflected else f"__{name.rstrip('_')}__"
    return method


def _in_place(wrapping: Wrapping, name: str) -> Callable:
    apply = getattr(operator, name)

    def method(self, other):
        result = apply(self._engine, wrapping.unwrap(other))
        return self if result is self._engine else wrapping.wrap(result)

    method.__name__ = f"__{name}__"
    return method


class DType:
    """One of the engine's dtypes under torch's name; one object per dtype, so ``is`` and ``==`` work."""

    __slots__ = ("engine_name", "name", "engine")

    def __init__(self, engine_name: str, name: str, engine: Any) -> None:
        self.engine_name = engine_name
        self.name = name
        self.engine = engine

    def __repr__(self) -> str:
        return f"{self.engine_name}.{self.name}"


class DTypes:
    """The torch-named dtypes of one engine: ``torch name -> engine dtype`` both ways."""

    def __init__(self, engine_name: str, table: dict[str, Any], aliases: dict[str, str]) -> None:
        self.by_name = {name: DType(engine_name, name, engine) for name, engine in table.items()}
        self.aliases = {alias: self.by_name[name] for alias, name in aliases.items()}
        self._by_engine = [(dtype.engine, dtype) for dtype in self.by_name.values()]

    def to_engine(self, dtype: Any) -> Any:
        """The engine's dtype for one of ours; anything else (the engine's own, None) as it is."""
        return dtype.engine if isinstance(dtype, DType) else dtype

    def of(self, engine_dtype: Any) -> Any:
        """Our dtype for the engine's; the engine's own object when it has no torch name."""
        for engine, dtype in self._by_engine:
            if engine == engine_dtype:
                return dtype
        return engine_dtype

    def attributes(self) -> dict[str, DType]:
        return {**self.by_name, **self.aliases}


def namespace(engine_name: str, distribution: str, attributes: dict[str, Any]) -> types.ModuleType:
    """A module-like object holding the adapter's torch names.

    ``__conformance_module__`` makes the suite read the engine's module name as ``torch`` in
    texts; ``__conformance_distribution__`` is where its version comes from.
    """
    space = types.ModuleType(f"conformance.adapters.{engine_name}.namespace",
                             f"{engine_name} under torch's names (conformance adapter)")
    space.__conformance_module__ = engine_name
    space.__conformance_distribution__ = distribution
    for name, value in attributes.items():
        setattr(space, name, value)
    return space


def submodule(name: str, attributes: dict[str, Any]) -> types.ModuleType:
    space = types.ModuleType(name)
    for key, value in attributes.items():
        setattr(space, key, value)
    return space


def engine_missing(engine: str, exc: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error an adapter raises when its engine is not installed (one line, with the fix)."""
    error = ModuleNotFoundError(f"the {engine} adapter needs {engine}, which is not installed "
                                f"(pip install 'autograd-conformance[peers]'): {exc}", name=exc.name)
    return error
