"""``myautograd.utils``: hook handles (``utils.hooks.RemovableHandle``) and data loading (``utils.data``)."""

from . import data, hooks

__all__ = ["data", "hooks"]
