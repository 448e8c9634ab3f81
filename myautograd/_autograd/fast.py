"""The fast paths: every specialisation of recording and of the backward pass, behind one switch.

The reference path is the code to read: ``record`` (``record.py``), ``FormulaNode.apply`` and
``Formula.evaluate`` (``formulas.py``) and the engine's loop (``engine.py``). It builds each node
and runs each step in the plainest way. An op costs a few microseconds of Python, which is all
the time there is for tensors of a few elements, so the fast paths here do the same work with
fewer steps. They build the same nodes (the same classes, edges, input metadata and saved
values) and compute the same gradients:

1. **Generated formula callers.** ``Formula.evaluate`` fetches a formula's arguments by name,
   one by one; a caller generated once per formula (``_caller``) fetches them in one expression.
2. **Save plans.** What a node saves depends only on its class and on which inputs need a
   gradient; the plan (``_plan``: name, kind, position) is worked out once per combination.
3. **Arity-specialised apply.** Most nodes have one or two inputs; ``_apply_one`` and
   ``_apply_two`` are ``FormulaNode.apply`` without its general loop.
4. **Single-input recording.** ``_record_one`` is ``record`` for an op whose only tensor input is
   ``x`` (unary ops, ``x * 2``): no loop over inputs, the output tensor built in place.
5. **The engine's loop.** ``run_graph`` runs a node with no hooks inline, passes a gradient
   straight on to a node it alone feeds, and runs the node that just became ready next without
   going through the heap when the heap would give it anyway: a chain never touches the heap.

Every node is still set up by ``node.init_node``. The fast paths are on unless the environment
has ``MYAUTOGRAD_FAST_PATHS=0`` when myautograd is imported; ``set_enabled`` switches them at
run time. ``tests/test_fast_paths.py`` runs the operator tests and the catalog both ways and
compares graphs and gradients.

Switching works by installing: while on, ``record.fast_record``, ``record.fast_record_one`` and
``engine.fast_run_graph`` point here (the reference functions hand over to them when set), each
formula's ``call`` is its generated caller, and node classes of one or two inputs have their
specialised ``apply``.
"""

from __future__ import annotations

import heapq
import os

import numpy as np

from .._grad_mode import STATE
from .._tensor import Tensor, meta_of
from . import engine, formulas, record
from .engine import evaluate, heap_key, validate_outputs
from .formulas import NODES, Formula, FormulaNode, is_result_name
from .node import NO_EDGE, AccumulateGrad, SavedTensor, gradient_edge, init_node, save
from .record import _SAVED_HOOKS, _host_scalars_as_numbers, as_array, input_meta, save_for_backward

ENABLED = False
_new = object.__new__
_ndarray = np.ndarray


def set_enabled(enabled: bool) -> None:
    """Install (True) or remove (False) the fast paths."""
    global ENABLED
    ENABLED = bool(enabled)
    record.fast_record = _record if ENABLED else None
    record.fast_record_one = _record_one if ENABLED else None
    engine.fast_run_graph = run_graph if ENABLED else None
    formulas.on_define = specialise if ENABLED else None
    for cls in NODES.values():
        specialise(cls) if ENABLED else _generalise(cls)


class enabled:
    """``with fast.enabled(False): ...``: the fast paths on or off for a block."""

    def __init__(self, flag: bool) -> None:
        self.flag = flag

    def __enter__(self) -> None:
        self.previous = ENABLED
        set_enabled(self.flag)

    def __exit__(self, *exc) -> None:
        set_enabled(self.previous)


# -- 1. generated formula callers ------------------------------------------------------------------
def _caller(formula: Formula):
    """``formula.evaluate`` as one generated expression: each parameter becomes the expression
    that fetches it (``grad``, ``mode.F``, a saved value unpacked for the mode)."""
    arguments = []
    for param in formula.params:
        if param in ("grad", "grads"):
            arguments.append(param)
        elif param == "F":
            arguments.append("mode.F")
        elif param == "input_index":
            arguments.append("index")
        else:
            arguments.append(f"(v if (v := stash[{param!r}]).__class__ is not Saved else mode.unpack(v, node))")
    source = f"lambda grad, grads, stash, mode, node, index: fn({', '.join(arguments)})"
    return eval(source, {"fn": formula.fn, "Saved": SavedTensor})  # noqa: S307 - built from parameter names only


