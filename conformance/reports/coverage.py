"""The operator coverage table: operator by dtype by device by check, from a run's results.

Operator cases carry tags ``op:<operator>`` and ``check:<forward|grad|gradgrad|error>`` (see
``conformance.operators``). For each operator and column (device, dtype), a check is covered
when some item of that operator there makes it, and passes when every such item passed (an
``xfail`` counts as known, not passed). ``coverage.md`` holds the table; ``report.html`` shows it
in a collapsible section. Runs without operator cases get neither.
"""

from __future__ import annotations

from pathlib import Path

from .common import clean

CHECKS = ("forward", "grad", "gradgrad", "error")
MARKS = {"pass": "\u2713", "known": "\u2611", "fail": "\u2717", "none": "\u00b7"}


def operator_of(record: dict) -> str | None:
    for tag in record.get("tags") or []:
        if tag.startswith("op:"):
            return tag[3:]
    return None


def table(result: dict) -> tuple[list[str], dict[str, dict[str, dict[str, str]]]]:
    """(columns, {operator: {column: {check: pass|known|fail}}}) over the run's operator items."""
    columns: list[str] = []
    rows: dict[str, dict[str, dict[str, str]]] = {}
    for record in result.get("cases", []):
        operator = operator_of(record)
        if operator is None or record.get("outcome") in ("skip", "n/a"):
            continue
        column = f"{record.get('device', '?')} {record.get('dtype', '?')}"
        if column not in columns:
            columns.append(column)
        state = {"pass": "pass", "xfail": "known"}.get(record.get("outcome"), "fail")
        cells = rows.setdefault(operator, {}).setdefault(column, {})
        for tag in record.get("tags") or []:
            if tag.startswith("check:") and tag[6:] in CHECKS:
                check = tag[6:]
                cells[check] = worse(cells.get(check), state)
    return columns, dict(sorted(rows.items()))


def worse(current: str | None, new: str) -> str:
    order = ("pass", "known", "fail")
    return new if current is None else max(current, new, key=order.index)


def cell_text(cells: dict[str, str]) -> str:
    return " ".join(f"{MARKS[cells.get(check, 'none')]}{short}" for check, short in
                    zip(CHECKS, ("fwd", "grad", "gg", "err")))


def render_markdown(result: dict) -> str:
    columns, rows = table(result)
    passed = sum(all(state == "pass" for cells in by_column.values() for state in cells.values())
                 for by_column in rows.values())
    lines = [f"## Operator coverage: {len(rows)} operators, {passed} passing every check everywhere", "",
             f"{MARKS['pass']} passes, {MARKS['known']} known failure (xfail), {MARKS['fail']} fails, "
             f"{MARKS['none']} not checked; fwd: forward value, dtype, shape and node name; grad: first-order "
             "gradients; gg: second-order gradients; err: errors for invalid input.", "",
             "| operator | " + " | ".join(columns) + " |", "|:--|" + ":--|" * len(columns)]
    for operator, by_column in rows.items():
        cells = [cell_text(by_column[column]) if column in by_column else "\u2014" for column in columns]
        lines.append(f"| `{clean(operator)}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def has_operators(result: dict) -> bool:
    return any(operator_of(record) for record in result.get("cases", []))


def write(result: dict, path: Path) -> None:
    path.write_text(render_markdown(result), encoding="utf-8")
