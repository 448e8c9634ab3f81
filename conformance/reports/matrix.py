"""``matrix.html`` and ``matrix.md``: several runs side by side, as test262.fyi's engine table.

``python -m conformance matrix RESULTS.json... --report-dir DIR`` reads the ``results.json`` of
runs made anywhere (other machines, other torch releases: each run names its implementation and
its reference) and writes:

* per run (a column: implementation, version, reference release), the pass rate at each level;
* per topic and run, the pass rate at each level;
* the items whose outcomes differ between the runs in which they ran (an item skipped, ``n/a`` or
  absent in a run is not compared there), case by case (the whole matrix in the HTML page): what
  changes between engines, or between torch releases for the same engine;
* in the HTML page, a filter (text, "only rows that differ", "only rows a run did not pass"), and
  every cell that did not pass links to that item's differences, listed below the table.

Everything from the runs goes through ``common.clean`` and is escaped for its format.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..levels import LEVELS
from .common import clean, column, headline, level_scores, rate, shorten, topics

FILES = ("matrix.html", "matrix.md")
GOOD = ("pass", "xfail")


class MatrixError(Exception):
    """A results file cannot be read."""


@dataclass
class RunColumn:
    title: str
    result: dict
    path: str

    @property
    def records(self) -> dict[tuple, dict]:
        return {(r.get("id"), r.get("device"), r.get("dtype", "float32")): r for r in self.result.get("cases", [])}


def load_run(path: Path) -> RunColumn:
    try:
        result = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise MatrixError(f"cannot read {path}: {exc}") from None
    if not isinstance(result, dict) or not isinstance(result.get("cases"), list) or not all(
            isinstance(r, dict) and isinstance(r.get("id"), str) for r in result["cases"]):
        raise MatrixError(f"{path} is not a results.json written by `conformance run`")
    impl = result.get("implementation") or {}
    ref = result.get("reference") or {}
    title = clean(f"{impl.get('name', '?')} {impl.get('version', '?')} \u2194 torch {ref.get('version', '?')}")
    return RunColumn(title, result, str(path))


def item_key_label(key: tuple) -> str:
    case_id, device, dtype = key
    return f"{case_id}[{device}]" if dtype in (None, "float32") else f"{case_id}[{device},{dtype}]"


def all_keys(runs: list[RunColumn]) -> list[tuple]:
    keys: dict[tuple, None] = {}
    for run in runs:
        for key in run.records:
            keys.setdefault(key, None)
    return list(keys)


NOT_RUN = ("skip", "n/a", "absent")


def differing(runs: list[RunColumn]) -> list[tuple]:
    """Items whose outcome is not the same in every run that ran them (skipped, n/a or absent in a
    run: nothing to compare there)."""
    found = []
    for key in all_keys(runs):
        outcomes = {run.records.get(key, {}).get("outcome", "absent") for run in runs} - set(NOT_RUN)
        if len(outcomes) > 1:
            found.append(key)
    return found


# -- Markdown ------------------------------------------------------------------------------------
def _md(text: object) -> str:
    return re.sub(r"([\\`*_\[\]|~<>])", r"\\\1", clean(text).replace("\n", " "))


def render_markdown(runs: list[RunColumn]) -> str:
    lines = [f"## Conformance matrix: {len(runs)} runs", "", "| run | " + " | ".join(LEVELS) + " | items |",
             "|:--|" + "--:|" * (len(LEVELS) + 1)]
    for run in runs:
        scores = level_scores(run.result.get("cases", []))
        lines.append(f"| {_md(run.title)} | " + " | ".join(rate(*scores[level]) for level in LEVELS)
                     + f" | {len(run.records)} |")
    lines += ["", "### Pass rate by topic (semantics / api / drop-in)", "",
              "| topic | " + " | ".join(_md(run.title) for run in runs) + " |", "|:--|" + ":--|" * len(runs)]
    names: dict[str, None] = {}
    for run in runs:
        names.update(dict.fromkeys(topics(run.result.get("cases", []))))
    for topic in names:
        cells = []
        for run in runs:
            members = topics(run.result.get("cases", [])).get(topic, [])
            scores = level_scores(members)
            cells.append(" / ".join(f"{100 * p / t:.0f}%" if t else "\u2014" for p, t in
                                    (scores[level] for level in LEVELS)))
        lines.append(f"| `{_md(topic)}` | " + " | ".join(cells) + " |")
    changes = differing(runs)
    lines += ["", f"### Items whose outcome differs between runs ({len(changes)})", ""]
    if changes:
        lines += ["| item | " + " | ".join(_md(run.title) for run in runs) + " |", "|:--|" + ":--|" * len(runs)]
        for key in changes[:1000]:
            cells = [_md(run.records.get(key, {}).get("outcome", "\u2014")) for run in runs]
            lines.append(f"| `{_md(item_key_label(key))}` | " + " | ".join(cells) + " |")
    else:
        lines.append("None: every item has the same outcome in every run.")
    lines += ["", "Every cell links to its differences in `matrix.html`."]
    return "\n".join(lines) + "\n"


# -- HTML ----------------------------------------------------------------------------------------
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1d2125}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #d9dee3;padding:.2em .5em;text-align:left}
th{background:#f5f7f9;position:sticky;top:0}code{font-size:12px}.muted{color:#5f6b76}
.o-pass,.o-xfail{background:#d8f0dd}.o-fail,.o-xpass{background:#f7cfcf}.o-unsupported{background:#e8def7}
.o-error,.o-crash,.o-timeout{background:#f9dcc4}.o-skip,.o-na,.o-absent{background:#ececec;color:#666}
.diff{margin:0 0 1em 1em}pre{white-space:pre-wrap;margin:0}[hidden]{display:none!important}
""".strip()


