"""Observing one side of a case in a forked child of the test process, and judging two sides.

The harness's own path runs sides in worker processes (``conformance.pool``); these helpers let
tests of the recorder, the comparison and the judge run real observations cheaply, in a child
forked from the test process exactly as a worker forks its cases (``isolation.SpareChild``).
The broken implementations in ``tests/broken`` install their faults lazily in such children, so
the test process itself stays clean.
"""

from __future__ import annotations

from conformance.isolation import Limits, SpareChild
from conformance.item import Item
from conformance.judge import judge
from conformance.recorder import observe


def isolated(task, timeout: float = 30.0, device: str = "cpu", memory_mib: int = 2048) -> dict:
    """``task()`` run in a forked child, as a side worker runs a case: its result or why it failed."""
    child = SpareChild(lambda request: task(), reap_orphans=False)
    return child.run({"device": device, "memory_mib": memory_mib}, Limits(timeout, memory_mib))


def observed(case, namespace, device: str = "cpu", dtype: str | None = None, timeout: float = 30.0) -> dict:
    return isolated(lambda: observe(case, namespace, device, dtype), timeout, device)


def judged(case, reference, implementation, device: str = "cpu", dtype: str | None = None,
           timeout: float = 30.0) -> dict:
    """The record of ``case`` with ``reference`` and ``implementation`` (``Implementation`` objects)."""
    item = Item(case, device, dtype or case.dtypes[0])
    ref = observed(case, reference.namespace, device, item.dtype, timeout)
    impl = observed(case, implementation.namespace, device, item.dtype, timeout)
    return judge(item, ref, impl, implementation.module_name).as_dict()
