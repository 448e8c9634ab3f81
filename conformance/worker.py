"""A side worker: imports ONE side (the reference torch, or the implementation) and observes items.

Started by the judging process as::

    python -m conformance.worker --side implementation --impl NAME --fds IN,OUT[;IN,OUT...] [--registry M:A]

With several descriptor pairs, the process imports its side once, then forks one worker per
extra pair (each in a session of its own, reparented to the judging process).

A worker never judges, and the two sides never share a process: the reference's workers never import
the implementation, so nothing the implementation does at import (changing torch's defaults,
rebinding functions) reaches the reference. The worker reads requests from descriptor ``IN``
and answers on ``OUT`` (see ``protocol``); its own stdin is /dev/null and its stdout and stderr
go where the judging process points them (a log file), so nothing it or the implementation
prints reaches the console or the protocol.

Before it forks, the worker warms its side up: the modules torch imports lazily, and the
implementation's own ``__conformance_warm_up__()`` where its namespace has one.

The first message is ``{"ready": true, "name", "module", "version", "python", "devices",
"placed_on"?}`` or ``{"fatal": "one line saying why"}``. ``placed_on``, for a side that runs every
item on a device of its own (``--placed-on DEVICE``, see ``placement``), names that device and how
its tensors name it (``{"device": "cuda", "reads_as": "cuda:0"}``); a device name the namespace does
not know is fatal. In ``fork`` isolation each item runs in a spare child
(``isolation.SpareChild``); in ``spawn`` isolation the worker runs one item in itself and exits,
for implementations that cannot run after a fork (the judging process starts a fresh worker per
item).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import select
import signal
import sys

from .bounds import RESULT_BYTES_LIMIT, safe_str
from .case import Doc, case_from_source
from .implementations import REFERENCE, UnknownDevice, UnknownImplementation, device_status, placed_device, resolve
from .isolation import MODES, Limits, SpareChild, become_subreaper, limit_memory, side_failure
from .protocol import encode
from .recorder import observe

DEFAULT_REGISTRY = "conformance.catalog:load"
PROGRAM_DOC = Doc("https://pytorch.org/docs/stable/autograd.html", "a generated program")

# Modules torch imports lazily on first use (building an optimizer imports dynamo; autograd.grad
# and backward with an explicit gradient import symbolic_shapes; the first make_dual imports the
# forward-mode decompositions, scripting them with torch.jit.script, which warns that it is
# deprecated, 18 times). Imported once here, before any fork, so that each forked child does not
# import them again (seconds per side, every case), and their import's warnings are no scenario's.
REFERENCE_WARMUP = ("torch.optim", "torch._dynamo", "torch.fx.experimental.symbolic_shapes",
                    "torch._decomp.decompositions_for_jvp")
# An implementation may warm itself up once, here, before the worker forks (a compiler's one-time
# set-up): ``namespace.__conformance_warm_up__()``. If it raises, the side cannot start.
WARM_UP_HOOK = "__conformance_warm_up__"


def warm_up(modules: tuple[str, ...] = REFERENCE_WARMUP) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional speed-up: the children import what they need anyway
            pass


def load_registry(target: str):
    module_path, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module_path), attribute or "load")
    return value() if callable(value) else value


def load_side(side: str, impl: str):
    if side == "reference":
        loaded = resolve(REFERENCE)
        set_threads = getattr(loaded.namespace, "set_num_threads", None)
        if callable(set_threads):
            set_threads(1)
        warm_up()
        return loaded
    loaded = resolve(impl)
    if "torch" in sys.modules:  # an implementation built on torch gets the same warm-up, never an import of torch
        warm_up()
    own_warm_up = getattr(loaded.namespace, WARM_UP_HOOK, None)
    if own_warm_up is not None:
        own_warm_up()
    return loaded


class Worker:
    def __init__(self, args: argparse.Namespace, channels: list[tuple[int, int]]) -> None:
        self.args = args
        self.channels = channels
        self.out_fd = channels[0][1]
        self.loaded = None
        self.registry = None

    def send(self, message: dict) -> None:
        data = memoryview(encode(message))
        while data:
            data = data[os.write(self.out_fd, data):]

    # -- start-up ---------------------------------------------------------------------------
    def load(self) -> bool:
        """Import the side and the catalog; on failure send ``fatal`` on every channel."""
        try:
            self.loaded = load_side(self.args.side, self.args.impl)
            self.registry = load_registry(self.args.registry)
            return True
        except UnknownImplementation as exc:
            fatal = safe_str(exc, 500)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and friends at import too
            fatal = f"the {self.args.side} worker could not start: {type(exc).__name__}: {safe_str(exc, 400)}"
        self.fail(fatal)
        return False

    def fail(self, fatal: str) -> None:
        """Say on every channel that this side cannot start, and why (one line)."""
        for _, out_fd in self.channels:
            self.out_fd = out_fd
            self.send({"fatal": fatal})

    def become_one_worker(self) -> int:
        """Fork one worker per extra channel (each reparented to the judging process, in a session
        of its own), so that one import serves every worker of this side. Returns the request
        descriptor of the channel this process serves."""
        mine = self.channels[0]
        for channel in self.channels[1:]:
            pid = os.fork()
            if pid == 0:
                if os.fork() != 0:
                    os._exit(0)  # the intermediate process: its child is reparented to the judging process
                os.setsid()
                mine = channel
                break
            os.waitpid(pid, 0)
        for channel in self.channels:
            if channel != mine:
                for fd in channel:
                    os.close(fd)
        self.out_fd = mine[1]
        return mine[0]

    def announce(self, devices: dict, placed_on: dict | None) -> None:
        become_subreaper()
        self.send({"ready": True, "side": self.args.side, "name": self.loaded.name, "pid": os.getpid(),
                   "module": self.loaded.module_name, "version": self.loaded.version,
                   "python": platform.python_version(), "devices": devices,
                   **({"placed_on": placed_on} if placed_on is not None else {})})

    def probe_devices(self) -> tuple[dict, dict | None]:
        """Device status, checked in a child so that this process never initialises CUDA; and, for a
        side placed on a device of its own (``--placed-on``, see ``placement``), that device as its
        tensors name it: ``{"device": "cuda", "reads_as": "cuda:0"}`` (``reads_as`` None where it
        cannot be used). An UnknownDevice when the namespace does not know the placed device's name."""
        placed = self.args.placed_on
        wanted = [d for d in self.args.devices.split(",") if d and d != "cpu"]
        status = {"cpu": None}
        if not wanted and placed is None:
            return status, None
        child = SpareChild(lambda request: self.probe(wanted, placed))
        found = child.run({"kind": "probe", "device": "probe"}, Limits(timeout=60.0, memory_mib=0))
        if isinstance(found.get("unknown"), str):
            raise UnknownDevice(found["unknown"])
        failed = f"checking the device failed: {found.get('detail', found.get('status'))}"
        devices = found.get("devices") if isinstance(found.get("devices"), dict) else {}
        for device in wanted + ([placed] if placed is not None else []):
            reason = devices.get(device, failed)
            status[device] = reason if (reason is None or isinstance(reason, str)) else "unreadable status"
        if placed is None:
            return status, None
        reads_as = found.get("reads_as") if isinstance(found.get("reads_as"), str) else None
        if status[placed] is None and reads_as is None:
            status[placed] = "the device of a tensor made there could not be read"
        return status, {"device": placed, "reads_as": reads_as if status[placed] is None else None}

    def probe(self, wanted: list[str], placed: str | None) -> dict:
        """What ``probe_devices`` learns, in the child that checks the devices."""
        found = {"status": "completed", "steps": [], "duration": 0.0,
                 "devices": {d: device_status(self.loaded.namespace, d) for d in wanted}}
        if placed is not None:
            try:
                found["devices"][placed], found["reads_as"] = placed_device(self.loaded.namespace, placed)
            except UnknownDevice as exc:
                found["unknown"] = safe_str(exc, 500)
        return found

    # -- items ------------------------------------------------------------------------------
    def task(self, request: dict) -> dict:
        """Observe one item (in the process that runs it): a case of the catalog, or a program
        sent as source (a fuzzed program, see ``conformance.fuzz``)."""
        case_id = request.get("case")
        if request.get("kind") == "program":
            case = case_from_source(request["source"], case_id, "program", PROGRAM_DOC,
                                    dtypes=(request.get("dtype") or "float32",))
        elif case_id in self.registry:
            case = self.registry.get(case_id)
        else:
            return side_failure("error", f"the worker's catalog has no case {safe_str(case_id, 200)!r}")
        options = {"without": tuple(str(f) for f in request.get("without") or ()), "trace": bool(request.get("trace"))}
        result = observe(case, self.loaded.namespace, request["device"], request.get("dtype"), options)
        return fit(result)

    def serve(self, in_fd: int) -> None:
        requests = Requests(in_fd)
        spare = SpareChild(self.task) if self.args.isolation == "fork" else None
        while (request := requests.next()) is not None:
            try:
                limits = Limits(timeout=float(request["timeout"]), memory_mib=int(request["memory_mib"]))
                answer = {key: request[key] for key in ("seq", "token", "case", "device", "dtype")}
            except (KeyError, TypeError, ValueError):
                continue  # not a request of the judging process: nothing to answer
            child_request = {key: request.get(key) for key in ("kind", "case", "device", "dtype", "memory_mib",
                                                               "source", "without", "trace")}
            if spare is not None:
                side = spare.run(child_request, limits)
                spare = SpareChild(self.task)
            else:
                side = self.run_here(child_request)
            # The judging process sends the next request only after this answer: anything that
            # arrived meanwhile was written by the case (through /proc) and is dropped unread.
            requests.drop_pending()
            self.send(answer | {"side": side})
            if spare is None:
                return  # spawn: one item per worker
        if spare is not None:
            spare.discard()

    def run_here(self, request: dict) -> dict:
        limit_memory(request)
        try:
            return self.task(request)
        except BaseException as exc:  # noqa: BLE001
            return side_failure("crash", f"the worker failed: {type(exc).__name__}: {safe_str(exc, 300)}")


