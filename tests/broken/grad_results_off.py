"""Broken: ``torch.autograd.grad`` adds 1e-3 to every gradient it returns, beyond the float32 tolerance
(the operator cases take their gradients with it)."""

import functools

from ._fault import exports as _exports

DELTA = 1e-3


def _install(torch):
    original = torch.autograd.grad

    @functools.wraps(original)
    def grad(*args, **kwargs):
        return tuple(None if g is None else g + DELTA for g in original(*args, **kwargs))

    torch.autograd.grad = grad


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
