"""Broken: backward raises ValueError where torch raises RuntimeError (same message)."""

from ._fault import exports as _exports
from ._fault import wrap_backward as _wrap_backward


def _install(torch):
    def backward(original, self, *args, **kwargs):
        try:
            return original(self, *args, **kwargs)
        except RuntimeError as exc:
            raise ValueError(str(exc)) from None

    _wrap_backward(torch, backward)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