def fit(result: dict) -> dict:
    """The result, with its gradient trace left out, then its last steps replaced by a marker, if it
    is too large to send."""
    size = len(json.dumps(result, allow_nan=False))
    if size > RESULT_BYTES_LIMIT and "trace" in result:
        result["trace"] = {"calls": [], "problem": f"the trace was left out: the result was over "
                                                   f"{RESULT_BYTES_LIMIT} bytes"}
        size = len(json.dumps(result, allow_nan=False))
    steps = result["steps"]
    while size > RESULT_BYTES_LIMIT and steps:
        dropped = max(1, len(steps) // 4)
        del steps[-dropped:]
        steps.append({"label": "cut", "line": None, "source": None, "warnings": [], "stdout": "",
                      "value": {"t": "cut", "why": f"the result was over {RESULT_BYTES_LIMIT} bytes: "
                                                  f"its last steps were cut"}})
        size = len(json.dumps(result, allow_nan=False))
    return result


class Requests:
    """The requests arriving on the worker's descriptor, one JSON object per line."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def next(self) -> dict | None:
        """The next request (lines that are not JSON objects are skipped); None at end of file."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                try:
                    request = json.loads(line)
                except ValueError:
                    continue
                if isinstance(request, dict):
                    return request
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk

    def drop_pending(self) -> None:
        """Discard whatever is buffered or readable now, without blocking."""
        self.buffer.clear()
        while select.select([self.fd], [], [], 0)[0]:
            if not os.read(self.fd, 1 << 16):
                return


def restore_signals() -> None:
    """Undo what the implementation's import may have changed about signals this worker relies on."""
    for number, handler in ((signal.SIGCHLD, signal.SIG_DFL), (signal.SIGPIPE, signal.SIG_DFL),
                            (signal.SIGINT, signal.SIG_IGN), (signal.SIGTERM, signal.SIG_DFL)):
        try:
            signal.signal(number, handler)
        except (OSError, ValueError):
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.worker")
    parser.add_argument("--side", choices=("reference", "implementation"), required=True)
    parser.add_argument("--impl", default=REFERENCE)
    parser.add_argument("--fds", required=True,
                        help="IN,OUT[;IN,OUT...]: the protocol's descriptors, one pair per worker to become")
    parser.add_argument("--registry", default=DEFAULT_REGISTRY)
    parser.add_argument("--isolation", choices=MODES, default="fork")
    parser.add_argument("--devices", default="cpu")
    parser.add_argument("--placed-on", default=None, metavar="DEVICE",
                        help="the device this side runs every item on (the implementation on a device of its own, "
                             "see conformance.placement): checked at start-up and named in the ready message")
    args = parser.parse_args(argv)
    channels = [tuple(int(fd) for fd in pair.split(",")) for pair in args.fds.split(";")]
    worker = Worker(args, channels)
    code = 0
    try:
        if worker.load():
            restore_signals()
            devices, placed_on = worker.probe_devices()
            in_fd = worker.become_one_worker()
            worker.announce(devices, placed_on)
            worker.serve(in_fd)
        else:
            code = 2
    except UnknownDevice as exc:
        worker.fail(safe_str(exc, 500))
        code = 2
    except BaseException:  # noqa: BLE001 - the judging process reports a worker that stops answering
        import traceback

        traceback.print_exc()  # to the worker log (CONFORMANCE_WORKER_LOG), if there is one
        code = 70
    finally:
        os._exit(code)  # no atexit handlers or non-daemon threads of the implementation keep it alive


if __name__ == "__main__":
    sys.exit(main())
