"""Side workers seen from the judging process: start-up, requests, answers, deadlines, clean-up.

The pool starts ``jobs`` workers for the reference side and as many for the implementation
side (``python -m conformance.worker``, each in a session of its own, with two private pipes for
the protocol and /dev/null for its standard streams). Both sides of an item run concurrently on
different workers; the pool pairs their answers. Everything runs on one thread, around one
``select`` with a deadline, so the judging process always responds to signals and no wait is
without an end:

* start-up has a deadline (``startup_timeout``): a side that does not answer ready in time, or
  answers ``fatal``, is a :class:`StartupError` (one line, the CLI's exit status 2);
* every request has a deadline (the item's time limit plus ``GRACE``): a worker that does not
  answer in time is killed, its item gets ``timeout``, and a fresh worker takes its place;
* a worker that dies, or answers with a malformed, duplicate or unrequested message, is
  killed and replaced, and its item gets ``crash`` with the reason (``protocol``);
* a worker that cannot be restarted leaves its slot empty; when a side has no worker left, its
  remaining items end with the reason.

``close`` kills every worker's process group and reaps whatever they left behind. The judging
process is a child subreaper (Linux), so orphans of a killed worker come back to it to be reaped.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from .isolation import become_subreaper, children_of, side_failure, wait_for
from .item import Item
from .placement import Placement
from .protocol import LineReader, decode, encode, new_token, reply_problem

SIDES = ("reference", "implementation")
GRACE = 15.0
STARTUP_TIMEOUT = 120.0
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
# The directory that holds the ``conformance`` package (the repository root in a checkout).
PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


class StartupError(Exception):
    """A side could not start: one line saying why."""


@dataclass
class PoolConfig:
    impl: str
    jobs: int = 1
    isolation: str = "fork"
    devices: tuple[str, ...] = ("cpu",)
    registry: str = "conformance.catalog:load"
    startup_timeout: float = STARTUP_TIMEOUT
    memory_mib: int = 2048
    extra_env: dict = field(default_factory=dict)

    @property
    def placement(self) -> Placement:
        """The implementation's name without its device, and its device (``impl`` is ``NAME@DEVICE``)."""
        return Placement.of(self.impl)


class SideWorker:
    """One worker process of one side, and the request it is answering."""

    def __init__(self, side: str, config: PoolConfig) -> None:
        self.side = side
        self.config = config
        self.proc: subprocess.Popen | None = None  # the process this worker was launched as, if it is that one
        self.reader: LineReader | None = None
        self.request_fd: int | None = None
        self.state = "stopped"  # starting, idle, busy, stopped, dead
        self.deadline = 0.0
        self.request: dict | None = None
        self.item: Item | None = None
        self.info: dict = {}
        self.problem = ""

    def pid(self) -> int | None:
        if self.proc is not None:
            return self.proc.pid
        return self.info.get("pid") if isinstance(self.info.get("pid"), int) else None

    def send(self, item: Item, timeout: float, seq: int, source: str | None = None) -> None:
        self.item = item
        device = self.config.placement.device_for(self.side, item.device)  # the implementation's may be its own
        self.request = {"seq": seq, "token": new_token(), "case": item.case.id, "device": device,
                        "dtype": item.dtype, "timeout": timeout, "memory_mib": self.config.memory_mib,
                        "kind": "item" if source is None else "program", **item.options}
        if source is not None:
            self.request["source"] = source
        self.state = "busy"
        self.deadline = time.monotonic() + timeout + GRACE
        try:
            os.write(self.request_fd, encode(self.request))
        except OSError:
            pass  # the worker is gone: its end of file reports it

    def stop(self) -> None:
        """Kill the worker's whole process group and reap it; close the pipes."""
        pid = self.pid()
        if pid is not None and pid > 1:
            for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    kill()
                except (ProcessLookupError, PermissionError, OSError):
                    pass
            status = wait_for(pid, time.monotonic() + 5.0)
            if self.proc is not None and status is not None:
                self.proc.returncode = os.waitstatus_to_exitcode(status) if status else 0
        for fd in (self.request_fd, self.reader.fd if self.reader else None):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.request_fd = None
        self.reader = None
        self.proc = None
        self.info = {}
        self.state = "stopped"

    def exit_description(self) -> str:
        code = self.proc.poll() if self.proc is not None else None
        return "the worker process ended" + (f" (exit status {code})" if code is not None else "")


def launch(workers: list[SideWorker], config: PoolConfig) -> None:
    """Start one process for ``workers`` (all of one side): it imports the side once and becomes
    one worker per pipe pair (see ``worker``)."""
    side = workers[0].side
    pairs, theirs = [], []
    for worker in workers:
        request_read, worker.request_fd = os.pipe()
        reply_read, reply_write = os.pipe()
        worker.reader = LineReader(reply_read)
        pairs.append(f"{request_read},{reply_write}")
        theirs += [request_read, reply_write]
    placement = config.placement
    args = [sys.executable, "-m", "conformance.worker", "--side", side, "--impl", placement.implementation,
            "--fds", ";".join(pairs), "--registry", config.registry, "--isolation", config.isolation,
            "--devices", ",".join(config.devices)]
    if side == "implementation" and placement.device is not None:
        args += ["--placed-on", placement.device]
    paths = [PACKAGE_ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, **SINGLE_THREAD_ENV, **config.extra_env, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}
    log = os.environ.get("CONFORMANCE_WORKER_LOG")
    output = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    try:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=output, stderr=output, env=env,
                                pass_fds=theirs, start_new_session=True)
    finally:
        if log:
            output.close()
        for fd in theirs:
            os.close(fd)
    workers[0].proc = proc
    deadline = time.monotonic() + config.startup_timeout
    for worker in workers:
        worker.state = "starting"
        worker.deadline = deadline


