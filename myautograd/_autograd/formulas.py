"""Backward nodes built from derivative formulas (the table is ``myautograd/_ops/derivatives.py``).

``derivative(name, inputs, saves=..., **formulas)`` defines the node class ``name`` (torch's class
name, e.g. ``MulBackward0``). Each formula is a function whose *parameter names* say what it
reads:

* ``grad``: the gradient of the output; ``grads``: the list of gradients of every output;
* ``result`` (or ``result0``, ``result1``, ...): the outputs; the input names: the inputs;
* ``input_index``: for a formula given with ``each=``, the position of the input it differentiates;
* ``F``: the math namespace (NumPy arrays in a plain backward, tensors under ``create_graph``);
* any other name: a non-tensor argument the forward saves, declared in ``saves``.

Registration refuses a formula that reads a name its forward does not save. A node saves what
the formulas of the inputs that need a gradient read, and what torch's generated code saves for
any node (``FormulaNode.always_saved``: the outputs a formula reads, what several read); saved
values are readable as ``_saved_<name>`` (a freed saved tensor raises). A formula computes new
arrays: it never returns a saved value unchanged (the engine may adopt what it returns as a
leaf's ``.grad``).

Complex numbers follow torch's convention (the conjugate Wirtinger derivative): the gradient of a
holomorphic ``f`` is ``grad * f'(z).conj()``. The table writes most formulas as the derivative
itself, ``f'(z)`` (``grad * F.cos(self)``), the form that is right for real numbers; a node of
such an entry (``holomorphic=True``, the default) evaluates them in a backward on the
conjugates of the values they read (``conjugating``), so that ``grad * F.cos(self.conj())`` is
``grad * cos(self).conj()`` for every function with real Taylor coefficients, and products,
quotients and matrix products get the conjugated factors torch's derivatives.yaml writes.
Forward mode evaluates the same formulas on the values as they are (``Formula.raw``), which is
the tangent ``f'(z) * t``. Entries that are not holomorphic (``abs``, ``angle``, ``sgn``, the
norms, ``real``, ``view_as_real``...) say ``holomorphic=False`` and write torch's backward out.
Where a gradient reaches a real input of a complex op, the engine keeps its real part when it
casts it to the input's dtype (torch's ``handle_r_to_c``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import COMPLEX_FLOATS, _python_scalar_dtype
from .._tensor import Tensor, make_tensor
from .node import Node, SavedTensor, hand_to_hooks, unpack_saved_tensor

NODES: dict[str, type] = {}


def _freed_saved_tensor() -> SavedTensor:
    saved = object.__new__(SavedTensor)
    saved.data = saved.tensor = saved.packed = saved.hooks = saved.edge = None
    saved.counter, saved.version, saved.nonleaf, saved.output_nr = [0], 0, False, -1
    return saved


FREED_NUMBER = _freed_saved_tensor()  # what a saved Python-number operand becomes once freed
SPECIAL = ("grad", "grads", "F", "input_index")
on_define = None  # while the fast paths are on: fast.specialise, applied to each new node class


def is_result_name(name: str) -> bool:
    """``result``, ``result0``, ``result1``, ...: an output of the op."""
    return name == "result" or (name.startswith("result") and name[6:].isdigit())


_ndarray = np.ndarray
REAL_SCALARS = frozenset((float, int, bool, type(None), str))  # classes of values that are never complex


def _is_complex(value) -> bool:
    """A complex array, tensor or Python number (or a list or tuple holding one)."""
    cls = value.__class__
    if cls in REAL_SCALARS:
        return False
    if cls is complex:
        return True
    if cls is list or cls is tuple:  # most often sizes: Python integers
        for v in value:
            if v.__class__ not in REAL_SCALARS and _is_complex(v):
                return True
        return False
    dtype = getattr(value._data if isinstance(value, Tensor) else value, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", None) == "c"


def _conj(value):
    cls = value.__class__
    if cls is complex:
        return value.conjugate()
    if cls is list or cls is tuple:
        return cls(_conj(v) for v in value)
    if isinstance(value, Tensor):
        return value.conj() if value._data.dtype.kind == "c" else value
    return value.conj() if getattr(getattr(value, "dtype", None), "kind", None) == "c" else value


def conjugating(fn: Callable, params: tuple[str, ...]) -> Callable:
    """``fn`` (a formula written as the derivative ``f'(z)``) as a backward evaluates it: on the
    conjugates of the complex values it reads (inputs, outputs, saved arguments; not the
    gradients). A formula that reads no value, or none complex, runs as it is."""
    positions = tuple(i for i, param in enumerate(params) if param not in SPECIAL)
    if not positions:
        return fn

    def backward(*arguments):
        for i in positions:
            value = arguments[i]
            cls = value.__class__
            if (value.dtype not in COMPLEX_FLOATS) if cls is _ndarray else cls in REAL_SCALARS:
                continue  # the common cases, decided without a call
            if _is_complex(value):
                arguments = tuple(_conj(a) if j in positions else a for j, a in enumerate(arguments))
                break
        return fn(*arguments)

    backward.__name__ = getattr(fn, "__name__", "formula")
    backward.__wrapped__ = fn
    return backward


class Formula:
    """One derivative formula and the names of what it reads; ``evaluate`` calls it. ``raw``: the
    formula as written (forward mode's); ``fn``: what a backward calls, the formula evaluated on
    conjugated values where the entry is holomorphic (see the module docstring)."""

    __slots__ = ("fn", "raw", "params")

    def __init__(self, fn: Callable, holomorphic: bool = True) -> None:
        self.raw = fn
        self.params = tuple(inspect.signature(fn).parameters)
        self.fn = conjugating(fn, self.params) if holomorphic else fn

    def evaluate(self, grad, grads, stash: dict, mode, node: Node, index: int, F: type):  # noqa: N803 - the formulas' name
        """Call the formula with each parameter fetched by its name (``F``: ``mode.math`` of the gradient)."""
        arguments = []
        for param in self.params:
            if param == "grad":
                arguments.append(grad)
            elif param == "grads":
                arguments.append(grads)
            elif param == "F":
                arguments.append(F)
            elif param == "input_index":
                arguments.append(index)
            else:
                value = stash[param]
                arguments.append(mode.unpack(value, node) if value.__class__ is SavedTensor else value)
        return self.fn(*arguments)


class FormulaNode(Node):
    """A node whose backward evaluates the table's formulas for the inputs that need them."""

    __slots__ = ()
    _inputs: tuple[str, ...] = ()
    _saves: tuple[str, ...] = ()
    _formulas: tuple[Formula | None, ...] = ()
    _each: Formula | None = None
    _multi_output = False
    _unpack_order: tuple[str, ...] = ()   # torch's order, where it is not the saving order (_ops/unpack_order.py)
    _frees: tuple[str, ...] = ()          # saved non-tensor values that stand for tensors torch saves
    _always_saved: tuple[str, ...] | None = None  # worked out by always_saved()
    _guarded = False                      # torch guards every saved input on the gradients that read it
    forward_rule: Any = "transpose"       # how forward mode gets the output tangents (see forward.py)
    _forward_op: str | None = None        # torch's op name in its error, for an op without a forward rule
    _holomorphic = True                   # formulas written as f'(z), conjugated in a backward (module docstring)

    @classmethod
    def forward_op_name(cls) -> str:
        """The op torch names when it has no forward formula: ``_cdist_forward``, by default the node's op in snake case."""
        if cls._forward_op:
            return cls._forward_op
        name = cls.__name__.rpartition("Backward")[0] or cls.__name__
        return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))

    @classmethod
    def formula_for(cls, index: int) -> Formula | None:
        return cls._each if cls._each is not None else cls._formulas[index]

    @classmethod
    def saved_names(cls, needs: tuple[bool, ...]) -> tuple[str, ...]:
        """The names to save when ``needs`` says which inputs need a gradient: what their
        formulas read, apart from the gradients, ``F`` and ``input_index``; and, whatever the
        inputs need, what torch's generated code saves unconditionally (``always_saved``)."""
        wanted: dict[str, None] = {}
        for index, need in enumerate(needs):
            formula = cls.formula_for(index) if need else None
            if formula is not None:
                for param in formula.params:
                    if param not in SPECIAL:
                        wanted[param] = None
        for name in cls.always_saved():
            wanted[name] = None
        return tuple(wanted)

    @classmethod
    def always_saved(cls) -> tuple[str, ...]:
        """What torch's generated code saves for any node it creates: the outputs a formula reads,
        and what the formulas of more than one input read (it only leaves out a value that one
        input's formula alone reads, when that input needs no gradient). A ``guarded`` node's entry
        in torch's table guards each saved input on the gradients that read it (``wrap_opt_if``):
        it saves only what the inputs that need a gradient read."""
        found = cls.__dict__.get("_always_saved")
        if found is None:
            uses: dict[str, int] = {}
            for index in range(len(cls._inputs)):
                formula = cls.formula_for(index)
                for param in () if formula is None else formula.params:
                    if param not in SPECIAL:
                        uses[param] = uses.get(param, 0) + 1
            found = tuple(name for name, count in uses.items()
                          if (count > 1 and not cls._guarded) or is_result_name(name))
            cls._always_saved = found
        return found

    def release(self) -> None:
        """Free the saved values. A Python number saved for an input (``other`` of ``x * 2``)
        stands for the 0-dim tensor torch wraps it in, which torch saves and frees like any
        saved tensor: after a backward without retain_graph it reads as freed too; so does a
        value declared in ``frees`` (an index key, which torch saves as tensors)."""
        stash = self._stash
        if stash:
            inputs, frees = self._inputs, self._frees
            for name, value in stash.items():
                if value.__class__ is SavedTensor:
                    value.free()
                elif name in inputs or name in frees:
                    stash[name] = FREED_NUMBER

    def apply(self, grads: list, mode) -> list:
        stash = self._stash
        if stash:
            check_saved(self, stash)
        if self._multi_output:
            if all(g is None for g in grads):
                return [None] * len(self._children)
            grad = None
        else:
            grad = grads[0]
            if grad is None:
                return [None] * len(self._children)
        visited = mode.visited
        F = mode.math(grad if grad is not None else next(g for g in grads if g is not None))  # noqa: N806
        results = []
        for index, node in enumerate(self._children):
            formula = self.formula_for(index)
            if node is None or formula is None or (visited is not None and node not in visited):
                results.append(None)
            else:
                results.append(formula.evaluate(grad, grads, self._stash, mode, self, index, F))
        return results


