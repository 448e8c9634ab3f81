"""``myautograd.utils``: hook handles (``utils.hooks.RemovableHandle``), data loading (``utils.data``) and
activation checkpointing (``utils.checkpoint``)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