def _formulas_of(cls) -> list[Formula]:
    return [f for f in (*cls._formulas, cls._each) if f is not None]


def specialise(cls) -> None:
    """Give a formula node class its generated callers and, for one or two inputs, its
    specialised ``apply``."""
    for formula in _formulas_of(cls):
        formula.call = _caller(formula)
    if not cls._multi_output and cls._each is None and len(cls._inputs) in (1, 2):
        cls.apply = _apply_one if len(cls._inputs) == 1 else _apply_two
    cls._fast_plan_one = _plan(cls, (True,) + (False,) * (len(cls._inputs) - 1)) if cls._inputs else ()


def _generalise(cls) -> None:
    for formula in _formulas_of(cls):
        formula.call = formula.evaluate
    for name in ("apply", "_fast_plan_one"):
        if name in cls.__dict__:
            delattr(cls, name)


# -- 2. save plans ---------------------------------------------------------------------------------
_PLANS: dict[tuple, tuple] = {}


def _plan(cls, needs: tuple[bool, ...]) -> tuple[tuple[str, str, int], ...]:
    """What ``cls`` saves when ``needs`` says which inputs need a gradient: (name, kind,
    position) with kind "input", "output" or "attr"; ``saved_values`` in record.py, worked out
    once."""
    key = (cls, needs)
    plan = _PLANS.get(key)
    if plan is None:
        entries = []
        for name in cls.saved_names(needs):
            if is_result_name(name):
                entries.append((name, "output", int(name[6:] or 0)))
            elif name in cls._inputs:
                entries.append((name, "input", cls._inputs.index(name)))
            else:
                entries.append((name, "attr", 0))
        plan = _PLANS[key] = tuple(entries)
    return plan


# -- 3. arity-specialised apply --------------------------------------------------------------------
def _apply_one(self: FormulaNode, grads: list, mode) -> list:
    """``FormulaNode.apply`` for nodes of one input."""
    grad = grads[0]
    if grad is None:
        return [None]
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
    (first, _), (second, _) = self.next_functions
    visited = mode.visited
    formulas_ = self._formulas
    stash = self._stash
    if first is None or formulas_[0] is None or (visited is not None and first not in visited):
        result0 = None
    else:
        result0 = formulas_[0].call(grad, grads, stash, mode, self, 0)
    if second is None or formulas_[1] is None or (visited is not None and second not in visited):
        return [result0, None]
    return [result0, formulas_[1].call(grad, grads, stash, mode, self, 1)]


# -- 4. recording ------------------------------------------------------------------------------------
def _record(cls, data, inputs, attrs: dict | None, outputs: int):
    """``record``, with the save plan and the input metadata worked out in one pass."""
    node = _new(cls)
    edges = []
    needs = []
    metas = None
    single = outputs == 1
    if single and type(data) is not _ndarray:
        data = as_array(data)
    for position, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._requires_grad:
            fn = x._grad_fn
            edges.append((fn, x._output_nr) if fn is not None and x._meta is None else gradient_edge(x))
            needs.append(True)
            xd = x._data
            if not single or xd.shape != data.shape or xd.dtype is not data.dtype or type(xd) is not type(data):
                if metas is None:
                    metas = [None] * len(inputs)
                metas[position] = input_meta(xd, data if single else as_array(data[0]), single)
        else:
            edges.append(NO_EDGE)
            needs.append(False)
    if single:
        results = (_output(data, node),)
    else:
        results = tuple(_output(d, node, i) for i, d in enumerate(data))
    plan = _plan(cls, tuple(needs))
    stash = None
    if plan:
        stash = {}
        for name, kind, position in plan:
            if kind == "output":
                stash[name] = save_for_backward(results[position], position)
                continue
            value = inputs[position] if kind == "input" else attrs[name]
            stash[name] = save_for_backward(value) if isinstance(value, Tensor) else value
        if metas is not None and any(m is not None and len(m) > 2 for m in metas):
            _host_scalars_as_numbers(stash)
    init_node(node, tuple(edges), stash, None if metas is None else tuple(metas))
    return results[0] if single else results