def check_saved(node: FormulaNode, stash: dict) -> None:
    """Check every tensor ``node`` saved, as torch unpacks them all before any formula runs: one
    modified in place since fails the backward even if the gradient reading it is not wanted; the
    first in torch's order (``_unpack_order``, then the saving order) is the one named."""
    order = node._unpack_order
    for name in (*order, *stash) if order else stash:
        value = stash.get(name)
        if value.__class__ is SavedTensor and value.counter[0] != value.version:
            value.check(node)


def _saved_property(name: str) -> property:
    def read(node: FormulaNode) -> Any:
        value = node._stash.get(name) if node._stash else None
        if type(value) is SavedTensor:
            return unpack_saved_tensor(value, node)
        if name not in (node._stash or {}):
            return None
        if name == "dim":
            return _as_unsigned(value)
        if name not in node._inputs:
            return value
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
        tensor = unpack_saved_tensor(saved, self._node)
        hand_to_hooks(saved, tensor, pack_hook(tensor), (pack_hook, unpack_hook))

    def unpack(self):
        return unpack_saved_tensor(self._saved, self._node)


RawSavedTensor.__name__ = RawSavedTensor.__qualname__ = "SavedTensor"


def _raw_saved_property(name: str) -> property:
    def read(node: FormulaNode):
        value = node._stash.get(name) if node._stash else None
        return RawSavedTensor(node, value) if type(value) is SavedTensor else None

    return property(read)


