"""Broken, and slow: backward adds 1e-3 to every leaf's ``.grad`` (as ``perturb_far``), and every
case takes 0.3 s longer. Nearly every fuzzed program differs at once, and shrinking one takes many
slow reruns: what ``tests/test_fuzz.py`` needs to show that the budget bounds a campaign's shrinking."""

import time

from ._fault import exports as _exports
from ._fault import perturb_grads as _perturb_grads

DELTA = 1e-3
DELAY = 0.3


def _install(torch):
    time.sleep(DELAY)  # once per case: installation runs on the first use of the namespace in each case's process
    _perturb_grads(torch, DELTA)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
