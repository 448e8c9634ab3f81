"""Hostile at import, several ways at once; everything else is torch (with one bug).

At import it: rebinds the judge's functions in its own process (a failing case must still fail);
makes float64 torch's default dtype (the reference must not see it); starts a non-daemon thread
that never ends and registers a slow atexit handler (the run must still end); ignores SIGINT and
sets SIGCHLD to be ignored (items must still run, Ctrl-C must still stop the run); makes
``cuda.is_available()`` raise SystemExit; and has a version with a lone surrogate. Its one bug:
``Tensor.backward`` doubles the gradients, so a case checking a gradient fails. In the cases
named by $BROKEN_CASES it hangs (to be interrupted).
"""

import atexit
import os
import signal
import threading
import time

import torch as _torch

import conformance.compare
import conformance.judge
import conformance.levels
from tests.broken._fault import running_targeted_case, sleep_forever

_IMPORT_PID = os.getpid()
if os.environ.get("HOSTILE_IMPORTED_BY"):  # who imports this module: only implementation workers may
    import sys as _sys

    with open(os.environ["HOSTILE_IMPORTED_BY"], "a") as _log:
        _log.write(" ".join(_sys.argv) + "\n")

conformance.levels.outcome_at = lambda diffs, level: ("pass", "")
conformance.compare.Comparison.steps = lambda self, ref, impl: []
conformance.judge.judge = lambda *args, **kwargs: None

_torch.set_default_dtype(_torch.float64)
threading.Thread(target=lambda: time.sleep(3600), daemon=False).start()
atexit.register(lambda: time.sleep(3600))
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGCHLD, signal.SIG_IGN)

__version__ = "6.6\udcff-hostile"
__conformance_module__ = "torch"

_original_backward = _torch.Tensor.backward


def _doubled_backward(self, gradient=None, *args, **kwargs):
    if gradient is None:
        gradient = _torch.ones_like(self)
    return _original_backward(self, gradient * 2, *args, **kwargs)


_torch.Tensor.backward = _doubled_backward


class _Cuda:
    @staticmethod
    def is_available():
        raise SystemExit(0)

    def __getattr__(self, name):
        return getattr(_torch.cuda, name)


cuda = _Cuda()


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if os.getpid() != _IMPORT_PID and running_targeted_case():
        sleep_forever()
    return getattr(_torch, name)