def wrap_saved_scalar(value):
    """A saved Python number reads back as a 0-dim tensor (torch wraps numbers), other values as is."""
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return value
    return make_tensor(np.asarray(value, dtype=_python_scalar_dtype(value).np))


def _as_unsigned(dim):
    """torch reads saved dims back as unsigned 64-bit integers: -1 shows as 2**64 - 1."""
    if isinstance(dim, (tuple, list)):
        return tuple(_as_unsigned(d) for d in dim)
    return dim + 2**64 if isinstance(dim, int) and dim < 0 else dim


def _check_reads(name: str, inputs: tuple, saves: tuple, formulas: dict[str, Formula]) -> None:
    """Every name a formula reads must be a gradient, ``F``, an output, an input, or declared saved."""
    for target, formula in formulas.items():
        for param in formula.params:
            if param in SPECIAL or param in inputs or param in saves or is_result_name(param):
                continue
            raise ValueError(f"derivative {name}: the formula for {target} reads {param!r}, which its forward does "
                             f"not save (inputs: {' '.join(inputs)}; saves: {' '.join(saves) or 'nothing'})")
    read = {p for formula in formulas.values() for p in formula.params}
    unread = [s for s in saves if s not in read]
    if unread:
        raise ValueError(f"derivative {name}: saves {' '.join(unread)}, which no formula reads")


