"""The operator coverage table: operator by dtype by device by check, from a run's results.

Operator cases carry tags ``op:<operator>`` and ``check:<kind>`` (forward, grad, gradgrad, error,
forward-mode, forward-over-reverse, vmap, vmap-of-vjp; see ``conformance.operators``). For each
operator and column (device, dtype), a check is covered when some item of that operator there makes
it, and passes when every such item passed (an ``xfail`` counts as known, not passed). A forward-mode
or vmap check that torch refuses in every item there (tag ``torch-refuses:<step>``: the item
compares torch's exception) is shown ``¬jvp``, ``¬fwbw``, ``¬vmap`` or ``¬vmvjp``. An item run without
features its case can do without (its record's ``without``) makes fewer checks: without
``autograd.grad`` or ``higher-order``, no second-order gradients and no forward-over-reverse; without
``forward-ad``, neither forward-mode check; without ``vmap`` or ``func-transforms``, neither vmap
check; without ``autograd.grad``, no vmap-of-vjp, and its first-order gradients come through
``.backward()``, shown ``bwd`` instead of ``grad``. In float16 and bfloat16 an item makes no second-order,
forward-mode or vmap check (``operators.LEFT_OUT_IN_REDUCED``). Where torch refuses every item of an
operator in a dtype (``operators.dtype_refusals``: the items compare torch's exception), the cell says
``¬dtype``, and a list under the table gives, per dtype, the operators torch refuses there and how.
``coverage.md`` holds the table, then, for each of torch's sample databases the run selected cases of
(op_db's ``opinfo.*``), the entries rendered and those skipped, by reason (the run's ``databases``
metadata), and the entries the implementation implements (``databases.implementation_counts``);
``report.html`` shows the table in a collapsible section. Runs without operator cases get neither.
"""

from __future__ import annotations

from pathlib import Path

from ..operators import CHECKS, FORWARD_STEPS, VMAP_STEPS, checks_made, refused_by_torch, refused_in_dtype, through_backward
from .common import clean
from .databases import implementation_counts

MARKS = {"pass": "\u2713", "known": "\u2611", "fail": "\u2717", "none": "\u00b7"}
SHORT = {"forward": "fwd", "grad": "grad", "gradgrad": "gg", "error": "err", "forward-mode": "jvp",
         "forward-over-reverse": "fwbw", "vmap": "vmap", "vmap-of-vjp": "vmvjp"}
REFUSED = "\u00ac"  # before the name of a check that torch refuses there: ¬jvp, ¬fwbw, ¬vmap


class Cell(dict):
    """The checks made in one cell of the table: check -> ``pass``, ``known`` or ``fail``;
    ``through_backward``: whether some item there took its first-order gradients through ``.backward()``;
    ``refused`` and ``computed``: the checks that some item there made where torch refuses them (the
    item compares torch's exception) and where torch computes them."""

    def __init__(self) -> None:
        super().__init__()
        self.through_backward = False
        self.refused: set[str] = set()
        self.computed: set[str] = set()
        self.dtype_refusals: dict[str, str] = {}  # case id -> how torch refuses it in the cell's dtype
        self.items = 0

    def refused_everywhere(self, check: str) -> bool:
        return check in self.refused and check not in self.computed


def operator_of(record: dict) -> str | None:
    for tag in record.get("tags") or []:
        if tag.startswith("op:"):
            return tag[3:]
    return None


def table(result: dict) -> tuple[list[str], dict[str, dict[str, Cell]]]:
    """(columns, {operator: {column: {check: pass|known|fail}}}) over the run's operator items."""
    columns: list[str] = []
    rows: dict[str, dict[str, Cell]] = {}
    for record in result.get("cases", []):
        operator = operator_of(record)
        if operator is None or record.get("outcome") in ("skip", "n/a"):
            continue
        column = f"{record.get('device', '?')} {record.get('dtype', '?')}"
        if column not in columns:
            columns.append(column)
        state = {"pass": "pass", "xfail": "known"}.get(record.get("outcome"), "fail")
        cells = rows.setdefault(operator, {}).setdefault(column, Cell())
        tagged = [tag[6:] for tag in record.get("tags") or [] if tag.startswith("check:") and tag[6:] in CHECKS]
        without = record.get("without") or []
        refused = refused_by_torch(record.get("tags") or [])
        cells.items += 1
        refusal = refused_in_dtype(str(record.get("id")), str(record.get("dtype")))
        if refusal is not None:
            cells.dtype_refusals[str(record.get("id"))] = refusal
        for check in checks_made(tagged, without, str(record.get("dtype"))):
            cells[check] = worse(cells.get(check), state)
            (cells.refused if check in refused else cells.computed).add(check)
        if "grad" in tagged and through_backward(without):
            cells.through_backward = True
    return columns, dict(sorted(rows.items()))


def worse(current: str | None, new: str) -> str:
    order = ("pass", "known", "fail")
    return new if current is None else max(current, new, key=order.index)


def cell_text(cells: Cell) -> str:
    def name(check: str) -> str:
        if check == "grad" and cells.through_backward:
            return "bwd"
        return REFUSED + SHORT[check] if cells.refused_everywhere(check) else SHORT[check]

    marks = " ".join(f"{MARKS[cells.get(check, 'none')]}{name(check)}" for check in CHECKS)
    if cells.items and len(cells.dtype_refusals) == cells.items:
        state = "pass" if all(state == "pass" for state in cells.values()) else "fail"
        return f"{MARKS[state]}{REFUSED}dtype"
    return marks


