"""``myautograd.utils``: hook handles (``utils.hooks.RemovableHandle``), data loading (``utils.data``) and
activation checkpointing (``utils.checkpoint``)."""

from .._missing import missing_attribute as _missing_attribute
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
