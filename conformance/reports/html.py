"""``report.html``: one self-contained page for people reading a run.

The page has inline CSS and JavaScript and loads nothing (its Content-Security-Policy allows no
source but the page's own style and script, by hash); it opens from disk or as a CI artifact.
It shows:

* a header: verdict, implementation, versions, Python, platform, devices, duration, the count
  of each outcome, why items were skipped, and stale expectations;
* the matrix: one row per case, grouped by topic, one column per device, each cell coloured by
  outcome; a text filter (id and title), outcome check boxes and a topic menu narrow it;
* for each case that did not pass on some device (skips aside: they never ran), a collapsible
  section with its title, the documentation it checks (a link), its scenario source with the
  lines of the differing steps marked, and per device the two sides step by step (label, line
  and source line, warnings, printed output, value or exception), differing steps and fields
  highlighted, then the list of differences. Passing cases appear only in the matrix.

Everything from the run is rendered here, in Python, through :func:`e` (``common.clean`` then
``html.escape``); the page embeds no data for its script, which only hides and shows rows. Only
http(s) documentation URLs become links.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import html
import re
from pathlib import Path
from urllib.parse import quote

from ..compare import TENSOR_FIELDS, describe, preview
from ..levels import ASPECTS, LEVELS
from . import coverage
from .common import (
    EXPECTED_OUTCOMES,
    OUTCOMES,
    PROBLEM_OUTCOMES,
    clean,
    column,
    counts,
    describe_duration,
    expected_note,
    headline,
    level_scores,
    missing_apis,
    placement,
    rate,
    shorten,
    side_status,
    topics,
    verdict,
    verdict_line,
    versions,
)
from .common import devices as device_names
from .html_assets import SCRIPT, STYLE

OPEN_LIMIT = 10  # with at most this many failing cases, their sections start open
TOOLTIP_LIMIT = 300
HEADLINE_LIMIT = 500
SEPARATOR = " \u00b7 "
FIELDS = ("values",) + TENSOR_FIELDS + ("grad",)



# -- escaping ------------------------------------------------------------------------------------
def e(value: object) -> str:
    """Any text from the run, escaped for HTML text and attribute values."""
    return html.escape(clean(value), quote=True)


def link(url: object, text: object) -> str:
    target = clean(url)
    if re.match(r"https?://", target, re.IGNORECASE):
        return f'<a href="{e(target)}" rel="noopener noreferrer">{e(text)}</a>'
    return e(text)


def anchor(case_id: str, device: str | None = None) -> str:
    base = "case-" + re.sub(r"[^A-Za-z0-9_.:-]", "-", clean(case_id))
    return base if device is None else f"{base}-{re.sub(r'[^A-Za-z0-9_.:-]', '-', clean(device))}"


def css_class(outcome: str) -> str:
    """``o-<outcome>`` (``o-na`` for n/a); an outcome the page does not know shows as an error."""
    return "o-" + (outcome if outcome in OUTCOMES else "error").replace("/", "")


def chip(outcome: str, text: object | None = None) -> str:
    return f'<span class="chip {css_class(outcome)}">{e(outcome if text is None else text)}</span>'


def content_security_policy() -> str:
    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"

    return (f"default-src 'none'; style-src {digest(STYLE)}; script-src {digest(SCRIPT)}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


# -- header -------------------------------------------------------------------------------------
def header(result: dict) -> str:
    state, unexpected = verdict(result)
    impl = result.get("implementation") or {}
    ref = result.get("reference") or {}
    records = result.get("cases", [])
    found = counts(records)
    devices = ", ".join(f"{e(name)} ({e(status)})" for name, status in (result.get("devices") or {}).items())
    rows = [
        ("implementation", f"{e(impl.get('name', '?'))} {e(impl.get('version', '?'))} "
                           f"<span class=\"muted\">(module {e(impl.get('module', '?'))})</span>"),
        ("reference", f"{e(ref.get('name', 'torch'))} {e(ref.get('version', '?'))}"),
        ("python", e(result.get("python", "?"))),
        ("platform", e(result.get("platform", "?"))),
        ("devices", devices or "none"),
        *([("placement", e(placement(result)))] if placement(result) else []),
        ("started", f"{e(result.get('started', '?'))}, ran {e(describe_duration(result.get('duration')))}"
                    f" (isolation {e(result.get('isolation', '?'))}, timeout {e(result.get('timeout', '?'))} s)"),
    ]
    selection = (result.get("selection") or {}).get("k")
    if selection:
        rows.append(("selection", f"<code>-k {e(selection)}</code>"))
    expectations = (result.get("expectations") or {}).get("file")
    if expectations:
        rows.append(("expectations", f"<code>{e(expectations)}</code>"))
    profile = result.get("profile") or {}
    if profile.get("lacks"):
        note = f" \u2014 {e(profile['note'])}" if profile.get("note") else ""
        rows.append(("profile", f"does not aim to support {e(', '.join(profile['lacks']))}{note}"))
    rule = result.get("warnings") or {}
    if rule.get("set_aside_from"):
        rows.append(("warnings set aside", f"those issued from {e(', '.join(rule['set_aside_from']))} "
                                           f"\u2014 {e(rule.get('reason', ''))}"))
    rows.append(("level", f"the exit status follows <b>{e(result.get('level', 'drop-in'))}</b>"))
    verdict_text = {"passed": "passed", "failed": f"failed: {unexpected} unexpected", "incomplete": "incomplete",
                    "interrupted": f"interrupted: partial results, {unexpected} unexpected"}[state]
    compared = result.get("compared") or {}
    parts = [
        f'<h1><span class="verdict {state}">{e(verdict_text)}</span>Conformance of {e(versions(result))}</h1>',
        f'<p class="verdict-line">{e(verdict_line(result))}</p>',
        '<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>",
        '<div class="counts">' + "".join(chip(name, f"{name} {n}") for name, n in found.items() if n)
        + f' <span class="muted">{len(records)} items; compared: {e(compared.get("items", 0))} items ran on both '
          f'sides, {e(compared.get("steps", 0))} steps, {e(compared.get("elements", 0))} values and gradients '
          f'element by element</span></div>',
    ]
    parts.append(scores_table(result))
    if result.get("interrupted"):
        parts.append('<div class="note">The run was interrupted: the results are partial.</div>')
    parts.append(skip_note(records))
    parts.append(without_note(records))
    parts.append(missing_note(records))
    parts.append(stale_note(result))
    return "<header>" + "".join(parts) + "</header>"


def scores_table(result: dict) -> str:
    """Pass rate at each level, overall and per topic."""
    records = result.get("cases", [])
    head = "<tr><th>topic</th>" + "".join(f"<th>{e(level)}</th>" for level in LEVELS) + "</tr>"
    rows = []
    for topic, members in [("all", records), *topics(records).items()]:
        scores = level_scores(members)
        cells = "".join(f"<td>{e(rate(*scores[level]))}</td>" for level in LEVELS)
        name = f"<b>{e(topic)}</b>" if topic == "all" else f"<code>{e(topic)}</code>"
        rows.append(f"<tr><td>{name}</td>{cells}</tr>")
    return ('<details class="scores"><summary>Pass rate by level: '
            + SEPARATOR.join(f"{e(level)} {e(rate(*level_scores(records)[level]))}" for level in LEVELS)
            + '</summary><table class="diffs"><thead>' + head + "</thead><tbody>" + "".join(rows)
            + "</tbody></table></details>")


def missing_note(records: list[dict]) -> str:
    missing = missing_apis(records)
    if not missing:
        return ""
    items = []
    for name, found in missing[:20]:
        ids = sorted({r.get("id", "?") for r in found})
        shown = ", ".join(ids[:5]) + (", \u2026" if len(ids) > 5 else "")
        items.append(f"<li><code>{e(name)}</code>: {len(found)} item{'s' if len(found) != 1 else ''} "
                     f'<span class="muted">({e(shown)})</span></li>')
    more = f"<li>\u2026 and {len(missing) - 20} more</li>" if len(missing) > 20 else ""
    return (f'<div class="note"><b>Missing API</b>, by the number of items it leaves unsupported'
            f"<ul>{''.join(items)}{more}</ul></div>")


def skip_note(records: list[dict]) -> str:
    reasons: dict[str, list[str]] = {}
    for record in records:
        if record.get("outcome") in ("skip", "n/a"):
            devices = reasons.setdefault(clean(record.get("detail") or "no reason given"), [])
            devices.append(clean(record.get("device")))
    if not reasons:
        return ""
    items = "".join(
        f"<li>{len(devices)} item{'s' if len(devices) != 1 else ''} on {e(', '.join(sorted(set(devices))))}: "
        f"{e(reason)}</li>" for reason, devices in reasons.items()
    )
    return f'<div class="note"><b>Not run</b> (skip, n/a)<ul>{items}</ul></div>'


def without_note(records: list[dict]) -> str:
    """How many items ran without features the profile lacks and their cases can do without."""
    ran: dict[str, int] = {}
    for record in records:
        if record.get("without"):
            features = ", ".join(clean(name) for name in record["without"])
            ran[features] = ran.get(features, 0) + 1
    if not ran:
        return ""
    items = "".join(f"<li>{count} item{'s' if count != 1 else ''} without {e(features)}</li>"
                    for features, count in ran.items())
    return ('<div class="note"><b>Run without</b> features the profile lacks and their cases can do without '
            f"(the operator coverage shows the checks they made)<ul>{items}</ul></div>")


def stale_note(result: dict) -> str:
    stale = (result.get("expectations") or {}).get("stale") or []
    if not stale:
        return ""
    items = "".join(
        f"<li><code>{e(s.get('case'))}</code> ({e(s.get('device') or 'all devices')}, {e(s.get('outcome'))}): "
        f"{e(s.get('reason'))}</li>" for s in stale
    )
    return (f'<div class="note"><b>Stale expectations</b>: {len(stale)} entr{"ies" if len(stale) != 1 else "y"} '
            f"of the expectations file match no case of the catalog<ul>{items}</ul></div>")


# -- matrix -------------------------------------------------------------------------------------
def by_case(records: list[dict]) -> dict[str, dict[str, dict]]:
    cases: dict[str, dict[str, dict]] = {}
    for record in records:
        cases.setdefault(record.get("id", "?"), {})[column(record)] = record
    return cases


def filter_attributes(case_id: str, items: dict[str, dict]) -> str:
    first = next(iter(items.values()))
    search = f"{clean(case_id)} {clean(first.get('title', ''))}".lower()
    outcomes = " ".join(sorted({clean(r.get("outcome", "error")) for r in items.values()}))
    return f'data-search="{e(search)}" data-topic="{e(first.get("topic", "?"))}" data-outcomes="{e(outcomes)}"'


def filters(result: dict) -> str:
    found = counts(result.get("cases", []))
    boxes = "".join(
        f'<label><input type="checkbox" data-outcome="{name}" checked> {chip(name, f"{name} {n}")}</label>'
        for name, n in found.items() if n
    )
    options = "".join(f'<option value="{e(t)}">{e(t)}</option>' for t in topics(result.get("cases", [])))
    return (
        '<div class="filters" id="filters" hidden>'
        '<input type="search" id="f-text" placeholder="filter by id or title" aria-label="filter by id or title">'
        f'<select id="f-topic" aria-label="topic"><option value="">all topics</option>{options}</select>'
        f"<span>{boxes}</span>"
        '<button type="button" id="f-all">all</button><button type="button" id="f-problems">problems only</button>'
        '<span id="shown"></span></div>'
    )


def matrix(result: dict, problem_ids: set[str]) -> str:
    devices = device_names(result)
    head = "<tr><th>case</th><th>title</th>" + "".join(f"<th>{e(d)}</th>" for d in devices) + "</tr>"
    bodies = []
    for topic, records in topics(result.get("cases", [])).items():
        found = counts(records)
        mini = "".join(chip(n, f"{n} {c}") for n, c in found.items() if c)
        scores = level_scores(records)
        mini += '<span class="muted"> ' + " \u00b7 ".join(
            f"{level} {rate(*scores[level])}" for level in LEVELS) + "</span>"
        rows = [f'<tr class="topic-head"><th colspan="{len(devices) + 2}">{e(topic)}'
                f'<span class="mini">{mini}</span></th></tr>']
        for case_id, items in by_case(records).items():
            first = next(iter(items.values()))
            name = f'<a href="#{e(quote(anchor(case_id)))}">{e(case_id)}</a>' if case_id in problem_ids else e(case_id)
            cells = []
            for device in devices:
                record = items.get(device)
                if record is None:
                    cells.append('<td class="cell o-none" title="not run on this device">\u2014</td>')
                    continue
                outcome = clean(record.get("outcome", "error"))
                tip = shorten(headline(record) if outcome != "pass" else "passed", TOOLTIP_LIMIT)
                tip += f" ({float(record.get('duration') or 0.0) * 1000:.0f} ms)" if outcome != "skip" else ""
                label = e(outcome)
                if outcome in PROBLEM_OUTCOMES:
                    label = f'<a href="#{e(quote(anchor(case_id, device)))}">{label}</a>'
                cells.append(f'<td class="cell {css_class(outcome)}" title="{e(tip)}">{label}</td>')
            rows.append(f'<tr class="case" {filter_attributes(case_id, items)}><td class="id"><code>{name}</code></td>'
                        f'<td class="title">{e(first.get("title", ""))}</td>{"".join(cells)}</tr>')
        bodies.append(f'<tbody class="topic" data-topic="{e(topic)}">' + "".join(rows) + "</tbody>")
    return f'<table class="matrix"><thead>{head}</thead>{"".join(bodies)}</table>'


# -- details ------------------------------------------------------------------------------------
def classify(rest: str) -> str:
    """What part of a step a difference names, from the text after ``step N: label``."""
    if rest == ": warnings":
        return "warnings"
    if rest == ": printed output":
        return "stdout"
    if rest in (": message", ": exception"):
        return "outcome"
    if rest.startswith(": ") and rest[2:] in FIELDS:
        return f"field:{rest[2:]}"
    if rest.startswith(".grad"):
        return "field:grad"
    return "value"


def step_marks(diffs: list[dict], ref_steps: list[dict],
               impl_steps: list[dict]) -> tuple[dict[int, set[str]], int | None]:
    """Per step number, the parts that differ; and the step where the runs diverge, if they do."""
    marks: dict[int, set[str]] = {}
    diverged = None
    for diff in diffs:
        where = str(diff.get("where", ""))
        found = re.match(r"step (\d+)(?=$|:)", where)
        if not found:
            continue
        number = int(found.group(1))
        if where == found.group(0):
            diverged = number if diverged is None else min(diverged, number)
            continue
        steps = ref_steps if number <= len(ref_steps) else impl_steps
        label = str(steps[number - 1].get("label", "")) if number <= len(steps) else ""
        prefix = f"step {number}: {label}"
        marks.setdefault(number, set()).add(classify(where[len(prefix):]) if where.startswith(prefix) else "value")
    return marks, diverged


def hl(flag: bool) -> str:
    return " hl" if flag else ""


def show(value: object) -> str:
    if isinstance(value, (dict, list)):
        return describe(value)
    return repr(value) if value is None or isinstance(value, bool) else str(value)


def value_html(value: object, marks: set[str]) -> str:
    whole = "value" in marks or "outcome" in marks
    if isinstance(value, dict) and value.get("t") == "tensor":
        fields = []
        for name in FIELDS:
            if name not in value:
                continue
            raw = value[name]
            text = preview(raw, value.get("dtype")) if name == "values" and isinstance(raw, list) else show(raw)
            fields.append(f'<span class="f{hl(f"field:{name}" in marks)}"><span class="k">{e(name)}</span>'
                          f"{e(text)}</span>")
        return f'<div class="val{hl(whole)}"><span class="k">tensor</span>{"".join(fields)}</div>'
    return f'<div class="val{hl(whole)}"><code>{e(describe(value))}</code></div>'


def block(kind: str, label: str, content: str, marked: bool) -> str:
    return f'<div class="{kind}{hl(marked)}"><span class="k">{label}</span>{content}</div>'


def side_html(step: dict | None, marks: set[str], diverged: bool, ref_label: str | None, missing: str) -> str:
    """One side of one step: its warnings, printed output, then its value or exception."""
    if step is None:
        return f'<td class="missing{hl(diverged)}">{e(missing)}</td>'
    parts = []
    if ref_label is not None and step.get("label") != ref_label:
        where = f" (line {e(step['line'])})" if step.get("line") else ""
        parts.append(block("lbl", "step", f"<code>{e(step.get('label'))}</code>{where}", diverged))
    warnings = step.get("warnings") or []
    for warning in warnings:
        text = f'<b>{e(warning.get("category"))}</b><pre class="msg">{e(warning.get("message"))}</pre>'
        if warning.get("set_aside"):
            text += f'<span class="muted">set aside: issued from {e(warning.get("origin"))}</span>'
        parts.append(block("warn", "warns" if not warning.get("set_aside") else "set aside", text,
                           "warnings" in marks and not warning.get("set_aside")))
    if not warnings and "warnings" in marks:
        parts.append(block("warn", "warns", "nothing", True))
    if step.get("stdout") or "stdout" in marks:
        text = f"<pre>{e(step['stdout'])}</pre>" if step.get("stdout") else "nothing"
        parts.append(block("out", "prints", text, "stdout" in marks))
    if "error" in step:
        error = step["error"] or {}
        text = f'<b>{e(error.get("type"))}</b><pre class="msg">{e(error.get("message"))}</pre>'
        if error.get("traceback"):
            text += f'<details class="tb"><summary>traceback</summary><pre>{e(error["traceback"])}</pre></details>'
        parts.append(block("exc", "raises", text, "outcome" in marks or diverged))
    else:
        parts.append(value_html(step.get("value"), marks | ({"value"} if diverged else set())))
    return "<td>" + "".join(parts) + "</td>"


def missing_text(side: dict | None) -> str:
    status = (side or {}).get("status")
    if status in ("completed", "raised"):
        return "no such step: the run ended before"
    return f"nothing recorded: {side_status(side)}"


def steps_table(record: dict) -> tuple[str, set[int]]:
    """The two sides step by step, and the scenario lines of the steps that differ."""
    ref = record.get("reference") or {}
    impl = record.get("implementation") or {}
    ref_steps, impl_steps = ref.get("steps") or [], impl.get("steps") or []
    marks, diverged = step_marks(record.get("diff") or [], ref_steps, impl_steps)
    lines: set[int] = set()
    ended = ref.get("status") != impl.get("status")
    cell = f'<td class="{hl(ended).strip()}">'
    rows = [f'<tr class="{"diff" if ended else ""}"><td></td><td>how the side ended</td>'
            f'{cell}{e(side_status(record.get("reference")))}</td>'
            f'{cell}{e(side_status(record.get("implementation")))}</td></tr>']
    for index in range(max(len(ref_steps), len(impl_steps))):
        number = index + 1
        r = ref_steps[index] if index < len(ref_steps) else None
        m = impl_steps[index] if index < len(impl_steps) else None
        shown = r or m or {}
        at_divergence = diverged == number
        differs = number in marks or at_divergence
        if differs:
            lines.update(s["line"] for s in (r, m) if s and isinstance(s.get("line"), int))
        classes = ("diff " if differs else "") + ("after" if diverged and number > diverged else "")
        where = ""
        if shown.get("line"):
            source = f' \u00b7 <code>{e(shown["source"])}</code>' if shown.get("source") else ""
            where = f'<div class="where">line {e(shown["line"])}{source}</div>'
        step_marks_here = marks.get(number, set())
        rows.append(
            f'<tr class="{classes.strip()}"><td>{number}</td><td><code>{e(shown.get("label"))}</code>{where}</td>'
            + side_html(r, step_marks_here, at_divergence, None, missing_text(record.get("reference")))
            + side_html(m, step_marks_here, at_divergence, r.get("label") if r else None,
                        missing_text(record.get("implementation")))
            + "</tr>"
        )
    table = ('<table class="steps"><colgroup><col class="c-n"><col class="c-step"><col><col></colgroup>'
             "<thead><tr><th>#</th><th>step</th><th>torch</th><th>implementation</th></tr></thead>"
             f"<tbody>{''.join(rows)}</tbody></table>")
    return table, lines


_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")


def marked_pair(reference: object, implementation: object) -> tuple[str, str]:
    """Both texts escaped, with the words that differ between them wrapped in ``<mark>``."""
    ref_tokens = _TOKENS.findall(clean(reference))
    impl_tokens = _TOKENS.findall(clean(implementation))
    ref_out, impl_out = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ref_tokens, impl_tokens, autojunk=False).get_opcodes():
        ref_part, impl_part = html.escape("".join(ref_tokens[i1:i2])), html.escape("".join(impl_tokens[j1:j2]))
        if op == "equal":
            ref_out.append(ref_part)
            impl_out.append(impl_part)
            continue
        ref_out.append(f"<mark>{ref_part}</mark>" if ref_part else "")
        impl_out.append(f"<mark>{impl_part}</mark>" if impl_part else "")
    return "".join(ref_out), "".join(impl_out)


def diffs_table(diffs: list[dict]) -> str:
    if not diffs:
        return ""
    rows = []
    for diff in diffs:
        notes = [f"{clean(diff.get('aspect', '?'))} ({clean(ASPECTS.get(diff.get('aspect'), ('?',))[0])})"]
        if diff.get("detail"):
            notes.append(clean(diff["detail"]))
        if diff.get("unsupported"):
            notes.append(f"unsupported: {clean(diff['unsupported'])}")
        if diff.get("explained"):
            notes.append(f"explained, does not count: {clean(diff['explained'])}")
        reference, implementation = marked_pair(diff.get("reference"), diff.get("implementation"))
        rows.append(f"<tr><td><code>{e(diff.get('where'))}</code></td><td><pre>{reference}</pre></td>"
                    f"<td><pre>{implementation}</pre></td><td>{e('; '.join(notes))}</td></tr>")
    return (f"<h4>Differences ({len(diffs)})</h4>"
            '<table class="diffs"><colgroup><col class="c-where"><col><col><col class="c-note"></colgroup>'
            "<thead><tr><th>where</th><th>torch</th><th>implementation</th><th>note</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def divergence_html(record: dict) -> str:
    """Where an item's gradients first diverge in the graph (``conformance.locate``): the summary, then
    what came into that node and went out of it on each side; empty where that was not located."""
    divergence = record.get("divergence")
    if not isinstance(divergence, dict) or not divergence.get("summary"):
        return ""
    rows = []
    which = clean(divergence.get("which") or "")
    outgoing = which.lstrip(".") if which.startswith(".") else f"outgoing {which}".strip()
    for key, name in (("incoming", "incoming (grad_outputs)"), ("outgoing", outgoing)):
        pair = divergence.get(key)
        if isinstance(pair, dict):
            reference, implementation = marked_pair(pair.get("torch"), pair.get("implementation"))
            rows.append(f"<tr><td>{e(name)}</td><td><pre>{reference}</pre></td><td><pre>{implementation}</pre></td></tr>")
    table = ('<table class="diffs"><thead><tr><th>gradients</th><th>torch</th><th>implementation</th></tr></thead>'
             f"<tbody>{''.join(rows)}</tbody></table>") if rows else ""
    return f'<h4>Where gradients diverge</h4><p class="divergence">{e(divergence["summary"])}</p>{table}'


def item_html(record: dict) -> tuple[str, set[int]]:
    outcome = clean(record.get("outcome", "error"))
    device = column(record)
    first = shorten(headline(record), HEADLINE_LIMIT)
    parts = [f'<div class="item" id="{e(anchor(record.get("id", "?"), device))}">'
             f'<h4>{e(device)}: {chip(outcome)}<span class="headline">{e(first)}</span></h4>']
    if record.get("expected"):
        parts.append(f'<p class="muted">{e(expected_note(record))}</p>')
    if record.get("without"):
        parts.append(f'<p class="muted">ran without {e(", ".join(map(clean, record["without"])))} '
                     "(the profile lacks them; the case does without them)</p>")
    lines: set[int] = set()
    if record.get("reference") is not None or record.get("implementation") is not None:
        table, lines = steps_table(record)
        parts.append(table)
    parts.append(divergence_html(record))
    parts.append(diffs_table(record.get("diff") or []))
    parts.append("</div>")
    return "".join(parts), lines


def source_html(source: str | None, marked: set[int]) -> str:
    if not source:
        return '<p class="muted">The scenario source was not recorded.</p>'
    lines = clean(source).rstrip("\n").split("\n")
    body = "".join(
        f'<span class="line{hl(number in marked)}"><span class="ln">{number}</span>{html.escape(text)}</span>'
        for number, text in enumerate(lines, start=1)
    )
    return f'<pre class="src">{body}</pre>'


def case_section(case_id: str, items: dict[str, dict], open_: bool) -> str:
    first = next(iter(items.values()))
    problems = [r for r in items.values() if r.get("outcome") in PROBLEM_OUTCOMES]
    rendered, marked = [], set()
    for record in problems:
        text, lines = item_html(record)
        rendered.append(text)
        marked |= lines
    doc = first.get("doc") or {}
    tags = ", ".join(clean(t) for t in first.get("tags") or [])
    meta = [f"checks {link(doc.get('url'), doc.get('section') or doc.get('url') or '?')}"] if doc else []
    if first.get("location"):
        meta.append(f"<code>{e(first['location'])}</code>")
    if tags:
        meta.append(f"tags: {e(tags)}")
    badges = "".join(chip(clean(r.get("outcome", "error")), f"{clean(d)}: {clean(r.get('outcome', 'error'))}")
                     for d, r in items.items())
    opened = " open" if open_ else ""
    return (
        f'<details class="case" id="{e(anchor(case_id))}" {filter_attributes(case_id, items)}{opened}>'
        f"<summary>{badges} <code>{e(case_id)}</code> \u2014 {e(first.get('title', ''))}</summary>"
        f'<div class="body"><p>{SEPARATOR.join(meta)}</p><h4>Scenario</h4>{source_html(first.get("source"), marked)}'
        + "".join(rendered) + "</div></details>"
    )


def details(result: dict) -> tuple[str, set[str]]:
    cases = by_case(result.get("cases", []))
    problem_ids = [cid for cid, items in cases.items()
                   if any(r.get("outcome") in PROBLEM_OUTCOMES for r in items.values())]
    if not problem_ids:
        return "", set()
    unexpected = sum(any(r.get("outcome") not in EXPECTED_OUTCOMES for r in cases[c].values()) for c in problem_ids)
    open_ = len(problem_ids) <= OPEN_LIMIT
    sections = "".join(case_section(cid, cases[cid], open_) for cid in problem_ids)
    return (
        f'<h2 id="details">Cases that did not pass ({len(problem_ids)}, {unexpected} with unexpected outcomes)</h2>'
        '<div class="toolbar"><button type="button" id="expand">expand all</button>'
        '<button type="button" id="collapse">collapse all</button></div>'
        + sections
    ), set(problem_ids)


def coverage_section(result: dict) -> str:
    """The operator coverage table (operator by device and dtype by check), collapsed."""
    columns, rows = coverage.table(result)
    if not rows:
        return ""
    head = "<tr><th>operator</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>"
    body = []
    for operator, by_column in rows.items():
        cells = []
        for name in columns:
            checks = by_column.get(name)
            if checks is None:
                cells.append('<td class="cell o-none">\u2014</td>')
                continue
            worst = coverage.worse(None, "pass")
            for state in checks.values():
                worst = coverage.worse(worst, state)
            css = {"pass": "o-pass", "known": "o-xfail", "fail": "o-fail"}[worst]
            cells.append(f'<td class="cell {css}">{e(coverage.cell_text(checks))}</td>')
        body.append(f"<tr><td><code>{e(operator)}</code></td>{''.join(cells)}</tr>")
    bwd = ", bwd: first order through .backward()" if coverage.backward_note(rows) else ""
    return (f'<details class="scores"><summary>Operator coverage ({len(rows)} operators; fwd: forward, '
            f"grad: first order{bwd}, gg: second order, err: invalid input)</summary>"
            f'<table class="diffs"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table></details>')


# -- page ---------------------------------------------------------------------------------------
def render(result: dict) -> str:
    state, _ = verdict(result)
    details_html, problem_ids = details(result)
    cases = by_case(result.get("cases", []))
    body = (
        header(result)
        + "<main>"
        + f"<h2>Matrix ({len(cases)} cases \u00d7 {len(device_names(result))} devices)</h2>"
        + filters(result)
        + matrix(result, problem_ids)
        + coverage_section(result)
        + details_html
        + "</main>"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(state)}: conformance of {e(versions(result))}</title>"
        f"<style>{STYLE}</style></head>\n<body>{body}\n<script>{SCRIPT}</script>\n</body></html>\n"
    )


def write(result: dict, path: Path) -> None:
    path.write_text(render(result), encoding="utf-8")
