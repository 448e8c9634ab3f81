"""Running one side of one item in a fresh child process: fork-server style, bounded, reaped.

A side worker (``worker``) imports its side (torch, or the implementation) once and never runs
a case itself. For each item it hands the request to a **spare child** forked earlier, while the
worker was idle, so that:

* every case starts from the same clean state: warnings that torch emits once per process fire
  again, global modes are at their defaults; a crash or a hang ends only that child;
* the child never saw the per-request token the worker answers with (it was forked before the
  request arrived), holds no file descriptor of the worker's protocol (all are closed), and
  runs in a session and process group of its own, so signalling "its group" reaches only itself
  and its descendants;
* its raw stdout and stderr go to files the worker reads back, bounded, instead of the console.

The child sends its result through a private pipe, length-prefixed (a grandchild that keeps the
pipe open cannot stall it). After the result, a timeout, or the child's death, the worker kills
the child's whole process group, then every descendant that escaped it (the worker is a
"child subreaper", so orphans of the case are reparented to it and found), and reaps them all:
no process of a case outlives its item.

Memory: on the CPU the child caps its address space at its size when the request arrived plus
the memory limit (an allocation beyond fails with MemoryError); on every device the worker also
watches the child's resident size and kills it past the limit.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from .bounds import CAPTURE_LIMIT, RESULT_BYTES_LIMIT

MODES = ("fork", "spawn")
HEADER = struct.Struct("!Q")
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
REAP_WAIT = 5.0
CAPTURE_FILE_LIMIT = 64 << 20  # bytes a case process may write to any file (its captured streams included)
POLL_INTERVAL = 0.05


def default_mode() -> str:
    return "fork" if hasattr(os, "fork") else "spawn"


def _prctl(option: int, value: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: fewer guarantees, same protocol
        pass


def become_subreaper() -> None:
    """Orphaned descendants get reparented to this process (Linux), so they can be reaped."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent() -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


# -- the outcome of one side ---------------------------------------------------------------------
def side_failure(status: str, detail: str) -> dict:
    return {"status": status, "detail": detail, "steps": [], "duration": 0.0}


@dataclass
class Limits:
    timeout: float
    memory_mib: int


