"""Running one side of one case in a fresh child process, with a time limit.

Each side runs in a child forked from a worker that has imported torch and the implementation
but never ran a case, so every case starts from the same clean state: warnings that torch emits
once per process fire again, global modes are at their defaults, and a crash or a hang of the
implementation ends only that child. Forking costs about 10 ms, importing torch afresh about
two seconds.

The child sends its result back as JSON through a pipe. The parent reports:

* the child's result, when it finished;
* ``{"status": "timeout"}`` when it ran past the limit (it is killed);
* ``{"status": "crash", "detail": ...}`` when it died before reporting (a signal, or an
  ``os._exit`` by the implementation).

``isolation="none"`` runs in the calling process instead (for debugging with pdb, and for
platforms without ``fork``); warn-once behaviours then depend on what ran before.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Callable

MODES = ("fork", "none")


def default_mode() -> str:
    return "fork" if hasattr(os, "fork") else "none"


def run(task: Callable[[], dict], timeout: float, mode: str = "fork") -> dict:
    if mode == "none":
        return _guarded(task)
    if mode != "fork":
        raise ValueError(f"unknown isolation mode {mode!r}; expected one of {', '.join(MODES)}")
    return _run_forked(task, timeout)


def _guarded(task: Callable[[], dict]) -> dict:
    try:
        return task()
    except BaseException as exc:  # a harness bug must not be mistaken for a behaviour
        return {"status": "error", "detail": f"harness error: {type(exc).__name__}: {exc}"}


def _run_forked(task: Callable[[], dict], timeout: float) -> dict:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_end)
        _die_with_parent()
        code = 0
        try:
            payload = json.dumps(_guarded(task)).encode()
            view = memoryview(payload)
            while view:
                view = view[os.write(write_end, view):]
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(write_end)
    chunks, timed_out = _read_until_eof(read_end, timeout)
    os.close(read_end)
    if timed_out:
        _kill(pid)
        return {"status": "timeout", "detail": f"no result within {timeout:g} s; the process was killed"}
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks)
    if data:
        try:
            return json.loads(data)
        except ValueError:
            pass
    return {"status": "crash", "detail": describe_exit(status)}


def _die_with_parent() -> None:
    """On Linux, ask the kernel to kill this child when its worker dies (no orphans left behind)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _read_until_eof(fd: int, timeout: float) -> tuple[list[bytes], bool]:
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return chunks, True
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return chunks, True
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return chunks, False
        chunks.append(chunk)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def describe_exit(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"the process was killed by {name} before reporting"
    return f"the process exited with status {os.WEXITSTATUS(status)} before reporting"
