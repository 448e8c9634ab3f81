"""``myautograd.autograd.graph``: the public face of graph nodes and graph-level hooks.

``Node`` is the class of every ``grad_fn``; a ``GradientEdge`` (``get_gradient_edge``) names the
node and input number a tensor's gradient flows into, and ``autograd.grad`` takes one where it
takes a tensor. ``saved_tensors_hooks`` packs tensors as they are saved for backward and unpacks
them when backward needs them (``save_on_cpu`` and ``allow_mutation_on_saved_tensors`` are such
hooks; ``disable_saved_tensors_hooks`` refuses them); ``increment_version`` bumps a version
counter as an in-place op would; ``register_multi_grad_hook`` calls a function once per backward
with the gradients of several tensors.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .._autograd import record as _record
from .._autograd.engine import current_task, will_execute
from .._autograd.node import AccumulateGrad, Node, gradient_edge
from .._backend import cuda_available
from .._grad_mode import enable_grad
from .._hooks import RemovableHandle
from .._missing import missing_attribute as _missing_attribute
from .._ops.creation import empty
from .._tensor import Tensor, make_tensor, meta_of, version_counter

__all__ = ["Node", "AccumulateGrad", "GradientEdge", "get_gradient_edge", "increment_version", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors", "register_multi_grad_hook",
           "region_activation_memory_budget", "RemovableHandle"]


class GradientEdge(NamedTuple):
    """Where a gradient flows: input ``output_nr`` of ``node``. ``ownership_token`` keeps a custom
    Function's node alive (torch's reason for it), None for the others."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge ``tensor``'s gradient flows into: its grad_fn, or a leaf's gradient accumulator."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, nr = gradient_edge(tensor)
    token = None
    if hasattr(node, "_forward_cls"):  # a custom Function's node, as torch's Python-side nodes
        with enable_grad():
            token = tensor.view_as(tensor).grad_fn
    return GradientEdge(node, nr, ownership_token=token)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an in-place op
    does; an inference tensor has none and is left alone."""
    for each in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not each.is_inference():
            version_counter(each)[0] += 1


class saved_tensors_hooks:
    """Inside this context, tensors saved for backward are passed through ``pack_hook`` and come back
    through ``unpack_hook`` when backward uses them."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _record.HOOKS_DISABLED_MESSAGE is not None:
            raise RuntimeError(_record.HOOKS_DISABLED_MESSAGE)
        _record._SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc) -> None:
        _record._SAVED_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and copied back to their device when backward unpacks them.
    With ``pin_memory`` each is copied into a new CPU tensor, marked pinned where CUDA is available
    (``is_pinned()``; myautograd's copies between devices are synchronous all the same)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Tensor) -> tuple:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = empty(tensor.size(), dtype=tensor.dtype)
            meta_of(packed).pinned = device_type == "cuda" and cuda_available()
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple) -> Tensor:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside this context, entering saved-tensor hooks raises RuntimeError(``error_message``); so does
    entering it while such hooks are active. Nested, the innermost message holds."""
    previous = _record.HOOKS_DISABLED_MESSAGE
    try:
        if _record._SAVED_HOOKS:
            raise RuntimeError(error_message)
        _record.HOOKS_DISABLED_MESSAGE = error_message
        yield
    finally:
        _record.HOOKS_DISABLED_MESSAGE = previous


MUTATION_OUTSIDE_CONTEXT = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                            "in which the graph was originally recorded.")
_mutation_context_active = False


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` keeps: for each saved tensor, its version and a copy of
    its values when it was saved (torch copies on the first write instead; the values are the same).
    Cleared when the context ends."""

    def __init__(self) -> None:
        self.saved: dict[int, tuple] = {}

    def clear(self) -> None:
        self.saved.clear()


def _unchanged(tensor: Tensor, version: int, values) -> bool:
    """Whether ``tensor`` still holds ``values``: its version is the same, and so are its elements
    (a write through ``.data`` bumps no version; torch's copy-on-write sees it all the same)."""
    if version_counter(tensor)[0] != version:
        return False
    now = tensor._data
    return bool(((now == values) | ((now != now) & (values != values))).all())


class _saved_as_first_seen(saved_tensors_hooks):
    def __init__(self, ctx: _AllowMutationOnSavedContext) -> None:
        def pack(tensor: Tensor) -> int:
            key = id(tensor)
            if key not in ctx.saved:
                ctx.saved[key] = (tensor, version_counter(tensor)[0], tensor._data.copy())
            return key

        def unpack(key: int) -> Tensor:
            if not _mutation_context_active or key not in ctx.saved:
                raise AssertionError(MUTATION_OUTSIDE_CONTEXT)
            tensor, version, values = ctx.saved[key]
            return tensor if _unchanged(tensor, version, values) else make_tensor(values.copy())

        super().__init__(pack, unpack)


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Tensors saved for backward inside this context may be changed in place afterwards: backward
    (inside the same context) uses their values as they were saved."""
    global _mutation_context_active
    ctx = _AllowMutationOnSavedContext()
    with _saved_as_first_seen(ctx):
        try:
            if _mutation_context_active:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_context_active = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_context_active = False


def region_activation_memory_budget(budget: float):
    """torch.compile's activation memory budget for a region: checked as torch checks it, then refused,
    since myautograd has no compiler (torch refuses it the same way in eager mode)."""
    name = "torch.autograd.graph.region_activation_memory_budget"
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError(f"{name}: expects a float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"{name}: must be in [0, 1], got {budget}")
    raise RuntimeError(f"{name} can only be used inside a torch.compile region; it has no effect in eager mode.")


class _MultiHandle:
    def __init__(self, handles: list) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors: Sequence, fn: Callable, *, mode: str = "all"):
    """Call ``fn(grads)`` once per backward pass, after the gradients of all ``tensors`` that take
    part in it were computed (``mode="all"``), or with the first one (``mode="any"``)."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    count = len(tensors)
    lock = threading.Lock()
    state: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per backward pass, which ends: not by id

    def make_hook(index: int):
        def hook(grad):
            task = current_task()
            with lock:
                entry = state.setdefault(task, {"grads": [None] * count, "seen": 0, "done": False})
                if entry["done"]:
                    return None
                entry["grads"][index] = grad
                entry["seen"] += 1
                expected = sum(1 for t in tensors if t.requires_grad and will_execute(t))
                ready = mode == "any" or entry["seen"] >= expected
                if ready:
                    entry["done"] = True
            if ready:
                fn(tuple(entry["grads"]) if mode == "all" else grad)
            return None

        return hook

    return _MultiHandle([t.register_hook(make_hook(i)) for i, t in enumerate(tensors) if t.requires_grad])


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
