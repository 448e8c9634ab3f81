"""Broken: backward kills its own process with SIGSEGV, as a crash in native code would."""

import signal as _signal

from ._fault import die_by as _die_by
from ._fault import exports as _exports
from ._fault import wrap_backward as _wrap_backward


def _install(torch):
    _wrap_backward(torch, lambda original, self, *args, **kwargs: _die_by(_signal.SIGSEGV))


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
