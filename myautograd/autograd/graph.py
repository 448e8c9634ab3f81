"""``myautograd.autograd.graph``: the public face of graph nodes and graph-level hooks.

``Node`` is the class of every ``grad_fn``. ``saved_tensors_hooks`` packs tensors as they are
saved for backward and unpacks them when backward needs them; ``register_multi_grad_hook``
calls a function once per backward with the gradients of several tensors.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from .._autograd import record as _record
from .._autograd.engine import current_task, will_execute
from .._autograd.node import AccumulateGrad, Node
from .._hooks import RemovableHandle
from .._missing import missing_attribute as _missing_attribute

__all__ = ["Node", "AccumulateGrad", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "RemovableHandle"]


class saved_tensors_hooks:
    """Inside this context, tensors saved for backward are passed through ``pack_hook`` and come back
    through ``unpack_hook`` when backward uses them."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _record._SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc) -> None:
        _record._SAVED_HOOKS.pop()


class save_on_cpu(saved_tensors_hooks):
    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: (t.device, t.cpu()), lambda packed: packed[1].to(packed[0]))


class disable_saved_tensors_hooks:
    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self.saved = list(_record._SAVED_HOOKS)
        _record._SAVED_HOOKS.clear()

    def __exit__(self, *exc) -> None:
        _record._SAVED_HOOKS[:] = self.saved


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
    state: dict = {}

    def make_hook(index: int):
        def hook(grad):
            task = current_task()
            with lock:
                entry = state.setdefault(id(task), {"grads": [None] * count, "seen": 0, "done": False})
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
