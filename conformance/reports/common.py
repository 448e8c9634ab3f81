"""What the report writers share: outcome groups, safe text, and readings of a run result.

Texts in a run result come partly from the implementation under test (exception messages,
warnings, printed output, reprs) and can hold anything: control characters, lone surrogates,
markup. :func:`clean` makes any such text printable and encodable (each writer then escapes it
for its own format); :func:`shorten` and :func:`one_line` fit it into a table cell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..item import label_of
from ..levels import LEVELS, by_severity, summary
from ..runner import EXPECTED_OUTCOMES, OUTCOMES, UNSCORED

#: Outcomes that fail the run (the exit status is 1 when one occurs).
UNEXPECTED_OUTCOMES = tuple(o for o in OUTCOMES if o not in EXPECTED_OUTCOMES)
#: Outcomes shown with their differences (skip and n/a have none: they never ran).
PROBLEM_OUTCOMES = tuple(o for o in OUTCOMES if o not in ("pass", "skip", "n/a"))

# C0 controls but tab and newline, DEL, C1 controls, lone surrogates, and the two non-characters
# XML 1.0 forbids. A carriage return is kept out as well: it is better shown than obeyed.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(value: object) -> str:
    """``value`` as text with every unsafe character replaced by a visible escape (``\\x1b``)."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return _UNSAFE.sub(_visible, text)


def one_line(text: str) -> str:
    """Newlines shown as `` ⏎ `` so that a multi-line message fits in one line."""
    return re.sub(r"\s*\n\s*", " \u23ce ", text.strip())


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "\u2026"


def label(record: dict) -> str:
    """``case[device]`` or ``case[device,dtype]``: how reports name an item."""
    return label_of(record.get("id", "?"), record.get("device", "?"), record.get("dtype", "float32"),
                    bool(record.get("several_dtypes")))


def column(record: dict) -> str:
    """The matrix column of an item: its device, with its dtype when that is not float32."""
    dtype = record.get("dtype") or "float32"
    return record.get("device", "?") if dtype == "float32" else f"{record.get('device', '?')} {dtype}"


def level_scores(records: Iterable[dict]) -> dict[str, tuple[int, int]]:
    """(passed, scored) at each level; skip and n/a items are not scored."""
    scored = [r for r in records if r.get("outcome") not in UNSCORED]
    return {level: (sum(1 for r in scored if (r.get("levels") or {}).get(level) == "pass"), len(scored))
            for level in LEVELS}


def rate(passed: int, total: int) -> str:
    return f"{100 * passed / total:.0f}% ({passed}/{total})" if total else "\u2014"


def missing_apis(records: Iterable[dict]) -> list[tuple[str, list[dict]]]:
    """Each API name the implementation lacks, with the items it made unsupported, most first."""
    found: dict[str, list[dict]] = {}
    for record in records:
        names = {d["unsupported"] for d in record.get("diff") or [] if d.get("unsupported")}
        for name in names:
            found.setdefault(clean(name), []).append(record)
    return sorted(found.items(), key=lambda pair: (-len(pair[1]), pair[0]))


def headline(record: dict) -> str:
    """The most severe difference of an item (or why it did not run, or did not finish)."""
    detail = record.get("detail") or ""
    if detail:
        return clean(detail)
    if record.get("diff"):
        return clean(summary(by_severity(record["diff"])[0]))
    return record.get("outcome", "")


def expected_note(record: dict) -> str:
    """The expectation an xfail / xpass item matched, in one line; empty when there is none."""
    expected = record.get("expected")
    if not expected:
        return ""
    return clean(f"expected {expected.get('outcome', '?')}: {expected.get('reason', '')}")


def divergence_line(record: dict) -> str:
    """Where an item's gradients first diverge in the graph (``conformance.locate``), in one line;
    empty where that was not located."""
    divergence = record.get("divergence")
    if not isinstance(divergence, dict) or not divergence.get("summary"):
        return ""
    return clean(one_line(f"where gradients diverge: {divergence['summary']}"))


def divergence_short(record: dict) -> str:
    """The node where an item's gradients first diverge, in a few words (for a table cell)."""
    divergence = record.get("divergence")
    if not isinstance(divergence, dict) or not divergence.get("summary"):
        return ""
    if divergence.get("found") in ("node", "incoming") and divergence.get("node"):
        return clean(one_line(f"gradients diverge at {divergence['node']} (position {divergence.get('position')}, "
                              f"call {divergence.get('call')})"))
    return clean(one_line(divergence["summary"]))


def side_status(side: dict | None) -> str:
    if side is None:
        return "did not run"
    status = clean(side.get("status", "?"))
    return f"{status}: {clean(side['detail'])}" if side.get("detail") else status