def e(value: object) -> str:
    return html.escape(clean(value), quote=True)


def _css(outcome: str) -> str:
    return "o-" + re.sub(r"[^a-z]", "", outcome)


def _anchor(run_index: int, key: tuple) -> str:
    return f"r{run_index}-" + re.sub(r"[^A-Za-z0-9_.-]", "-", item_key_label(key))


def render_html(runs: list[RunColumn]) -> str:
    heads = "".join(f"<th>{e(run.title)}</th>" for run in runs)
    score_rows = "".join(
        f"<tr><td>{e(level)}</td>" + "".join(f"<td>{e(rate(*level_scores(run.result.get('cases', []))[level]))}</td>"
                                             for run in runs) + "</tr>" for level in LEVELS)
    topic_names: dict[str, None] = {}
    for run in runs:
        topic_names.update(dict.fromkeys(topics(run.result.get("cases", []))))
    topic_rows = []
    for topic in topic_names:
        cells = []
        for run in runs:
            scores = level_scores(topics(run.result.get("cases", [])).get(topic, []))
            cells.append("<td>" + " \u00b7 ".join(f"{100 * p / t:.0f}%" if t else "\u2014"
                                                    for p, t in (scores[level] for level in LEVELS)) + "</td>")
        topic_rows.append(f"<tr><td><code>{e(topic)}</code></td>{''.join(cells)}</tr>")
    changed = set(differing(runs))
    rows, details = [], []
    for key in all_keys(runs):
        cells = []
        for index, run in enumerate(runs):
            record = run.records.get(key)
            outcome = record.get("outcome", "error") if record else "absent"
            if record and outcome not in GOOD and outcome not in ("skip", "n/a"):
                cells.append(f'<td class="{_css(outcome)}"><a href="#{_anchor(index, key)}">{e(outcome)}</a></td>')
                details.append(_details(index, run, key, record))
            else:
                title = e(shorten(headline(record), 200)) if record else "not in this run"
                cells.append(f'<td class="{_css(outcome)}" title="{title}">{e(outcome)}</td>')
        mark = " \u25c6" if key in changed else ""
        failing = " ".join(str(index) for index, run in enumerate(runs)
                           if run.records.get(key, {}).get("outcome", "absent") not in GOOD + NOT_RUN)
        rows.append(f'<tr class="item" data-search="{e(item_key_label(key).lower())}" '
                    f'data-differs="{int(key in changed)}" data-failing=" {failing} ">'
                    f"<td><code>{e(item_key_label(key))}</code>{mark}</td>{''.join(cells)}</tr>")
    run_options = "".join(f'<option value="{index}">{e(run.title)}</option>' for index, run in enumerate(runs))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src {script_hash()}\">"
        f"<title>Conformance matrix ({len(runs)} runs)</title><style>{STYLE}</style></head><body>"
        f"<h1>Conformance matrix: {len(runs)} runs</h1>"
        f"<h2>Pass rate by level</h2><table><tr><th>level</th>{heads}</tr>{score_rows}</table>"
        f"<h2>By topic (semantics \u00b7 api \u00b7 drop-in)</h2><table><tr><th>topic</th>{heads}</tr>"
        f"{''.join(topic_rows)}</table>"
        f"<h2>Items ({len(rows)}; \u25c6 marks the {len(changed)} whose outcome differs between the runs that ran "
        f"them)</h2>"
        '<p id="filters" hidden><input type="search" id="f-text" placeholder="filter by item" aria-label="filter by item"> '
        '<label><input type="checkbox" id="f-differs"> only items that differ</label> '
        f'<select id="f-failing" aria-label="not passing in"><option value="">in any run</option>{run_options}</select> '
        '<span id="shown"></span></p>'
        f"<table><tr><th>item</th>{heads}</tr>{''.join(rows)}</table>"
        f"<h2>Differences</h2>{''.join(details) or '<p>None.</p>'}<script>{SCRIPT}</script></body></html>\n"
    )


