"""The recorder a scenario writes its observations to, and the function that runs one side.

A scenario receives ``(torch, rec)``: the namespace under test and a :class:`Recorder`.

* ``rec("label", value)`` records one observation and returns ``value``. Keyword ``version=True``
  also records ``_version`` of tensors.
* ``with rec.attempt("label"): ...`` runs a block; an exception raised in it is recorded as that
  step's outcome and the scenario goes on (otherwise the step records ``ok``).
* An exception that escapes the scenario ends it and is recorded as a final step ``raised``.
* ``rec.device`` is the device the case runs on; ``rec.dtype`` the dtype name it runs with.

Every step also carries the warnings (category and message, in order) and the text printed to
stdout since the previous step, and the scenario line it was recorded at, so a difference can
say where it is.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
import traceback
import warnings
from typing import Any

from .case import Case
from .snapshot import Snapshotter, exception_info, qualified_type_name


class Recorder:
    def __init__(self, namespace: Any, device: str, dtype: str, case: Case,
                 caught: list | None = None, stdout: io.StringIO | None = None) -> None:
        self.device = device
        self.dtype = dtype
        self.steps: list[dict] = []
        self._warnings: list[warnings.WarningMessage] = caught if caught is not None else []
        self._stdout = stdout or io.StringIO()
        self._snapshotter = Snapshotter(namespace)
        self._case = case
        code = case.scenario.__code__
        self._filename = code.co_filename
        self._first_line = code.co_firstlineno
        self._last_line = self._first_line + len(case.source.splitlines())

    # -- used by scenarios -----------------------------------------------------------------
    def __call__(self, label: str, value: Any, *, version: bool = False) -> Any:
        pending = self._drain()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            encoded = self._snapshotter.encode(value, version=version)
        self._add(label, self._caller_line(), pending, value=encoded)
        return value

    @contextlib.contextmanager
    def attempt(self, label: str):
        line = self._caller_line(depth=3)
        try:
            yield
        except Exception as exc:
            self._add(label, self._raising_line(exc) or line, self._drain(), error=exception_info(exc))
        else:
            self._add(label, line, self._drain(), value={"t": "ok"})

    # -- used by the runner ----------------------------------------------------------------
    def uncaught(self, exc: BaseException) -> None:
        self._add("raised", self._raising_line(exc), self._drain(), error=exception_info(exc))

    def finish(self) -> None:
        """Attach warnings and output that came after the last step to a closing step."""
        pending = self._drain()
        if pending["warnings"] or pending["stdout"]:
            self._add("end", None, pending, value={"t": "ok"})

    # -- internals ------------------------------------------------------------------------
    def _add(self, label: str, line: int | None, pending: dict, **outcome: Any) -> None:
        step = {"label": label, "line": line, "source": self._source_line(line)}
        step.update(pending)
        step.update(outcome)
        self.steps.append(step)

    def _drain(self) -> dict:
        caught = [
            {"category": qualified_type_name(w.category), "message": str(w.message)}
            for w in self._warnings
        ]
        self._warnings.clear()
        printed = self._stdout.getvalue()
        self._stdout.seek(0)
        self._stdout.truncate()
        return {"warnings": caught, "stdout": printed}

    def _in_scenario(self, filename: str, line: int) -> bool:
        return filename == self._filename and self._first_line <= line <= self._last_line

    def _caller_line(self, depth: int = 2) -> int | None:
        frame = sys._getframe(depth)
        while frame is not None:
            if self._in_scenario(frame.f_code.co_filename, frame.f_lineno):
                return frame.f_lineno - self._first_line + 1
            frame = frame.f_back
        return None

    def _raising_line(self, exc: BaseException) -> int | None:
        """The last scenario line in the traceback (it may be inside a hook the scenario defines)."""
        found = None
        for entry in traceback.extract_tb(exc.__traceback__):
            if entry.lineno is not None and self._in_scenario(entry.filename, entry.lineno):
                found = entry.lineno - self._first_line + 1
        return found

    def _source_line(self, line: int | None) -> str | None:
        if line is None:
            return None
        lines = self._case.source.splitlines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else None


def observe(case: Case, namespace: Any, device: str, dtype: str | None = None) -> dict:
    """Run one case on one namespace, in this process, and return what it observed.

    Warnings are recorded with the "always" filter, so a warning that the implementation emits
    once per process shows up exactly once, and one emitted on every call shows up every time.
    Callers isolate this in a fresh process (see ``isolation``).
    """
    started = time.perf_counter()
    status = "completed"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            rec = Recorder(namespace, device, dtype or case.dtypes[0], case, caught, stdout)
            try:
                seed = getattr(namespace, "manual_seed", None)
                if callable(seed):
                    seed(0)
                case.scenario(namespace, rec)
            except BaseException as exc:  # SystemExit too: the implementation must not end the run
                rec.uncaught(exc)
                status = "raised"
            rec.finish()
    return {"status": status, "steps": rec.steps, "duration": time.perf_counter() - started}
