"""PyTorch's own sample databases, rendered as data: ``module_db`` and ``optim_db``.

PyTorch's test suite keeps, inside the installed wheel, the inputs its developers chose for each
module (``torch.testing._internal.common_modules.module_db``) and the option sets of each
optimizer (``common_optimizers.optim_db``). Those are torch's internal modules: they import torch,
need ``expecttest``, and change between releases. So they are read once, on the reference side,
by ``python -m conformance.databases`` (``render_modules``, ``render_optimizers``), which writes
every sample as plain data (numbers, nested lists, strings) into the JSON files of this folder,
with the torch version they came from and every entry it skipped and why. The catalog
(``conformance/catalog/moduleinfo.py`` and ``optiminfo.py``) reads those files, never torch: it
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
FILES = {"module_db": HERE / "module_db.json", "optim_db": HERE / "optim_db.json"}


def load(name: str) -> dict[str, Any]:
    """The rendered database ``name`` (``module_db`` or ``optim_db``); an empty one, with the reason in
    its ``skipped``, where the file is missing or unreadable (the catalog then holds none of its cases)."""
    path = FILES[name]
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return {"torch": None, "entries": [], "skipped": [{"name": name, "reason": f"cannot read {path.name}: {error}"}]}


def counts(name: str) -> dict[str, Any]:
    """What a rendered database holds: the torch release, entries rendered and samples, and the skips
    grouped by reason (for the reports and ``python -m conformance.databases --counts``)."""
    data = load(name)
    reasons: dict[str, int] = {}
    for skip in data["skipped"]:
        reasons[skip["reason"]] = reasons.get(skip["reason"], 0) + 1
    return {"torch": data["torch"], "rendered": len(data["entries"]),
            "samples": sum(len(entry["samples"]) for entry in data["entries"]),
            "skipped": len(data["skipped"]), "skip_reasons": reasons}
