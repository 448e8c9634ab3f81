"""Broken: backward ends its own process with ``os._exit(3)``."""

import os as _os

from ._fault import exports as _exports
from ._fault import wrap_backward as _wrap_backward


def _install(torch):
    _wrap_backward(torch, lambda original, self, *args, **kwargs: _os._exit(3))


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
