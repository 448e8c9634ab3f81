"""Running one catalog item (a case on a device) on both sides and judging it.

The result record is what every report is built from::

    {"id", "topic", "title", "device", "doc", "tags", "source", "location",
     "outcome", "detail", "duration",
     "reference": {"status", "steps", ...}, "implementation": {...}, "diff": [...]}

``outcome`` here is the raw outcome (pass, fail, unsupported, error, timeout, crash, skip);
expectations turn it into xfail / xpass later (see ``expectations``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .case import Case
from .compare import Comparison, judge
from .implementations import Implementation
from .isolation import run as run_isolated
from .normalize import Normalizer
from .recorder import observe

DEFAULT_TIMEOUT = 30.0


@dataclass
class Sides:
    """The reference and the implementation under test, as loaded in one process."""

    reference: Implementation
    implementation: Implementation


def base_record(case: Case, device: str) -> dict:
    try:
        source = case.source
    except (OSError, TypeError):  # no source file (e.g. a case defined interactively)
        source = None
    return {
        "id": case.id,
        "topic": case.topic,
        "title": case.title,
        "device": device,
        "doc": {"url": case.doc.url, "section": case.doc.section},
        "tags": list(case.tags),
        "source": source,
        "location": case.location,
    }


def skipped(case: Case, device: str, reason: str) -> dict:
    return {**base_record(case, device), "outcome": "skip", "detail": reason, "duration": 0.0,
            "reference": None, "implementation": None, "diff": []}


def run_item(case: Case, device: str, sides: Sides, timeout: float = DEFAULT_TIMEOUT,
             isolation: str = "fork") -> dict:
    started = time.perf_counter()
    limit = case.timeout or timeout

    def side(impl: Implementation) -> dict:
        return run_isolated(lambda: observe(case, impl.namespace, device), limit, isolation)

    reference = side(sides.reference)
    implementation = side(sides.implementation)
    comparison = Comparison(Normalizer(), Normalizer(sides.implementation.module_name), case.tolerances)
    outcome, detail, diffs = judge(reference, implementation, comparison)
    return {
        **base_record(case, device),
        "outcome": outcome,
        "detail": detail,
        "duration": time.perf_counter() - started,
        "reference": reference,
        "implementation": implementation,
        "diff": [d.as_dict() for d in diffs],
    }