def derivative(name: str, inputs: tuple[str, ...] | str, *, saves: tuple[str, ...] | str = (),
               multi_output: bool = False, each: Callable | None = None, cpp_name: bool = False,
               frees: tuple[str, ...] | str = (), guarded: bool = False, forward: Any = "transpose",
               forward_op: str | None = None, holomorphic: bool = True, **formulas: Callable | None) -> type:
    """Define the backward node class ``name`` from one formula per input (see module docstring).

    ``saves``: the non-tensor arguments the forward passes to ``record`` for the formulas.
    ``multi_output``: the op has several outputs (formulas read ``grads``). ``each``: one formula
    for every input (reads ``input_index``). ``cpp_name``: torch's hand-written nodes report
    ``name()`` with their C++ namespace, ``torch::autograd::CopyBackwards``; generated ones just
    ``MulBackward0``. ``frees``: names in ``saves`` whose values stand for tensors torch saves (an
    index key): freed with the graph, as saved tensors are. ``guarded``: see ``always_saved``.
    ``forward``: the forward-mode rule, ``"elementwise"``, ``"transpose"`` (the default), a function
    ``(tangents, values, F)``, or None where torch has no forward formula (``forward_op``: the op
    its error names); see ``forward.py``. ``holomorphic``: the formulas are the derivative ``f'(z)``,
    conjugated in a backward; False: they are torch's complex backward as it is (module docstring).
    """
    if name in NODES:
        raise ValueError(f"derivative {name} defined twice")
    inputs = tuple(inputs.split()) if isinstance(inputs, str) else tuple(inputs)
    saves = tuple(saves.split()) if isinstance(saves, str) else tuple(saves)
    frees = tuple(frees.split()) if isinstance(frees, str) else tuple(frees)
    if not set(frees) <= set(saves):
        raise ValueError(f"{name}: frees {sorted(set(frees) - set(saves))}, which it does not save")
    unknown = set(formulas) - set(inputs)
    if unknown:
        raise ValueError(f"{name}: formulas for unknown inputs {sorted(unknown)}")
    given = {target: Formula(fn, holomorphic) for target, fn in formulas.items() if fn is not None}
    each_formula = None if each is None else Formula(each, holomorphic)
    _check_reads(name, inputs, saves, {**given, **({"each input": each_formula} if each_formula else {})})
    namespace: dict[str, Any] = {
        "__slots__": (),
        "_node_name": f"torch::autograd::{name}" if cpp_name else name,
        "_inputs": inputs,
        "_saves": saves,
        "_formulas": tuple(given.get(i) for i in inputs),
        "_each": each_formula,
        "_multi_output": multi_output,
        "_frees": frees,
        "_guarded": guarded,
        "forward_rule": forward,
        "_forward_op": forward_op,
        "_holomorphic": holomorphic,
    }
    cls = type(name, (FormulaNode,), namespace)
    every = [f for f in (*cls._formulas, cls._each) if f is not None]
    for saved_name in sorted({p for f in every for p in f.params if p not in SPECIAL}):
        setattr(cls, f"_saved_{saved_name}", _saved_property(saved_name))
        setattr(cls, f"_raw_saved_{saved_name}", _raw_saved_property(saved_name))
    cls.__module__ = "myautograd.autograd.generated"
    NODES[name] = cls
    if on_define is not None:
        on_define(cls)
    return cls
