"""Broken, and slow: an exception that leaves a ``torch.no_grad()`` block leaves grad mode off (the
block restores the mode only when it ends normally), and every case takes 0.3 s longer.

A fuzzed program differs only where an exception leaves such a block: the generator's step "an
exception leaves the block torch.no_grad()" and the grad mode recorded right after it, or an op that
raises under ``no_grad`` and the first later step that reads the mode. Shrinking has one place to
find in a long program, and every run is slow: what ``tests/test_fuzz_shrinking.py`` needs to show
that a slow implementation's difference is shrunk by deleting steps."""

import time

from ._fault import exports as _exports

DELAY = 0.3


def _install(torch):
    time.sleep(DELAY)  # once per case: installation runs on the first use of the namespace in each case's process
    restore = torch.no_grad.__exit__

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is None:
            restore(self, exc_type, exc_value, traceback)

    torch.no_grad.__exit__ = __exit__


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
