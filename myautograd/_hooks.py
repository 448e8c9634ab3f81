"""Hook registries: what registering a hook returns, for tensors, nodes and modules alike.

A hook lives in a dictionary keyed by its handle's id (insertion order is firing order);
``handle.remove()`` takes it out again.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable


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