def _output(data, node, nr: int = 0) -> Tensor:
    """``make_tensor(data, True, node, nr)`` for a recorded output, field by field."""
    out = _new(Tensor)
    out._data = data if type(data) is _ndarray else as_array(data)
    out._requires_grad = True
    out._grad_fn = node
    out._output_nr = nr
    out._grad = None
    out._vc = [0]
    out._meta = None
    if STATE.inference:
        meta_of(out).inference = True
    return out


def _record_one(cls, data, x: Tensor, attrs: dict | None, numbers: tuple) -> Tensor:
    """``record`` for an op whose only tensor input, ``x``, requires grad; ``numbers``: its
    trailing Python-number operands."""
    node = _new(cls)
    fn = x._grad_fn
    edge = (fn, x._output_nr) if fn is not None and x._meta is None else gradient_edge(x)
    out = _output(data, node)
    data = out._data
    stash = None
    plan = cls._fast_plan_one
    if plan:
        stash = {}
        hooked = bool(_SAVED_HOOKS)
        for name, kind, position in plan:
            if kind == "input":
                if position:
                    stash[name] = numbers[position - 1]
                else:
                    stash[name] = save(x) if x._meta is None and not hooked else save_for_backward(x)
            elif kind == "output":
                stash[name] = save(out, 0) if not hooked else save_for_backward(out, 0)
            else:
                value = attrs[name]
                stash[name] = save_for_backward(value) if isinstance(value, Tensor) else value
    xd = x._data
    if xd.shape == data.shape and xd.dtype is data.dtype and type(xd) is type(data):
        metas = None
    else:
        metas = (input_meta(xd, data),) + (None,) * len(numbers)
        if stash and len(metas[0]) > 2:
            _host_scalars_as_numbers(stash)
    init_node(node, (edge, NO_EDGE) if numbers else (edge,), stash, metas)
    return out


# -- 5. the engine's loop -----------------------------------------------------------------------------
def run_graph(task, buffers: dict, ready: list) -> None:
    """``engine.run_graph`` for a task without ``inputs``, captures or anomaly mode."""
    dependencies = task.dependencies
    mode = task.mode
    keep_graph = task.keep_graph
    note_repeats = None if task.create_graph else task.ownership.note_repeats
    heap = [(heap_key(n), n) for n in ready]
    heapq.heapify(heap)
    node = heapq.heappop(heap)[1] if heap else None
    grads = buffers.pop(node, None) or [None]
    while node is not None:
        if node._extras is None and node.__class__ is not AccumulateGrad:
            outputs = node.apply(grads, mode)  # what evaluate does for a node without hooks
            if node._input_meta is not None:
                outputs = validate_outputs(node, outputs, mode)
            if not keep_graph:
                node.release()
        else:
            outputs = evaluate(node, grads, task)
        following = following_grads = None
        if outputs is not None:
            if note_repeats is not None and len(outputs) > 1:
                note_repeats(outputs)
            for (child, nr), grad in zip(node.next_functions, outputs):
                if child is None:
                    continue
                left = dependencies[child] - 1
                dependencies[child] = left
                if left == 0 and nr == 0 and child not in buffers:
                    child_grads = [grad]  # its only producer: no buffer needed
                else:
                    if grad is not None:
                        task.deliver(buffers, child, nr, grad)
                    if left:
                        continue
                    child_grads = buffers.pop(child, None) or [None]
                if following is not None:
                    heapq.heappush(heap, (heap_key(following), following))
                    buffers[following] = following_grads
                following, following_grads = child, child_grads
        if following is not None and (not heap or heap_key(following) < heap[0][0]):
            node, grads = following, following_grads
        else:
            if following is not None:
                heapq.heappush(heap, (heap_key(following), following))
                buffers[following] = following_grads
            node = heapq.heappop(heap)[1] if heap else None
            grads = buffers.pop(node, None) or [None]


set_enabled(os.environ.get("MYAUTOGRAD_FAST_PATHS", "1") != "0")
