"""Storing gradients: a leaf's ``.grad`` (``AccumulateGrad``) and ``retain_grad``.

``.grad`` is updated in place, as torch does, unless ``create_graph`` is on. A leaf's first
gradient is adopted as its ``.grad`` without a copy when the engine owns the array and it obeys
torch's gradient layout contract, and copied (with the parameter's layout) otherwise.

Ownership is per array object, as torch's is per tensor (its use count), not per memory. The
engine owns the arrays it computes: what a formula returns, views included, and the sum of two
contributions. It hands each to one consumer; a node that passes its gradient through (an
identity) passes the ownership on. The engine does not own, and records in its task's
``foreign`` set, what it was given from outside (root gradients, what hooks and custom
Functions' backward return), what user code kept (a hook that still holds the tensor it was
shown, ``engine.HandedOut``) and an array that one node sent along two edges (``x + y`` gives
both the same gradient). So a view a formula makes of the caller's gradient is adopted, as torch
adopts it: ``x.reshape(6).backward(g)`` leaves ``x.grad`` sharing ``g``'s memory, and the two 0-d
leaves of ``torch.stack([a, b]).sum()`` get views of one element (their ``.grad`` alias each
other). Formulas never return a saved value unchanged.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import _backend
from .._grad_mode import STATE
from .._tensor import Tensor, make_tensor, version_counter
from .node import AccumulateGrad


class Ownership:
    """The arrays of one backward pass that the engine does not own (see the module docstring),
    by id. An entry leaves when its array dies (a weak reference's callback), so that a new
    array that happens to get the same id is not taken for it."""

    __slots__ = ("foreign",)

    def __init__(self) -> None:
        self.foreign: dict[int, object] = {}

    def mark_foreign(self, array) -> None:
        if array is None:
            return
        for item in (array, getattr(array, "base", None)):
            if item is None or id(item) in self.foreign:
                continue
            key, foreign = id(item), self.foreign
            try:
                foreign[key] = weakref.ref(item, lambda _, key=key: foreign.pop(key, None))
            except TypeError:  # an array type without weak references: held until the pass ends
                foreign[key] = item

    def note_repeats(self, outputs: list) -> None:
        """An array that a node sends along two edges is shared (views of one array are not:
        torch adopts each, as it adopts the views ``unbind`` makes)."""
        if len(outputs) == 2:
            first, second = outputs
            if first is not None and first is second:
                self.mark_foreign(first)
            return
        seen: set[int] = set()
        for output in outputs:
            if output is None:
                continue
            if id(output) in seen:
                self.mark_foreign(output)
            seen.add(id(output))

    def owns(self, array) -> bool:
        return id(array) not in self.foreign


def store_retained(tensor: Tensor, grad, mode) -> None:
    """retain_grad: a copy of the gradient, accumulated (out of place) across backward calls. Under
    create_graph the copy is a recorded clone (``CloneBackward0``) and the sum a recorded add, as
    torch's hook computes them with grad mode on: the retained gradient can be differentiated."""
    if mode.create_graph:
        tensor._grad = grad.clone() if tensor._grad is None else tensor._grad + grad
    elif tensor._grad is None:
        tensor._grad = make_tensor(grad.copy())
    else:
        tensor._grad = make_tensor(tensor._grad._data + grad)


def accumulate(node: AccumulateGrad, grad, mode, owned: bool) -> None:
    """Add ``grad`` into the leaf's ``.grad``; ``owned``: the engine owns the array (see above)."""
    variable = node.variable
    existing = variable._grad
    if not variable._requires_grad:
        pass  # detached (detach_, requires_grad_(False)) after the graph was built: torch stores nothing
    elif mode.create_graph:
        if existing is None:
            # A first gradient is copied into a fresh tensor, recorded as CopyBackwards.
            variable._grad = mode.F.copy_into_new(grad, _empty_with_layout(variable._data))
        else:
            variable._grad = existing + grad
    elif existing is None:
        param = variable._data
        adopted = _adopted(grad, param) if owned else None
        variable._grad = make_tensor(adopted if adopted is not None else _copy_with_layout(grad, param))
    else:
        data = existing._data
        if data.shape == grad.shape and _backend.is_writeable(data):
            np.add(data, grad, out=data, casting="unsafe")
            version_counter(existing)[0] += 1
        else:
            variable._grad = make_tensor(data + grad)
    meta = variable._meta
    if meta is not None and meta.post_accumulate_hooks:
        for hook in list(meta.post_accumulate_hooks.values()):
            hook(variable)


def _adopted(grad, param):
    """``grad`` itself, or a writeable alias of its memory, where torch would adopt it: it obeys
    the gradient layout contract and writing into it reaches each element once (a 0-d view of an
    expanded gradient does); None where it must be copied."""
    if STATE.grad_layout_enforced and not _obeys_layout_contract(grad, param):
        return None
    return _backend.writeable_alias(grad)


def _obeys_layout_contract(grad, param) -> bool:
    """torch's rule for adopting a gradient: where the parameter is dense and not overlapping, the
    gradient has its strides on every dim longer than one, and no zero stride on a dim of size
    one (such a dim is a view of a repeated element, as ``cat``'s gradient makes); otherwise the
    gradient itself is dense and not overlapping."""
    if not _dense(param):
        return _dense(grad)
    itemsize = grad.itemsize
    for size, stride, param_stride in zip(grad.shape, grad.strides, param.strides):
        if size != 1 and stride // itemsize != param_stride // param.itemsize:
            return False
        if size == 1 and stride == 0:
            return False
    return True


def _dense(array) -> bool:
    """Whether ``array``'s elements fill its memory once each, in some order of its dims."""
    if array.size == 0:
        return True
    expected = array.itemsize
    for stride, size in sorted((abs(s), n) for s, n in zip(array.strides, array.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _empty_with_layout(param):
    """An empty array shaped like the parameter, with its strides when it is dense and not
    overlapping (the gradient layout contract), else row-major."""
    if param.flags.c_contiguous or 0 in param.strides or param.size == 0:
        return np.empty(param.shape, dtype=param.dtype) if type(param) is np.ndarray \
            else np.empty_like(param, order="C")
    return np.empty_like(param, order="K")


def _copy_with_layout(grad, param):
    out = _empty_with_layout(param)
    out[...] = grad
    return out
