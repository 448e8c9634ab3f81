"""Recording an operation in the graph: the step every differentiable op ends with.

An op computes its result array, then, when grad mode is on and an input requires grad, calls
``record`` with the node class from the derivative table, its inputs and the non-tensor
arguments the formulas read (``attrs``, as the table entry declares in ``saves``). ``record``
collects the edges to the inputs' nodes and the input metadata, saves what the formulas of the
inputs that need a gradient read and what torch always saves (``FormulaNode.saved_names``; tensors
as ``SavedTensor``), and returns the output tensor(s)
carrying the new node.

Inside a dual level (``forward.ACTIVE``) every op goes through ``record`` (``records``, ``records_any``),
and the outputs also get their tangents (``forward.propagate``), whether or not a node is recorded:
torch carries tangents under ``no_grad`` and for tensors that do not require grad.

This is the reference path, written to be read. With the fast paths on (``fast.py``, the
default), ``record`` and ``record_one`` hand over to their specialised twins, which build the
same nodes.
"""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._dtype import REDUCED_FLOATS
from .._grad_mode import STATE
from .._tensor import Tensor, make_tensor, version_counter
from . import forward
from .formulas import is_result_name
from .node import NO_EDGE, SavedTensor, gradient_edge, hand_to_hooks, init_node, save, set_history, split_edges

_SAVED_HOOKS: list[tuple] = []  # (pack, unpack) pairs of torch.autograd.graph.saved_tensors_hooks
HOOKS_DISABLED_MESSAGE: str | None = None  # set inside torch.autograd.graph.disable_saved_tensors_hooks
# While the fast paths are on, their versions of record and record_one (installed by fast.py).
fast_record = None
fast_record_one = None
fast_recorded = None


def any_requires_grad(inputs) -> bool:
    """Whether an op on ``inputs`` is recorded: grad mode is on and a tensor among them requires grad."""
    if STATE.grad_enabled:
        for x in inputs:  # a loop, not any() over a generator: every op asks
            if isinstance(x, Tensor) and x._requires_grad:
                return True
    return False


def records(x: Tensor) -> bool:
    """Whether an op whose only tensor input is ``x`` goes through ``record``: grad mode is on and
    ``x`` requires grad, or a dual level is active (``record`` gives the result its tangent, and a
    node only where one is needed). Every op decides with this or ``records_any``."""
    return STATE.grad_enabled and x._requires_grad or forward.ACTIVE


def records_any(inputs) -> bool:
    """``records`` for an op on ``inputs``: one of them requires grad (grad mode on), or a dual level is active."""
    return forward.ACTIVE or any_requires_grad(inputs)


def recorded(cls, data, inputs, attrs: dict | None = None) -> Tensor:
    """The result of an op on ``inputs``: recorded with ``cls`` when grad mode is on and an input
    requires grad, else a plain tensor (with its tangent inside a dual level)."""
    if fast_recorded is not None:
        return fast_recorded(cls, data, inputs, attrs)
    if records_any(inputs):
        return record(cls, data, inputs, attrs)
    return make_tensor(data)


def record(cls, data, inputs, attrs: dict | None = None, *, outputs: int = 1):
    """Create the node ``cls`` for an op on ``inputs`` with result ``data`` (a tuple of arrays when
    ``outputs`` > 1) and return the output tensor(s)."""
    if fast_record is not None:
        return fast_record(cls, data, inputs, attrs, outputs)
    if forward.ACTIVE and not any_requires_grad(inputs):
        return forward.untracked(cls, data, inputs, attrs, outputs)
    single = outputs == 1
    arrays = (as_array(data),) if single else tuple(as_array(d) for d in data)
    needs = tuple(isinstance(x, Tensor) and x._requires_grad for x in inputs)
    edges = tuple(gradient_edge(x) if need else NO_EDGE for x, need in zip(inputs, needs))
    fits = single and not mixed_dtypes(inputs)
    metas = tuple(input_meta(x._data, arrays[0], fits) if need else None for x, need in zip(inputs, needs))
    node = object.__new__(cls)
    results = tuple(make_tensor(array, True, node, nr) for nr, array in enumerate(arrays))
    saved = saved_values(cls, needs, inputs, results, attrs)
    if saved and any(m is not None and len(m) > 2 for m in metas):
        _host_scalars_as_numbers(saved)
    init_node(node, *split_edges(edges), saved, None if all(m is None for m in metas) else metas)
    if forward.ACTIVE:
        forward.propagate(cls, inputs, results, attrs)
    return results[0] if single else results


def record_one(cls, data, x: Tensor, attrs: dict | None = None, numbers: tuple = (), *,
               elementwise: bool = False) -> Tensor:
    """``record`` for an op whose only tensor input is ``x``, which requires grad (most ops):
    ``numbers`` are its trailing Python-number operands (``x * 2``). ``elementwise``: the result
    has ``x``'s shape, dtype and device, and ``x`` is not float16 or bfloat16 (whose gradients the
    engine rounds back), which the fast path then need not check (this path
    works it out regardless; tests/test_fast_paths.py holds the two to the same graphs)."""
    if fast_record_one is not None:
        return fast_record_one(cls, data, x, attrs, numbers, elementwise)
    return record(cls, data, (x, *numbers), attrs)


