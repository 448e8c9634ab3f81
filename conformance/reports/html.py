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
  highlighted, then the list of differences (``html_items``). Passing cases appear only in the
  matrix.

Everything from the run is rendered here, in Python, through ``html_markup.e`` (``common.clean``
then ``html.escape``); the page embeds no data for its script, which only hides and shows rows.
Only http(s) documentation URLs become links.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from urllib.parse import quote

from ..levels import LEVELS
from . import coverage, surface_coverage
from .common import (
    EXPECTED_OUTCOMES,
    PROBLEM_OUTCOMES,
    clean,
    column,
    counts,
    describe_duration,
    headline,
    level_scores,
    missing_apis,
    placement,
    rate,
    shorten,
    topics,
    verdict,
    verdict_line,
    versions,
)
from .common import devices as device_names
from .html_assets import SCRIPT, STYLE
from .html_items import OPEN_LIMIT, case_section
from .html_markup import SEPARATOR, anchor, chip, css_class, e, filter_attributes

TOOLTIP_LIMIT = 300



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
    refused = ", \u00ac: refused by torch, its exception checked" if coverage.refused_note(rows) else ""
    return (f'<details class="scores"><summary>Operator coverage ({len(rows)} operators; fwd: forward, '
            f"grad: first order{bwd}, gg: second order, err: invalid input, jvp: forward mode, "
            f"fwbw: forward-over-reverse, vmap: under vmap, vmvjp: vjp under vmap{refused})</summary>"
            f'<table class="diffs"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table></details>')


def surface_section(result: dict) -> str:
    """The documented autograd surface per area (``surface_coverage``), collapsed."""
    found = surface_coverage.table(result)
    if found is None:
        return ""
    rows, missing = found
    head = "<tr><th>area</th>" + "".join(f"<th>{c}</th>" for c in surface_coverage.COLUMNS) + "</tr>"
    body = "".join(f"<tr><td><code>{e(row['area'])}</code></td>"
                   + "".join(f"<td>{row[c]}</td>" for c in surface_coverage.COLUMNS) + "</tr>" for row in rows)
    used = sum(row["used"] for row in rows)
    listed = f"<p>Not used: {', '.join(f'<code>{e(name)}</code>' for name in missing)}</p>" if missing else ""
    return (f'<details class="scores"><summary>Documented autograd surface of torch '
            f'{e(str(result["documented_surface"].get("torch", "?")))} ({sum(row["names"] for row in rows)} names, '
            f"{used} used by this run's cases, {len(missing)} not used nor excluded; used: a case uses it in its "
            f"code, passing: every item of those cases passed)</summary>"
            f'<table class="diffs"><thead>{head}</thead><tbody>{body}</tbody></table>{listed}</details>')


# -- page ---------------------------------------------------------------------------------------
def render(result: dict) -> str:
    state, _ = verdict(result)
    details_html, problem_ids = details(result)
    cases = by_case(result.get("cases", []))
    body = (
        header(result)
        + "<main>"
        + f"<h2>Matrix ({len(cases)} cases \u00d7 {len(device_names(result))} columns)</h2>"
        + filters(result)
        + matrix(result, problem_ids)
        + coverage_section(result)
        + surface_section(result)
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
