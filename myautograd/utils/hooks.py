"""``RemovableHandle``: what registering a hook returns."""

from .._hooks import RemovableHandle

__all__ = ["RemovableHandle"]
