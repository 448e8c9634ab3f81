"""A cache on disk for what every process would otherwise compute again: the rendered operator table
(``operators.cases``) and the documented surface of the installed torch (``documented.derived``).

Each entry is one file, ``<kind>-<key>.pickle``, whose key is a digest of everything the value depends
on (``digest``), so a changed input names another file and a stale entry is never read. A file that
cannot be read is a miss; writes are atomic (a temporary file renamed), so processes that fill the
cache at once do not mix, and only the newest ``KEPT`` files of a kind stay (checkouts of other
versions share the directory). The directory is ``$CONFORMANCE_CACHE_DIR`` (``off``: no cache), else
``$XDG_CACHE_HOME/autograd-conformance``, else ``~/.cache/autograd-conformance``; one that cannot be
written leaves the cache off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

CACHE_ENV = "CONFORMANCE_CACHE_DIR"
KEPT = 8


def directory() -> Path | None:
    """Where entries are kept; None when ``$CONFORMANCE_CACHE_DIR`` is ``off``."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograd-conformance"


def digest(*parts: str | bytes) -> str:
    """A key for the parts (texts and bytes, each delimited)."""
    found = hashlib.sha256()
    for part in parts:
        found.update((part.encode() if isinstance(part, str) else part) + b"\0")
    return found.hexdigest()[:24]


def path_of(kind: str, key: str | None, where: Path | None) -> Path | None:
    """The file of an entry; None (nothing cached) without a key or a directory."""
    return None if key is None or where is None else where / f"{kind}-{key}.pickle"


def read(path: Path | None, expected: type = dict):
    """The value stored at ``path``, or None (no cache, no file, a damaged or foreign one)."""
    if path is None or not path.is_file():
        return None
    try:
        with path.open("rb") as file:
            value = pickle.load(file)  # noqa: S301 - a file this module wrote, in the user's cache
    except Exception:  # noqa: BLE001 - a damaged file is only a miss
        return None
    return value if isinstance(value, expected) else None


def write(path: Path | None, value) -> None:
    """Store ``value`` at ``path`` atomically, then remove the files of its kind beyond the newest ``KEPT``."""
    if path is None:
        return
    kind = path.name.rsplit("-", 1)[0]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{kind}-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        finally:
            Path(temporary).unlink(missing_ok=True)
        newest_first = sorted(path.parent.glob(f"{kind}-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in newest_first[KEPT:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass
