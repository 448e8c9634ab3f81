"""The documented-surface section of ``coverage.md`` and ``report.html``.

A run over the built-in catalog carries ``documented_surface`` (``conformance.documented``: every
public autograd name of the reference torch, the cases of the run that use it, or the reason it is
excluded on purpose). This section shows, per area, how many names there are, how many the run's
cases use, how many of those passed (every item of every case that uses the name ran and passed),
how many are excluded, and how many are neither (not used); then those names. The same figures as
``python -m conformance surface`` for a run of the whole catalog.
"""

from __future__ import annotations

from .common import clean

COLUMNS = ("names", "used", "passing", "excluded", "not used")


def table(result: dict) -> tuple[list[dict], list[str]] | None:
    """(a row per area with ``COLUMNS``, the names neither used by a case of the run nor excluded), or None
    without a survey."""
    surface = result.get("documented_surface")
    if not isinstance(surface, dict) or not isinstance(surface.get("names"), list):
        return None
    passed: dict[str, bool] = {}
    for record in result.get("cases", []):
        if record.get("outcome") in ("skip", "n/a"):
            continue
        passed[record["id"]] = passed.get(record["id"], True) and record.get("outcome") == "pass"
    rows: dict[str, dict] = {}
    missing = []
    for entry in surface["names"]:
        row = rows.setdefault(entry["area"], {"area": entry["area"], **{column: 0 for column in COLUMNS}})
        row["names"] += 1
        ran = [passed[case] for case in entry["cases"] if case in passed]
        if entry["cases"]:
            row["used"] += 1
            row["passing"] += bool(ran) and all(ran)
        elif entry.get("excluded"):
            row["excluded"] += 1
        else:
            row["not used"] += 1
            missing.append(entry["name"])
    return list(rows.values()), missing


def render_markdown(result: dict) -> str:
    found = table(result)
    if found is None:
        return ""
    rows, missing = found
    total = {column: sum(row[column] for row in rows) for column in COLUMNS}
    version = clean(str(result["documented_surface"].get("torch", "?")))
    lines = [f"## Documented autograd surface of torch {version}: {total['names']} names, {total['used']} used by "
             f"this run's cases ({total['passing']} passing), {total['excluded']} excluded on purpose, "
             f"{total['not used']} not used", "",
             "used: some case of the run uses the name in its code; passing: every item of those cases passed; "
             "excluded: left out on purpose, with its reason (`conformance/surface_exclusions.toml`); not used: "
             "neither (for a run of the whole catalog, what `python -m conformance surface` calls missing).", "",
             "| area | " + " | ".join(COLUMNS) + " |", "|:--|" + "--:|" * len(COLUMNS)]
    lines += [f"| `{clean(row['area'])}` | " + " | ".join(str(row[c]) for c in COLUMNS) + " |" for row in rows]
    if missing:
        lines += ["", "Not used: " + ", ".join(f"`{clean(name)}`" for name in missing)]
    return "\n".join(lines) + "\n"


def has_surface(result: dict) -> bool:
    return table(result) is not None
