"""Refuses to run in a process forked after it was imported (as some GPU runtimes do).

With fork isolation its items end with its error, clearly; with ``--isolation spawn`` they pass.
"""

import os

import torch as _torch

_IMPORT_PID = os.getpid()
__conformance_module__ = "torch"


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if os.getpid() != _IMPORT_PID:
        raise RuntimeError("refuses_fork cannot be used in a forked process; start a fresh interpreter")
    return getattr(_torch, name)
