"""Not quite broken: backward adds 2e-6 to every leaf's ``.grad``, within the float32 tolerance
(atol 1e-5): a case must still pass."""

from ._fault import exports as _exports
from ._fault import perturb_grads as _perturb_grads

DELTA = 2e-6

__conformance_module__, __version__, __getattr__ = _exports(install=lambda torch: _perturb_grads(torch, DELTA))
