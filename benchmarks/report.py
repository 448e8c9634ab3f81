"""The benchmark report: medians, ratios to torch and goals, as Markdown and as an SVG chart.

``collect`` reads pytest-benchmark's results (each benchmark carries ``workload``, ``library``
and ``kind`` in its ``extra_info``); ``write`` puts ``summary.md`` and ``ratios.svg`` in a
directory. Below 1 the implementation is faster (or smaller).

For time there are two ratios. The ratio of medians: the implementation's median over torch's,
each taken in its own benchmark. The paired ratio: each round of the implementation follows a
round of torch (timed in its setup), and the paired ratio is the median over the rounds of the
one over the other. On a machine whose load moves from minute to minute the paired ratio is the
steadier of the two, and the goals are judged on it. For memory the ratio is the peak over
torch's peak.
"""

from __future__ import annotations

import html
import statistics
from dataclasses import dataclass
from pathlib import Path

from benchmarks.workloads import GOALS, MEMORY_GOAL

REFERENCE = "torch"


@dataclass
class Row:
    """One workload measured on torch and on one implementation."""

    kind: str  # "time" or "memory"
    workload: str
    implementation: str
    reference: float  # seconds or bytes
    value: float
    goal: float | None
    paired: float | None = None  # time: the median of the per-round ratios

    @property
    def ratio(self) -> float:
        return self.value / self.reference if self.reference else float("inf")

    @property
    def judged(self) -> float:
        """The ratio the goal is judged on: the paired one where there is one."""
        return self.paired if self.paired is not None else self.ratio

    @property
    def verdict(self) -> str:
        if self.goal is None:
            return ""
        return "met" if self.judged <= self.goal else "not met"


def collect(benchmarks) -> dict[tuple[str, str, str], float]:
    """(kind, workload, library) -> median seconds, or peak bytes for memory; ("paired",
    workload, library) -> the paired ratio of an implementation's time."""
    measured = {}
    for bench in benchmarks:
        info = bench.extra_info
        if "workload" not in info:
            continue
        value = info["peak_bytes"] if info.get("kind") == "memory" else bench.stats.median
        measured[(info.get("kind", "time"), info["workload"], info["library"])] = value
        torch_seconds = info.get("torch_seconds")
        if torch_seconds and len(torch_seconds) == len(bench.stats.data):
            ratios = [mine / theirs for mine, theirs in zip(bench.stats.data, torch_seconds)]
            measured[("paired", info["workload"], info["library"])] = statistics.median(ratios)
    return measured


def rows(measured: dict, implementations: list[str]) -> list[Row]:
    result = []
    for (kind, workload, library), reference in measured.items():
        if library != REFERENCE or kind == "paired":
            continue
        for name in implementations:
            value = measured.get((kind, workload, name))
            if value is not None:
                goal = MEMORY_GOAL if kind == "memory" else GOALS.get(workload)
                paired = measured.get(("paired", workload, name)) if kind == "time" else None
                result.append(Row(kind, workload, name, reference, value, goal, paired))
    return result


def _amount(row: Row, value: float) -> str:
    if row.kind == "memory":
        return f"{value / 2**20:.2f} MiB"
    return f"{value * 1e3:.3f} ms"


def summary_lines(measured: dict, implementations: list[str]) -> list[str]:
    lines = []
    for row in rows(measured, implementations):
        goal = "" if row.goal is None else f"goal <= {row.goal}: {row.verdict}"
        name = row.workload if row.kind == "time" else f"{row.workload} (peak memory)"
        paired = "" if row.paired is None else f"paired {row.paired:5.2f}"
        lines.append(f"{name:32s} {row.implementation:11s} torch {_amount(row, row.reference):>12s}  "
                     f"{_amount(row, row.value):>12s}  ratio {row.ratio:5.2f} {paired:12s}  {goal}")
    return lines


