"""``summary.md``: a short Markdown summary of the run, sized for a CI job summary.

Append it to ``$GITHUB_STEP_SUMMARY`` (or a merge-request note). It holds:

* a header line: verdict, implementation and reference versions, item count and duration,
  the pass rate at each level (the deciding one marked), then a line with Python, platform and
  devices, and a pointer to ``report.html`` for the details;
* one table, one row per topic that has items not passing (topics where everything passed are
  counted in one line), with the count of each outcome and the pass rate at each level;
* "missing API": each name the implementation lacks with the number of items it leaves
  ``unsupported``, most first, so an engine author knows what to add first;
* one table row per item that did not pass (unexpected outcomes first, then xfail) with its
  most severe difference, shortened; skip and n/a items are grouped by reason, one line each;
* the stale expectations, if any.

Every text from the run goes through :func:`escape`: control characters become visible
escapes, newlines become ``⏎``, HTML is entity-escaped and Markdown punctuation (pipes and
backticks included) is backslash-escaped, so a message cannot break a table or add markup.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..levels import LEVELS
from .common import (
    PROBLEM_OUTCOMES,
    UNEXPECTED_OUTCOMES,
    clean,
    column,
    counts,
    describe_duration,
    divergence_short,
    expected_note,
    headline,
    label,
    level_scores,
    missing_apis,
    one_line,
    placement,
    ran,
    rate,
    shorten,
    topics,
    verdict,
    verdict_line,
)
from .common import devices as device_names
from .databases import database_lines

ICONS = {"pass": "\u2705", "fail": "\u274c", "xfail": "\u2611\ufe0f", "xpass": "\u2757", "unsupported": "\U0001f6ab",
         "error": "\U0001f4a5", "timeout": "\u231b", "crash": "\U0001f480", "skip": "\u23ed\ufe0f",
         "n/a": "\u2796"}
VERDICT_ICONS = {"passed": "\u2705", "failed": "\u274c", "incomplete": "\u26a0\ufe0f", "interrupted": "\u26a0\ufe0f"}
TEXT_LIMIT = 200
DIVERGENCE_LIMIT = 160
MAX_ITEMS = 500
MAX_MISSING = 30
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~])")


def escape(value: object, limit: int | None = TEXT_LIMIT) -> str:
    """Text from the run, safe in a table cell or a list item: one line, no markup."""
    text = one_line(clean(value))
    if limit is not None:
        text = shorten(text, limit)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def code(value: object) -> str:
    """A short identifier (a case id, a device) as inline code; escaped text if it cannot be one."""
    text = shorten(one_line(clean(value)), TEXT_LIMIT)
    if not text or any(c in text for c in "`|\\") or text != text.strip():
        return escape(text)
    return f"`{text}`"


def header(result: dict) -> list[str]:
    state, unexpected = verdict(result)
    impl = result.get("implementation") or {}
    ref = result.get("reference") or {}
    total = len(result.get("cases", []))
    if state == "passed":
        outcome = "**passed**"
    elif state == "incomplete":
        outcome = "**incomplete**"
    elif state == "interrupted":
        outcome = f"**interrupted** (partial results, {unexpected} unexpected)"
    else:
        outcome = f"**failed**: {unexpected} unexpected outcome{'s' if unexpected != 1 else ''}"
    module = impl.get("module")
    module = f" (module {code(module)})" if module and module != impl.get("name") else ""
    first = (f"## {VERDICT_ICONS[state]} Conformance of {escape(impl.get('name', '?'))} "
             f"{escape(impl.get('version', '?'))}{module} against {escape(ref.get('name', 'torch'))} "
             f"{escape(ref.get('version', '?'))}: {outcome}, "
             f"{total} item{'s' if total != 1 else ''} in {describe_duration(result.get('duration'))}")
    found = counts(result.get("cases", []))
    totals = " \u00b7 ".join(f"{ICONS[name]} {name} {n}" for name, n in found.items() if n)
    devices = ", ".join(f"{code(name)} ({escape(status)})" for name, status in (result.get("devices") or {}).items())
    placed = f"; {escape(placement(result))}" if placement(result) else ""
    second = (f"Python {escape(result.get('python', '?'))} on {escape(result.get('platform', '?'))}; "
              f"devices: {devices or 'none'}{placed}")
    scores = level_scores(result.get("cases", []))
    deciding = result.get("level", "drop-in")
    levels = " \u00b7 ".join(f"{'**' + level + '**' if level == deciding else level} {rate(*scores[level])}"
                             for level in LEVELS)
    compared = result.get("compared") or {}
    lines = [first, "", f"**{escape(verdict_line(result), None)}**", "", totals or "no items", "",
             f"Compared: {compared.get('items', 0)} items ran on both sides, {compared.get('steps', 0)} steps, "
             f"{compared.get('elements', 0)} values and gradients element by element.", "",
             f"Pass rate by level: {levels} (the exit status follows **{deciding}**)", "", second, "",
             "Every item, its steps and differences: `report.html` next to this file."]
    selection = (result.get("selection") or {}).get("k")
    if selection:
        lines[-3] += f"; selection {code('-k ' + selection)}"
    profile = result.get("profile") or {}
    if profile.get("lacks"):
        lines += ["", f"Profile: does not aim to support {escape(', '.join(profile['lacks']))}"
                      + (f" ({escape(profile['note'])})" if profile.get("note") else "")]
    lines += [line for text in database_lines(result) for line in ("", escape(text, None))]
    rule = result.get("warnings") or {}
    if rule.get("set_aside_from"):
        lines += ["", f"Warnings set aside (not compared, on both sides): those issued from "
                      f"{escape(', '.join(rule['set_aside_from']))} ({escape(rule.get('reason', ''))})"]
    return lines


def topic_table(result: dict) -> list[str]:
    grouped = topics(result.get("cases", []))
    if not grouped:
        return ["No items were selected."]
    good = ("pass", "skip", "n/a")
    problems = {t: rs for t, rs in grouped.items() if any(r.get("outcome") not in good for r in rs)}
    idle = {t: rs for t, rs in grouped.items() if t not in problems and not ran(rs)}
    clean_topics = [t for t in grouped if t not in problems and t not in idle]
    idle_lines = [f"Nothing ran in {len(idle)} topic{'s' if len(idle) != 1 else ''}: "
                  + ", ".join(f"{code(t)} ({not_run_counts(rs)})" for t, rs in idle.items()) + "."] if idle else []
    if not problems:
        passed = (f"Every item that ran passed, in {len(clean_topics)} topic{'s' if len(clean_topics) != 1 else ''}"
                  + (": " + ", ".join(code(t) for t in clean_topics) if len(clean_topics) <= 10 else "") + "."
                  if clean_topics else "No item ran.")
        return [passed] + ([""] + idle_lines if idle_lines else [])
    overall = counts(r for rs in problems.values() for r in rs)
    columns = [name for name, n in overall.items() if n]
    lines = ["| topic | " + " | ".join(f"{ICONS[c]} {c}" for c in columns) + " | total | "
             + " | ".join(LEVELS) + " |",
             "|:--|" + "--:|" * (len(columns) + 1 + len(LEVELS))]
    for topic, records in problems.items():
        found = counts(records)
        cells = [str(found[c]) if found[c] else "" for c in columns]
        scores = level_scores(records)
        lines.append(f"| {code(topic)} | " + " | ".join(cells) + f" | {len(records)} | "
                     + " | ".join(rate(*scores[level]) for level in LEVELS) + " |")
    if clean_topics:
        lines += ["", f"Every item that ran passed in the other {len(clean_topics)} topics: "
                      + ", ".join(code(t) for t in clean_topics) + "."]
    if idle_lines:
        lines += [""] + idle_lines
    return lines


def not_run_counts(records: list[dict]) -> str:
    """``14 skip`` or ``3 n/a, 2 skip``: how the items of a topic that never ran were set aside."""
    found = counts(records)
    return ", ".join(f"{found[name]} {name}" for name in ("n/a", "skip") if found[name])


def missing_table(result: dict) -> list[str]:
    missing = missing_apis(result.get("cases", []))
    if not missing:
        return []
    lines = [f"### Missing API ({len(missing)} names)", "",
             "| name (torch spelling) | items | cases |", "|:--|--:|:--|"]
    for name, records in missing[:MAX_MISSING]:
        ids = sorted({r.get("id", "?") for r in records})
        shown = ", ".join(code(i) for i in ids[:3]) + (f", \u2026 ({len(ids)} cases)" if len(ids) > 3 else "")
        lines.append(f"| {code(name)} | {len(records)} | {shown} |")
    if len(missing) > MAX_MISSING:
        lines += ["", f"\u2026 and {len(missing) - MAX_MISSING} more names: see `report.html`."]
    return lines


def item_table(result: dict) -> list[str]:
    records = result.get("cases", [])
    ordered = [r for r in records if r.get("outcome") in UNEXPECTED_OUTCOMES]
    ordered += [r for r in records
                if r.get("outcome") in PROBLEM_OUTCOMES and r.get("outcome") not in UNEXPECTED_OUTCOMES]
    if not ordered:
        return []
    lines = [f"### Not passing ({len(ordered)})", "",
             "| outcome | item | most severe difference |", "|:--|:--|:--|"]
    for record in ordered[:MAX_ITEMS]:
        outcome = record.get("outcome", "?")
        text = headline(record)
        if outcome == "xfail" and expected_note(record):
            text = f"{expected_note(record)} \u2014 {text}"
        lines.append(f"| {ICONS.get(outcome, '')} {escape(outcome)} | {code(label(record))} | {escape(text)}"
                     f"{divergence_note(record)} |")
    if len(ordered) > MAX_ITEMS:
        lines += ["", f"\u2026 and {len(ordered) - MAX_ITEMS} more: see `report.html` or `results.json`."]
    return lines


def divergence_note(record: dict) -> str:
    """`` — gradients diverge at MulBackward0 (position 0.1, call 1)`` for an item where that was
    located (``conformance.locate``), escaped; empty otherwise."""
    short = divergence_short(record)
    return f" \u2014 {escape(short, DIVERGENCE_LIMIT)}" if short else ""


def skip_lines(result: dict) -> list[str]:
    reasons: dict[str, list[dict]] = {}
    for record in result.get("cases", []):
        if record.get("outcome") in ("skip", "n/a"):
            reasons.setdefault(record.get("detail") or "no reason given", []).append(record)
    if not reasons:
        return []
    lines = ["### Not run (skip, n/a)", ""]
    for reason, records in reasons.items():
        devices = [d for d in device_names(result) if any(column(r) == d for r in records)]
        lines.append(f"- {len(records)} item{'s' if len(records) != 1 else ''} on "
                     f"{', '.join(code(d) for d in devices)}: {escape(reason)}")
    return lines


def stale_lines(result: dict) -> list[str]:
    stale = (result.get("expectations") or {}).get("stale") or []
    if not stale:
        return []
    where = (result.get("expectations") or {}).get("file")
    lines = [f"### Stale expectations ({len(stale)})", "",
             f"These entries{' of ' + code(where) if where else ''} match no case of the catalog:", ""]
    for entry in stale:
        lines.append(f"- {code(entry.get('case', '?'))} ({escape(entry.get('device') or 'all devices')}, "
                     f"{escape(entry.get('outcome', '?'))}): {escape(entry.get('reason', ''))}")
    return lines


def render(result: dict) -> str:
    sections = [header(result), topic_table(result), missing_table(result), item_table(result), skip_lines(result),
                stale_lines(result)]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def write(result: dict, path: Path) -> None:
    path.write_text(render(result), encoding="utf-8")
