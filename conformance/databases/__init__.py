"""PyTorch's own sample databases, rendered as data: ``module_db``, ``optim_db`` and ``op_db``.

PyTorch's test suite keeps, inside the installed wheel, the inputs its developers chose for each
module (``torch.testing._internal.common_modules.module_db``), the option sets of each
optimizer (``common_optimizers.optim_db``) and the samples and invalid calls of each operator
(``common_methods_invocations.op_db``). Those are torch's internal modules: they import torch,
need ``expecttest``, and change between releases. So they are read once, on the reference side,
by ``python -m conformance.databases`` (``render_modules``, ``render_optimizers``, ``render_operators``), which writes
every sample as plain data (numbers, nested lists, strings) into the JSON files of this folder,
with the torch version they came from and every entry it skipped and why. The catalog
(``conformance/catalog/moduleinfo.py``, ``optiminfo.py`` and ``opinfo.py``) reads those files, never torch: it
turns each rendered sample into a generated scenario whose source holds the values, so the
implementation side rebuilds the same inputs and calls its own namespace.

Why a file rather than reading the databases when the catalog is built: the process that judges
imports neither side; importing torch's test databases takes about ten seconds, which every worker
would pay; and values torch draws at random (module parameters, inputs) are fixed once, so every
run, every side and every replayed script sees the same numbers. Regenerate the files after a
torch upgrade (the test ``tests/test_moddb.py`` checks they name the installed release).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILES = {"module_db": HERE / "module_db.json", "optim_db": HERE / "optim_db.json", "op_db": HERE / "op_db.json"}


def load(name: str) -> dict[str, Any]:
    """The rendered database ``name`` (a key of ``FILES``); an empty one, with the reason in
    its ``skipped``, where the file is missing or unreadable (the catalog then holds none of its cases)."""
    path = FILES[name]
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return {"torch": None, "entries": [], "skipped": [{"name": name, "reason": f"cannot read {path.name}: {error}"}]}


def counts(name: str) -> dict[str, Any]:
    """What a rendered database holds: the torch release, entries rendered (and the distinct names they
    have: op_db has several entries of one operator), samples, the skips grouped by reason, and the samples
    that rendered entries left out, by reason (for the reports and ``python -m conformance.databases --counts``)."""
    data = load(name)
    reasons: dict[str, int] = {}
    for skip in data["skipped"]:
        reasons[skip["reason"]] = reasons.get(skip["reason"], 0) + 1
    dropped: dict[str, int] = {}
    for entry in data["entries"]:
        for reason, count in entry.get("dropped", {}).items():
            dropped[reason] = dropped.get(reason, 0) + count
    return {"torch": data["torch"], "rendered": len(data["entries"]),
            "names": len({entry["name"] for entry in data["entries"]}),
            "samples": sum(len(entry["samples"]) for entry in data["entries"]),
            "skipped": len(data["skipped"]), "skip_reasons": reasons, "samples_left_out": dropped}


def summaries(cases) -> dict[str, dict[str, Any]]:
    """``{database: counts}`` (``counts``, with how many of its cases are ``selected``) for each database
    that ``cases`` hold cases of (tagged with its name); the run's metadata and the coverage report print it."""
    found = {}
    for name in FILES:
        selected = sum(name in case.tags for case in cases)
        if selected:
            found[name] = {**counts(name), "selected": selected}
    return found
