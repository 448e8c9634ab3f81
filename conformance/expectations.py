"""What an implementation does not aim to support, and its known failures, kept outside the catalog.

An implementation's file is TOML with an optional profile and any number of expected failures::

    [profile]
    lacks = ["non-scalar", "hooks"]    # features (conformance/features.py) it does not aim to support
    note = "a scalar engine"           # optional: shown in the reports

    [[expected]]
    case = "hooks.post_accumulate_*"   # a case id, or an fnmatch pattern on case ids
    device = "cuda"                    # optional: every device when left out
    dtype = "float64"                  # optional: every dtype when left out
    reference = "<2.13"                # optional: only against these torch releases
    outcome = "fail"                   # fail, unsupported, error, timeout or crash
    reason = "post-accumulate hooks are not implemented yet (issue #12)"

Differences the fuzzer (``python -m conformance fuzz``) may meet and the file explains::

    [[fuzz]]
    aspect = "node-name"               # optional: the difference's aspect (conformance/levels.py)
    where = "grad_fn"                  # optional: a regular expression searched in where it was seen
    torch = "AddBackward1"             # optional: ... in what torch showed
    implementation = "AddBackward0"    # optional: ... in what the implementation showed
    unsupported = "^torch\\."          # optional: ... in the torch name the implementation lacks there
    reason = "scalar overloads inside create_graph formulas"

An entry needs a reason and at least one of the five matching keys. A fuzzed program whose every
difference that counts at the campaign's level is explained by an entry is no finding: the
campaign counts it under the entry's reason and goes on. A program that reaches a name the
implementation lacks is ``unsupported`` and, as a catalog item, not compared past that name: an
entry that explains the difference at the name explains the program.

Known differences in catalog runs too, finer than an ``[[expected]]`` outcome (which covers the
whole item, so it would hide any other difference the item shows)::

    [[explained]]
    case = "op.*"                      # optional: an id or an fnmatch pattern (every case when left out)
    aspect = "raised"                  # the same matching keys as [[fuzz]]
    where = "second-order gradients of .* are taken"
    implementation = "does not currently support double backward"
    reason = "double backward through a compiled region is not supported (pytorch/pytorch#91469)"

A difference such an entry explains does not count (``explaining.explain``): an item whose every
counting difference is explained is ``xfail`` under the entries' reasons, one with other
differences keeps the outcome they give. The reports mark each explained difference. Entries
without ``case`` also explain fuzzed programs, as ``[[fuzz]]`` entries do.

Warnings that are not the program's own, set aside by the judge on both sides, and the time an
implementation needs::

    [warnings]
    set_aside_from = ["torch._dynamo", "torch._inductor"]  # modules (and those inside them)
    reason = "diagnostics of the compiler, issued while it traces"

    [run]
    timeout = 120                      # seconds per item and side, where --timeout is not given
    program_timeout = 120              # seconds per fuzzed program and side (the fuzzer's default: 30)
    startup_timeout = 600              # seconds for a side to start, where --startup-timeout is not given
    level = "api"                      # the level that decides the run, where --level is not given

A warning whose origin (the module that issued it, as the recorder saw it: ``recorder.origin_of``)
is one of ``set_aside_from`` or inside one takes no part in the comparison (a ``<...>`` name, such as
``<string>`` for code compiled from a string, matches that origin alone); the reports show the rule and
mark each such warning "set aside". ``set_aside_from`` needs a ``reason``. The ``[run]`` settings
are optional; ``level`` is for an implementation whose differences at the levels above it are
by design (the reports still show every item's outcome at every level).

Items whose case needs a feature the profile lacks are ``n/a``: listed, not run, left out of the
scores. A lacking feature the case can do without (``Case.optional_features``) does not make it
``n/a``: its items run without that feature (``Item.without``; the operator cases take their
gradients through ``.backward()`` where ``autograd.grad`` is lacking).

``reference`` takes comma-separated comparisons with release numbers (``>=2.10, <2.13``);
the reference's local suffix (``+cpu``, ``+cu130``) is ignored. Use it for messages that changed
between torch releases: an implementation that follows one release differs from the others.

An item that matches an entry and ends with that outcome (at the level that decides the run)
is reported ``xfail``; one that passes is ``xpass`` (reported, and it fails the run: the entry
should go); one that ends with another non-passing outcome keeps that outcome, since the way it
fails changed. Entries that match no case of the catalog are reported as stale.

Every field is checked when the file is loaded (types, values, unknown keys): a mistake is one
line naming the file, the entry and the field, before any case runs.

Without ``--expectations``, the runner uses ``conformance/expectations/<implementation>.toml``
when it exists (``builtin_path``: a shipped adapter's option, ``torch-compile-aot-eager:dynamic``,
uses the file of the name before the colon unless it has one of its own).
"""

