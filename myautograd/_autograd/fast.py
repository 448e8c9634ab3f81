"""The fast paths: every specialisation of recording and of the backward pass, behind one switch.

The reference path is the code to read: ``record`` (``record.py``), ``FormulaNode.apply`` and
``Formula.evaluate`` (``formulas.py``) and the engine's loop (``engine.py``). It builds each node
and runs each step in the plainest way. An op costs a few microseconds of Python, which is all
the time there is for tensors of a few elements, so the fast paths here do the same work with
fewer steps. They build the same nodes (the same classes, edges, input metadata and saved
values) and compute the same gradients:

1. **Save plans.** What a node saves depends only on its class and on which inputs need a
   gradient; the plan (``_plan``: name, kind, position) is worked out once per combination.
2. **Generated apply.** Most nodes have one or two inputs; for their classes ``apply`` is
   ``FormulaNode.apply`` written out (``_generated_apply``, the one piece of generated code): no
   loop, each formula called with its arguments fetched in place. It pays: in paired rounds
   against the same build without it (two runs each, on a loaded 2-core machine), the 1000-op
   chain took 1.09 and 1.10 times as long without it, the RNN 1.10 and 1.10; the MLP step and
   the HVP moved within their noise. Generated callers for the other formulas (nodes of three or
   more inputs, or several outputs) were removed: no benchmark workload runs such a node.
3. **Recording.** ``_record_one`` is ``record`` for an op whose only tensor input is ``x``
   (unary ops, ``x * 2``): no loop over inputs, the output tensor built in place, and for an
   elementwise op no comparison of layouts. ``_record`` unrolls the loop for two inputs, and
   ``_recorded`` checks for an input that requires grad without a generator.
4. **The engine's loop.** ``run_graph`` runs a node with no hooks or captures inline, passes a
   gradient straight on to a node it alone feeds, and runs the node that just became ready next
   without going through the ready queue when the queue is empty (a push and a pop would give
   it back and leave the queue as it was): a chain never touches the queue. (Anomaly mode always
   takes the reference loop.)

Every node is still set up by ``node.init_node``. The fast paths are on unless the environment
has ``MYAUTOGRAD_FAST_PATHS=0`` when myautograd is imported; ``set_enabled`` (or ``with
enabled(False):``) switches them at run time. ``tests/test_fast_paths.py`` runs the operator
tests and the catalog both ways and compares graphs and gradients.

Switching works by installing: while on, ``record.fast_record``, ``record.fast_record_one``,
``record.fast_recorded`` and ``engine.fast_run_graph`` point here (the reference functions hand
over to them when they are set), and node classes of one or two inputs have their generated
``apply``.
"""

from __future__ import annotations

import os

import numpy as np

from .._dtype import COMPLEX_FLOATS
from .._dtype import REDUCED_FLOATS as REDUCED
from .._grad_mode import STATE
from .._tensor import Tensor, make_tensor, meta_of
from . import engine, formulas, record
from .engine import evaluate, validate_outputs
from .formula_math import NativeArrayMath
from .formulas import NODES, check_saved, is_result_name
from .node import AccumulateGrad, SavedTensor, gradient_edge, init_node, save
from .ready_queue import ReadyQueue
from .record import _SAVED_HOOKS, _host_scalars_as_numbers, as_array, input_meta, mixed_dtypes, save_for_backward

ENABLED = False
_new = object.__new__
_ndarray = np.ndarray
# Input numbers, shared: most are all zeros, and a new tuple per node would be one more object
_ZERO, _ZERO_ZERO = (0,), (0, 0)
_NRS: dict[tuple, tuple] = {}


def _shared(nrs: tuple) -> tuple:
    return _NRS.setdefault(nrs, nrs)


def set_enabled(enabled: bool) -> None:
    """Install (True) or remove (False) the fast paths."""
    global ENABLED
    ENABLED = bool(enabled)
    record.fast_record = _record if ENABLED else None
    record.fast_record_one = _record_one if ENABLED else None
    record.fast_recorded = _recorded if ENABLED else None
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


