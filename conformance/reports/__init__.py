"""Report writers: every report is built from the same run result (see ``runner.Run.result``).

``write_all`` writes ``results.json`` (for CI scripts), ``junit.xml`` (for CI test views),
``summary.md`` (for a CI job summary) and ``report.html`` (one self-contained page for people);
and, when the run has operator cases or a survey of the documented autograd surface (a run of
the built-in catalog), ``coverage.md`` (the operator coverage table, the surface's figures per
area). A ``coverage.md`` that an earlier run left in the directory is removed when this run has
neither, so that no report in the directory describes another run.
"""

from __future__ import annotations

from pathlib import Path

from . import coverage, html, json_report, junit, markdown, surface_coverage

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
    sections = [coverage.render_markdown(result) if coverage.has_operators(result) else "",
                surface_coverage.render_markdown(result)]
    if any(sections):
        path.write_text("\n".join(section for section in sections if section), encoding="utf-8")
        written.append(path)
    elif path.is_file():
        path.unlink()
    return written
