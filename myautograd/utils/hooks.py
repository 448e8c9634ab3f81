"""``RemovableHandle``: what registering a hook returns."""

from .._autograd.graph import RemovableHandle

__all__ = ["RemovableHandle"]
