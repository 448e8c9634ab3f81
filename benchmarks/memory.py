"""Peak memory of one workload step, measured the same way for every library.

``python -m benchmarks.memory WORKLOAD LIBRARY`` runs in a fresh interpreter: it imports the
library (one thread), builds the workload and runs one step (lazy initialisation, caches), hands
the memory freed since back to the system (glibc's ``malloc_trim``), resets the process's peak
resident set size (Linux: ``/proc/self/clear_refs``), runs one more step and prints how far the
peak rose above the resident size before that step, in bytes: the gradients, the graph and the
temporaries of a step. The operating system counts every allocation the same way, NumPy's or
torch's, so the two libraries are measured alike.
"""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def supported() -> str | None:
    """None when peak memory can be measured here, otherwise why not."""
    if not Path("/proc/self/clear_refs").exists():
        return "needs Linux's /proc/self/clear_refs to reset the peak resident size"
    try:
        getattr(ctypes.CDLL("libc.so.6"), "malloc_trim")  # noqa: B009 - only whether it exists
    except (OSError, AttributeError):
        return "needs glibc's malloc_trim"
    return None


def _trim() -> None:
    """Return the free memory at the top of malloc's heaps to the system, so that the next step
    has to grow the resident size for what it allocates, as the first one did."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def measure_here(workload: str, library: str) -> int:
    """The rise of the peak resident size during one step, in bytes (in this process)."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    sys.path.insert(0, str(ROOT))
    from benchmarks.workloads import WORKLOADS
    from conformance.implementations import resolve

    namespace = resolve(library).namespace
    if hasattr(namespace, "set_num_threads"):
        namespace.set_num_threads(1)
    step = WORKLOADS[workload](namespace)
    step()
    gc.collect()
    _trim()
    before = _status_kib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from the current size
    result = step()
    peak = _status_kib("VmHWM")
    del result
    return max(0, peak - before) * 1024


def measure(workload: str, library: str, timeout: float = 600) -> int:
    """``measure_here`` in a fresh interpreter."""
    completed = subprocess.run([sys.executable, "-m", "benchmarks.memory", workload, library], cwd=ROOT,
                               capture_output=True, text=True, timeout=timeout)
    if completed.returncode != 0:
        raise RuntimeError(f"measuring {workload} on {library} failed:\n{completed.stderr[-2000:]}")
    return int(completed.stdout.split()[-1])


if __name__ == "__main__":
    print(measure_here(sys.argv[1], sys.argv[2]))