SCRIPT = """
(function () {
  var bar = document.getElementById("filters");
  var text = document.getElementById("f-text"), differs = document.getElementById("f-differs");
  var failing = document.getElementById("f-failing"), shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.item"));
  function apply() {
    var words = text.value.toLowerCase().split(/\\s+/).filter(Boolean), run = failing.value, count = 0;
    rows.forEach(function (r) {
      var keep = (!differs.checked || r.getAttribute("data-differs") === "1")
        && (!run || r.getAttribute("data-failing").indexOf(" " + run + " ") >= 0)
        && words.every(function (w) { return r.getAttribute("data-search").indexOf(w) >= 0; });
      r.hidden = !keep;
      if (keep) count++;
    });
    shown.textContent = count + " of " + rows.length + " items shown";
  }
  [text, differs, failing].forEach(function (el) {
    el.addEventListener("input", apply);
    el.addEventListener("change", apply);
  });
  bar.hidden = false;
  apply();
})();
""".strip()


def script_hash() -> str:
    """The Content-Security-Policy source of the page's one script (nothing else may run)."""
    digest = hashlib.sha256(SCRIPT.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def _details(index: int, run: RunColumn, key: tuple, record: dict) -> str:
    diffs = record.get("diff") or []
    body = "".join(
        f"<li><code>{e(d.get('where'))}</code> [{e(d.get('aspect', '?'))}]"
        f"<pre>torch:          {e(d.get('reference'))}\nimplementation: {e(d.get('implementation'))}</pre>"
        + (f"<span class=\"muted\">{e(d.get('detail'))}</span>" if d.get("detail") else "")
        + (f"<br>unsupported: <code>{e(d.get('unsupported'))}</code>" if d.get("unsupported") else "") + "</li>"
        for d in diffs[:50])
    levels = ", ".join(f"{k} {v}" for k, v in (record.get("levels") or {}).items())
    return (f'<div class="diff" id="{_anchor(index, key)}"><h3><code>{e(item_key_label(key))}</code> in '
            f"{e(run.title)}: {e(record.get('outcome'))}</h3><p class=\"muted\">{e(levels)} \u2014 "
            f"{e(shorten(headline(record), 500))}</p><ul>{body}</ul></div>")


def write(runs: list[RunColumn], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("matrix.html", render_html(runs)), ("matrix.md", render_markdown(runs))):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


__all__ = ["FILES", "MatrixError", "RunColumn", "column", "load_run", "render_html", "render_markdown", "write"]