# -- 2. generated apply ------------------------------------------------------------------------------
def _argument(param: str, index: str) -> str:
    """The expression that fetches a formula parameter inside a generated ``apply`` (which has
    ``grad``, ``grads``, ``stash``, ``mode``, ``node`` and ``F = mode.math(grad)`` at hand;
    ``index`` is the input's): what ``Formula.evaluate`` fetches for it."""
    if param in ("grad", "grads"):
        return param
    if param == "F":
        return "F"
    if param == "input_index":
        return index
    return f"(v if (v := stash[{param!r}]).__class__ is not Saved else mode.unpack(v, node))"


_APPLY_TEMPLATE = """
def apply(node, grads, mode):
    grad = grads[0]
    if grad is None:
        return {nones}
    stash = node._stash
    if stash:
        check_saved(node, stash)
    visited = mode.visited
{math}{body}
"""
_EDGE_TEMPLATE = """\
    child = node._children[{index}]
    if child is None or (visited is not None and child not in visited):
        result{index} = None
    else:
{call}"""
# A formula that ``formulas.conjugating`` wraps: its values fetched first, and the formula as written
# called directly when none is complex (the wrapper's own test, inlined: one call less per node).
_CONJUGATING_CALL = """\
{fetches}        if {all_real}:
            result{index} = raw{index}({arguments})
        else:
            result{index} = formula{index}({arguments})
"""
_REAL = ("((v{index}_{k}.dtype not in COMPLEX) if v{index}_{k}.__class__ is ndarray "
         "else v{index}_{k}.__class__ in REAL_SCALARS)")


# ``F = mode.math(grad)``, with a plain backward's common case inlined (only its gradients are arrays)
_MATH = ("    F = NativeArrayMath if grad.__class__ is ndarray and grad.dtype not in REDUCED "
         "else mode.math(grad)\n")


def _generated_apply(cls):
    """``FormulaNode.apply`` written out for a class of one or two inputs: no loop, and each
    formula called with its arguments fetched in place."""
    count = len(cls._inputs)
    namespace = {"Saved": SavedTensor, "check_saved": check_saved, "ndarray": _ndarray,
                 "COMPLEX": COMPLEX_FLOATS, "REAL_SCALARS": formulas.REAL_SCALARS,
                 "REDUCED": REDUCED, "NativeArrayMath": NativeArrayMath}
    body = []
    for index, formula in enumerate(cls._formulas):
        if formula is None:
            body.append(f"    result{index} = None\n")
            continue
        namespace[f"formula{index}"] = formula.fn
        if formula.fn is formula.raw:
            arguments = ", ".join(_argument(param, str(index)) for param in formula.params)
            call = f"        result{index} = formula{index}({arguments})\n"
        else:
            namespace[f"raw{index}"] = formula.raw
            values = [param for param in formula.params if param not in formulas.SPECIAL]
            fetches = "".join(f"        v{index}_{k} = {_argument(param, str(index))}\n" for k, param in enumerate(values))
            arguments = ", ".join(f"v{index}_{values.index(param)}" if param in values else _argument(param, str(index))
                                  for param in formula.params)
            all_real = " and ".join(_REAL.format(index=index, k=k) for k in range(len(values)))
            call = _CONJUGATING_CALL.format(fetches=fetches, all_real=all_real, index=index, arguments=arguments)
        body.append(_EDGE_TEMPLATE.format(index=index, call=call))
    body.append(f"    return [{', '.join(f'result{i}' for i in range(count))}]")
    uses_math = any(formula is not None and "F" in formula.params for formula in cls._formulas)
    source = _APPLY_TEMPLATE.format(nones=[None] * count, body="".join(body),
                                    math=_MATH if uses_math else "")
    exec(source, namespace)  # noqa: S102 - built from parameter names only
    apply = namespace["apply"]
    apply.__qualname__ = f"{cls.__name__}.apply"
    return apply


def specialise(cls) -> None:
    """Give a formula node class of one or two inputs its generated ``apply``, and any class its
    save plans for recording."""
    if not cls._multi_output and cls._each is None and len(cls._inputs) in (1, 2):
        cls.apply = _generated_apply(cls)
    cls._fast_plan_one = _plan(cls, (True,) + (False,) * (len(cls._inputs) - 1)) if cls._inputs else ()
    cls._fast_plans = {}  # by which inputs need a gradient, as bits