def markdown(measured: dict, implementations: list[str]) -> str:
    table = rows(measured, implementations)
    parts = ["# Benchmarks against torch", "",
             "Medians of one step per round, one thread per library, in one run; before each round of one "
             "library the others run the step. Ratio: the implementation's median over torch's. Paired: the "
             "median over the rounds of the implementation's time over torch's in the round just before it, "
             "the steadier figure on a loaded machine, on which goals are judged. Peak memory is how far one "
             "step raises the peak resident size (`benchmarks/memory.py`). Below 1 is faster or smaller.", ""]
    for kind, title in (("time", "Time"), ("memory", "Peak memory")):
        selected = [r for r in table if r.kind == kind]
        if not selected:
            continue
        paired_header, paired_rule = (" paired |", "---:|") if kind == "time" else ("", "")
        parts += [f"## {title}", "",
                  f"| workload | implementation | torch | implementation | ratio |{paired_header} goal | |",
                  f"|---|---|---:|---:|---:|{paired_rule}---:|---|"]
        for r in selected:
            goal = "" if r.goal is None else f"<= {r.goal}"
            paired = (" " + ("" if r.paired is None else f"{r.paired:.2f}") + " |") if kind == "time" else ""
            parts.append(f"| {r.workload} | {r.implementation} | {_amount(r, r.reference)} | {_amount(r, r.value)} | "
                         f"{r.ratio:.2f} |{paired} {goal} | {r.verdict} |")
        parts.append("")
    return "\n".join(parts)


def svg(measured: dict, implementations: list[str]) -> str:
    """A horizontal bar per ratio, a mark at each goal and a line at parity (1.0)."""
    table = rows(measured, implementations)
    width, label_width, row_height, top = 760, 300, 26, 40
    plot = width - label_width - 60
    scale_max = max([1.0] + [r.judged for r in table] + [r.goal for r in table if r.goal]) * 1.1

    def x(value: float) -> float:
        return label_width + plot * min(value, scale_max) / scale_max

    height = top + row_height * len(table) + 30
    items = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             '<text x="10" y="20" font-size="14">Ratio to torch (paired time ratio, or peak memory; lower is better)'
             '</text>']
    for index, r in enumerate(table):
        y = top + index * row_height
        colour = "#888888" if r.goal is None else ("#2e7d32" if r.judged <= r.goal else "#c62828")
        label = r.workload if r.kind == "time" else f"{r.workload} (memory)"
        items.append(f'<text x="10" y="{y + 16}">{html.escape(label)} [{html.escape(r.implementation)}]</text>')
        items.append(f'<rect x="{label_width}" y="{y + 4}" width="{x(r.judged) - label_width:.1f}" height="16" '
                     f'fill="{colour}"/>')
        items.append(f'<text x="{x(r.judged) + 4:.1f}" y="{y + 16}">{r.judged:.2f}</text>')
        if r.goal is not None:
            items.append(f'<line x1="{x(r.goal):.1f}" x2="{x(r.goal):.1f}" y1="{y + 1}" y2="{y + 23}" '
                         f'stroke="black" stroke-width="2"><title>goal {r.goal}</title></line>')
    bottom = top + row_height * len(table)
    items.append(f'<line x1="{x(1.0):.1f}" x2="{x(1.0):.1f}" y1="{top - 4}" y2="{bottom}" stroke="#555555" '
                 f'stroke-dasharray="4 3"/>')
    items.append(f'<text x="{x(1.0) - 12:.1f}" y="{bottom + 16}">1.0</text>')
    items.append(f'<text x="{label_width}" y="{bottom + 16}">0</text>')
    items.append(f'<text x="{width - 200}" y="{bottom + 16}">black mark: goal; green met, red not</text>')
    items.append("</svg>")
    return "\n".join(items) + "\n"


def write(measured: dict, implementations: list[str], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("summary.md", markdown(measured, implementations)), ("ratios.svg", svg(measured, implementations))):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
