"""Running the selected catalog: plan the items, run them on the pool, judge, journal, summarise.

The runner is the judging process's main loop. It plans every item (a case on a device in a
dtype): items on a device one side cannot use are ``skip``, and so, where the implementation runs
on a device of its own (``--impl NAME@DEVICE``, ``placement``), are the items of cases tied to
some devices; items whose case needs a feature the implementation's profile lacks are ``n/a``;
the others go to the pool (``pool``), which runs both sides in their own processes, each item
without the lacking features its case can do without (``Item.without``). As each item
finishes, the runner judges it (``judge``); an item whose gradients differ runs once more,
traced, and its record says where they first diverge (``locate``: ``record["divergence"]``; a
run without gradient differences costs nothing more). Then the runner applies the expectations,
appends the record to ``<report dir>/results.jsonl`` at once (the journal: its header is on disk
before the first item, and it is rewritten whole if the report directory disappears during the
run) and shows progress.

SIGINT and SIGTERM end the run at once: workers are killed, the reports are written with what
was done and marked interrupted, and the exit status is 130 or 143.

A run is **incomplete** when it cannot vouch for what was asked: nothing of the selection ran
(every item skipped or ``n/a``), or a device the user named with ``--device`` (or as the
implementation's own, ``NAME@DEVICE``) cannot be used.
Its exit status is ``EXIT_INCOMPLETE`` (5, as pytest's "no tests ran") unless the user allows it
(``--allow-empty``); unexpected outcomes still make it 1. The result counts what was compared
(``compared``: items that ran, steps, numbers by aspect), so "passed" is never said of nothing.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from . import databases, documented
from . import expectations as expectations_module
from .case import ALL_DEVICES, Case, shown_path
from .expectations import ImplementationFile
from .explaining import explain
from .item import Item, ItemRecord, items_of
from .judge import judge
from .levels import DEFAULT_LEVEL, LEVELS
from .locate import TRACE_FEATURES, locate, needs_locating, untraceable
from .placement import Placement
from .pool import Pool, PoolConfig, StartupError
from .progress import Progress

OUTCOMES = ("pass", "fail", "xfail", "xpass", "unsupported", "error", "timeout", "crash", "skip", "n/a")
EXPECTED_OUTCOMES = ("pass", "xfail", "skip", "n/a")
UNSCORED = ("skip", "n/a")
DEFAULT_TIMEOUT = 30.0  # seconds per item and side, where neither --timeout nor the implementation's file says
DEFAULT_STARTUP_TIMEOUT = 120.0
DEFAULT_MEMORY_MIB = 2048
SIGNAL_EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}
EXIT_INCOMPLETE = 5


@dataclass
class RunConfig:
    impl: str = "myautograd"
    cases: list[Case] = field(default_factory=list)
    devices: tuple[str, ...] = ALL_DEVICES
    dtypes: tuple[str, ...] = ()        # only items in these dtypes (``run --dtype``); every dtype when empty
    report_dir: Path = Path("reports")
    jobs: int = 0
    timeout: float = DEFAULT_TIMEOUT
    memory_mib: int = DEFAULT_MEMORY_MIB
    isolation: str = "fork"
    level: str = DEFAULT_LEVEL
    impl_file: ImplementationFile = field(default_factory=ImplementationFile)
    all_case_ids: tuple[str, ...] = ()
    selection: dict = field(default_factory=dict)
    live_progress: bool | None = None
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    registry: str = "conformance.catalog:load"
    required_devices: tuple[str, ...] = ()  # named by the user: unavailable, the run is incomplete
    allow_empty: bool = False
    full_observations: bool = False  # keep both sides' steps and the source of passing items too


class Journal:
    """``results.jsonl``: the run's header, then one line per finished item, on disk at once."""

    def __init__(self, path: Path, header: dict) -> None:
        self.path = path
        self.header = header
        self.lines: list[str] = []
        self._file = None
        self._open()

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("w", encoding="utf-8")
        self._file.write(json.dumps({"run": self.header}) + "\n")
        for line in self.lines:
            self._file.write(line)
        self._sync()

    def append(self, record: dict) -> None:
        line = json.dumps(record) + "\n"
        self.lines.append(line)
        if self._gone():
            self._file.close()
            self._open()
            return
        self._file.write(line)
        self._sync()

    def _gone(self) -> bool:
        try:
            return os.stat(self.path).st_ino != os.fstat(self._file.fileno()).st_ino
        except OSError:
            return True

    def _sync(self) -> None:
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None and not self._file.closed:
            self._file.close()

    def discard(self) -> None:
        self.close()
        try:
            self.path.unlink()
        except OSError:
            pass