from __future__ import annotations

import fnmatch
import operator
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .features import FEATURES
from .levels import ASPECTS, LEVELS, counts_at
from .placement import SEPARATOR as DEVICE_SEPARATOR

EXPECTABLE = ("fail", "unsupported", "error", "timeout", "crash")
BUILTIN_DIR = Path(__file__).with_name("expectations")
ENTRY_KEYS = {"case": str, "outcome": str, "reason": str, "device": str, "dtype": str, "reference": str}
REQUIRED = ("case", "outcome", "reason")
PROFILE_KEYS = {"lacks": list, "note": str}
FUZZ_KEYS = {"aspect": str, "where": str, "torch": str, "implementation": str, "unsupported": str, "reason": str}
FUZZ_PATTERNS = ("where", "torch", "implementation", "unsupported")  # regular expressions, searched in the diff's fields
WARNINGS_KEYS = {"set_aside_from": list, "reason": str}
RUN_KEYS = {"timeout": (int, float), "program_timeout": (int, float), "startup_timeout": (int, float), "level": str}
EXPLAINED_KEYS = {**FUZZ_KEYS, "case": str}
TABLES = ("profile", "expected", "fuzz", "explained", "warnings", "run")


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
    dtype: str | None = None

    def matches(self, case_id: str, device: str | None = None, reference_version: str | None = None,
                dtype: str | None = None) -> bool:
        if self.device is not None and device is not None and device != self.device:
            return False
        if self.dtype is not None and dtype is not None and dtype != self.dtype:
            return False
        if self.reference and reference_version is not None and not in_range(reference_version, self.reference):
            return False
        return fnmatch.fnmatchcase(case_id, self.case)


@dataclass(frozen=True)
class FuzzExpectation:
    """A known difference the fuzzer may meet, and why it is there."""

    reason: str
    aspect: str | None = None
    where: str | None = None
    torch: str | None = None
    implementation: str | None = None
    unsupported: str | None = None
    case: str | None = None  # [[explained]] entries: the cases whose items it explains (all when None)

    def covers(self, case_id: str) -> bool:
        return self.case is None or fnmatch.fnmatchcase(case_id, self.case)

    def explains(self, diff: dict) -> bool:
        """Whether ``diff`` (one difference of a judged record) is this known one."""
        if self.aspect is not None and diff.get("aspect") != self.aspect:
            return False
        if self.unsupported is not None and not diff.get("unsupported"):
            return False
        fields = {"where": diff.get("where"), "torch": diff.get("reference"),
                  "implementation": diff.get("implementation"), "unsupported": diff.get("unsupported")}
        return all(re.search(pattern, str(fields[key] or "")) for key in FUZZ_PATTERNS
                   if (pattern := getattr(self, key)) is not None)