def _generalise(cls) -> None:
    for name in ("apply", "_fast_plan_one", "_fast_plans"):
        if name in cls.__dict__:
            delattr(cls, name)


# -- 1. save plans ---------------------------------------------------------------------------------
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


# -- 3. recording ------------------------------------------------------------------------------------
def _record(cls, data, inputs, attrs: dict | None, outputs: int):
    """``record``, with the edges, the input metadata and the save plan worked out in one pass."""
    node = _new(cls)
    children = []
    nrs = []
    needs = 0  # bit i set: input i needs a gradient
    metas = None
    other_device = False
    single = outputs == 1
    if single and type(data) is not _ndarray:
        data = as_array(data)
    if single and len(inputs) == 2:  # most ops with two tensors: the loop below, unrolled
        a, b = inputs
        children, nrs = [None, None], [0, 0]
        mixed = isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype is not b._data.dtype
        if isinstance(a, Tensor) and a._requires_grad:
            fn = a._grad_fn
            if fn is not None and a._meta is None:
                children[0], nrs[0] = fn, a._output_nr
            else:
                children[0], nrs[0] = gradient_edge(a)
            needs = 1
            ad = a._data
            if mixed or ad.shape != data.shape or ad.dtype is not data.dtype or type(ad) is not type(data) \
                    or ad.dtype in REDUCED:
                meta = input_meta(ad, data, not mixed)
                metas = [meta, None]
                other_device = len(meta) > 2
        if isinstance(b, Tensor) and b._requires_grad:
            fn = b._grad_fn
            if fn is not None and b._meta is None:
                children[1], nrs[1] = fn, b._output_nr
            else:
                children[1], nrs[1] = gradient_edge(b)
            needs |= 2
            bd = b._data
            if mixed or bd.shape != data.shape or bd.dtype is not data.dtype or type(bd) is not type(data) \
                    or bd.dtype in REDUCED:
                meta = input_meta(bd, data, not mixed)
                if metas is None:
                    metas = [None, meta]
                else:
                    metas[1] = meta
                other_device = other_device or len(meta) > 2
    else:
        bit = 1
        fits = single and not mixed_dtypes(inputs)
        for position, x in enumerate(inputs):
            if isinstance(x, Tensor) and x._requires_grad:
                fn = x._grad_fn
                if fn is not None and x._meta is None:
                    children.append(fn)
                    nrs.append(x._output_nr)
                else:
                    fn, nr = gradient_edge(x)
                    children.append(fn)
                    nrs.append(nr)
                needs |= bit
                xd = x._data
                if not fits or xd.shape != data.shape or xd.dtype is not data.dtype or type(xd) is not type(data) \
                        or xd.dtype in REDUCED:
                    if metas is None:
                        metas = [None] * len(inputs)
                    meta = metas[position] = input_meta(xd, data if single else as_array(data[0]), fits)
                    other_device = other_device or len(meta) > 2
            else:
                children.append(None)
                nrs.append(0)
            bit <<= 1
    if single:
        results = (make_tensor(data, True, node, 0),)
    else:
        results = tuple(make_tensor(d, True, node, i) for i, d in enumerate(data))
    plan = cls._fast_plans.get(needs)
    if plan is None:
        plan = cls._fast_plans[needs] = _plan(cls, tuple(bool(needs >> i & 1) for i in range(len(inputs))))
    stash = None
    if plan:
        stash = {}
        plain = not _SAVED_HOOKS
        for name, kind, position in plan:
            value = results[position] if kind == "output" else inputs[position] if kind == "input" else attrs[name]
            if value.__class__ is not Tensor and not isinstance(value, Tensor):
                stash[name] = value
            elif kind == "output":
                stash[name] = save(value, position) if plain else save_for_backward(value, position)
            else:
                stash[name] = save(value) if plain and value._meta is None else save_for_backward(value)
        if other_device:
            _host_scalars_as_numbers(stash)
    init_node(node, tuple(children), _shared(tuple(nrs)), stash, None if metas is None else tuple(metas))
    return results[0] if single else results


