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

    def __init__(self, hooks: dict, *, extra_dict=None) -> None:
        self.id = next(RemovableHandle._ids)
        self._hooks = hooks
        # dictionaries of flags kept by the hook's id (with_kwargs, always_call): cleared with it
        self._extra = () if extra_dict is None else tuple(extra_dict) if isinstance(extra_dict, (list, tuple)) \
            else (extra_dict,)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for table in self._extra:
            table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


RemovableHandle.__module__ = "myautograd.utils.hooks"


def add_hook(hooks: dict, fn: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle
