"""``RemovableHandle``: what registering a hook returns."""

from .._hooks import RemovableHandle
from .._missing import missing_attribute as _missing_attribute

__all__ = ["RemovableHandle"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
