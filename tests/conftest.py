"""Shared fixtures of the suite's tests, and the pytest plugin that runs the catalog."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _plugin_installed() -> bool:
    """Whether the ``conformance`` pytest11 entry point is installed (then pytest loads it itself)."""
    from importlib.metadata import entry_points

    return any(ep.value == "conformance.pytest_plugin" for ep in entry_points(group="pytest11"))


pytest_plugins = [] if _plugin_installed() else ["conformance.pytest_plugin"]


def _torch_on_one_thread() -> None:
    """torch's intra-op thread pool (OpenMP) does not survive a fork: a test that observes a case in a forked child
    (``tests/support/sides.isolated``, as the runner's workers do) after this process ran one of torch's parallel
    kernels (pooling, convolution) can hang in the child until its timeout. The runner's reference workers run torch
    on one thread for the same reason (``conformance/worker.py``); the tests do likewise."""
    try:
        import torch
    except ImportError:  # the suite's own tests without torch: nothing to set
        return
    torch.set_num_threads(1)


_torch_on_one_thread()

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def reference_impl():
    """torch, loaded as the runner loads the reference."""
    from conformance.implementations import REFERENCE, resolve

    return resolve(REFERENCE)


@pytest.fixture(scope="session")
def sides_for(reference_impl):
    """``sides_for("drop_warning")``: (torch, ``tests.broken.drop_warning``) as ``Implementation``s
    (``"torch"``: torch against itself). Faults install only in forked children."""
    from conformance.implementations import resolve

    def make(name: str):
        return reference_impl, resolve(name if name == "torch" else f"tests.broken.{name}")

    return make


@pytest.fixture(scope="session")
def run_cli():
    """``run_cli("run", "--impl", ..., env={...})``: ``python -m conformance`` from the repository
    root, in a subprocess; returns the CompletedProcess (text stdout and stderr)."""

    def run(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=timeout, env={**os.environ, **(env or {})})

    return run


@pytest.fixture(scope="session")
def catalog_registry():
    """The real catalog, loaded in this process."""
    from conformance import catalog

    return catalog.load()


@pytest.fixture(params=["cpu", "cuda", "standin-cuda"])
def mydevice(request):
    """The device a myautograd test runs on: the CPU; CUDA where a GPU is present (skipped
    elsewhere); and ``standin-cuda``, "cuda" backed by the strict CuPy stand-in
    (``tests.support.strict_cupy``), which checks myautograd's CUDA code path on every machine."""
    import myautograd
    from myautograd import _backend
    from tests.support import strict_cupy

    if request.param == "standin-cuda":
        with strict_cupy.installed(_backend):
            yield "cuda"
        return
    if request.param == "cuda" and not myautograd.cuda.is_available():
        pytest.skip("CUDA not available")
    yield request.param
