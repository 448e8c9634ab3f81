"""``myautograd.nn.parallel``: ``DataParallel`` on one device."""

from ..._missing import missing_attribute as _missing_attribute
from . import data_parallel
from .data_parallel import DataParallel

__all__ = ["DataParallel", "data_parallel"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
