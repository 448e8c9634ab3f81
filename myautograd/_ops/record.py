"""Recording an operation in the graph: the step every differentiable op ends with.

An op computes its result array, then, when grad mode is on and an input requires grad, calls
``record`` with the node class from the derivative table, its inputs and any non-tensor
arguments the formulas read. ``record`` collects the edges and the input metadata, saves what
the formulas of the inputs that need a gradient read (as ``SavedTensor``), and returns the
output tensor(s) carrying the new node.
"""

from __future__ import annotations

import traceback

import numpy as np

from .. import _backend
from .._autograd import graph as _graph
from .._autograd.anomaly import STATE as ANOMALY
from .._autograd.graph import SavedTensor, init_node, save
from .._grad_mode import STATE
from .._tensor import Tensor, gradient_edge, make_tensor, meta_of

NO_EDGE = (None, 0)
_new = object.__new__
_ndarray = np.ndarray
_sequence = _graph._sequence


def _as_array(data):
    return np.asarray(data) if isinstance(data, np.generic) else data


def _input_meta(xd, out) -> tuple:
    """What the engine checks an input's gradient against: shape and dtype, plus the device when
    it is not the output's (a 0-dim CPU tensor in a CUDA op)."""
    if type(xd) is type(out):
        return (xd.shape, xd.dtype)
    return (xd.shape, xd.dtype, _backend.device_of(xd))


def _host_scalars_as_numbers(stash: dict) -> None:
    """Saved 0-dim CPU arrays of an op on another device, as NumPy scalars: the formulas combine
    them with device gradients, and CuPy accepts scalars, not host arrays."""
    for value in stash.values():
        if isinstance(value, SavedTensor) and type(value.data) is np.ndarray and value.data.ndim == 0:
            value.data = value.data[()]
_SAVED_HOOKS: list[tuple] = []  # (pack, unpack) pairs of torch.autograd.graph.saved_tensors_hooks


def requires_grad(*inputs) -> bool:
    """Whether an op on ``inputs`` is recorded: grad mode is on and some tensor requires grad."""
    if not STATE.grad_enabled:
        return False
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            return True
    return False


def any_requires_grad(inputs) -> bool:
    return STATE.grad_enabled and any(isinstance(x, Tensor) and x._requires_grad for x in inputs)


def record(cls, data, inputs, attrs: dict | None = None, *, outputs: int = 1):
    """Create the node ``cls`` for an op on ``inputs`` with result ``data`` (a tuple of arrays when
    ``outputs`` > 1) and return the output tensor(s).

    This runs once per recorded op, so it is written for speed. Input metadata (shape, dtype) is
    kept only for inputs whose gradient may need summing down or casting, i.e. whose shape or
    dtype differs from the output's; for the others the formulas already give the right one.
    """
    node = _new(cls)
    edges = []
    needs = []
    metas = None
    single = outputs == 1
    if single and type(data) is not _ndarray:
        data = _as_array(data)  # a NumPy scalar: compared with the inputs' arrays below
    for position, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._requires_grad:
            fn = x._grad_fn
            edges.append((fn, x._output_nr) if fn is not None and x._meta is None else gradient_edge(x))
            needs.append(True)
            xd = x._data
            if not single or xd.shape != data.shape or xd.dtype is not data.dtype or type(xd) is not type(data):
                if metas is None:
                    metas = [None] * len(inputs)
                metas[position] = _input_meta(xd, data if single else _as_array(data[0]))
        else:
            edges.append(NO_EDGE)
            needs.append(False)
    if single:
        results = (make_tensor(data, True, node, 0),)
    else:
        results = tuple(make_tensor(d, True, node, i) for i, d in enumerate(data))
    plan = cls.save_plan(tuple(needs))
    stash = None
    holds_tensors = None
    if plan:
        stash = {}
        for name, kind, position in plan:
            if kind == "output":
                stash[name] = _save(results[position], position)
                holds_tensors = False
                continue
            value = inputs[position] if kind == "input" else attrs[name]
            if isinstance(value, Tensor):
                stash[name] = _save(value)
                holds_tensors = False
            else:
                stash[name] = value
    if metas is not None and stash and any(m is not None and len(m) > 2 for m in metas):
        _host_scalars_as_numbers(stash)
    node.next_functions = tuple(edges)
    node._seq = next(_sequence)
    node._stash = stash
    node._input_meta = tuple(metas) if metas is not None else None
    node._extras = None
    node._released = holds_tensors
    if ANOMALY.enabled:
        node.extras.trace = traceback.format_stack()[:-2]
    return results[0] if single else results