def diff_text(record: dict) -> str:
    """The full account of an item, in plain text: what it checks, then each difference."""
    lines = [f"{label(record)}: {record.get('title', '')}"]
    doc = record.get("doc") or {}
    if doc:
        lines.append(f"checks: {doc.get('section', '')} <{doc.get('url', '')}>")
    if record.get("location"):
        lines.append(f"scenario: {record['location']}")
    lines.append(f"outcome: {record.get('outcome', '?')}")
    if record.get("levels"):
        lines.append("levels: " + ", ".join(f"{k} {v}" for k, v in record["levels"].items()))
    if record.get("expected"):
        lines.append(expected_note(record))
    if record.get("detail"):
        lines.append(f"detail: {record['detail']}")
    if divergence_line(record):
        lines.append(divergence_line(record))
    diffs = record.get("diff") or []
    if diffs:
        lines.append("")
        lines.append(f"{len(diffs)} difference(s):")
        for diff in diffs:
            lines.append(f"- {diff.get('where', '')} [{diff.get('aspect', '?')}]")
            lines.append(f"    torch:          {diff.get('reference', '')}")
            lines.append(f"    implementation: {diff.get('implementation', '')}")
            if diff.get("detail"):
                lines.append(f"    {diff['detail']}")
            if diff.get("unsupported"):
                lines.append(f"    unsupported: {diff['unsupported']}")
            if diff.get("explained"):
                lines.append(f"    explained (does not count): {diff['explained']}")
    elif record.get("outcome") in ("error", "timeout", "crash"):
        lines.append(f"torch side: {side_status(record.get('reference'))}")
        lines.append(f"implementation side: {side_status(record.get('implementation'))}")
    for number, step in raising_steps(record):
        lines.append("")
        lines.append(f"the implementation raised at step {number} ({step.get('label', '')}): "
                     f"{step['error'].get('type', '?')}: {step['error'].get('message', '')}")
        lines.append("Traceback (most recent call last):")
        lines.append(step["error"]["traceback"])
    return clean("\n".join(lines))


def raising_steps(record: dict) -> list[tuple[int, dict]]:
    """(step number, step) for the implementation's steps that raised with a traceback, where the
    item has a difference at that step: the exceptions an engine author needs to see."""
    steps = (record.get("implementation") or {}).get("steps") or []
    differing = {int(d["step"]) for d in record.get("diff") or [] if isinstance(d.get("step"), int)}
    return [(number, step) for number, step in enumerate(steps, start=1)
            if number in differing and isinstance(step.get("error"), dict) and step["error"].get("traceback")]


def topics(records: Iterable[dict]) -> dict[str, list[dict]]:
    """Records by topic, topics in the order they first occur (catalog order)."""
    grouped: dict[str, list[dict]] = {}
    for record in records:
        grouped.setdefault(record.get("topic") or "?", []).append(record)
    return grouped


def devices(result: dict) -> list[str]:
    """The matrix columns: the devices of the run, then every other column the records name."""
    names = list(result.get("devices") or {})
    for record in result.get("cases", []):
        if column(record) not in names:
            names.append(column(record))
    return names


def counts(records: Iterable[dict]) -> dict[str, int]:
    found = {name: 0 for name in OUTCOMES}
    for record in records:
        found[record.get("outcome", "error")] = found.get(record.get("outcome", "error"), 0) + 1
    return found


def verdict(result: dict) -> tuple[str, int]:
    """``passed``, ``failed``, ``incomplete`` or ``interrupted``, with the number of unexpected
    outcomes. ``incomplete``: nothing failed, but nothing of the selection ran, or a device asked
    for could not be used (``runner.incompleteness``); never ``passed`` then."""
    unexpected = sum(n for name, n in counts(result.get("cases", [])).items() if name not in EXPECTED_OUTCOMES)
    if result.get("interrupted"):
        return "interrupted", unexpected
    if unexpected or result.get("exit_status") not in (0, 5, None):
        return "failed", unexpected
    return ("incomplete" if result.get("incomplete") else "passed"), unexpected


def ran(records: Iterable[dict]) -> list[dict]:
    """The items that ran (neither skipped nor n/a)."""
    return [r for r in records if r.get("outcome") not in UNSCORED]


def verdict_line(result: dict) -> str:
    """The verdict in one sentence, saying what it rests on."""
    state, unexpected = verdict(result)
    records = result.get("cases", [])
    ran_count = len(ran(records))
    not_run = len(records) - ran_count
    aside = f"; {not_run} not run (skip, n/a)" if not_run else ""
    if state == "interrupted":
        return f"interrupted: partial results, {ran_count} items ran, {unexpected} unexpected"
    if state == "failed":
        return f"failed: {unexpected} of {ran_count} items that ran did not pass as expected{aside}"
    if state == "incomplete":
        allowed = "allowed by --allow-empty" if result.get("allow_empty") else \
            "exit status 5; --allow-empty accepts it"
        return f"incomplete ({allowed}): " + "; ".join(result.get("incomplete") or [])
    return f"passed: all {ran_count} items that ran passed as expected{aside}"


def describe_duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest:02d} s"


def placement(result: dict) -> str:
    """Where each side ran, for a run with the implementation on a device of its own
    (``--impl NAME@DEVICE``, ``conformance.placement``); empty for any other run."""
    impl = result.get("implementation") or {}
    if not impl.get("device"):
        return ""
    shown = f" (its tensors on {impl['reads_as']}, read as the CPU's)" if impl.get("reads_as") else ""
    return f"the implementation on {impl['device']}{shown}, the reference on the CPU"


def versions(result: dict) -> str:
    impl = result.get("implementation") or {}
    ref = result.get("reference") or {}
    return (f"{impl.get('name', '?')} {impl.get('version', '?')} against "
            f"{ref.get('name', 'torch')} {ref.get('version', '?')}")
