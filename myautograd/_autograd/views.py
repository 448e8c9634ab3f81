"""How autograd follows views: where a view sits in its base, and writes through views.

A view shares its base's storage (a NumPy view of the base's array) and its version counter;
``_base`` is always the root tensor that owns the storage. Where a view sits in its base is
found from the two arrays' addresses and strides (``view_positions``), so every view kind is
handled the same way.

When a base changes in place after a view was taken, the view's ``grad_fn`` is regenerated
on next use as ``AsStridedBackward0`` of the base's new history, as torch does. An in-place op
on a view gives the base a ``CopySlices`` node: its backward passes the base's gradient through,
except on the view's region, where the in-place op's own derivative applies.
"""

from __future__ import annotations

import copy
import threading
from contextlib import contextmanager

import numpy as np

from .. import _backend
from .._grad_mode import STATE
from .._tensor import Tensor, install, make_tensor
from . import forward
from .conjugate_views import ConjugateView, become_conjugate_view, shared
from .engine import validate_outputs
from .formulas import NODES
from .node import FREED_MESSAGE, NO_EDGE, Node, forward_name, gradient_edge, init_node, set_history, split_edges
from .record import record
from .view_links import track_view

OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                   "memory location. Please clone() the tensor before performing the operation.")


# -- geometry ----------------------------------------------------------------------------------------
def _element_offsets(array) -> np.ndarray:
    """The storage offset (in elements) of every element of ``array`` from its first address."""
    itemsize = array.itemsize
    offsets = np.zeros(array.shape, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * (stride // itemsize)).reshape(shape)
    return offsets


def view_positions(view_data, base_data) -> np.ndarray:
    """For each element of the view, its flat (row-major) index in the base."""
    base_offsets = _element_offsets(base_data).reshape(-1)
    shift = (_backend.address(view_data) - _backend.address(base_data)) // base_data.itemsize
    view_offsets = _element_offsets(view_data) + shift
    low = int(min(base_offsets.min(initial=0), view_offsets.min(initial=0)))
    high = int(max(base_offsets.max(initial=0), view_offsets.max(initial=0)))
    lookup = np.full(high - low + 1, -1, dtype=np.int64)
    lookup[base_offsets - low] = np.arange(base_offsets.size, dtype=np.int64)
    return lookup[view_offsets - low]


def parts_of(complex_data):
    """A complex array's real and imaginary parts as a real array of one more dimension (NumPy's view)."""
    return complex_data[..., None].view(complex_data.real.dtype)


# -- creating views -----------------------------------------------------------------------------------
class _Copying(threading.local):
    """While ``names`` is set (``copying_views``), in this thread, the view ops make copies: torch's ``*_copy``."""

    names: dict | None = None  # a view node's name -> its copy's


_COPYING = _Copying()


@contextmanager
def copying_views(names: dict | None = None):
    """Inside: the first ``make_view``/``make_views`` gives the view's values in new memory, recorded as
    the view node's copy (``ViewBackward0_copy``, or the name ``names`` maps it to), as torch's
    ``view_copy`` and its kin; the views made after it (its forward-mode rule's) are views again."""
    previous, _COPYING.names = _COPYING.names, names or {}
    try:
        yield
    finally:
        _COPYING.names = previous


def _copies(base: Tensor, datas: list, node_name: str, attrs: dict) -> tuple:
    cls = NODES[_COPYING.names.get(node_name, f"{node_name}_copy")]
    _COPYING.names = None  # the op's view is this one
    arrays = [data.copy() for data in datas]
    if not (STATE.grad_enabled and base._requires_grad or forward.ACTIVE):
        return tuple(make_tensor(array) for array in arrays)
    if len(arrays) == 1:
        return (record(cls, arrays[0], (base,), attrs),)
    return record(cls, tuple(arrays), (base,), attrs, outputs=len(arrays))


def make_view(base: Tensor, data, node_name: str, attrs: dict) -> Tensor:
    """The view ``data`` of ``base`` made by the op ``node_name`` (inside a dual level, with the same
    view of ``base``'s tangent as its tangent)."""
    if _COPYING.names is not None:
        return _copies(base, [data], node_name, attrs)[0]
    recorded = STATE.grad_enabled and base._requires_grad
    if recorded:
        out = record(NODES[node_name], data, (base,), attrs)
    else:
        # A view made under no_grad or in inference mode of a base that requires grad still reports
        # requires_grad=True (with no grad_fn), as torch's views do; modifying it in place later is refused.
        inference_base = base.is_inference()
        out = make_tensor(data, requires_grad=base._requires_grad and not inference_base)
        if not inference_base and out._meta is not None:
            out._meta.inference = False  # a view of a normal tensor is normal, even in inference mode
    if forward.ACTIVE:
        forward.view_tangents(NODES[node_name], base, (out,), attrs, recorded)
    if base.__class__ is ConjugateView:  # made from its conjugate values: not tied to the memory (conjugate_views)
        return out
    return track_view(out, base, view_creation(base))


def make_conjugate_view(base: Tensor) -> Tensor:
    """``base.conj()`` of a complex tensor: a view of the same memory that reads its conjugate (ConjBackward0); of a
    conjugate view, a plain view of that memory again."""
    memory = shared(base)[...]
    if base.__class__ is ConjugateView:  # conj() of a conjugate view: the memory as it is
        return track_view(make_view(base, memory, "ConjBackward0", {}), base, view_creation(base))
    view = become_conjugate_view(make_view(base, memory, "ConjBackward0", {}))
    tangent = forward.tangent_of(view) if forward.ACTIVE else None
    if tangent is not None and tangent._meta is not None and tangent._meta.base is not None:
        become_conjugate_view(tangent)  # the same view of the base's tangent (forward.view_tangents): conjugated too
    return view


def view_creation(base: Tensor) -> str | None:
    """How a new view of ``base`` counts as made (torch's CreationMeta): in inference mode, under
    no_grad, or normally (None); a view of a view made otherwise than normally keeps its base's
    (an inference-mode one always)."""
    made = "inference" if STATE.inference else (None if STATE.grad_enabled else "no_grad")
    meta = base._meta
    previous = meta.creation if meta is not None and meta.base is not None else None
    if made is None or previous == "inference":
        return previous
    return made


def make_views(base: Tensor, datas: list, node_name: str, attrs: dict) -> tuple:
    """Several views from one op (unbind, split): they may not be modified in place."""
    if _COPYING.names is not None:
        return _copies(base, datas, node_name, attrs)
    recorded = STATE.grad_enabled and base._requires_grad
    if recorded:
        if len(datas) == 1:  # one view (unbind of a dimension of size 1): a node of one output
            outs = (record(NODES[node_name], datas[0], (base,), attrs),)
        else:
            outs = record(NODES[node_name], tuple(datas), (base,), attrs, outputs=len(datas))
    else:  # under no_grad or in inference mode: as make_view's
        inference_base = base.is_inference()
        outs = tuple(make_tensor(d, requires_grad=base._requires_grad and not inference_base) for d in datas)
        for out in outs:
            if not inference_base and out._meta is not None:
                out._meta.inference = False
    if forward.ACTIVE:
        forward.view_tangents(NODES[node_name], base, outs, attrs, recorded)
    if base.__class__ is ConjugateView:  # made from its conjugate values (as make_view's)
        return outs
    creation = "multi_output" if STATE.grad_enabled else view_creation(base)
    return tuple(track_view(out, base, creation) for out in outs)


def current_view_grad_fn(view: Tensor):
    """The view's grad_fn, regenerated if its base was modified in place since it was set (refused
    for a view made under no_grad, in inference mode or by a multi-output op, as torch does)."""
    meta = view._meta
    base = meta.base
    if (base._requires_grad or view._grad_fn is not None) and meta.view != view._vc[0]:
        if meta.creation in REBASE_REFUSED:
            raise RuntimeError(rebase_message(view, indirect=True))
        if base._requires_grad:
            regenerate(view, base)
    return view._grad_fn


REBASE_REFUSED = ("no_grad", "inference", "multi_output", "custom_function")


def rebase_message(view: Tensor, indirect: bool) -> str:
    """torch's refusal to give a new history to a view made under no_grad, in inference mode, by
    an op with several view outputs or by a custom Function (an input it returned as-is): the view
    written in place, or (``indirect``) its base or another view of it."""
    creation = view._meta.creation
    node = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if creation == "custom_function":
        return (f"Output {view._output_nr} of {forward_name(node.name())} is a view and {modified} modified inplace. "
                "This view was created inside a custom Function (or because an input was returned as-is) and the "
                "autograd logic to handle view+inplace would override the custom backward associated with the custom "
                "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning "
                "the output of the custom Function.")
    if creation == "multi_output":
        what = (f"Output {view._output_nr} of {forward_name(node.name())} is a view and {modified} modified inplace."
                if node is not None else
                f"A view was created in no_grad mode and {modified} modified inplace with grad mode enabled.")
        return (f"{what} This view is the output of a function that returns multiple views. Such functions do not "
                "allow the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
    prefix = (f"Output {view._output_nr} of {forward_name(node.name())} is a view of a view which was created in"
              if node is not None else "A view was created in")
    if creation == "inference":
        what, block = f"inference mode and {modified} modified inplace in normal mode.", "inference_mode"
    else:
        what, block = f"no_grad mode and {modified} modified inplace with grad mode enabled.", "no_grad"
    return (f"{prefix} {what} Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
            f"your code by moving both the view and the inplace either both inside the {block} block (if you don't "
            "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")


def regenerate(view: Tensor, base: Tensor) -> None:
    """The view's history as its region of the base's (AsStridedBackward0); a conjugate view's, the conjugate
    of that (ConjBackward0, alone where the view is the whole base), as torch replays the view op."""
    memory = shared(view)
    positions = view_positions(memory, base._data)
    edge = gradient_edge(base)
    whole = memory.shape == base._data.shape and bool((positions.reshape(-1) == np.arange(positions.size)).all())
    if not (view.__class__ is ConjugateView and whole):
        node = _new_node(NODES["AsStridedBackward0"])
        init_node(node, *split_edges((edge,)), {"positions": positions, "self_sym_sizes": base._data.shape},
                  ((base._data.shape, base._data.dtype),))
        edge = (node, 0)
    if view.__class__ is ConjugateView:
        node = _new_node(NODES["ConjBackward0"])
        init_node(node, *split_edges((edge,)), {}, ((memory.shape, memory.dtype),))
    set_history(view, node)
    view._meta.view = view._vc[0]


def _new_node(cls):
    return object.__new__(cls)


class CopySlices(Node):
    """The base's node after an in-place op on one of its views (see module docstring)."""

    __slots__ = ("fn", "positions", "view_shape", "repeats", "parts", "conjugate")
    _node_name = "torch::autograd::CopySlices"
    _frees_more = True  # what its in-place op's node saved

    def apply(self, grads: list, mode) -> list:
        grad = grads[0]
        if grad is None:
            return [None] * len(self._children)
        if self.fn is None:  # released: torch drops the in-place op's node with the graph
            raise RuntimeError(FREED_MESSAGE)
        F = mode.F
        if self.parts:  # a real view of a complex base (.real, .imag, view_as_real): positions among its parts
            grad = F.view_as_real(grad)
        flat = F.reshape(grad, (-1,))
        region = F.reshape(F.index(flat, self.positions), self.view_shape)
        if self.conjugate:  # a conjugate view: its gradient is the conjugate of its region's, and back
            region = F.conj(region)
        inner = self.fn.apply([region], _with_view_input(mode, self.fn))
        inner = validate_outputs(self.fn, inner, mode)
        shape = mode.shape(grad)
        mask = np.zeros(int(np.prod(shape)), dtype=bool)
        mask[self.positions.reshape(-1)] = True
        mask = mask.reshape(shape)
        replaced = inner[0]
        if replaced is not None and self.repeats:
            # torch copies the view's gradient into a strided view of the base's: an expanded view's
            # elements share memory there, and the copy is refused
            raise RuntimeError(OVERLAP_MESSAGE)
        if replaced is None:
            base_grad = F.where(F.constant(mask, grad), 0, grad)
        else:
            values = F.reshape(F.conj(replaced) if self.conjugate else replaced, (-1,))
            scattered = F.reshape(F.index_put_zeros((mask.size,), grad, (self.positions.reshape(-1),), values, False),
                                  shape)
            base_grad = F.where(F.constant(mask, grad), scattered, grad)
        if self.parts:
            base_grad = F.view_as_complex(base_grad)
        return [base_grad, *inner[1:]]

    def release(self) -> None:
        if self.fn is not None:
            self.fn.release()
            self.fn = None
        super().release()


def _with_view_input(mode, fn: Node):
    """``mode`` for evaluating ``fn`` inside CopySlices: with ``inputs``, only the nodes on a path to
    them have their formulas evaluated, and ``fn``'s first input (the view's history before the
    write) is not in the graph CopySlices is part of; its formula is needed all the same, for the
    gradient of the written region."""
    visited = mode.visited
    first = fn._children[0] if fn._children else None
    if visited is None or first is None or first in visited:
        return mode
    widened = copy.copy(mode)
    widened.visited = visited | {first}
    return widened


def copy_slices(view: Tensor, base: Tensor, fn: Node) -> None:
    """Give ``base`` a CopySlices node after ``fn`` was applied in place to ``view``."""
    node = _new_node(CopySlices)
    old_edge = gradient_edge(base) if base._requires_grad else NO_EDGE
    init_node(node, (old_edge[0], *fn._children[1:]), (old_edge[1], *fn._nrs[1:]), None,
              ((base._data.shape, base._data.dtype), *fn._input_meta[1:]))
    node.fn = fn
    node.parts = base._data.dtype.kind == "c" and view._data.dtype.kind != "c"
    node.conjugate = view.__class__ is ConjugateView
    node.positions = view_positions(shared(view), parts_of(base._data) if node.parts else base._data)
    node.view_shape = view._data.shape
    node.repeats = bool(np.unique(node.positions).size < node.positions.size)
    set_history(base, node)
    regenerate(view, base)


install("view_grad_fn", current_view_grad_fn)