class Run:
    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.placement = Placement.of(config.impl)  # the implementation's own device, if any (NAME@DEVICE)
        self.records: list[dict] = []
        self.interrupted_by: int | None = None
        self.started = datetime.now(UTC)
        self.info: dict[str, dict] = {}
        self.device_status: dict[str, str | None] = {}
        self.awaiting_trace: dict[tuple, dict] = {}  # item key -> its record, until its traced run is back
        self.journal = Journal(config.report_dir / "results.jsonl", self.metadata())

    # -- the run ----------------------------------------------------------------------------
    def execute(self) -> dict:
        """Start the pool (a StartupError means nothing ran), run every item, return the result."""
        began = time.monotonic()
        previous = {number: signal.signal(number, self._on_signal) for number in SIGNAL_EXIT}
        pool = Pool(PoolConfig(impl=self.config.impl, jobs=self.config.jobs or os.cpu_count() or 1,
                               isolation=self.config.isolation, devices=self.config.devices,
                               registry=self.config.registry, startup_timeout=self.config.startup_timeout,
                               memory_mib=self.config.memory_mib))
        progress = None
        try:
            try:
                self.info = pool.start(stop=lambda: self.interrupted_by is not None)
            except StartupError:
                self.journal.discard()  # nothing ran: a bad argument, not a run
                raise
            self.device_status = merged_devices(self.info, self.config.devices, self.placement)
            self.journal.header = self.metadata()
            todo, ready = self.plan()
            progress = Progress(len(todo) + len(ready), live=self.config.live_progress)
            for record in ready:
                self._keep(record, progress)
            for item in todo:
                pool.submit(item, item.case.timeout or self.config.timeout)
            while pool.pending() and self.interrupted_by is None:
                for item, reference, implementation in pool.poll():
                    self._finished(pool, item, reference, implementation, progress)
            for record in self.awaiting_trace.values():  # interrupted before their traced runs came back
                self._keep(record, progress)
        finally:
            pool.close()
            for number, handler in previous.items():
                signal.signal(number, handler)
            if progress is not None:
                progress.close(interrupted=self.interrupted_by is not None)
            self.journal.close()
        return self.result(time.monotonic() - began)

    def _on_signal(self, number: int, frame) -> None:
        self.interrupted_by = number

    def plan(self) -> tuple[list[Item], list[dict]]:
        todo, ready = [], []
        profile = self.config.impl_file.profile
        planned = items_of(self.config.cases, self.config.devices)
        for item in planned + self.placement.tied_items(self.config.cases, self.config.devices):
            if self.config.dtypes and item.dtype not in self.config.dtypes:
                continue
            reason = self.placement.skip_reason(item.case, item.device) or self.device_status.get(item.device)
            lacking = profile.missing_for(item.features, item.case.optional_features)
            if reason is not None:
                ready.append(ItemRecord.of(item).finished("skip", reason).as_dict())
            elif lacking:
                ready.append(ItemRecord.of(item).finished(
                    "n/a", f"n/a: the implementation does not aim to support {', '.join(lacking)}").as_dict())
            else:
                todo.append(replace(item, without=profile.left_out_of(item.case.optional_features)))
        return todo, ready

    def _finished(self, pool: Pool, item: Item, reference: dict, implementation: dict, progress) -> None:
        """Judge and keep an item; one whose gradients differ is kept once its traced run (submitted
        now, ahead of the items queued, the pool staying busy meanwhile) says where they diverge
        (``locate``)."""
        if item.trace:
            record = self.awaiting_trace.pop(item.key)
            record["divergence"] = locate(item, reference, implementation, self.impl_module, self.impl_device)
            self._keep(record, progress)
            return
        record = self._judged(item, reference, implementation)
        lacking = self.config.impl_file.profile.missing_for(TRACE_FEATURES)
        if needs_locating(record) and lacking:
            record["divergence"] = untraceable(lacking)
        elif needs_locating(record):
            self.awaiting_trace[item.key] = record
            pool.submit(replace(item, trace=True), item.case.timeout or self.config.timeout, first=True)
            return
        self._keep(record, progress)

    @property
    def impl_module(self) -> str:
        return self.info.get("implementation", {}).get("module", self.config.impl)

    @property
    def impl_device(self) -> str | None:
        """The implementation's own device as its tensors name it (``cuda:0``), where it has one (``placement``)."""
        return placed_device_name(self.info)

    def _judged(self, item: Item, reference: dict, implementation: dict) -> dict:
        record = judge(item, reference, implementation, self.impl_module, self.config.level, self.config.memory_mib,
                       self.config.impl_file.warnings.set_aside_from, self.impl_device)
        return record.as_dict()

    def _keep(self, record: dict, progress) -> None:
        record = explain(record, self.config.impl_file.explained, self.config.level)
        record = expectations_module.apply(record, self.config.impl_file.entries, self.reference_version)
        if not self.config.full_observations:
            record = slimmed(record)
        self.records.append(record)
        self.journal.append(record)
        progress.update(record)

    # -- describing the run -------------------------------------------------------------------
    @property
    def reference_version(self) -> str | None:
        return self.info.get("reference", {}).get("version")

    def metadata(self) -> dict:
        impl = self.info.get("implementation", {})
        reference = self.info.get("reference", {})
        profile = self.config.impl_file.profile
        placed = {"device": self.placement.device, "reads_as": self.impl_device} if self.placement.device else {}
        return {
            "implementation": {"name": self.config.impl, "module": impl.get("module", "?"),
                               "version": impl.get("version", "?"), **placed},
            "reference": {"name": "torch", "version": reference.get("version", "?")},
            "python": platform.python_version(),
            "platform": platform.platform(),
            "devices": {d: ("available" if r is None else r) for d, r in self.device_status.items()},
            "started": self.started.isoformat(timespec="seconds"),
            "selection": self.config.selection,
            "timeout": self.config.timeout,
            "memory_limit_mib": self.config.memory_mib,
            "isolation": self.config.isolation,
            "level": self.config.level,
            "profile": {"lacks": list(profile.lacks), "note": profile.note},
            "warnings": self.config.impl_file.warnings.as_dict(),
            "databases": databases.summaries(self.config.cases),
        }

    def result(self, duration: float) -> dict:
        order = {item.key: i for i, item in enumerate(items_of(self.config.cases, ALL_DEVICES))}
        records = sorted(self.records, key=lambda r: order.get((r["id"], r["device"], r["dtype"]), 0))
        summary = {name: 0 for name in OUTCOMES}
        for record in records:
            summary[record["outcome"]] += 1
        stale = expectations_module.stale(self.config.impl_file.entries, self.config.all_case_ids)
        unexpected = sum(count for name, count in summary.items() if name not in EXPECTED_OUTCOMES)
        interrupted = self.interrupted_by is not None
        incomplete = incompleteness(records, self.device_status, self.config.required_devices,
                                    placed_device_problem(self.info, self.placement))
        if interrupted:
            exit_status = SIGNAL_EXIT[self.interrupted_by]
        elif unexpected:
            exit_status = 1
        else:
            exit_status = EXIT_INCOMPLETE if incomplete and not self.config.allow_empty else 0
        return {
            **self.metadata(),
            "duration": duration,
            "interrupted": interrupted,
            "interrupted_by": signal.Signals(self.interrupted_by).name if interrupted else None,
            "summary": summary,
            "scores": scores(records),
            "total": len(records),
            "compared": totals(records),
            "incomplete": incomplete,
            "allow_empty": self.config.allow_empty,
            "expectations": {
                "file": shown_path(self.config.impl_file.path) if self.config.impl_file.path else None,
                "stale": [{"case": e.case, "device": e.device, "outcome": e.outcome, "reason": e.reason}
                          for e in stale],
            },
            "exit_status": exit_status,
            "documented_surface": None if interrupted else documented_surface(self.config),
            "cases": records,
        }


