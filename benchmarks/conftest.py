"""Benchmarks of an engine against torch in the same run, one thread each.

``tox -e bench`` (or ``pytest benchmarks --benchmark-only``) times every workload of
``benchmarks/workloads.py`` on torch and on each implementation named with ``--bench-impl``
(default: myautograd; repeat the option for more, any name ``python -m conformance run --impl``
accepts). For each workload the libraries run back to back, and before each timed round of one
library the others run the same step untimed, so that they share the machine's state. Peak
memory of a step and the catalog's own throughput are measured too.

At the end the ratios (implementation median / torch median) are printed next to the goals, and
written to ``reports/bench/`` (``--bench-report-dir``): ``summary.md`` and ``ratios.svg``.
Goals are reported, never asserted: a slower run is a fact to read, not a test failure. With
``--benchmark-autosave`` (as ``tox -e bench`` runs) pytest-benchmark keeps each run's JSON in
``.benchmarks/``, so ``--benchmark-compare`` shows how a change moved the times.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import torch  # noqa: E402 - after the thread settings, which BLAS reads when it loads

from benchmarks import report  # noqa: E402
from benchmarks.workloads import WORKLOADS  # noqa: E402
from conformance.implementations import UnknownImplementation, resolve  # noqa: E402

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    group = parser.getgroup("bench", "myautograd benchmarks")
    group.addoption("--bench-impl", action="append", default=None, metavar="NAME",
                    help="an implementation to benchmark beside torch (repeatable; default: myautograd)")
    group.addoption("--bench-report-dir", default=str(ROOT / "reports" / "bench"), metavar="DIR",
                    help="where summary.md and ratios.svg go (default: reports/bench)")


def implementations(config) -> list[str]:
    return config.getoption("--bench-impl") or ["myautograd"]


def pytest_configure(config):
    config._bench_namespaces = {"torch": torch}
    for name in implementations(config):
        try:
            namespace = resolve(name).namespace
        except UnknownImplementation as exc:
            raise pytest.UsageError(str(exc)) from None
        if hasattr(namespace, "set_num_threads"):
            namespace.set_num_threads(1)
        config._bench_namespaces[name] = namespace


def pytest_generate_tests(metafunc):
    libraries = list(metafunc.config._bench_namespaces)
    if "workload" in metafunc.fixturenames and "library" in metafunc.fixturenames:
        names = getattr(metafunc.function, "workloads", list(WORKLOADS))
        pairs = [(w, lib) for w in names for lib in libraries]  # a workload's libraries back to back
        metafunc.parametrize(("workload", "library"), pairs, ids=[f"{w}-{lib}" for w, lib in pairs])
    elif "library" in metafunc.fixturenames:
        metafunc.parametrize("library", libraries)


@pytest.fixture
def namespaces(request):
    return request.config._bench_namespaces


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None or not session.benchmarks:
        return
    results = report.collect(session.benchmarks)
    lines = report.summary_lines(results, implementations(config))
    terminalreporter.section("ratios to torch (median times, same run, one thread each)")
    for line in lines:
        terminalreporter.write_line(line)
    written = report.write(results, implementations(config), Path(config.getoption("--bench-report-dir")))
    terminalreporter.write_line(f"written: {', '.join(str(p) for p in written)}")