def as_array(data):
    """A result as an array: NumPy gives scalars for 0-d results; a tensor always holds an array."""
    return np.asarray(data) if isinstance(data, np.generic) else data


def mixed_dtypes(inputs) -> bool:
    """Whether the tensor operands of an op differ in dtype: then a formula may give an input's gradient
    another operand's dtype (a float32 vector times a 0-dim float64 gives a float32 output, but NumPy's
    ``grad * other`` is float64), so every input's gradient is cast back to its dtype, as torch's engine does."""
    first = None
    for x in inputs:
        if isinstance(x, Tensor):
            if first is None:
                first = x._data.dtype
            elif x._data.dtype is not first:
                return True
    return False


def input_meta(xd, out, single: bool = True) -> tuple | None:
    """What the engine fits an input's gradient to: shape and dtype, plus the device when it is
    not the output's (a 0-dim CPU tensor in a CUDA op). None when the gradient already fits:
    the formulas give a gradient of the output's shape and dtype, so an input like the (single)
    output needs nothing (``single``; pass False where the operands' dtypes are mixed). A float16 or
    bfloat16 input always has its metadata: a formula's Python number makes NumPy widen a bfloat16
    array to float32, and the engine rounds the gradient back."""
    if type(xd) is not type(out):
        return (xd.shape, xd.dtype, _backend.device_of(xd))
    if single and xd.shape == out.shape and xd.dtype is out.dtype and xd.dtype not in REDUCED_FLOATS:
        return None
    return (xd.shape, xd.dtype)


def saved_values(cls, needs: tuple, inputs, results: tuple, attrs: dict | None) -> dict | None:
    """What the node saves: ``cls.saved_names(needs)``, each name's value taken from the inputs, the
    outputs or ``attrs``."""
    attrs = attrs or {}
    undeclared = set(attrs) - set(cls._saves)
    if undeclared:
        raise RuntimeError(f"{cls.__name__}: the forward passes {sorted(undeclared)}, which its table entry does "
                           f"not declare in saves")
    saved = {}
    for name in cls.saved_names(needs):
        if is_result_name(name):
            nr = int(name[6:] or 0)
            saved[name] = save_for_backward(results[nr], nr)
            continue
        if name in cls._inputs:
            value = inputs[cls._inputs.index(name)]
        elif name in attrs:
            value = attrs[name]
        else:
            raise RuntimeError(f"{cls.__name__}: a formula reads {name!r}, which the forward did not pass")
        saved[name] = save_for_backward(value) if isinstance(value, Tensor) else value
    return saved or None


def _host_scalars_as_numbers(saved: dict) -> None:
    """Saved 0-dim CPU arrays of an op on another device, as NumPy scalars: the formulas combine
    them with device gradients, and CuPy accepts scalars, not host arrays."""
    for value in saved.values():
        if isinstance(value, SavedTensor) and type(value.data) is np.ndarray and value.data.ndim == 0:
            value.data = value.data[()]


def record_inplace(cls, target: Tensor, inputs, attrs: dict | None, original, write, rebase: bool = True):
    """The node of an in-place op on ``target`` (``inputs[0]``), whose write ``write()`` performs.

    As torch's generated code does before it runs the kernel, the edges are those of the inputs
    before the write (``target`` and its views still have their old history) and tensor
    operands are saved at their versions before the write: an operand that shares ``target``'s
    version counter (``x.mul_(x)``, a view of it) then fails backward's version check, as in
    torch. A saved ``self`` is ``original``, a clone taken before the write; a saved
    ``result`` is the modified tensor. With ``rebase``, ``target`` gets the node as its new grad_fn.
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
    node = object.__new__(cls)
    saved = {}
    names = cls.saved_names(tuple(needs))
    for name in names:
        if name in ("result", "self"):
            continue
        value = inputs[cls._inputs.index(name)] if name in cls._inputs else attrs[name]
        saved[name] = save_for_backward(value) if isinstance(value, Tensor) else value
    write()
    if "self" in names:
        saved["self"] = save_for_backward(original)
    init_node(node, *split_edges(edges), saved, tuple(metas))
    if rebase:
        set_history(target, node)
    if "result" in names:
        saved["result"] = save_for_backward(target, 0)
    return node


def save_for_backward(tensor: Tensor, output_nr: int = -1) -> SavedTensor:
    """Save ``tensor`` (an input, or output ``output_nr``) for backward: refused for an inference
    tensor; packed when saved-tensor hooks are active."""
    if tensor._meta is None and not _SAVED_HOOKS:
        return save(tensor, output_nr)
    if tensor._meta is not None and tensor.is_inference():  # a view of one included
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
            "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
            "and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
        )
    saved = save(tensor, output_nr)
    if _SAVED_HOOKS:
        pack, unpack = _SAVED_HOOKS[-1]
        version = version_counter(tensor)[0]
        packed = pack(tensor)
        if version_counter(tensor)[0] != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
                "open an issue if you need to perform in-place operations on the input to a pack hook."
            )
        hand_to_hooks(saved, tensor, packed, (pack, unpack))
    return saved
