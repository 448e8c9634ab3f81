"""Running the selected catalog on a pool of worker processes and collecting the results.

Each worker (``conformance.worker``) imports torch and the implementation once and runs items
in forked children (see ``isolation``). One thread per worker feeds it items; the main thread
collects results as they finish, applies expectations, appends each record to
``<report dir>/results.jsonl`` at once (so a killed run keeps what it did), shows progress, and
writes the reports at the end, or on Ctrl-C with what was done.
"""

from __future__ import annotations

import json
import os
import platform
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from . import expectations as expectations_module
from .case import ALL_DEVICES, Case
from .execution import DEFAULT_TIMEOUT, base_record, skipped
from .implementations import REFERENCE, device_status, resolve
from .progress import Progress

OUTCOMES = ("pass", "fail", "xfail", "xpass", "unsupported", "error", "timeout", "crash", "skip")
EXPECTED_OUTCOMES = ("pass", "xfail", "skip")
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


class WorkerError(Exception):
    """A worker could not start or stopped answering."""


def error_record(case: Case, device: str, detail: str) -> dict:
    return {**base_record(case, device), "outcome": "error", "duration": 0.0, "detail": detail,
            "reference": None, "implementation": None, "diff": []}


class WorkerProcess:
    def __init__(self, impl: str, timeout: float, isolation: str) -> None:
        self.args = [sys.executable, "-m", "conformance.worker", "--impl", impl,
                     "--timeout", str(timeout), "--isolation", isolation]
        self.proc: subprocess.Popen | None = None
        self.versions: dict = {}

    def start(self) -> None:
        env = {**os.environ, **SINGLE_THREAD_ENV, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", env=env)

    def wait_ready(self) -> None:
        message = self._receive()
        if "fatal" in message:
            raise WorkerError(message["fatal"])
        self.versions = message["versions"]

    def run(self, case_id: str, device: str) -> dict:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps({"id": case_id, "device": device}) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise WorkerError(f"the worker stopped: {exc}") from exc
        return self._receive()

    def _receive(self) -> dict:
        assert self.proc is not None and self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            raise WorkerError(f"the worker process ended (exit status {code})")
        return json.loads(line)

    def close(self) -> None:
        if self.proc is None:
            return
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class RunConfig:
    impl: str = "myautograd"
    cases: list[Case] = field(default_factory=list)
    devices: tuple[str, ...] = ALL_DEVICES
    report_dir: Path = Path("reports")
    jobs: int = 0
    timeout: float = DEFAULT_TIMEOUT
    isolation: str = "fork"
    expectations: list = field(default_factory=list)
    expectations_file: str | None = None
    all_case_ids: tuple[str, ...] = ()
    selection: dict = field(default_factory=dict)
    live_progress: bool | None = None


def check_devices(impl_namespace, reference_namespace, devices: Iterable[str]) -> dict[str, str | None]:
    """For each device: None when both sides can use it, otherwise why not."""
    status = {}
    for device in devices:
        reason = device_status(reference_namespace, device)
        if reason is None:
            impl_reason = device_status(impl_namespace, device)
            reason = None if impl_reason is None else f"{impl_reason} (implementation)"
        status[device] = reason
    return status


class Run:
    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.records: list[dict] = []
        self.interrupted = False
        self.started = datetime.now(UTC)
        self.reference = resolve(REFERENCE)
        self.implementation = resolve(config.impl)
        self.device_status = check_devices(self.implementation.namespace, self.reference.namespace,
                                           config.devices)
        self.versions: dict = {}
        config.report_dir.mkdir(parents=True, exist_ok=True)
        self.journal_path = config.report_dir / "results.jsonl"

    def plan(self) -> tuple[list[tuple[Case, str]], list[dict]]:
        todo, skips = [], []
        for case in self.config.cases:
            for device in self.config.devices:
                if not case.runs_on(device):
                    continue
                reason = self.device_status[device]
                if reason is None:
                    todo.append((case, device))
                else:
                    skips.append(skipped(case, device, reason))
        return todo, skips

    def execute(self) -> dict:
        todo, skips = self.plan()
        progress = Progress(len(todo) + len(skips), live=self.config.live_progress)
        began = time.monotonic()
        with self.journal_path.open("w", encoding="utf-8") as journal:
            journal.write(json.dumps({"run": self.metadata()}) + "\n")
            for record in skips:
                self._keep(record, journal, progress)
            try:
                self._run_pool(todo, journal, progress)
            except KeyboardInterrupt:
                self.interrupted = True
        progress.close()
        return self.result(time.monotonic() - began)

    def _keep(self, record: dict, journal, progress: Progress) -> None:
        record = expectations_module.apply(record, self.config.expectations, self.reference.version)
        self.records.append(record)
        journal.write(json.dumps(record) + "\n")
        journal.flush()
        os.fsync(journal.fileno())
        progress.update(record)

    def _run_pool(self, todo: list[tuple[Case, str]], journal, progress: Progress) -> None:
        if not todo:
            return
        jobs = self.config.jobs or os.cpu_count() or 1
        workers = [WorkerProcess(self.config.impl, self.config.timeout, self.config.isolation)
                   for _ in range(min(jobs, len(todo)))]
        for worker in workers:
            worker.start()
        try:
            for worker in workers:
                worker.wait_ready()
            self.versions = workers[0].versions
            pending: queue.Queue = queue.Queue()
            for item in todo:
                pending.put(item)
            done: queue.Queue = queue.Queue()
            threads = [threading.Thread(target=self._feed, args=(w, pending, done), daemon=True) for w in workers]
            for thread in threads:
                thread.start()
            for _ in range(len(todo)):
                self._keep(done.get(), journal, progress)
        except KeyboardInterrupt:
            self._drain(pending)
            raise
        finally:
            for worker in workers:
                worker.close()

    @staticmethod
    def _drain(pending: queue.Queue) -> None:
        while True:
            try:
                pending.get_nowait()
            except queue.Empty:
                return

    def _feed(self, worker: WorkerProcess, pending: queue.Queue, done: queue.Queue) -> None:
        """Run items on one worker; every item taken gets a record, whatever happens to the worker."""
        broken: str | None = None
        while True:
            try:
                case, device = pending.get_nowait()
            except queue.Empty:
                return
            if broken is not None:
                done.put(error_record(case, device, f"worker failure: {broken}"))
                continue
            try:
                done.put(worker.run(case.id, device))
            except Exception as exc:  # a dead worker or a garbled answer: report, then restart it
                done.put(error_record(case, device, f"worker failure: {exc}"))
                worker.close()
                try:
                    worker.start()
                    worker.wait_ready()
                except Exception as restart_error:
                    broken = f"the worker could not be restarted: {restart_error}"

    def metadata(self) -> dict:
        return {
            "implementation": {"name": self.implementation.name, "module": self.implementation.module_name,
                               "version": self.implementation.version},
            "reference": {"name": REFERENCE, "version": self.reference.version},
            "python": platform.python_version(),
            "platform": platform.platform(),
            "devices": {d: ("available" if r is None else r) for d, r in self.device_status.items()},
            "started": self.started.isoformat(timespec="seconds"),
            "selection": self.config.selection,
            "timeout": self.config.timeout,
            "isolation": self.config.isolation,
        }

    def result(self, duration: float) -> dict:
        order = {(c.id, d): i for i, (c, d) in enumerate((c, d) for c in self.config.cases for d in ALL_DEVICES)}
        records = sorted(self.records, key=lambda r: order.get((r["id"], r["device"]), 0))
        summary = {name: 0 for name in OUTCOMES}
        for record in records:
            summary[record["outcome"]] += 1
        stale = expectations_module.stale(self.config.expectations, self.config.all_case_ids)
        unexpected = sum(count for name, count in summary.items() if name not in EXPECTED_OUTCOMES)
        return {
            **self.metadata(),
            "duration": duration,
            "interrupted": self.interrupted,
            "summary": summary,
            "total": len(records),
            "expectations": {
                "file": self.config.expectations_file,
                "stale": [{"case": e.case, "device": e.device, "outcome": e.outcome, "reason": e.reason}
                          for e in stale],
            },
            "exit_status": 1 if (unexpected or self.interrupted) else 0,
            "cases": records,
        }
