"""Backward nodes built from derivative formulas (the table is ``myautograd/_ops/derivatives.py``).

``derivative(name, inputs, **formulas)`` defines the node class ``name`` (torch's class name,
e.g. ``MulBackward0``). Each formula is a function whose *parameter names* say what it reads:

* ``grad``: the gradient of the output; ``grads``: the list of gradients of every output;
* ``result`` (or ``result0``, ``result1``, ...): the outputs; the input names: the inputs;
* ``input_index``: for a formula given with ``each=``, the position of the input it differentiates;
* ``F``: the math namespace (NumPy arrays in a plain backward, tensors under ``create_graph``);
* any other name: a non-tensor argument the forward saved (``dim``, ``exponent``, ...).

A node saves what the formulas of the inputs that need a gradient read, as torch's generated
code does; saved values are readable as ``_saved_<name>`` (a freed saved tensor raises).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

from .graph import FREED_MESSAGE, Node, SavedTensor

NODES: dict[str, type] = {}
_SPECIAL = ("grad", "grads", "F", "input_index")


@dataclass(frozen=True)
class Formula:
    fn: Callable
    params: tuple[str, ...]


def _formula(fn: Callable | None) -> Formula | None:
    if fn is None:
        return None
    return Formula(fn, tuple(inspect.signature(fn).parameters))


class FormulaNode(Node):
    """A node whose backward evaluates the table's formulas for the inputs that need them."""

    __slots__ = ()
    _inputs: tuple[str, ...] = ()
    _formulas: tuple[Formula | None, ...] = ()
    _each: Formula | None = None
    _multi_output = False

    @classmethod
    def formula_for(cls, index: int) -> Formula | None:
        return cls._each if cls._each is not None else cls._formulas[index]

    @classmethod
    def saved_names(cls, needs: tuple[bool, ...]) -> tuple[str, ...]:
        """The names to save when the inputs that need a gradient are ``needs``."""
        key = needs
        cache = cls.__dict__.get("_names_cache")
        if cache is None:
            cache = {}
            type.__setattr__(cls, "_names_cache", cache)
        names = cache.get(key)
        if names is None:
            wanted: dict[str, None] = {}
            for index, need in enumerate(needs):
                formula = cls.formula_for(index) if need else None
                if formula is not None:
                    for param in formula.params:
                        if param not in _SPECIAL:
                            wanted[param] = None
            names = cache[key] = tuple(wanted)
        return names

    def apply(self, grads: list, mode) -> list:
        if not self._multi_output:
            grad = grads[0]
            if grad is None:
                return [None] * len(self.next_functions)
        elif all(g is None for g in grads):
            return [None] * len(self.next_functions)
        else:
            grad = None
        saved = self._stash
        if self._released and any(isinstance(v, SavedTensor) for v in saved.values()):
            raise RuntimeError(FREED_MESSAGE)
        results = []
        for index, (node, _) in enumerate(self.next_functions):
            formula = self.formula_for(index)
            if node is None or formula is None or not mode.wants(node):
                results.append(None)
                continue
            args = []
            for param in formula.params:
                if param == "grad":
                    args.append(grad)
                elif param == "grads":
                    args.append(grads)
                elif param == "F":
                    args.append(mode.F)
                elif param == "input_index":
                    args.append(index)
                else:
                    value = saved[param]
                    args.append(mode.unpack(value, self) if type(value) is SavedTensor else value)
            results.append(formula.fn(*args))
        return results


def _saved_property(name: str) -> property:
    def read(node: FormulaNode) -> Any:
        value = node._stash.get(name) if node._stash else None
        if type(value) is SavedTensor:
            from .engine import unpack_saved_tensor

            return unpack_saved_tensor(value, node)
        if name not in (node._stash or {}):
            return None
        if name == "dim":
            return _as_unsigned(value)
        if name not in node._inputs:
            return value
        from .._ops.record import wrap_saved_scalar

        return wrap_saved_scalar(value)

    return property(read)


class RawSavedTensor:
    """``grad_fn._raw_saved_<name>``: a saved tensor, where hooks can be set on its own."""

    def __init__(self, node: FormulaNode, saved: SavedTensor) -> None:
        self._node = node
        self._saved = saved

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        saved = self._saved
        if saved.hooks is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        from .engine import unpack_saved_tensor

        tensor = unpack_saved_tensor(saved, self._node)
        saved.packed = pack_hook(tensor)
        saved.hooks = (pack_hook, unpack_hook)
        saved.data = saved.tensor = None

    def unpack(self):
        from .engine import unpack_saved_tensor

        return unpack_saved_tensor(self._saved, self._node)


RawSavedTensor.__name__ = RawSavedTensor.__qualname__ = "SavedTensor"


def _raw_saved_property(name: str) -> property:
    def read(node: FormulaNode):
        value = node._stash.get(name) if node._stash else None
        return RawSavedTensor(node, value) if type(value) is SavedTensor else None

    return property(read)


def _as_unsigned(dim):
    """torch reads saved dims back as unsigned 64-bit integers: -1 shows as 2**64 - 1."""
    if isinstance(dim, (tuple, list)):
        return tuple(_as_unsigned(d) for d in dim)
    return dim + 2**64 if isinstance(dim, int) and dim < 0 else dim


def derivative(name: str, inputs: tuple[str, ...] | str, *, multi_output: bool = False,
               each: Callable | None = None, saved_attrs: tuple[str, ...] = (), cpp_name: bool = False,
               **formulas: Callable | None) -> type:
    """Define the backward node class ``name`` from one formula per input (see module docstring).

    ``cpp_name``: torch's hand-written nodes report ``name()`` with their C++ namespace,
    ``torch::autograd::CopyBackwards``; generated ones just ``MulBackward0``.
    """
    if name in NODES:
        raise ValueError(f"derivative {name} defined twice")
    inputs = tuple(inputs.split()) if isinstance(inputs, str) else tuple(inputs)
    unknown = set(formulas) - set(inputs)
    if unknown:
        raise ValueError(f"{name}: formulas for unknown inputs {sorted(unknown)}")
    namespace: dict[str, Any] = {
        "__slots__": (),
        "_node_name": f"torch::autograd::{name}" if cpp_name else name,
        "_inputs": inputs,
        "_formulas": tuple(_formula(formulas.get(i)) for i in inputs),
        "_each": _formula(each),
        "_multi_output": multi_output,
    }
    cls = type(name, (FormulaNode,), namespace)
    every = [f for f in (*cls._formulas, cls._each) if f is not None]
    names = {p for f in every for p in f.params if p not in _SPECIAL} | set(saved_attrs)
    for saved_name in sorted(names):
        setattr(cls, f"_saved_{saved_name}", _saved_property(saved_name))
        setattr(cls, f"_raw_saved_{saved_name}", _raw_saved_property(saved_name))
    cls.__module__ = "myautograd.autograd.generated"
    NODES[name] = cls
    return cls
