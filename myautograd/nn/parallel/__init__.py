"""``myautograd.nn.parallel``: ``DataParallel`` on one device."""

from . import data_parallel
from .data_parallel import DataParallel

__all__ = ["DataParallel", "data_parallel"]