@dataclass(frozen=True)
class Profile:
    lacks: tuple[str, ...] = ()
    note: str = ""

    def missing_for(self, features: Iterable[str], optional: Iterable[str] = ()) -> list[str]:
        """The features of a case that this profile lacks and the case needs (the case is n/a when
        any): those it can do without (``optional``) are left out. In the order of the vocabulary
        (``features.FEATURES``), so that one set of features always reads the same."""
        wanted = set(features) - set(optional)
        return [name for name in FEATURES if name in wanted and name in self.lacks]

    def left_out_of(self, optional: Iterable[str]) -> tuple[str, ...]:
        """The features a case can do without (``optional``) that this profile lacks: its items run
        without them (``item.Item.without``)."""
        wanted = set(optional)
        return tuple(name for name in FEATURES if name in wanted and name in self.lacks)


@dataclass(frozen=True)
class WarningRule:
    """Warnings set aside by the judge: those issued from ``set_aside_from`` (module names)."""

    set_aside_from: tuple[str, ...] = ()
    reason: str = ""

    def as_dict(self) -> dict:
        return {"set_aside_from": list(self.set_aside_from), "reason": self.reason}


@dataclass(frozen=True)
class RunSettings:
    """Seconds an implementation needs, and the level that decides its runs, where the command line
    does not say (None: the suite's default)."""

    timeout: float | None = None
    program_timeout: float | None = None
    startup_timeout: float | None = None
    level: str | None = None


@dataclass(frozen=True)
class ImplementationFile:
    """What an expectations file says: the profile, the expected failures, the warnings set aside and
    the time the implementation needs."""

    profile: Profile = field(default_factory=Profile)
    entries: tuple[Expectation, ...] = ()
    path: str | None = None
    fuzz: tuple[FuzzExpectation, ...] = ()
    warnings: WarningRule = field(default_factory=WarningRule)
    explained: tuple[FuzzExpectation, ...] = ()  # [[explained]]: known differences, in runs and fuzzing

    @property
    def known_in_fuzzing(self) -> tuple[FuzzExpectation, ...]:
        """What explains a fuzzed program: the [[fuzz]] entries, and the [[explained]] ones for every case."""
        return self.fuzz + tuple(entry for entry in self.explained if entry.case is None)
    run: RunSettings = field(default_factory=RunSettings)


def builtin_path(implementation: str) -> Path | None:
    """The built-in file of an implementation: ``<name>.toml`` (``:`` read as ``_``); for ``NAME:OPTION``
    (a shipped adapter's option, ``torch-compile-aot-eager:dynamic``, or ``module:attribute``) without a
    file of its own, NAME's. An implementation on a device of its own (``NAME@DEVICE``, ``placement``)
    has NAME's file."""
    implementation = implementation.partition(DEVICE_SEPARATOR)[0]
    for name in (implementation.replace(":", "_"), implementation.partition(":")[0]):
        path = BUILTIN_DIR / f"{name}.toml"
        if path.exists():
            return path
    return None


def load_file(path: Path | None) -> ImplementationFile:
    if path is None:
        return ImplementationFile()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ExpectationError(f"cannot read expectations file {path}: {exc}") from exc
    unknown = sorted(set(data) - set(TABLES))
    if unknown:
        raise ExpectationError(f"{path}: unknown table or key {unknown[0]!r}; expected [profile], [[expected]], "
                               "[[fuzz]], [[explained]], [warnings] and [run]")
    return ImplementationFile(profile=_profile(data.get("profile", {}), path),
                              entries=_entries(data.get("expected", []), path), path=str(path),
                              fuzz=_fuzz_entries(data.get("fuzz", []), path),
                              warnings=_warnings(data.get("warnings", {}), path), run=_run(data.get("run", {}), path),
                              explained=_fuzz_entries(data.get("explained", []), path, "explained"))


def load(path: Path | None) -> list[Expectation]:
    return list(load_file(path).entries)


def _profile(raw: object, path: Path) -> Profile:
    if not isinstance(raw, dict):
        raise ExpectationError(f"{path}: [profile] must be a table")
    _check_keys(raw, PROFILE_KEYS, f"{path}: [profile]")
    lacks = raw.get("lacks", [])
    if not all(isinstance(name, str) for name in lacks):
        raise ExpectationError(f"{path}: [profile] lacks must be a list of feature names")
    unknown = [name for name in lacks if name not in FEATURES]
    if unknown:
        raise ExpectationError(f"{path}: [profile] lacks unknown feature {unknown[0]!r}; known: {', '.join(FEATURES)}")
    return Profile(tuple(lacks), raw.get("note", ""))


