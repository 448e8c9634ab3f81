"""The backward graph: nodes, saved tensors, gradient accumulators and hook handles.

A ``Node`` is one recorded operation. It knows the edges to the nodes that produced its inputs
(``next_functions``: pairs of node and input number, ``(None, 0)`` for inputs that need no
gradient), the metadata of those inputs (shape, dtype, device, to check and adapt the gradients
it returns), the values it saved for backward, and its hooks. Every derivative formula lives in
``myautograd/_ops/derivatives.py``; this module only holds the machinery.

Graph ownership mirrors torch: a tensor owns its ``grad_fn``; a node owns the nodes it points
to and its saved values; a leaf's ``AccumulateGrad`` node is owned by the nodes that point to
it (the leaf holds only a weak reference). So nothing points back from a node to its outputs,
and a graph is freed as soon as its output tensors are.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

# A node executes before the nodes it feeds; among ready nodes, later-created ones run first.
_sequence = itertools.count()
ACCUMULATE_PRIORITY = float("inf")

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


def forward_name(node_name: str) -> str:
    """``ExpBackward0`` -> ``Exp``: how torch names an operation in version-counter errors."""
    base = node_name.rsplit("::", 1)[-1]
    head, sep, _ = base.rpartition("Backward")
    return head if sep else base


class RemovableHandle:
    """Removes a hook from the dictionary it was registered in."""

    _ids = itertools.count()

    def __init__(self, hooks: dict) -> None:
        self.id = next(RemovableHandle._ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


RemovableHandle.__module__ = "myautograd.utils.hooks"


def add_hook(hooks: dict, fn: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


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
    """One operation of the backward graph (see the module docstring)."""

    # _released: None when the node saved no tensor (it can run again), False until a backward
    # without retain_graph frees what it saved, then True (running it again raises).
    __slots__ = ("next_functions", "_seq", "_stash", "_input_meta", "_extras", "_released", "__weakref__")
    _node_name = "Node"

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

    def _priority(self) -> float:
        return self._seq

    # Subclasses implement: apply(grads, mode) -> list of gradients, one per next edge.
    def apply(self, grads: list, mode) -> list:
        raise NotImplementedError(f"{self.name()} has no backward")

    def release(self) -> None:
        """Free the saved values (after a backward without retain_graph)."""
        if self._stash:
            for value in self._stash.values():
                if isinstance(value, SavedTensor):
                    value.free()
        self._released = True

    def __call__(self, *grads):
        """Run this node's backward on the given gradients (``grad_fn(grad)``)."""
        from .engine import call_node

        return call_node(self, grads)


def init_node(node: Node, next_functions: tuple, saved: dict | None, input_meta: tuple) -> Node:
    node.next_functions = next_functions
    node._seq = next(_sequence)
    node._stash = saved
    node._input_meta = input_meta
    node._extras = None
    node._released = False if saved and any(v.__class__ is SavedTensor for v in saved.values()) else None
    return node


class AccumulateGrad(Node):
    """The node that adds a leaf's gradient into its ``.grad``."""

    __slots__ = ("variable",)
    _node_name = "torch::autograd::AccumulateGrad"

    def _priority(self) -> float:
        return ACCUMULATE_PRIORITY


AccumulateGrad.__module__ = "myautograd.autograd.graph"


_new_object = object.__new__


def save(tensor, output_nr: int = -1) -> SavedTensor:
    """A SavedTensor of an input (``output_nr`` -1) or of output ``output_nr``, built on the fast path."""
    saved = _new_object(SavedTensor)
    saved.data = tensor._data
    counter = saved.counter = tensor._vc
    saved.version = counter[0]
    saved.tensor = tensor if output_nr < 0 else None
    saved.nonleaf = output_nr < 0 and tensor._grad_fn is not None
    saved.output_nr = output_nr
    saved.packed = saved.hooks = None
    return saved


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    A saved input keeps the tensor itself (so double backward sees its graph). A saved output
    keeps only the data, since the output holds the node: unpacking gives a new tensor whose
    ``grad_fn`` is the node, as torch does. ``nonleaf``: a saved input that had a grad_fn; if
    ``detach_()`` takes it away, unpacking raises, as torch's does.
    """

    __slots__ = ("data", "version", "counter", "tensor", "nonleaf", "output_nr", "packed", "hooks")

    def __init__(self, tensor, is_output: bool = False, output_nr: int = 0) -> None:
        self.data = tensor._data
        self.counter = tensor._vc
        self.version = self.counter[0]
        self.tensor = None if is_output else tensor
        self.nonleaf = not is_output and tensor._grad_fn is not None
        self.output_nr = output_nr if is_output else -1
        self.packed = None
        self.hooks = None

    @property
    def is_output(self) -> bool:
        return self.output_nr >= 0

    @property
    def freed(self) -> bool:
        return self.data is None and self.packed is None

    def free(self) -> None:
        self.data = None
        self.tensor = None
        self.packed = None
        self.hooks = None

    def check(self, owner: Node) -> None:
        if self.data is None and self.packed is None:
            raise RuntimeError(FREED_MESSAGE)
        if self.nonleaf and self.tensor._grad_fn is None:
            raise RuntimeError(DETACHED_IN_PLACE_MESSAGE)
        if self.counter[0] != self.version:
            raise RuntimeError(self._version_message(owner))

    def _version_message(self, owner: Node) -> str:
        from .anomaly import STATE as ANOMALY

        shape = ", ".join(str(n) for n in self.data.shape)
        from .._backend import device_of
        from .._dtype import from_numpy

        type_name = from_numpy(self.data.dtype).legacy_type_name(device_of(self.data).type)
        producer = ""
        if self.is_output:
            producer = f", which is output {self.output_nr} of {forward_name(owner.name())},"
        elif self.tensor is not None and self.tensor._grad_fn is not None:
            node = self.tensor._grad_fn
            producer = f", which is output {self.tensor._output_nr} of {forward_name(node.name())},"
        hint = VERSION_HINT_ANOMALY if ANOMALY.enabled else VERSION_HINT
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{type_name} [{shape}]]{producer} is at version {self.counter[0]}; "
            f"expected version {self.version} instead. Hint: {hint}"
        )