class Pool:
    def __init__(self, config: PoolConfig) -> None:
        self.config = config
        self.workers = [SideWorker(side, config) for side in SIDES for _ in range(max(1, config.jobs))]
        self.queues: dict[str, deque] = {side: deque() for side in SIDES}
        self.timeouts: dict[tuple, float] = {}
        self.sources: dict[tuple, str] = {}
        self.partial: dict[tuple, dict] = {}
        self.sides: dict[tuple, tuple[str, ...]] = {}  # the sides an item runs on, where not both
        self.items: dict[tuple, Item] = {}
        self.info: dict[str, dict] = {}
        self._seq = 0
        self._done: list[tuple[Item, dict, dict]] = []
        self._initial = True
        self._preexisting = set(children_of(os.getpid()))
        become_subreaper()

    # -- start-up ---------------------------------------------------------------------------
    def start(self, stop=lambda: False) -> dict[str, dict]:
        """Start every worker; wait until all are ready (or ``stop()`` says to give up).
        Returns each side's ready message."""
        for side in SIDES:
            launch([w for w in self.workers if w.side == side], self.config)
        while any(w.state == "starting" for w in self.workers) and not stop():
            self._wait(0.25)
        self._initial = False
        return self.info

    def _started(self, worker: SideWorker, message: object) -> None:
        if isinstance(message, dict) and isinstance(message.get("fatal"), str):
            self._startup_failed(worker, message["fatal"])
        elif not (isinstance(message, dict) and message.get("ready") is True and _ready_fields_ok(message)):
            self._startup_failed(worker, f"the {worker.side} worker sent a malformed ready message")
        elif worker.proc is None and not _is_our_child(message["pid"]):
            self._startup_failed(worker, f"the {worker.side} worker named a process that is not its own")
        else:
            worker.state = "idle"
            worker.info = message
            self.info.setdefault(worker.side, message)

    def _startup_failed(self, worker: SideWorker, why: str) -> None:
        worker.stop()
        worker.state = "dead"
        worker.problem = why
        if self._initial:
            self.close()
            raise StartupError(why)

    # -- items ------------------------------------------------------------------------------
    def submit(self, item: Item, timeout: float, source: str | None = None, first: bool = False,
               sides: tuple[str, ...] = SIDES) -> None:
        """Queue ``item`` on both sides (or on ``sides``: the other's result is then None); ``source``:
        a program to run instead of a catalog case; ``first``: before the items already queued (a
        judged item's record waits for it)."""
        self.items[item.request_key] = item
        self.timeouts[item.request_key] = timeout
        if source is not None:
            self.sources[item.request_key] = source
        if tuple(sides) != SIDES:
            self.sides[item.request_key] = tuple(sides)
        for side in sides:
            if first:
                self.queues[side].appendleft(item)
            else:
                self.queues[side].append(item)

    def pending(self) -> int:
        return len(self.items)

    def poll(self, wait: float = 0.25) -> list[tuple[Item, dict, dict]]:
        """Dispatch, wait at most ``wait`` seconds, and return the items both sides finished."""
        self._dispatch()
        self._wait(wait)
        self._dispatch()
        done, self._done = self._done, []
        return done

    def _dispatch(self) -> None:
        for side in SIDES:
            alive = [w for w in self.workers if w.side == side and w.state != "dead"]
            if not alive:
                problem = next((w.problem for w in self.workers if w.side == side), "no worker")
                while self.queues[side]:
                    item = self.queues[side].popleft()
                    status = "error" if side == "reference" else "crash"
                    self._finish(item, side, side_failure(status, f"no {side} worker could be restarted: {problem}"))
        stopped = [w for w in self.workers if w.state == "stopped"]
        for side in SIDES:
            if any(w.side == side for w in stopped):
                launch([w for w in stopped if w.side == side], self.config)
        for worker in self.workers:
            if worker.state == "idle" and self.queues[worker.side]:
                item = self.queues[worker.side].popleft()
                self._seq += 1
                worker.send(item, self.timeouts[item.request_key], self._seq, self.sources.get(item.request_key))

    def _wait(self, wait: float) -> None:
        live = [w for w in self.workers if w.reader is not None]
        now = time.monotonic()
        deadlines = [w.deadline for w in live if w.state in ("starting", "busy")]
        timeout = max(0.0, min([wait, *[d - now for d in deadlines]]))
        try:
            ready, _, _ = select.select([w.reader.fd for w in live], [], [], timeout)
        except InterruptedError:
            ready = []
        for worker in live:
            if worker.reader is not None and worker.reader.fd in ready:
                self._read(worker)
        now = time.monotonic()
        for worker in self.workers:
            if worker.state in ("starting", "busy") and now > worker.deadline:
                self._overdue(worker)

    def _read(self, worker: SideWorker) -> None:
        worker.reader.feed()
        while worker.reader is not None:
            line = worker.reader.next()
            if line is None:
                break
            message, problem = decode(line)
            self._message(worker, message, problem)
        if worker.reader is not None and worker.reader.overflow:
            self._misbehaved(worker, "a message over the size limit")
        elif worker.reader is not None and worker.reader.closed:
            self._ended(worker)

    def _message(self, worker: SideWorker, message: object, problem: str | None) -> None:
        if worker.state == "starting":
            self._started(worker, message if problem is None else {"fatal": f"the {worker.side} worker {problem}"})
        elif worker.state == "busy":
            problem = problem or reply_problem(message, worker.request)
            if problem:
                self._misbehaved(worker, problem)
            else:
                item = worker.item
                worker.state, worker.item, worker.request = "idle", None, None
                if self.config.isolation == "spawn":  # the worker ran its one item and exits: start another
                    self._restart(worker)
                self._finish(item, worker.side, message["side"])
        else:
            self._misbehaved(worker, "an unrequested message")

    def _misbehaved(self, worker: SideWorker, problem: str) -> None:
        item = worker.item
        self._restart(worker)
        if item is not None:
            self._finish(item, worker.side, side_failure("crash", f"the {worker.side} worker sent {problem}"))

    def _ended(self, worker: SideWorker) -> None:
        state, item, why = worker.state, worker.item, worker.exit_description()
        self._restart(worker)
        if state == "starting":
            self._startup_failed(worker, f"the {worker.side} worker ended while starting ({why})")
        elif item is not None:
            self._finish(item, worker.side, side_failure("crash", f"{why} while running the case"))

    def _overdue(self, worker: SideWorker) -> None:
        state, item = worker.state, worker.item
        if state == "starting":
            what = "the reference (torch)" if worker.side == "reference" else f"the implementation {self.config.impl!r}"
            self._startup_failed(worker, f"{what} could not be loaded within {self.config.startup_timeout:g} s "
                                         f"(its import hangs?)")
            return
        limit = self.timeouts.get(item.request_key, 0.0) if item else 0.0
        self._restart(worker)
        if item is not None:
            self._finish(item, worker.side, side_failure(
                "timeout", f"no answer within {limit + GRACE:g} s; the worker was killed"))

    def _restart(self, worker: SideWorker) -> None:
        worker.stop()
        self.reap()
        worker.item = worker.request = None

    def _finish(self, item: Item, side: str, result: dict) -> None:
        pair = self.partial.setdefault(item.request_key, {})
        pair[side] = result
        if len(pair) == len(self.sides.get(item.request_key, SIDES)):
            del self.partial[item.request_key]
            self.items.pop(item.request_key, None)
            self.timeouts.pop(item.request_key, None)
            self.sources.pop(item.request_key, None)
            self.sides.pop(item.request_key, None)
            self._done.append((item, pair.get("reference"), pair.get("implementation")))

    # -- the end ----------------------------------------------------------------------------
    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
            worker.state = "dead"
        self.reap()

    def reap(self) -> None:
        """Kill and reap processes our workers left behind (reparented to us), and only those."""
        workers = {w.pid() for w in self.workers} - {None}
        own_session = os.getsid(0)
        for _ in range(10):
            strays = [pid for pid in children_of(os.getpid())
                      if pid not in workers and pid not in self._preexisting and _session(pid) != own_session]
            if not strays:
                return
            for pid in strays:
                for kill in (lambda p=pid: os.killpg(p, signal.SIGKILL), lambda p=pid: os.kill(p, signal.SIGKILL)):
                    try:
                        kill()
                    except (ProcessLookupError, PermissionError):
                        pass
            deadline = time.monotonic() + 5.0
            for pid in strays:
                wait_for(pid, deadline)


def _session(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _is_our_child(pid: int) -> bool:
    """Whether ``pid`` is a child of this process (a worker forked by a sibling, reparented here)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        if pid in children_of(os.getpid()):
            return True
        time.sleep(0.01)
    return False


def _ready_fields_ok(message: dict) -> bool:
    texts = all(isinstance(message.get(key), str) and len(message[key]) <= 500
                for key in ("side", "name", "module", "version", "python"))
    devices = message.get("devices")
    pid = message.get("pid")
    pid_ok = isinstance(pid, int) and not isinstance(pid, bool) and 1 < pid < (1 << 31)
    placed_on = message.get("placed_on", {"device": "", "reads_as": None})
    placed_ok = isinstance(placed_on, dict) and placed_on.keys() == {"device", "reads_as"} and all(
        value is None or isinstance(value, str) and len(value) <= 100 for value in placed_on.values())
    return texts and pid_ok and placed_ok and isinstance(devices, dict) and all(
        isinstance(k, str) and (v is None or isinstance(v, str) and len(v) <= 1000) for k, v in devices.items())