def _warnings(raw: object, path: Path) -> WarningRule:
    if not isinstance(raw, dict):
        raise ExpectationError(f"{path}: [warnings] must be a table")
    _check_keys(raw, WARNINGS_KEYS, f"{path}: [warnings]")
    modules = raw.get("set_aside_from", [])
    bad = [name for name in modules if not isinstance(name, str) or not re.fullmatch(r"\w+(\.\w+)*|<[^<>\s]+>", name)]
    if bad:
        raise ExpectationError(f"{path}: [warnings] set_aside_from must list module names (or <...> file names), "
                               f"not {bad[0]!r}")
    if modules and not raw.get("reason"):
        raise ExpectationError(f"{path}: [warnings] set_aside_from needs a reason")
    return WarningRule(tuple(modules), raw.get("reason", ""))


def _run(raw: object, path: Path) -> RunSettings:
    if not isinstance(raw, dict):
        raise ExpectationError(f"{path}: [run] must be a table")
    _check_keys(raw, RUN_KEYS, f"{path}: [run]")
    seconds = {key: value for key, value in raw.items() if key != "level"}
    for key, value in seconds.items():
        if isinstance(value, bool) or not 0 < value <= 86400:
            raise ExpectationError(f"{path}: [run] {key} must be a positive number of seconds, at most 86400, "
                                   f"not {value!r}")
    if raw.get("level", LEVELS[0]) not in LEVELS:
        raise ExpectationError(f"{path}: [run] level {raw['level']!r} is not one of {', '.join(LEVELS)}")
    return RunSettings(**{key: float(value) for key, value in seconds.items()}, level=raw.get("level"))


def _tables(raw: object, path: Path, name: str, label: str, schema: dict[str, type]):
    """(where, entry) for each table of the array ``[[name]]``, its keys checked against ``schema``."""
    if not isinstance(raw, list):
        raise ExpectationError(f"{path}: '{name}' must be an array of tables ([[{name}]])")
    for number, entry in enumerate(raw, start=1):
        where = f"{path}: {label} {number}"
        if not isinstance(entry, dict):
            raise ExpectationError(f"{where} is not a table")
        _check_keys(entry, schema, where)
        yield where, entry


def _entries(raw: object, path: Path) -> tuple[Expectation, ...]:
    entries = []
    for where, entry in _tables(raw, path, "expected", "entry", ENTRY_KEYS):
        missing = [key for key in REQUIRED if not entry.get(key)]
        if missing:
            raise ExpectationError(f"{where} lacks {', '.join(missing)}")
        if entry["outcome"] not in EXPECTABLE:
            raise ExpectationError(f"{where} has outcome {entry['outcome']!r}; expected one of {', '.join(EXPECTABLE)}")
        if entry.get("device") is not None and entry["device"] not in ("cpu", "cuda"):
            raise ExpectationError(f"{where} has device {entry['device']!r}; expected cpu or cuda")
        try:
            reference = parse_range(entry["reference"]) if entry.get("reference") else ()
        except ValueError as exc:
            raise ExpectationError(f"{where} has reference {entry['reference']!r}: {exc}") from None
        entries.append(Expectation(entry["case"], entry["outcome"], entry["reason"], entry.get("device"), reference,
                                   entry.get("dtype")))
    return tuple(entries)


