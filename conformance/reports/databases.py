"""What a run says of torch's sample databases: per database, the entries the implementation implements.

The run's ``databases`` metadata (``conformance.databases.summaries``) says what was rendered from each of
torch's databases and what was skipped; this module adds what the implementation did with the cases of each.
An *entry* is what the database lists: an op_db entry is one case (``opinfo.<name>.<variant>``); a module_db
or optim_db entry (a module, an optimizer) is the cases of its samples together (``moduleinfo.<Module>.<n>``:
the entry is the id without its trailing sample number). An entry is *implemented* when some item of it ran
past every name the implementation lacks (an item ``unsupported`` at the run's level stops at such a name;
one ``n/a`` or skipped did not run), and *passes* when every item of it passed. ``coverage.md`` and
``summary.md`` print these counts (``database_lines``).
"""

from __future__ import annotations

NOT_RUN = ("n/a", "skip")


def entry_of(case_id: str) -> str:
    """The database entry a case belongs to: its id, less a trailing sample number."""
    head, _, last = case_id.rpartition(".")
    return head if last.isdigit() and head else case_id


def implementation_counts(result: dict) -> dict[str, dict[str, int]]:
    """``{database: {"entries", "implemented", "passing"}}`` over the entries of the cases the run selected
    of each database (a case names its database in its tags)."""
    level = result.get("level", "drop-in")
    by_entry: dict[tuple[str, str], list[dict]] = {}
    for record in result.get("cases", []):
        for database in result.get("databases", {}):
            if database in record.get("tags", ()):
                by_entry.setdefault((database, entry_of(record["id"])), []).append(record)
    counts = {database: {"entries": 0, "implemented": 0, "passing": 0} for database in result.get("databases", {})}
    for (database, _), records in by_entry.items():
        ran = [record for record in records if record["outcome"] not in NOT_RUN]
        found = counts[database]
        found["entries"] += 1
        if any(record.get("levels", {}).get(level) != "unsupported" for record in ran):
            found["implemented"] += 1
            found["passing"] += all(record["outcome"] == "pass" for record in ran)
    return counts


def database_lines(result: dict) -> list[str]:
    """One line of plain text per database the run selected cases of: what was rendered, what the
    implementation implements of the entries selected, and how many of those pass every item (the caller
    escapes it for its format)."""
    implementation = (result.get("implementation") or {}).get("name", "the implementation")
    counts = implementation_counts(result)
    lines = []
    for name, found in result.get("databases", {}).items():
        mine = counts[name]
        lines.append(f"torch's {name} (torch {found['torch']}): {found['rendered']} entries rendered "
                     f"({found['skipped']} entries or samples skipped, why in coverage.md); of the "
                     f"{mine['entries']} entries this run selected, "
                     f"{implementation} implements {mine['implemented']}, and {mine['passing']} of those pass "
                     "every item.")
    return lines