def _recorded(cls, data, inputs, attrs: dict | None) -> Tensor:
    """``record.recorded``: the check whether anything requires grad, without a generator."""
    if STATE.grad_enabled:
        for x in inputs:
            if isinstance(x, Tensor) and x._requires_grad:
                return _record(cls, data, inputs, attrs, 1)
    return make_tensor(data)


def _record_one(cls, data, x: Tensor, attrs: dict | None, numbers: tuple, elementwise: bool) -> Tensor:
    """``record`` for an op whose only tensor input, ``x``, requires grad; ``numbers``: its
    trailing Python-number operands. The output tensor is built here, field by field."""
    node = _new(cls)
    fn = x._grad_fn
    if fn is not None and x._meta is None:
        nr = x._output_nr
    else:
        fn, nr = gradient_edge(x)
    if type(data) is not _ndarray:
        data = as_array(data)
    out = _new(Tensor)
    out._data = data
    out._requires_grad = True
    out._grad_fn = node
    out._output_nr = 0
    out._grad = None
    out._vc = None
    out._meta = None
    if STATE.inference:
        meta_of(out).inference = True
    stash = None
    plan = cls._fast_plan_one
    if plan:
        stash = {}
        plain = not _SAVED_HOOKS
        for name, kind, position in plan:
            if kind == "input":
                if position:
                    stash[name] = numbers[position - 1]
                else:
                    stash[name] = save(x) if plain and x._meta is None else save_for_backward(x)
            elif kind == "output":
                stash[name] = save(out, 0) if plain else save_for_backward(out, 0)
            else:
                value = attrs[name]
                stash[name] = save_for_backward(value) if isinstance(value, Tensor) else value
    xd = x._data
    if elementwise or (xd.shape == data.shape and xd.dtype is data.dtype and type(xd) is type(data)
                       and xd.dtype not in REDUCED):
        metas = None
    else:
        metas = (input_meta(xd, data),) + (None,) * len(numbers)
        if stash and len(metas[0]) > 2:
            _host_scalars_as_numbers(stash)
    if numbers:
        init_node(node, (fn, None), _ZERO_ZERO if nr == 0 else (nr, 0), stash, metas)
    else:
        init_node(node, (fn,), _ZERO if nr == 0 else (nr,), stash, metas)
    return out


# -- 4. the engine's loop -----------------------------------------------------------------------------
def run_graph(task, buffers: dict, ready: list) -> None:
    """``engine.run_graph``: a node without hooks or captures runs inline; a node it alone feeds
    gets its gradient without a buffer and, when the ready queue is empty, runs next."""
    dependencies = task.dependencies
    mode = task.mode
    keep_graph = task.keep_graph
    active = task.active
    running = mode.running
    special = set(task.captures) | set(task.retain_targets)  # nodes that go through evaluate
    note_repeats = None if task.create_graph else task.ownership.note_repeats
    queue = ReadyQueue(ready)
    node = queue.pop() if queue else None
    grads = buffers.pop(node, None) or [None]
    while node is not None:
        if (node._extras is None and node.__class__ is not AccumulateGrad and (running is None or node in running)
                and not (special and node in special)):
            outputs = node.apply(grads, mode)  # what evaluate does for such a node
            if node._input_meta is not None:
                outputs = validate_outputs(node, outputs, mode)
            if not keep_graph and (node._stash is not None or node._frees_more):
                node.release()
        else:
            outputs = evaluate(node, grads, task)
        following = following_grads = None
        if outputs is not None:
            if note_repeats is not None and len(outputs) > 1 and (
                    len(outputs) > 2 or (outputs[0] is not None and outputs[1] is not None)):
                note_repeats(outputs)
            for child, nr, grad in zip(node._children, node._nrs, outputs):
                if child is None or (active is not None and child not in active):
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
                    queue.push(following)
                    buffers[following] = following_grads
                following, following_grads = child, child_grads
        if following is not None and not queue:  # a push and a pop would give it back at once
            node, grads = following, following_grads
        else:
            if following is not None:
                queue.push(following)
                buffers[following] = following_grads
            node = queue.pop() if queue else None
            grads = buffers.pop(node, None) or [None]


set_enabled(os.environ.get("MYAUTOGRAD_FAST_PATHS", "1") != "0")
