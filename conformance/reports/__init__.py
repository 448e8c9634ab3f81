"""Report writers: every report is built from the same run result (see ``runner.Run.result``).

``write_all`` writes ``results.json`` (for CI scripts), ``junit.xml`` (for CI test views),
``summary.md`` (for a CI job summary) and ``report.html`` (one self-contained page for people);
and, when the run has operator cases, ``coverage.md`` (the operator coverage table).
"""

from __future__ import annotations

from pathlib import Path

from . import coverage, html, json_report, junit, markdown

WRITERS = {
    "results.json": json_report.write,
    "junit.xml": junit.write,
    "summary.md": markdown.write,
    "report.html": html.write,
}


def write_all(result: dict, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, writer in WRITERS.items():
        path = directory / name
        writer(result, path)
        written.append(path)
    if coverage.has_operators(result):
        path = directory / "coverage.md"
        coverage.write(result, path)
        written.append(path)
    return written
