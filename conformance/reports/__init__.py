"""Report writers: every report is built from the same run result (see ``runner.Run.result``).

``write_all`` writes ``results.json`` (for CI scripts), ``junit.xml`` (for CI test views),
``summary.md`` (for a CI job summary) and ``report.html`` (one self-contained page for people);
and, when the run has operator cases, ``coverage.md`` (the operator coverage table). A
``coverage.md`` that an earlier run left in the directory is removed when this run has none, so
that no report in the directory describes another run.
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
    path = directory / "coverage.md"
    if coverage.has_operators(result):
        coverage.write(result, path)
        written.append(path)
    elif path.is_file():
        path.unlink()
    return written
