"""Broken: ``torch.autograd.forward_ad.unpack_dual`` returns the tangent scaled by 1 + 1e-3 (a new tensor),
beyond the float32 tolerance: every Jacobian-vector product read back is off, the primal is right."""

import functools

from ._fault import exports as _exports

FACTOR = 1 + 1e-3


def _install(torch):
    forward_ad = torch.autograd.forward_ad
    original = forward_ad.unpack_dual

    @functools.wraps(original)
    def unpack_dual(tensor, *, level=None):
        primal, tangent = original(tensor, level=level)
        return forward_ad.UnpackedDualTensor(primal, None if tangent is None else tangent * FACTOR)

    forward_ad.unpack_dual = unpack_dual


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
