"""Broken: backward adds 1e-3 to every leaf's ``.grad``, beyond the float32 tolerance."""

from ._fault import exports as _exports
from ._fault import perturb_grads as _perturb_grads

DELTA = 1e-3

__conformance_module__, __version__, __getattr__ = _exports(install=lambda torch: _perturb_grads(torch, DELTA))
