"""Benchmarks of myautograd against torch in the same run, one thread each.

``tox -e bench`` (or ``pytest benchmarks --benchmark-only``). Each benchmark runs once per
library in one group; at the end a summary prints, per group, myautograd's median time over
torch's, next to the project's goal for it. Goals are reported, never asserted: a slower run
is a fact to read in the report, not a test failure.
"""

from __future__ import annotations

import os

import pytest

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import torch  # noqa: E402 - after the thread settings, which BLAS reads when it loads

import myautograd  # noqa: E402

torch.set_num_threads(1)

LIBRARIES = {"torch": torch, "myautograd": myautograd}
GOALS = {"chain_1000_ops": 0.5, "mlp_training_step": 0.8}


@pytest.fixture(params=list(LIBRARIES), ids=list(LIBRARIES))
def library(request):
    return request.param, LIBRARIES[request.param]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None or not session.benchmarks:
        return
    medians: dict[str, dict[str, float]] = {}
    for bench in session.benchmarks:
        library_name = bench.name.rsplit("[", 1)[-1].rstrip("]")
        medians.setdefault(bench.group, {})[library_name] = bench.stats.median
    terminalreporter.section("myautograd / torch (median times, same run, one thread each)")
    for group, times in sorted(medians.items()):
        if "torch" not in times or "myautograd" not in times:
            continue
        ratio = times["myautograd"] / times["torch"]
        goal = GOALS.get(group)
        verdict = "" if goal is None else (f"goal <= {goal}: " + ("met" if ratio <= goal else "not met"))
        terminalreporter.write_line(
            f"{group:24s} torch {times['torch'] * 1e3:8.3f} ms  myautograd {times['myautograd'] * 1e3:8.3f} ms  "
            f"ratio {ratio:5.2f}   {verdict}")
