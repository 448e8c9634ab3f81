"""Storing gradients: a leaf's ``.grad`` (``AccumulateGrad``) and ``retain_grad``.

``.grad`` is updated in place, as torch does, unless ``create_graph`` is on. A leaf's first
gradient is adopted as its ``.grad`` without a copy when the engine owns the array, and copied
(with the parameter's layout) otherwise.

Ownership is explicit. The engine owns the arrays it computes: what a formula returns, and the
sum of two contributions. It hands each to one consumer; a node that passes its gradient
through (an identity, a view) passes the ownership on. The engine does not own, and records in
its task's ``foreign`` set, what it was given from outside (root gradients, what hooks and
custom Functions' backward return) and any array that one node sent along two edges (``x + y``
gives both the same gradient). Formulas never return a saved value unchanged.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import _backend
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
        """An array (or views of one array) that a node sends along two edges is shared."""
        if len(outputs) == 2:
            first, second = outputs
            if first is None or second is None or not hasattr(first, "base"):
                return
            root = first if first.base is None else first.base
            if root is second or root is second.base:
                self.mark_foreign(root)
            return
        roots = [o if o.base is None else o.base for o in outputs if o is not None and hasattr(o, "base")]
        seen: set[int] = set()
        for root in roots:
            if id(root) in seen:
                self.mark_foreign(root)
            seen.add(id(root))

    def owns(self, array) -> bool:
        foreign = self.foreign
        if id(array) in foreign:
            return False
        base = array.base
        return base is None or id(base) not in foreign


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
        variable._grad = make_tensor(grad if owned and _adoptable(grad, param) else _copy_with_layout(grad, param))
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


def _adoptable(grad, param) -> bool:
    """An owned array can become ``.grad`` as it is when it has the parameter's layout (the
    gradient layout contract) and is a whole array: not a view of part of a larger one."""
    target_c = param.flags.c_contiguous or 0 in param.strides
    if not (grad.flags.c_contiguous if target_c else grad.strides == param.strides):
        return False
    base = grad.base
    if base is not None and not (base.size == grad.size and base.flags.c_contiguous):
        return False  # a transposed product covers all of its base; a slice does not
    return _backend.is_writeable(grad)


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
