"""``myautograd.utils``: hook handles (``utils.hooks.RemovableHandle``) and data loading (``utils.data``)."""

from .._missing import missing_attribute as _missing_attribute
from . import data, hooks

__all__ = ["data", "hooks"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
