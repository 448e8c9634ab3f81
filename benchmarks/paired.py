"""Paired rounds: torch and any number of engines on one workload, for comparing versions.

``python -m benchmarks.paired WORKLOAD ROUNDS NAME [NAME ...]`` runs, in each round, one step
of torch and of each named engine (anything ``--impl`` accepts), in alternating order, with a
garbage collection before each step, and prints each engine's median over the rounds of its
time divided by torch's time in the same round. On a shared machine whose load moves by the
minute, the ratio within a round is steadier than a ratio of medians taken minutes apart.

To compare two versions of myautograd, put a copy of the older one beside it under another
package name (``git archive REV myautograd | tar -x -C /tmp/old && mv /tmp/old/myautograd
/tmp/old/myautograd_old``; its imports are relative) and run with ``PYTHONPATH=/tmp/old`` and
the names ``myautograd_old myautograd``.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


def paired(workload: str, rounds: int, names: list[str]) -> dict[str, list[float]]:
    """Per engine, its time over torch's in each round."""
    import torch

    from benchmarks.workloads import WORKLOADS
    from conformance.implementations import resolve

    torch.set_num_threads(1)
    namespaces = {"torch": torch, **{name: resolve(name).namespace for name in names}}
    steps = {name: WORKLOADS[workload](namespace) for name, namespace in namespaces.items()}
    for step in steps.values():
        step()
    order = list(steps)
    times: dict[str, list[float]] = {name: [] for name in steps}
    for index in range(rounds):
        for name in order if index % 2 == 0 else order[::-1]:
            gc.collect()
            started = time.perf_counter()
            steps[name]()
            times[name].append(time.perf_counter() - started)
    return {name: [t / r for t, r in zip(times[name], times["torch"])] for name in names}


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        raise SystemExit("usage: python -m benchmarks.paired WORKLOAD ROUNDS NAME [NAME ...]")
    workload, rounds, names = argv[0], int(argv[1]), argv[2:]
    for name, ratios in paired(workload, rounds, names).items():
        print(f"{workload:18s} {name:20s} median ratio to torch {statistics.median(ratios):.3f} "
              f"(quartiles {statistics.quantiles(ratios, n=4)[0]:.3f} to {statistics.quantiles(ratios, n=4)[2]:.3f}, "
              f"{rounds} rounds)")


if __name__ == "__main__":
    main(sys.argv[1:])