def _fuzz_entries(raw: object, path: Path, table: str = "fuzz") -> tuple[FuzzExpectation, ...]:
    """The [[fuzz]] entries, or (``table="explained"``) the [[explained]] ones, which may name cases."""
    entries = []
    schema = EXPLAINED_KEYS if table == "explained" else FUZZ_KEYS
    for where, entry in _tables(raw, path, table, f"{table} entry", schema):
        if not entry.get("reason"):
            raise ExpectationError(f"{where} lacks reason")
        if not any(entry.get(key) for key in ("aspect", *FUZZ_PATTERNS)):
            raise ExpectationError(f"{where} matches every difference; give aspect, where, torch, implementation or "
                                   "unsupported")
        if entry.get("aspect") is not None and entry["aspect"] not in ASPECTS:
            raise ExpectationError(f"{where} has aspect {entry['aspect']!r}; known: {', '.join(ASPECTS)}")
        for key in FUZZ_PATTERNS:
            try:
                re.compile(entry.get(key) or "")
            except re.error as exc:
                raise ExpectationError(f"{where}: {key} is not a regular expression: {exc}") from None
        entries.append(FuzzExpectation(entry["reason"], entry.get("aspect"), entry.get("where"), entry.get("torch"),
                                       entry.get("implementation"), entry.get("unsupported"), entry.get("case")))
    return tuple(entries)


def explained(diffs: Iterable[dict], entries: Iterable[FuzzExpectation], level: str) -> FuzzExpectation | None:
    """The entry explaining the first of ``diffs`` that counts at ``level``, when an entry explains
    every one that counts; None when one is unexplained (or none counts)."""
    entries = tuple(entries)
    first = None
    for diff in diffs:
        if not counts_at(diff["aspect"], level):
            continue
        entry = next((e for e in entries if e.explains(diff)), None)
        if entry is None:
            return None
        first = first or entry
    return first


def explained_unsupported(record: dict, entries: Iterable[FuzzExpectation], level: str) -> FuzzExpectation | None:
    """For a record whose outcome at ``level`` is ``unsupported``: the entry explaining the difference
    at the name the implementation lacks (the earliest that counts, named in the record's detail as
    ``levels.outcome_at`` writes it); nothing past that name is compared. None otherwise."""
    at_name = [d for d in record.get("diff") or () if counts_at(d["aspect"], level) and d.get("unsupported")
               and record.get("detail") == f"unsupported: {d['unsupported']}"]
    if record.get("outcome") != "unsupported" or not at_name:
        return None
    return next((e for e in entries if e.explains(at_name[0])), None)


def _check_keys(table: dict, schema: dict[str, type | tuple[type, ...]], where: str) -> None:
    for key, value in table.items():
        if key not in schema:
            raise ExpectationError(f"{where} has unknown key {key!r}; known: {', '.join(schema)}")
        kinds = schema[key] if isinstance(schema[key], tuple) else (schema[key],)
        if not isinstance(value, kinds):
            raise ExpectationError(f"{where}: {key} must be a {' or '.join(kind.__name__ for kind in kinds)}, not "
                                   f"{type(value).__name__} ({value!r})")


def find(entries: Iterable[Expectation], case_id: str, device: str, reference_version: str | None = None,
         dtype: str | None = None) -> Expectation | None:
    for entry in entries:
        if entry.matches(case_id, device, reference_version, dtype):
            return entry
    return None


def apply(record: dict, entries: Iterable[Expectation], reference_version: str | None = None) -> dict:
    """Turn a raw outcome into xfail/xpass where an expectation covers the item (against this
    version of the reference, when given)."""
    entry = find(entries, record["id"], record["device"], reference_version, record.get("dtype"))
    if entry is None or record["outcome"] in ("skip", "n/a"):
        return record
    record["expected"] = {"outcome": entry.outcome, "reason": entry.reason}
    if record["outcome"] == entry.outcome:
        record["outcome"] = "xfail"
    elif record["outcome"] == "pass":
        record["outcome"] = "xpass"
        record["detail"] = f"expected {entry.outcome} ({entry.reason}) but it passes"
    return record


def stale(entries: Iterable[Expectation], case_ids: Iterable[str]) -> list[Expectation]:
    ids = list(case_ids)
    return [entry for entry in entries if not any(entry.matches(case_id) for case_id in ids)]
