"""``myautograd.utils``: hook handles (``utils.hooks.RemovableHandle``)."""

from . import hooks

__all__ = ["hooks"]
