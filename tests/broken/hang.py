"""Broken: backward never returns."""

from ._fault import exports as _exports
from ._fault import sleep_forever as _sleep_forever
from ._fault import wrap_backward as _wrap_backward


def _install(torch):
    _wrap_backward(torch, lambda original, self, *args, **kwargs: _sleep_forever())


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