# -- processes ---------------------------------------------------------------------------------
def children_of(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc; empty where there is no /proc)."""
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and int(fields[1]) == pid:
            found.append(int(name))
    return found


def reap_strays(keep: tuple[int, ...] = ()) -> None:
    """Kill and reap every child of this process but ``keep`` (orphans a case left behind)."""
    for _ in range(20):
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            continue
        strays = [p for p in children_of(os.getpid()) if p not in keep]
        if not strays:
            return
        for pid in strays:
            _kill_group_and_process(pid)
        deadline = time.monotonic() + REAP_WAIT
        for pid in strays:
            wait_for(pid, deadline)


def _kill_group_and_process(pid: int) -> None:
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


def wait_for(pid: int, deadline: float) -> int | None:
    """``waitpid`` with a deadline; the wait status, or None if the process did not end in time."""
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return 0
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def describe_exit(status: int | None) -> str:
    if status is None:
        return "the process did not end after SIGKILL"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"the process was killed by {name} before reporting"
    return f"the process exited with status {os.WEXITSTATUS(status)} before reporting"


def resident_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
    except (OSError, IndexError, ValueError):
        return 0.0


def address_space_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def lower_limit(which: int, value: int) -> None:
    """Set the soft limit ``which`` to ``value`` (or to the hard limit, if that is lower)."""
    _, hard = resource.getrlimit(which)
    resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def limit_memory(request: dict) -> None:
    """On the CPU, cap this process's address space at its size now plus the request's limit."""
    if request.get("device") == "cpu" and request.get("memory_mib"):
        lower_limit(resource.RLIMIT_AS, address_space_bytes() + int(request["memory_mib"]) * (1 << 20))


def read_capture(fd: int) -> str:
    """What a case wrote to a captured stream, cut to ``CAPTURE_LIMIT`` bytes with a marker."""
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, CAPTURE_LIMIT) if size else b""
    except OSError:
        return ""
    text = data.decode("utf-8", errors="backslashreplace")
    if size > CAPTURE_LIMIT:
        text += f"\u2026 [{size - CAPTURE_LIMIT} more bytes cut]"
    return text


# -- the spare child -----------------------------------------------------------------------------
class SpareChild:
    """A child forked ahead of its request; ``run`` hands it one item and collects the result."""

    def __init__(self, task: Callable[[dict], dict], reap_orphans: bool = True) -> None:
        self.reap_orphans = reap_orphans  # a side worker, whose only children are its cases
        self.worker_pid = os.getpid()
        request_read, self._request_write = os.pipe()
        self._result_read, result_write = os.pipe()
        self._stdout = _capture_file()
        self._stderr = _capture_file()
        self.baseline_mib = resident_mib(self.worker_pid)
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            _child_main(task, request_read, result_write, self._stdout, self._stderr, self.worker_pid)
        os.close(request_read)
        os.close(result_write)

    def run(self, request: dict, limits: Limits) -> dict:
        started = time.monotonic()
        try:
            try:
                _write_all(self._request_write, json.dumps(request).encode() + b"\n")
            except OSError:
                pass  # the child died before its request: reported below from its exit status
            os.close(self._request_write)
            result = self._collect(started + limits.timeout, limits)
        finally:
            self._end()
        result["stdout_fd"] = read_capture(self._stdout)
        result["stderr"] = read_capture(self._stderr)
        for fd in (self._stdout, self._stderr):
            os.close(fd)
        return result

    def discard(self) -> None:
        """Kill the spare child unused (the worker is stopping)."""
        for fd in (self._request_write, self._stdout, self._stderr):
            try:
                os.close(fd)
            except OSError:
                pass
        self._end()

    # -- internals --------------------------------------------------------------------------
    def _collect(self, deadline: float, limits: Limits) -> dict:
        buffer = bytearray()
        needed: int | None = None
        while True:
            if needed is None and len(buffer) >= HEADER.size:
                needed = HEADER.unpack(bytes(buffer[:HEADER.size]))[0]
                if needed > RESULT_BYTES_LIMIT:
                    return side_failure("crash", f"the result is {needed} bytes, over the limit of "
                                                 f"{RESULT_BYTES_LIMIT} bytes")
            if needed is not None and len(buffer) >= HEADER.size + needed:
                return _parse(bytes(buffer[HEADER.size:HEADER.size + needed]))
            left = deadline - time.monotonic()
            if left <= 0:
                return side_failure("timeout", f"no result within {limits.timeout:g} s; the process was killed")
            if resident_mib(self.pid) - self.baseline_mib > limits.memory_mib:
                return side_failure("memory", f"its resident memory grew past the limit of {limits.memory_mib} "
                                              f"MiB (--memory-limit); the process was killed")
            ready, _, _ = select.select([self._result_read], [], [], min(left, POLL_INTERVAL))
            if not ready:
                continue
            chunk = os.read(self._result_read, 1 << 16)
            if not chunk:  # no more result can come: wait for the child to end, within the deadline
                status = wait_for(self.pid, deadline)
                if status is None:
                    return side_failure("timeout", f"no result within {limits.timeout:g} s; the process was killed")
                return side_failure("crash", describe_exit(status))
            buffer += chunk

    def _end(self) -> None:
        try:
            os.close(self._result_read)
        except OSError:
            pass
        _kill_group_and_process(self.pid)
        wait_for(self.pid, time.monotonic() + REAP_WAIT)
        if self.reap_orphans:
            reap_strays()


def _parse(payload: bytes) -> dict:
    try:
        result = json.loads(payload)
    except ValueError as exc:
        return side_failure("crash", f"the process sent a malformed result ({exc})")
    if not isinstance(result, dict):
        return side_failure("crash", "the process sent a result that is not an object")
    return result


def _capture_file() -> int:
    """An anonymous file (unlinked at once) for a child's raw stdout or stderr."""
    directory = os.environ.get("TMPDIR", "/tmp")
    try:
        return os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o600)
    except (AttributeError, OSError):
        import tempfile

        fd, path = tempfile.mkstemp(prefix="conformance-capture-")
        os.unlink(path)
        return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child_main(task, request_fd: int, result_fd: int, stdout_fd: int, stderr_fd: int, worker_pid: int) -> None:
    code = 0
    try:
        os.setsid()
        die_with_parent()
        if os.getppid() != worker_pid:
            os._exit(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((devnull, 0), (stdout_fd, 1), (stderr_fd, 2)):
            os.dup2(source, target)
        keep = sorted({0, 1, 2, request_fd, result_fd})
        _close_all_but(keep)
        sys.stdout = open(1, "w", closefd=False, errors="backslashreplace")
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")
        for number in (signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the file size limit, writes fail instead
        lower_limit(resource.RLIMIT_FSIZE, CAPTURE_FILE_LIMIT)
        request = json.loads(_read_line(request_fd))
        os.close(request_fd)
        limit_memory(request)
        payload = json.dumps(task(request), allow_nan=False).encode()
        _write_all(result_fd, HEADER.pack(len(payload)) + payload)
    except BaseException:  # noqa: BLE001 - reported by the worker from the exit status
        code = 70
    finally:
        os._exit(code)


def _close_all_but(keep: list[int]) -> None:
    low = 0
    for fd in keep:
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _read_line(fd: int) -> bytes:
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    return bytes(data)
