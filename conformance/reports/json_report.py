"""``results.json``: the whole run result, machine-readable, for CI scripts.

Top-level keys: ``implementation``, ``reference``, ``python``, ``platform``, ``devices``,
``started``, ``duration``, ``summary`` (count per outcome), ``total``, ``exit_status``,
``expectations`` (file used, stale entries), ``interrupted`` and ``cases``: per case and device
the ``id``, ``device``, ``outcome``, ``detail``, the observations of both sides and the diff.
Non-finite floats are encoded as ``{"t": "float", "v": "nan"}``, so the file is strict JSON.
"""

from __future__ import annotations

import json
from pathlib import Path


def write(result: dict, path: Path) -> None:
    path.write_text(json.dumps(result, indent=1, allow_nan=False) + "\n", encoding="utf-8")