def record1(cls, data, x: Tensor, plan: tuple, attrs: dict | None = None, same_layout: bool = False,
            numbers: tuple = ()) -> Tensor:
    """``record`` for an op of one tensor input that requires grad (the most common case).

    ``plan`` is ``cls.save_plan((True,) + (False,) * len(numbers))``, looked up once by the
    caller. ``numbers``: trailing operands that are Python numbers (``x * 2``): no edge, but a
    formula may read them. ``same_layout``: the output has the input's shape and dtype
    (elementwise ops), so no input metadata is kept.
    """
    node = _new(cls)
    fn = x._grad_fn
    edge = (fn, x._output_nr) if fn is not None and x._meta is None else gradient_edge(x)
    if type(data) is not _ndarray:
        data = _as_array(data)
    out = _new(Tensor)
    out._data = data
    out._requires_grad = True
    out._grad_fn = node
    out._output_nr = 0
    out._grad = None
    out._vc = [0]
    out._meta = None
    stash = None
    holds_tensors = None
    if plan:
        stash = {}
        for name, kind, position in plan:
            if kind == "input":
                if position:
                    stash[name] = numbers[position - 1]
                    continue
                stash[name] = save(x) if x._meta is None and not _SAVED_HOOKS else _save(x)
            elif kind == "output":
                stash[name] = save(out, 0) if not _SAVED_HOOKS else _save(out, 0)
            else:
                value = attrs[name]
                if not isinstance(value, Tensor):
                    stash[name] = value
                    continue
                stash[name] = _save(value)
            holds_tensors = False
    node.next_functions = (edge, NO_EDGE) if numbers else (edge,)
    node._seq = next(_sequence)
    node._stash = stash
    if same_layout:
        node._input_meta = None
    else:
        xd = x._data
        node._input_meta = None if xd.shape == data.shape and xd.dtype is data.dtype else ((xd.shape, xd.dtype),)
    node._extras = None
    node._released = holds_tensors
    if ANOMALY.enabled:
        node.extras.trace = traceback.format_stack()[:-2]
    return out


def record_inplace(cls, target: Tensor, inputs, attrs: dict | None, original, rebase: bool = True):
    """The node of an in-place op already applied to ``target`` (``inputs[0]``).

    Edges were those of the inputs before the write (``target`` still has its old history here).
    A saved ``self`` is ``original``, a clone taken before the write; a saved ``result`` is the
    modified tensor.
    With ``rebase``, ``target`` gets the node as its new grad_fn.
    """
    edges, metas, needs = [], [], []
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            edges.append(gradient_edge(x))
            metas.append((x._data.shape, x._data.dtype))
            needs.append(True)
        else:
            edges.append(NO_EDGE)
            metas.append(None)
            needs.append(False)
    node = _new(cls)
    saved = {}
    for name in cls.saved_names(tuple(needs)):
        if name == "result":
            continue
        if name == "self":
            saved[name] = _save(original)
        elif name in cls._inputs:
            value = inputs[cls._inputs.index(name)]
            saved[name] = _save(value) if isinstance(value, Tensor) else value
        else:
            value = attrs[name]
            saved[name] = _save(value) if isinstance(value, Tensor) else value
    init_node(node, tuple(edges), saved, tuple(metas))
    if rebase:
        target._grad_fn = node
        target._output_nr = 0
        target._requires_grad = True
    if "result" in cls.saved_names(tuple(needs)):
        saved["result"] = _save(target, 0)
    return node


def _save(tensor: Tensor, output_nr: int = -1) -> SavedTensor:
    """Save ``tensor`` (an input, or output ``output_nr``) for backward."""
    if tensor._meta is None and not _SAVED_HOOKS:
        return save(tensor, output_nr)
    if tensor._meta is not None and tensor._meta.inference:
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
            "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
            "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
        )
    saved = save(tensor, output_nr)
    if _SAVED_HOOKS:
        pack, unpack = _SAVED_HOOKS[-1]
        version = tensor._vc[0]
        saved.packed = pack(tensor)
        if tensor._vc[0] != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                "open an issue if you need to perform in-place operations on the input to a pack hook."
            )
        saved.hooks = (pack, unpack)
        saved.data = saved.tensor = None
    return saved


def wrap_saved_scalar(value):
    """A saved Python number reads back as a 0-dim tensor (torch wraps numbers), other values as is."""
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return value
    import numpy as np

    from .._dtype import _python_scalar_dtype

    return make_tensor(np.asarray(value, dtype=_python_scalar_dtype(value).np))


def mark_view(view: Tensor, base: Tensor, creation: str | None = None) -> Tensor:
    """Record that ``view`` looks into the storage of ``base`` (its root base)."""
    root = base._meta.base if base._meta is not None and base._meta.base is not None else base
    meta = meta_of(view)
    meta.base = root
    meta.creation = creation
    view._vc = root._vc
    return view
