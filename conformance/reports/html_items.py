"""The item detail of ``report.html``: for one case that did not pass, per device, both sides step by
step (warnings, printed output, value or exception with its traceback), the differing steps and
fields highlighted, the differences (most severe first, each side's differing characters marked),
where the gradients first diverge, and the scenario's source with the differing lines marked.

Everything from the run is rendered through ``html_markup.e``.
"""

from __future__ import annotations

import difflib
import html
import re

from ..compare import TENSOR_FIELDS, describe, preview
from ..levels import ASPECTS
from .common import (
    PROBLEM_OUTCOMES,
    clean,
    column,
    expected_note,
    headline,
    shorten,
    side_status,
)
from .html_markup import SEPARATOR, anchor, chip, e, filter_attributes, link

OPEN_LIMIT = 10  # with at most this many failing cases, their sections start open
HEADLINE_LIMIT = 500
FIELDS = ("values",) + TENSOR_FIELDS + ("grad",)


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
