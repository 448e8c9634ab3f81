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
from collections.abc import Callable
from typing import Any

from .graph import FREED_MESSAGE, Node, SavedTensor

NODES: dict[str, type] = {}
_SPECIAL = ("grad", "grads", "F", "input_index")


class Formula:
    """One derivative formula, with a caller that fetches its arguments directly.

    The caller is generated once per formula from the parameter names (``grad``, ``F``, saved
    names, ...), so evaluating a formula costs one call, not a lookup per parameter.
    """

    __slots__ = ("fn", "params", "call")

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.params = tuple(inspect.signature(fn).parameters)
        arguments = []
        for param in self.params:
            if param in ("grad", "grads"):
                arguments.append(param)
            elif param == "F":
                arguments.append("mode.F")
            elif param == "input_index":
                arguments.append("index")
            else:  # a saved value: unpacked for the mode when it is a saved tensor
                arguments.append(f"(v if (v := stash[{param!r}]).__class__ is not Saved else mode.unpack(v, node))")
        source = f"lambda grad, grads, stash, mode, node, index: fn({', '.join(arguments)})"
        self.call = eval(source, {"fn": fn, "Saved": SavedTensor})  # noqa: S307 - built from parameter names only


def _formula(fn: Callable | None) -> Formula | None:
    return None if fn is None else Formula(fn)


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
    def save_plan(cls, needs: tuple[bool, ...]) -> tuple[tuple[str, str, int], ...]:
        """What to save when ``needs`` says which inputs need a gradient: (name, kind, position)
        with kind "input", "output" or "attr"."""
        plans = cls.__dict__.get("_plans")
        if plans is None:
            plans = {}
            type.__setattr__(cls, "_plans", plans)
        plan = plans.get(needs)
        if plan is None:
            entries = []
            for name in cls.saved_names(needs):
                if name == "result" or (name.startswith("result") and name[6:].isdigit()):
                    entries.append((name, "output", int(name[6:] or 0)))
                elif name in cls._inputs:
                    entries.append((name, "input", cls._inputs.index(name)))
                else:
                    entries.append((name, "attr", 0))
            plan = plans[needs] = tuple(entries)
        return plan

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
        if self._multi_output:
            if all(g is None for g in grads):
                return [None] * len(self.next_functions)
            grad = None
        else:
            grad = grads[0]
            if grad is None:
                return [None] * len(self.next_functions)
        stash = self._stash
        if self._released:
            raise RuntimeError(FREED_MESSAGE)
        visited = mode.visited
        each = self._each
        results = []
        for index, (node, _) in enumerate(self.next_functions):
            formula = each or self._formulas[index]
            if node is None or formula is None or (visited is not None and node not in visited):
                results.append(None)
            else:
                results.append(formula.call(grad, grads, stash, mode, self, index))
        return results

    def release(self) -> None:
        if self._released is None:
            return
        for value in self._stash.values():
            if value.__class__ is SavedTensor:
                value.data = value.tensor = value.packed = value.hooks = None
        self._released = True


def _apply_one(self: FormulaNode, grads: list, mode) -> list:
    """``FormulaNode.apply`` for nodes of one input (most of them), without the general loop."""
    grad = grads[0]
    if grad is None:
        return [None]
    if self._released:
        raise RuntimeError(FREED_MESSAGE)
    node = self.next_functions[0][0]
    visited = mode.visited
    if node is None or (visited is not None and node not in visited):
        return [None]
    return [self._formulas[0].call(grad, grads, self._stash, mode, self, 0)]


def _apply_two(self: FormulaNode, grads: list, mode) -> list:
    """``FormulaNode.apply`` for nodes of two inputs."""
    grad = grads[0]
    if grad is None:
        return [None, None]
    if self._released:
        raise RuntimeError(FREED_MESSAGE)
    (first, _), (second, _) = self.next_functions
    visited = mode.visited
    formulas = self._formulas
    stash = self._stash
    if first is None or formulas[0] is None or (visited is not None and first not in visited):
        result0 = None
    else:
        result0 = formulas[0].call(grad, grads, stash, mode, self, 0)
    if second is None or formulas[1] is None or (visited is not None and second not in visited):
        return [result0, None]
    return [result0, formulas[1].call(grad, grads, stash, mode, self, 1)]


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
    if not multi_output and each is None and len(inputs) in (1, 2):
        namespace["apply"] = _apply_one if len(inputs) == 1 else _apply_two
    cls = type(name, (FormulaNode,), namespace)
    every = [f for f in (*cls._formulas, cls._each) if f is not None]
    names = {p for f in every for p in f.params if p not in _SPECIAL} | set(saved_attrs)
    for saved_name in sorted(names):
        setattr(cls, f"_saved_{saved_name}", _saved_property(saved_name))
        setattr(cls, f"_raw_saved_{saved_name}", _raw_saved_property(saved_name))
    cls.__module__ = "myautograd.autograd.generated"
    # The plans the fast recording paths use: only the first input needs a gradient (x * 2,
    # unary ops), or every input does.
    cls._plan_first = cls.save_plan((True,) + (False,) * (len(inputs) - 1)) if inputs else ()
    NODES[name] = cls
    return cls
