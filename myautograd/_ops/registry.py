"""Where ops declare how they are exposed: as ``torch.<name>`` functions and/or Tensor methods.

Op modules decorate their functions with ``@export`` (both), ``@export(method=False)`` or
``@method``; ``myautograd._ops`` installs the methods on Tensor and re-exports the functions.
"""

from __future__ import annotations

from collections.abc import Callable

FUNCTIONS: dict[str, Callable] = {}
METHODS: dict[str, Callable] = {}


def export(fn: Callable | None = None, *, name: str | None = None, function: bool = True, method: bool = True):
    def register(f: Callable) -> Callable:
        key = name or f.__name__
        if function:
            FUNCTIONS[key] = f
        if method:
            METHODS[key] = f
        return f

    return register(fn) if fn is not None else register


def method(fn: Callable | None = None, *, name: str | None = None):
    return export(fn, name=name, function=False)


def function(fn: Callable | None = None, *, name: str | None = None):
    return export(fn, name=name, method=False)
