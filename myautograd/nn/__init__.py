"""``myautograd.nn``: modules, parameters, ``functional`` and ``init``, mirroring ``torch.nn``."""

from .._missing import missing_attribute as _missing_attribute
from . import functional, init, modules, parallel, parameter, utils
from .modules import *  # noqa: F403  (every layer; modules.__all__ names them once)
from .modules import __all__ as _module_names
from .parallel import DataParallel
from .parameter import Buffer, Parameter

__all__ = [*_module_names, "Buffer", "DataParallel", "Parameter", "functional", "init", "modules", "parallel",
           "parameter", "utils"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
