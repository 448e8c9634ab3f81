"""Judging one item from what its two sides observed: the record with an outcome at each level.

Runs only in the judging process (the CLI, or pytest), on plain data that ``protocol`` has
already validated. The implementation under test never runs here.
"""

from __future__ import annotations

from .compare import Comparison
from .item import Item, ItemRecord
from .levels import DEFAULT_LEVEL, LEVELS, by_severity, outcomes
from .normalize import Normalizer, is_set_aside

REFERENCE_FAILED = ("timeout", "crash", "memory", "error")


def judge(item: Item, reference: dict, implementation: dict, impl_module: str, level: str = DEFAULT_LEVEL,
          memory_mib: int | None = None, set_aside_from: tuple[str, ...] = (), impl_device: str | None = None) -> ItemRecord:
    """``set_aside_from``: the modules whose warnings take no part (``expectations.WarningRule``);
    each step's warnings say whether they were set aside (``"set_aside": true``), for the reports.
    ``impl_device``: the device of its own the implementation ran on, as its tensors name it
    (``cuda:0``; ``placement``), read as the CPU (``normalize.device_rules``)."""
    record = ItemRecord.of(item)
    for side in (reference, implementation):
        mark_set_aside(side, set_aside_from)
    sides = {"reference": reference, "implementation": implementation}
    duration = float(reference.get("duration", 0.0)) + float(implementation.get("duration", 0.0))
    if reference["status"] in REFERENCE_FAILED:
        detail = f"the reference side did not finish: {reference.get('detail') or reference['status']}"
        return record.finished("error", detail, duration=duration, **sides)
    status = implementation["status"]
    if status == "memory":
        return record.finished("crash", f"out of memory: {implementation.get('detail', '')}", duration=duration,
                               **sides)
    if status in ("timeout", "crash", "error"):
        return record.finished(status, implementation.get("detail") or status, duration=duration, **sides)
    comparison = Comparison(Normalizer(), Normalizer(impl_module, impl_device), item.case.tolerances, item.dtype,
                            set_aside_from)
    diffs = [d.as_dict() for d in comparison.steps(reference["steps"], implementation["steps"])]
    by_level = outcomes(diffs)
    diffs = by_severity(diffs)
    if diffs and implementation.get("out_of_memory") and memory_mib:
        detail = (f"out of memory: the case exceeded the memory limit of {memory_mib} MiB (--memory-limit) "
                  f"and failed with an allocation error")
        return record.finished("crash", detail, duration=duration, diff=diffs, **sides)
    compared = comparison.compared
    if not reference["steps"]:
        detail = "the case compared nothing: its scenario recorded no step on torch (an error of the case)"
        return record.finished("error", detail, duration=duration, compared=compared, **sides)
    outcome, detail = by_level[level]
    return record.finished(outcome, detail, levels={name: by_level[name][0] for name in LEVELS},
                           duration=duration, diff=diffs, compared=compared, **sides)


def mark_set_aside(side: dict, set_aside_from: tuple[str, ...]) -> None:
    """Mark each warning of a side's steps that the comparison sets aside; a mark the side sent is
    dropped (it is the judge's to make)."""
    for step in side.get("steps") or ():
        for warning in step.get("warnings") or ():
            warning.pop("set_aside", None)
            if is_set_aside(warning, set_aside_from):
                warning["set_aside"] = True
