"""Known failures of an implementation, recorded with a reason, kept outside the catalog.

An expectations file is TOML, one table per entry::

    [[expected]]
    case = "hooks.post_accumulate_*"   # a case id, or an fnmatch pattern on case ids
    device = "cuda"                    # optional: every device when left out
    reference = "<2.13"                # optional: only against these torch releases
    outcome = "fail"                   # fail, unsupported, error, timeout or crash
    reason = "post-accumulate hooks are not implemented yet (issue #12)"

``reference`` takes comma-separated comparisons with release numbers (``>=2.10, <2.13``); the
reference's local suffix (``+cpu``, ``+cu130``) is ignored. Use it for messages that changed
between torch releases: an implementation that follows one release differs from the others.

An item that matches an entry and ends with that outcome is reported ``xfail``; one that passes
is ``xpass`` (reported, and it fails the run: the entry should go); one that ends with another
non-passing outcome keeps that outcome, since the way it fails changed. Entries that match no
case of the catalog are reported as stale.

Without ``--expectations``, the runner uses ``conformance/expectations/<implementation>.toml``
when it exists.
"""

from __future__ import annotations

import fnmatch
import operator
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

EXPECTABLE = ("fail", "unsupported", "error", "timeout", "crash")
BUILTIN_DIR = Path(__file__).with_name("expectations")


class ExpectationError(Exception):
    """The expectations file is malformed."""


_COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
_CLAUSE = re.compile(r"^\s*(<=|>=|==|<|>)\s*(\d+(?:\.\d+)*)\s*$")


def release(version: str) -> tuple[int, ...]:
    """``"2.11.0+cu130"`` -> ``(2, 11, 0)``."""
    found = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(part) for part in found.group().split(".")) if found else ()


def _padded(a: tuple, b: tuple) -> tuple[tuple, tuple]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def parse_range(text: str) -> tuple[tuple[str, tuple[int, ...]], ...]:
    clauses = []
    for part in text.split(","):
        found = _CLAUSE.match(part)
        if not found:
            raise ValueError(f"{part.strip()!r} is not a comparison such as '<2.13' or '>=2.10'")
        clauses.append((found.group(1), release(found.group(2))))
    return tuple(clauses)


def in_range(version: str, clauses: tuple) -> bool:
    have = release(version)
    return all(_COMPARISONS[op](*_padded(have, bound)) for op, bound in clauses)


@dataclass(frozen=True)
class Expectation:
    case: str
    outcome: str
    reason: str
    device: str | None = None
    reference: tuple = ()  # parsed ``reference`` range; empty: every release

    def matches(self, case_id: str, device: str | None = None, reference_version: str | None = None) -> bool:
        if self.device is not None and device is not None and device != self.device:
            return False
        if self.reference and reference_version is not None and not in_range(reference_version, self.reference):
            return False
        return fnmatch.fnmatchcase(case_id, self.case)


def builtin_path(implementation: str) -> Path | None:
    path = BUILTIN_DIR / f"{implementation.replace(':', '_')}.toml"
    return path if path.exists() else None


def load(path: Path | None) -> list[Expectation]:
    if path is None:
        return []
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExpectationError(f"cannot read expectations file {path}: {exc}") from exc
    entries = []
    for number, raw in enumerate(data.get("expected", []), start=1):
        missing = [key for key in ("case", "outcome", "reason") if not raw.get(key)]
        if missing:
            raise ExpectationError(f"{path}: entry {number} lacks {', '.join(missing)}")
        if raw["outcome"] not in EXPECTABLE:
            raise ExpectationError(
                f"{path}: entry {number} has outcome {raw['outcome']!r}; expected one of {', '.join(EXPECTABLE)}"
            )
        try:
            reference = parse_range(raw["reference"]) if raw.get("reference") else ()
        except ValueError as exc:
            raise ExpectationError(f"{path}: entry {number} has reference {raw['reference']!r}: {exc}") from None
        entries.append(Expectation(raw["case"], raw["outcome"], raw["reason"], raw.get("device"), reference))
    return entries


def find(entries: list[Expectation], case_id: str, device: str,
         reference_version: str | None = None) -> Expectation | None:
    for entry in entries:
        if entry.matches(case_id, device, reference_version):
            return entry
    return None


def apply(record: dict, entries: list[Expectation], reference_version: str | None = None) -> dict:
    """Turn a raw outcome into xfail/xpass where an expectation covers the item (against this
    version of the reference, when given)."""
    entry = find(entries, record["id"], record["device"], reference_version)
    if entry is None or record["outcome"] == "skip":
        return record
    record["expected"] = {"outcome": entry.outcome, "reason": entry.reason}
    if record["outcome"] == entry.outcome:
        record["outcome"] = "xfail"
    elif record["outcome"] == "pass":
        record["outcome"] = "xpass"
        record["detail"] = f"expected {entry.outcome} ({entry.reason}) but it passes"
    return record


def stale(entries: list[Expectation], case_ids: Iterable[str]) -> list[Expectation]:
    ids = list(case_ids)
    return [entry for entry in entries if not any(entry.matches(case_id) for case_id in ids)]
