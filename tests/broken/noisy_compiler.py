"""torch, with a run hook that issues a diagnostic warning of its own before each scenario, from
``tests.broken._noisy_diagnostics`` (as a compiler warns while it traces). The scenario itself runs
as it is: with ``[warnings] set_aside_from = ["tests.broken._noisy_diagnostics"]`` every item passes,
without it the first step of each differs (warned)."""

from . import _noisy_diagnostics
from ._fault import exports as _exports


def __conformance_run__(scenario, namespace, rec):
    _noisy_diagnostics.diagnose()
    scenario(namespace, rec)


__conformance_module__, __version__, __getattr__ = _exports()