def render_markdown(result: dict) -> str:
    columns, rows = table(result)
    passed = sum(all(state == "pass" for cells in by_column.values() for state in cells.values())
                 for by_column in rows.values())
    lines = [f"## Operator coverage: {len(rows)} operators, {passed} passing every check everywhere", "",
             f"{MARKS['pass']} passes, {MARKS['known']} known failure (xfail), {MARKS['fail']} fails, "
             f"{MARKS['none']} not checked; fwd: forward value, dtype, shape and node name; grad: first-order "
             "gradients; gg: second-order gradients; err: errors for invalid input; jvp: forward-mode tangents; "
             "fwbw: forward-over-reverse (the tangents of the first-order gradients); vmap: the outputs under "
             "`torch.func.vmap` over a batch of samples; vmvjp: `torch.func.vjp`'s vector-Jacobian products under "
             "vmap (each also equal to the batch's members run alone)." + refused_note(rows)
             + backward_note(rows), "",
             "| operator | " + " | ".join(columns) + " |", "|:--|" + ":--|" * len(columns)]
    for operator, by_column in rows.items():
        cells = [cell_text(by_column[column]) if column in by_column else "\u2014" for column in columns]
        lines.append(f"| `{clean(operator)}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" + refusals_by_dtype(columns, rows) + database_text(result)


def database_text(result: dict) -> str:
    """What the run's ``databases`` metadata says of each database it selected cases of: entries rendered
    (and their distinct names), skipped and why, samples the rendered entries left out and why."""
    lines = []
    implemented = implementation_counts(result)
    implementation = clean((result.get("implementation") or {}).get("name", "the implementation"))
    for name, found in result.get("databases", {}).items():
        mine = implemented[name]
        lines += ["", f"## torch's {clean(name)} (samples of torch {clean(str(found['torch']))})", "",
                  f"{found['rendered']} entries ({found['names']} names) rendered, {found['selected']} cases "
                  f"selected in this run. Of the {mine['entries']} entries selected, {implementation} implements "
                  f"{mine['implemented']} (some item runs past every name it lacks), and {mine['passing']} of "
                  f"those pass every item.", "",
                  f"Skipped ({found['skipped']} entries, or samples of an entry, by reason):", ""]
        lines += [f"* {count}: {clean(reason)}" for reason, count in sorted(found["skip_reasons"].items(),
                                                                             key=lambda pair: -pair[1])]
        left_out = found.get("samples_left_out", {})
        if left_out:
            lines += ["", f"Samples left out of rendered entries ({sum(left_out.values())}):", ""]
            lines += [f"* {count}: {clean(reason)}" for reason, count in sorted(left_out.items(), key=lambda pair: -pair[1])]
    return "\n".join(lines) + "\n" if lines else ""


def refusals_by_dtype(columns: list[str], rows: dict[str, dict[str, Cell]]) -> str:
    """Per column, the operators torch refuses there in every item (``¬dtype``), each with how."""
    lines = []
    for column in columns:
        refused = [(operator, cells) for operator, by_column in rows.items()
                   for cells in [by_column.get(column)] if cells is not None and cells.items
                   and len(cells.dtype_refusals) == cells.items]
        if not refused:
            continue
        lines += ["", f"### Left out by torch in {clean(column)}: {len(refused)} operators", ""]
        for operator, cells in refused:
            how = sorted(set(cells.dtype_refusals.values()))[0]
            lines.append(f"- `{clean(operator)}`: {clean(how)}")
    if lines:
        lines.insert(1, "")
        lines.insert(2, f"{REFUSED}dtype: torch refuses the operator in that dtype (every item ends in torch's "
                        "exception, which the implementation must raise too).")
    return "\n".join(lines) + ("\n" if lines else "")


def backward_note(rows: dict[str, dict[str, Cell]]) -> str:
    """The legend's note on gradients taken through ``.backward()``, where the table shows any."""
    if not any(cells.through_backward for by_column in rows.values() for cells in by_column.values()):
        return ""
    return (" bwd: first-order gradients through `.backward()` and the leaves' `.grad` (the implementation "
            "lacks `torch.autograd.grad`; second-order gradients are then not checked).")


def refused_note(rows: dict[str, dict[str, Cell]]) -> str:
    """The legend's note on forward-mode and vmap checks that torch refuses, where the table shows any."""
    refused = {check for by_column in rows.values() for cells in by_column.values()
               for check in cells.refused - cells.computed}
    if not refused:
        return ""
    if refused <= set(FORWARD_STEPS):
        names, why = f"{REFUSED}jvp, {REFUSED}fwbw", "no forward formula"
    elif refused <= set(VMAP_STEPS):
        names, why = f"{REFUSED}vmap, {REFUSED}vmvjp", "vmap cannot batch it"
    else:
        names = f"{REFUSED}jvp, {REFUSED}fwbw, {REFUSED}vmap, {REFUSED}vmvjp"
        why = "no forward formula, or vmap cannot batch it"
    return (f" {names}: torch refuses it for the operator ({why}); the check is that the implementation raises the "
            "same exception.")


def has_operators(result: dict) -> bool:
    return any(operator_of(record) for record in result.get("cases", []))


def write(result: dict, path: Path) -> None:
    path.write_text(render_markdown(result), encoding="utf-8")
