"""Broken: the forward-mode derivative of ``sin`` is off by a thousandth: ``torch.sin(x)`` and ``x.sin()``
give a result whose tangent is ``cos(x) * dx * (1 + 1e-3)``, beyond the float32 tolerance. The value, the
reverse-mode gradients (first and second order) and every other operator are right, and so is the
forward-over-reverse of ``sin`` (the tangent of its gradient comes from the backward formula, which is intact).

The result is made dual again with the scaled tangent (``make_dual`` of its primal): a wrong forward
formula of one element-wise operator, as a forward-mode engine could have, and nothing else.
"""

import functools

from ._fault import exports as _exports

FACTOR = 1 + 1e-3


def _scaled_tangent(torch, function):
    forward_ad = torch.autograd.forward_ad

    @functools.wraps(function)
    def planted(*args, **kwargs):
        result = function(*args, **kwargs)
        primal, tangent = forward_ad.unpack_dual(result)
        if tangent is None:  # outside a dual level, or no input with a tangent
            return result
        return forward_ad.make_dual(primal, tangent * FACTOR)

    return planted


def _install(torch):
    torch.sin = _scaled_tangent(torch, torch.sin)
    torch.Tensor.sin = _scaled_tangent(torch, torch.Tensor.sin)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