def documented_surface(config: RunConfig) -> dict | None:
    """The documented autograd surface of the reference torch and the run's cases that use each name
    (``documented``; it reads torch in a child process), for a run of the built-in catalog only (the
    harness's own small catalogs cover none of it)."""
    if config.registry != RunConfig.registry:
        return None
    try:
        return documented.survey(documented.derived(), config.cases).as_dict()
    except (documented.DeriveError, ValueError, OSError) as exc:
        return {"error": str(exc)[:500]}


def merged_devices(info: dict[str, dict], devices: tuple[str, ...],
                   placement: Placement | None = None) -> dict[str, str | None]:
    """For each device: None when both sides can use it (the implementation's side, the device it runs
    that device's items on: ``placement``), otherwise why not."""
    status = {}
    for device in devices:
        reason = info.get("reference", {}).get("devices", {}).get(device, "not checked")
        if reason is None:
            impl_device = placement.device_for("implementation", device) if placement else device
            impl_reason = info.get("implementation", {}).get("devices", {}).get(impl_device, "not checked")
            where = "implementation" if impl_device == device else f"implementation, on {impl_device}"
            reason = None if impl_reason is None else f"{impl_reason} ({where})"
        status[device] = reason
    return status


def placed_device_problem(info: dict[str, dict], placement: Placement) -> str | None:
    """Why the implementation cannot use the device of its own it is to run on; None where it can, or
    has none (``placement``)."""
    if placement.device is None:
        return None
    reason = info.get("implementation", {}).get("devices", {}).get(placement.device, "not checked")
    return None if reason is None else f"the implementation's device {placement.device} cannot be used: {reason}"


