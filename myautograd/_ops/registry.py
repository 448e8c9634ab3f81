"""Where ops declare how they are exposed: as ``torch.<name>`` functions and/or Tensor methods.

Op modules decorate their functions with ``@export`` (both), ``@export(method=False)`` or
``@method``; ``myautograd._ops`` installs the methods on Tensor and re-exports the functions.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

FUNCTIONS: dict[str, Callable] = {}
METHODS: dict[str, Callable] = {}


def export(fn: Callable | None = None, *, name: str | None = None, function: bool = True, method: bool = True):
    def register(f: Callable) -> Callable:
        key = name or f.__name__
        exposed = _with_keepdims_alias(f, key)
        if function:
            FUNCTIONS[key] = exposed
        if method:
            METHODS[key] = exposed
        return f

    return register(fn) if fn is not None else register


def method(fn: Callable | None = None, *, name: str | None = None):
    return export(fn, name=name, function=False)


def function(fn: Callable | None = None, *, name: str | None = None):
    return export(fn, name=name, method=False)


NO_KEEPDIMS_ALIAS = {"norm"}  # torch.norm is a Python function, outside the argument parser that knows the alias


def _with_keepdims_alias(f: Callable, key: str) -> Callable:
    """An op with a ``keepdim`` parameter also takes ``keepdims=``, as torch's argument parser does."""
    try:
        parameters = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return f
    if "keepdim" not in parameters or key in NO_KEEPDIMS_ALIAS:
        return f

    @functools.wraps(f)
    def accepting_keepdims(*args, **kwargs):
        if "keepdims" in kwargs:
            if "keepdim" in kwargs:
                raise TypeError(f"{key}() got an unexpected keyword argument 'keepdims'")
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return f(*args, **kwargs)

    return accepting_keepdims
