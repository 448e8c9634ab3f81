"""The backward graph's pieces: nodes, gradient edges, leaf accumulators and saved tensors.

A ``Node`` is one recorded operation. It knows the edges to the nodes that produced its inputs
(``next_functions``: pairs of node and input number, ``(None, 0)`` for inputs that need no
gradient; kept as two tuples, ``_children`` and ``_nrs``), the metadata of those inputs (shape,
dtype, device, to check and adapt the gradients it returns), the values it saved for backward,
and its hooks. Every derivative formula lives in ``myautograd/_ops/derivatives.py``; this
module only holds the machinery.

Graph ownership mirrors torch: a tensor owns its ``grad_fn``; a node owns the nodes it points
to and its saved values; a leaf's ``AccumulateGrad`` node is owned by the nodes that point to
it (the leaf holds only a weak reference). So nothing points back from a node to its outputs,
and a graph is freed as soon as its output tensors are.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

from .._backend import device_of
from .._dtype import from_numpy
from .._hooks import RemovableHandle, add_hook
from .._tensor import Tensor, make_tensor, meta_of, version_counter, views_follow_requires_grad
from .anomaly import STATE as ANOMALY

# Creation order: among ready nodes, the engine runs later-created ones first.
_sequence = itertools.count()

# torch's text, with no space after the first sentence.
DETACHED_IN_PLACE_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)
FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
VERSION_HINT = ("enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
VERSION_HINT_ANOMALY = ("the backtrace further above shows the operation that failed to compute its "
                        "gradient. The variable in question was changed in there or anywhere later. Good luck!")
NO_EDGE = (None, 0)


def forward_name(node_name: str) -> str:
    """How torch names an operation in version-counter and view errors: ``ExpBackward0`` -> ``Exp``,
    ``ClampBackward1`` -> ``Clamp1``, ``SqBackward`` (a custom Function) -> ``Sq``; a node named
    otherwise (``torch::autograd::CopySlices``) keeps its name."""
    head, sep, overload = node_name.rpartition("Backward")
    if not sep:
        return node_name
    return head if overload in ("", "0") else head + overload


class NodeExtras:
    """Rarely used parts of a node, allocated on first use so plain nodes stay small."""

    __slots__ = ("pre_hooks", "post_hooks", "tensor_pre_hooks", "retain_grad", "metadata", "trace")

    def __init__(self) -> None:
        self.pre_hooks: dict = {}
        self.post_hooks: dict = {}
        self.tensor_pre_hooks: dict[int, dict] = {}
        self.retain_grad: dict[int, Any] = {}
        self.metadata: dict | None = None
        self.trace: list[str] | None = None


class Node:
    """One operation of the backward graph (see the module docstring).

    Fields, all set by ``init_node``: ``_children`` and ``_nrs``, for each input the node its
    gradient goes to (None where it needs none) and that node's input number (``next_functions``
    pairs them); ``_seq``, the creation number;
    ``_stash``, the saved values by name (``SavedTensor`` for tensors) or None; ``_input_meta``,
    per input a (shape, dtype[, device]) to fit its gradient to, or None where the gradient
    already fits (None for the whole tuple when every input's does); ``_extras`` (hooks and
    the like) or None.
    """

    __slots__ = ("_children", "_nrs", "_seq", "_stash", "_input_meta", "_extras", "__weakref__")
    _node_name = "Node"
    _frees_more = False  # release() frees more than the stash (so it has work even without one)

    @property
    def next_functions(self) -> tuple:
        return tuple(zip(self._children, self._nrs))

    def name(self) -> str:
        return self._node_name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def extras(self) -> NodeExtras:
        extras = self._extras
        if extras is None:
            extras = self._extras = NodeExtras()
        return extras

    @property
    def metadata(self) -> dict:
        extras = self.extras
        if extras.metadata is None:
            extras.metadata = {}
        return extras.metadata

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; it may return new grad_inputs."""
        return add_hook(self.extras.post_hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; it may return new grad_outputs."""
        return add_hook(self.extras.pre_hooks, fn)

    def _register_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        return add_hook(self.extras.tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def _sequence_nr(self) -> int:
        return self._seq

    # Subclasses implement: apply(grads, mode) -> list of gradients, one per next edge.
    def apply(self, grads: list, mode) -> list:
        raise NotImplementedError(f"{self.name()} has no backward")

    def release(self) -> None:
        """Free the saved tensors (after a backward without retain_graph). Running the node again
        then fails where it unpacks one, with torch's "backward through the graph a second time"."""
        stash = self._stash
        if stash:
            for value in stash.values():
                if value.__class__ is SavedTensor:
                    value.data = value.tensor = value.packed = value.hooks = value.edge = None  # value.free()

    def __call__(self, *grads):
        """Run this node's backward on the given gradients (``grad_fn(grad)``)."""
        from .engine import call_node

        return call_node(self, grads)


def init_node(node: Node, children: tuple, nrs: tuple, saved: dict | None, input_meta: tuple | None) -> Node:
    """Set up every field of a new node: the one place nodes are initialised."""
    node._children = children
    node._nrs = nrs
    node._seq = next(_sequence)
    node._stash = saved
    node._input_meta = input_meta
    node._extras = None
    if ANOMALY.enabled:
        import traceback

        node.extras.trace = traceback.format_stack()[:-2]
    return node


class AccumulateGrad(Node):
    """The node that adds a leaf's gradient into its ``.grad``."""

    __slots__ = ("variable",)
    _node_name = "torch::autograd::AccumulateGrad"


AccumulateGrad.__module__ = "myautograd.autograd.graph"


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node: reused while any graph holds it, as torch does."""
    meta = meta_of(t)
    node = meta.accumulator() if meta.accumulator is not None else None
    if node is None:
        node = init_node(object.__new__(AccumulateGrad), (), (), None, None)
        node.variable = t
        meta.accumulator = weakref.ref(node)
    return node


def split_edges(edges) -> tuple[tuple, tuple]:
    """Edges (node, input number) as init_node takes them: the nodes, and the input numbers."""
    return tuple(edge[0] for edge in edges), tuple(edge[1] for edge in edges)


def set_history(t: Tensor, node: Node) -> None:
    """Give ``t`` a new grad_fn, output 0 (an in-place op's node, a view's regenerated one). As torch
    moves a tensor's ``retain_grad()`` to its new grad_fn, ``.grad`` keeps following its current value."""
    old, old_nr = t._grad_fn, t._output_nr
    t._grad_fn = node
    t._output_nr = 0
    t._requires_grad = True
    views_follow_requires_grad(t)
    meta = t._meta
    if meta is not None and meta.retains_grad:
        if old is not None and old._extras is not None:
            old._extras.retain_grad.pop(old_nr, None)
        node.extras.retain_grad[0] = weakref.ref(t)


def gradient_edge(t: Tensor) -> tuple:
    """The (node, input number) that the gradient of ``t`` flows into; ``NO_EDGE`` when none."""
    fn = t.grad_fn if t._meta is not None else t._grad_fn  # a view's may have to be regenerated
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        return NO_EDGE
    meta = t._meta
    if meta is not None and meta.base is not None and meta.base._requires_grad:
        # A view without a grad_fn (made under no_grad or in inference mode) of a base that requires grad
        # requires grad only through its base: as in torch, it has no accumulator; its gradient goes nowhere.
        return NO_EDGE
    return (grad_accumulator(t), 0)


# -- saved tensors -------------------------------------------------------------------------------
class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    A saved input keeps the tensor itself (so double backward sees its graph). A saved output
    keeps only the data, since the output holds the node: unpacking gives a new tensor whose
    ``grad_fn`` is the node, as torch does. ``nonleaf``: a saved input that had a grad_fn; if
    ``detach_()`` takes it away, unpacking raises, as torch's does (None: it had one, but a custom
    Function unpacks it all the same, and a version error then names that Function). With saved-tensor hooks,
    ``packed`` holds what the pack hook returned, ``hooks`` the (pack, unpack) pair and ``edge`` what the
    unpacked tensor gets of the saved one's history (``hand_to_hooks``).
    """

    __slots__ = ("data", "version", "counter", "tensor", "nonleaf", "output_nr", "packed", "hooks", "edge")

    @property
    def is_output(self) -> bool:
        return self.output_nr >= 0

    def free(self) -> None:
        self.data = None
        self.tensor = None
        self.packed = None
        self.hooks = None
        self.edge = None

    def check(self, owner: Node) -> None:
        if self.hooks is not None:  # its unpack hook gives the value: torch checks no version then
            return
        if self.data is None:
            raise RuntimeError(FREED_MESSAGE)
        if self.nonleaf and self.tensor._grad_fn is None:
            raise RuntimeError(DETACHED_IN_PLACE_MESSAGE)
        if self.counter[0] != self.version:
            raise RuntimeError(self._version_message(owner))

    def _version_message(self, owner: Node) -> str:
        shape = ", ".join(str(n) for n in self.data.shape)
        type_name = from_numpy(self.data.dtype).message_type_name(device_of(self.data).type)
        producer = ""
        if self.is_output:
            producer = f", which is output {self.output_nr} of {forward_name(owner.name())},"
        elif self.tensor is not None and self.tensor.grad_fn is not None:  # a view's, regenerated if stale
            node = self.tensor.grad_fn
            producer = f", which is output {self.tensor._output_nr} of {forward_name(node.name())},"
        elif self.nonleaf is None and self.tensor is not None:  # a Function's input since detached in place:
            producer = f", which is output {self.tensor._output_nr} of {forward_name(owner.name())},"  # the Function
        hint = VERSION_HINT_ANOMALY if ANOMALY.enabled else VERSION_HINT
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{type_name} [{shape}]]{producer} is at version {self.counter[0]}; "
            f"expected version {self.version} instead. Hint: {hint}"
        )


_new_object = object.__new__


def save(tensor: Tensor, output_nr: int = -1) -> SavedTensor:
    """A SavedTensor of an input (``output_nr`` -1) or of output ``output_nr`` of the node."""
    saved = _new_object(SavedTensor)
    saved.data = tensor._data
    counter = tensor._vc
    if counter is None:
        counter = tensor._vc = [0]  # version_counter(tensor), inline
    saved.counter = counter
    saved.version = counter[0]
    saved.tensor = tensor if output_nr < 0 else None
    saved.nonleaf = output_nr < 0 and tensor._grad_fn is not None
    saved.output_nr = output_nr
    saved.packed = saved.hooks = saved.edge = None
    return saved


def hand_to_hooks(saved: SavedTensor, tensor: Tensor, packed, hooks: tuple) -> None:
    """Keep ``saved`` (of ``tensor``) as what its pack hook returned. As torch's, only the history is
    kept: requires_grad, and an input's grad_fn or a leaf's accumulator (an output's node is the owner)."""
    saved.packed = packed
    saved.hooks = hooks
    if saved.is_output:
        saved.edge = None
    elif tensor._grad_fn is not None:
        saved.edge = (tensor._requires_grad, tensor._grad_fn, tensor._output_nr, None)
    else:
        accumulator = weakref.ref(grad_accumulator(tensor)) if tensor._requires_grad else None
        saved.edge = (tensor._requires_grad, None, 0, accumulator)
    saved.data = saved.tensor = None


def _unpacked_by_hook(saved: SavedTensor, owner: Node):
    """What the unpack hook returns, as a new tensor with the saved one's history (torch's unpacking
    gives a new tensor object, sharing the hook's result's memory and version counter)."""
    value = saved.hooks[1](saved.packed)
    if not isinstance(value, Tensor):
        return value
    if saved.edge is None:
        out = make_tensor(value._data, True, owner, saved.output_nr)
    else:
        requires_grad, grad_fn, output_nr, accumulator = saved.edge
        out = make_tensor(value._data, requires_grad, grad_fn, output_nr)
        if accumulator is not None and accumulator() is not None:
            meta_of(out).accumulator = accumulator
    out._vc = version_counter(value)
    return out


def unpack_saved_tensor(saved: SavedTensor, owner: Node) -> Tensor:
    """A saved tensor as a tensor: the input itself, or for a saved output a new tensor whose
    grad_fn is the node that saved it; through the unpack hook when one packed it."""
    if saved.hooks is not None:
        return _unpacked_by_hook(saved, owner)
    saved.check(owner)
    if saved.tensor is not None:
        return saved.tensor
    out = make_tensor(saved.data, True, owner, saved.output_nr)
    out._vc = saved.counter
    return out
