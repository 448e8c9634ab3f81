"""Recording an operation in the graph: the step every differentiable op ends with.

An op computes its result array, then, when grad mode is on and an input requires grad, calls
``record`` with the node class from the derivative table, its inputs and any non-tensor
arguments the formulas read. ``record`` collects the edges and the input metadata, saves what
the formulas of the inputs that need a gradient read (as ``SavedTensor``), and returns the
output tensor(s) carrying the new node.
"""

from __future__ import annotations

import traceback

from .._autograd.anomaly import STATE as ANOMALY
from .._autograd.graph import SavedTensor, init_node
from .._grad_mode import STATE
from .._tensor import Tensor, gradient_edge, make_tensor, meta_of

NO_EDGE = (None, 0)
_new = object.__new__
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
    ``outputs`` > 1) and return the output tensor(s)."""
    edges = []
    metas = []
    needs = []
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
    if outputs == 1:
        results = (make_tensor(data, True, node, 0),)
    else:
        results = tuple(make_tensor(d, True, node, i) for i, d in enumerate(data))
    saved = {}
    names = cls.saved_names(tuple(needs))
    if names:
        positions = cls._inputs
        for name in names:
            if name == "result" or (name.startswith("result") and name[6:].isdigit()):
                nr = int(name[6:] or 0)
                saved[name] = _save(results[nr], True, nr)
            elif name in positions:
                value = inputs[positions.index(name)]
                saved[name] = _save(value, False, 0) if isinstance(value, Tensor) else value
            else:
                value = attrs[name]
                saved[name] = _save(value, False, 0) if isinstance(value, Tensor) else value
    init_node(node, tuple(edges), saved, tuple(metas))
    if ANOMALY.enabled:
        node.extras.trace = traceback.format_stack()[:-2]
    return results[0] if outputs == 1 else results


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
            saved[name] = _save(original, False, 0)
        elif name in cls._inputs:
            value = inputs[cls._inputs.index(name)]
            saved[name] = _save(value, False, 0) if isinstance(value, Tensor) else value
        else:
            value = attrs[name]
            saved[name] = _save(value, False, 0) if isinstance(value, Tensor) else value
    init_node(node, tuple(edges), saved, tuple(metas))
    if rebase:
        target._grad_fn = node
        target._output_nr = 0
        target._requires_grad = True
    if "result" in cls.saved_names(tuple(needs)):
        saved["result"] = _save(target, True, 0)
    return node


def _save(tensor: Tensor, is_output: bool, output_nr: int) -> SavedTensor:
    if tensor._meta is not None and tensor._meta.inference:
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
            "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
            "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
        )
    saved = SavedTensor(tensor, is_output, output_nr)
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
