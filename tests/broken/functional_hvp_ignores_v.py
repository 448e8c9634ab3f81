"""Broken: ``torch.autograd.functional.hvp`` checks ``v`` as torch does, then returns the product of the
Hessian with a vector of ones instead (``H 1``): right wherever ``v`` is all ones (an omitted ``v`` of one
element), wrong elsewhere. ``vhp`` is untouched."""

import functools

from ._fault import exports as _exports


def _install(torch):
    functional = torch.autograd.functional
    original = functional.hvp

    @functools.wraps(original)
    def hvp(func, inputs, v=None, create_graph=False, strict=False):
        original(func, inputs, v, create_graph=create_graph, strict=strict)  # torch's checks and errors
        ones = tuple(torch.ones_like(x) for x in inputs) if isinstance(inputs, tuple) else torch.ones_like(inputs)
        return original(func, inputs, ones, create_graph=create_graph, strict=strict)

    functional.hvp = hvp


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
