"""Known differences in a judged item: the ``[[explained]]`` entries of an implementation's file.

An ``[[expected]]`` entry says how a whole item ends, so it would hide any other difference the item
shows. An ``[[explained]]`` entry (format in ``expectations``) names one known difference: the
second-order step at which a compiler raises, the node name a compiled graph has. :func:`explain`
marks each difference of a record that an entry covering its case explains (``"explained": reason``)
and judges the item again from the others:

* every difference that counts at the deciding level is explained: the item is ``xfail``, its
  ``expected`` says ``explained`` with the entries' reasons;
* otherwise the unexplained differences give the outcome at each level, as ``levels`` does.

Records that did not end in differences (a crash, a timeout, a skip) are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable

from .expectations import FuzzExpectation
from .levels import LEVELS, counts_at, outcome_at

JUDGED = ("pass", "fail", "unsupported")


def explain(record: dict, entries: Iterable[FuzzExpectation], level: str) -> dict:
    """``record`` with the differences ``entries`` explain marked, and its outcome at each level
    judged from the rest (see the module's docstring)."""
    entries = [entry for entry in entries if entry.covers(record.get("id", ""))]
    diffs = record.get("diff") or []
    if not entries or not diffs or record.get("outcome") not in JUDGED:
        return record
    reasons = []
    for diff in diffs:
        entry = next((e for e in entries if e.explains(diff)), None)
        if entry is not None:
            diff["explained"] = entry.reason
            if entry.reason not in reasons:
                reasons.append(entry.reason)
    if not reasons:
        return record
    left = sorted((d for d in diffs if "explained" not in d), key=lambda d: int(d.get("step") or 0))
    by_level = {name: outcome_at(left, name) for name in LEVELS}
    record["levels"] = {name: outcome for name, (outcome, _) in by_level.items()}
    outcome, detail = by_level[level]
    explained_here = any("explained" in d and counts_at(d["aspect"], level) for d in diffs)
    if outcome == "pass" and explained_here:
        record["outcome"], record["detail"] = "xfail", "explained: " + "; ".join(reasons)
        record["expected"] = {"outcome": "explained", "reason": "; ".join(reasons)}
    else:
        record["outcome"], record["detail"] = outcome, detail
    return record


__all__ = ["explain"]