def placed_device_name(info: dict[str, dict]) -> str | None:
    """How the implementation's tensors name the device of its own it runs on (``cuda:0``), from its
    ready message (``worker``); None where it has none, or cannot use it."""
    return (info.get("implementation", {}).get("placed_on") or {}).get("reads_as")


def slimmed(record: dict) -> dict:
    """A passing (or not run) item's record without what only a difference needs: both sides' steps
    and the scenario's source (its ``location`` says where it is). Reports show passing items as a
    line of the matrix; ``--full-observations`` keeps everything. Other records are kept whole."""
    if record["outcome"] not in ("pass", "skip", "n/a"):
        return record
    slim = {key: value for key, value in record.items() if key != "source"}
    for side in ("reference", "implementation"):
        if isinstance(record.get(side), dict):
            slim[side] = {key: value for key, value in record[side].items() if key != "steps"}
    return slim


def incompleteness(records: list[dict], device_status: dict[str, str | None],
                   required_devices: tuple[str, ...], placed_problem: str | None = None) -> list[str]:
    """Why the run cannot vouch for what was asked (empty when it can): the implementation's own
    device cannot be used (``placed_problem``, see ``placed_device_problem``), nor a required device,
    or nothing of the selection ran."""
    reasons = [placed_problem] if placed_problem else []
    reasons += [f"device {device} was asked for and cannot be used: {device_status[device]}"
                for device in required_devices if device_status.get(device) is not None and not placed_problem]
    if not any(record["outcome"] not in UNSCORED for record in records):
        reasons.append(f"nothing ran: all {len(records)} selected items were skipped or n/a" if records
                       else "nothing ran: the selection has no item on the devices asked for")
    return reasons


def totals(records: list[dict]) -> dict:
    """What the whole run compared: items that ran to the end on both sides, steps, numbers by aspect."""
    by_aspect: dict[str, int] = {}
    items = steps = 0
    for record in records:
        compared = record.get("compared")
        if not compared:
            continue
        items += 1
        steps += compared["steps"]
        for aspect, count in compared["by_aspect"].items():
            by_aspect[aspect] = by_aspect.get(aspect, 0) + count
    elements = by_aspect.get("value", 0) + by_aspect.get("gradient", 0)
    return {"items": items, "steps": steps, "elements": elements, "by_aspect": dict(sorted(by_aspect.items()))}


def scores(records: list[dict]) -> dict[str, dict]:
    """Pass counts at each level, over the items that ran (skip and n/a are left out)."""
    scored = [r for r in records if r["outcome"] not in UNSCORED]
    result = {}
    for level in LEVELS:
        passed = sum(1 for r in scored if r.get("levels", {}).get(level) == "pass")
        result[level] = {"pass": passed, "total": len(scored),
                         "rate": round(passed / len(scored), 4) if scored else None}
    return result
