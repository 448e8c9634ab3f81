"""Speed, peak memory and catalog throughput of each library on the workloads of workloads.py."""

from __future__ import annotations

import gc
import time

import pytest

from benchmarks import memory
from benchmarks.workloads import ROUNDS, WORKLOADS

MEMORY_WORKLOADS = ("mlp_step", "rnn_100_steps", "chain_100000_ops", "hvp")


def test_speed(benchmark, namespaces, workload, library):
    """One step of the workload. Before each timed round the other libraries run it: torch's
    step is timed there too, for an implementation's benchmark, so that each of its rounds has
    a torch round just before it to be compared with (the paired ratio of the report)."""
    steps = {name: WORKLOADS[workload](namespace) for name, namespace in namespaces.items()}
    others = [(name, step) for name, step in steps.items() if name != library]
    torch_seconds: list[float] = []

    def between_rounds():
        for name, step in others:
            gc.collect()
            started = time.perf_counter()
            step()
            if name == "torch":
                torch_seconds.append(time.perf_counter() - started)
        gc.collect()

    rounds = ROUNDS[workload]
    benchmark.group = workload
    benchmark.extra_info.update(workload=workload, library=library, kind="time")
    result = benchmark.pedantic(steps[library], setup=between_rounds, rounds=rounds, warmup_rounds=1)
    if torch_seconds:
        benchmark.extra_info["torch_seconds"] = torch_seconds[-rounds:]  # the warm-up round's left out
    assert result is not None


def test_peak_memory(benchmark, workload, library):
    """How far a step raises the peak resident size (``benchmarks/memory.py``), in a fresh process."""
    reason = memory.supported()
    if reason:
        pytest.skip(reason)
    benchmark.group = f"peak memory: {workload}"
    peak = benchmark.pedantic(memory.measure, args=(workload, library), rounds=1, iterations=1)
    benchmark.extra_info.update(workload=workload, library=library, kind="memory", peak_bytes=peak)
    assert peak >= 0


test_peak_memory.workloads = list(MEMORY_WORKLOADS)


def test_catalog_throughput(benchmark, namespaces, library):
    """Every CPU case of the conformance catalog run in this process (no isolation, no
    comparison): how fast an engine gets through the catalog's many small scenarios."""
    from conformance import catalog
    from conformance.recorder import observe

    cases = [case for case in catalog.load() if case.runs_on("cpu")]
    namespace = namespaces[library]

    def run_all():
        return sum(observe(case, namespace, "cpu")["status"] == "completed" for case in cases)

    benchmark.group = "catalog_throughput"
    benchmark.extra_info.update(workload="catalog_throughput", library=library, kind="time", cases=len(cases))
    completed = benchmark.pedantic(run_all, rounds=3, warmup_rounds=1)
    assert completed > 0
