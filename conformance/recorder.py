"""The recorder a scenario writes its observations to, and the function that runs one side.

A scenario receives ``(torch, rec)``: the namespace under test and a :class:`Recorder`.

* ``rec("label", value)`` records one observation and returns ``value``. Keyword ``version=True``
  also records ``_version`` of tensors.
* ``rec.same("label", a, b)`` records whether ``a is b``: an identity, judged at the ``api``
  level (see ``levels``).
* ``rec.printed("label", text)`` records a text made for people (``repr(x)``, ``str(x)``): judged
  as printed text, at the ``drop-in`` level.
* ``with rec.attempt("label"): ...`` runs a block; an exception raised in it is recorded as that
  step's outcome and the scenario goes on (otherwise the step records ``ok``).
* An exception that escapes the scenario ends it and is recorded as a final step ``raised``.
* ``rec.has("autograd.grad")`` says whether the run may use a feature (``features.FEATURES``): False
  for the features the item is run without (an implementation's profile lacks them and the case
  can do without, see ``item.Item.without``); the same on both sides.
* ``rec.device`` is the device the item runs on; ``rec.dtype`` the dtype name it runs with (one
  of the case's ``dtypes``), and ``rec.float_dtype`` that dtype on the namespace.

Every step also carries the warnings (category, message and origin: the module that issued it,
``origin_of``; in order) and the text printed to stdout since the previous step, and the
scenario line it was recorded at, so a difference can say where it is. An exception that means
the implementation lacks an API name carries that name in torch's spelling (see ``surface``).
Everything is bounded (see ``bounds``).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import sys
import time
import traceback
import warnings
from typing import Any

from .bounds import STEPS_LIMIT, TEXT_LIMIT, cut_text, safe_str
from .case import Case
from .gradtrace import GradTracer
from .snapshot import Snapshotter, exception_info, qualified_type_name
from .surface import Surface

# A namespace may decide how a scenario runs (``observe``; docs/writing-an-adapter.md):
# ``namespace.__conformance_run__(scenario, namespace, rec)`` is called instead of ``scenario(namespace, rec)``.
RUN_HOOK = "__conformance_run__"
_OUT_OF_MEMORY = re.compile(r"can't allocate memory|Unable to allocate|out of memory", re.IGNORECASE)


@functools.lru_cache(maxsize=512)
def origin_of(filename: str) -> str:
    """The module a file holds, by the entry of ``sys.path`` it lies under (the longest):
    ``.../site-packages/torch/_dynamo/utils.py`` is ``torch._dynamo.utils``. A name that is no such
    file (``<generated ...>``, ``<frozen ...>``, a file outside the path) is returned as it is."""
    path = os.path.abspath(filename) if filename and not filename.startswith("<") else None
    best = None
    for entry in sys.path if path else ():
        root = os.path.abspath(entry or os.curdir)
        if path.startswith(root + os.sep) and (best is None or len(root) > len(best)):
            best = root
    if best is None:
        return filename
    module = os.path.splitext(path[len(best) + 1:])[0].replace(os.sep, ".")
    return module.removesuffix(".__init__")


class BoundedText(io.TextIOBase):
    """A text sink that keeps the first ``limit`` characters written and counts the rest."""

    def __init__(self, limit: int = TEXT_LIMIT) -> None:
        self.limit = limit
        self._parts: list[str] = []
        self._kept = 0
        self._dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.limit - self._kept
        if room > 0:
            self._parts.append(text[:room])
            self._kept += min(len(text), room)
        self._dropped += max(len(text) - max(room, 0), 0)
        return len(text)

    def take(self) -> str:
        """What was written since the last call, with a marker for what was cut."""
        text = "".join(self._parts)
        if self._dropped:
            text += f"\u2026 [{self._dropped} more characters cut]"
        self._parts, self._kept, self._dropped = [], 0, 0
        return text


class Recorder:
    def __init__(self, namespace: Any, device: str, dtype: str, case: Case,
                 caught: list | None = None, stdout: BoundedText | None = None, without: tuple[str, ...] = ()) -> None:
        self.device = device
        self.dtype = dtype
        self.without = frozenset(without)
        self.steps: list[dict] = []
        self.out_of_memory = False
        self._namespace = namespace
        self._warnings: list[warnings.WarningMessage] = caught if caught is not None else []
        self._stdout = stdout or BoundedText()
        self._surface = Surface(namespace)
        self._snapshotter = Snapshotter(namespace, self._surface)
        self._case = case
        self._lines = case.source.splitlines()
        code = case.scenario.__code__
        self._filename = code.co_filename
        self._first_line = code.co_firstlineno
        self._last_line = self._first_line + len(self._lines)
        self._dropped_steps = 0

    @property
    def float_dtype(self) -> Any:
        return getattr(self._namespace, self.dtype)

    # -- used by scenarios -----------------------------------------------------------------
    def has(self, feature: str) -> bool:
        """Whether this run may use ``feature`` (False for those the item is run without)."""
        return feature not in self.without

    def __call__(self, label: str, value: Any, *, version: bool = False) -> Any:
        pending = self._drain()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            encoded = self._snapshotter.encode(value, version=version)
        self._add(label, self._caller_line(), pending, value=encoded)
        return value

    def same(self, label: str, first: Any, second: Any) -> bool:
        """Record whether ``first is second`` (an identity observation)."""
        result = first is second
        self._add(label, self._caller_line(), self._drain(), value=result, aspect="identity")
        return result

    def printed(self, label: str, text: str) -> str:
        """Record a text made for people (a repr, a str): compared as printed text."""
        self._add(label, self._caller_line(), self._drain(), value=self._snapshotter.encode(text), aspect="printed")
        return text

    @contextlib.contextmanager
    def attempt(self, label: str):
        line = self._caller_line(depth=3)
        try:
            yield
        except Exception as exc:
            self._add(label, self._raising_line(exc) or line, self._drain(), error=self._error(exc))
        else:
            self._add(label, line, self._drain(), value={"t": "ok"})

    # -- used by the runner ----------------------------------------------------------------
    def position(self) -> dict:
        """Where the scenario is now: the number of the step it is in (the next one recorded) and
        its line (what ``gradtrace`` records of each backward call)."""
        line = self._caller_line(depth=2)
        return {"step": len(self.steps) + self._dropped_steps + 1, "line": line, "source": self._source_line(line)}

    def uncaught(self, exc: BaseException) -> None:
        self._add("raised", self._raising_line(exc), self._drain(), error=self._error(exc))

    def finish(self) -> None:
        """Attach warnings and output that came after the last step to a closing step."""
        pending = self._drain()
        if pending["warnings"] or pending["stdout"]:
            self._add("end", None, pending, value={"t": "ok"})
        if self._dropped_steps:
            self.steps.append({"label": "cut", "line": None, "source": None, "warnings": [], "stdout": "",
                               "value": {"t": "cut", "why": f"{self._dropped_steps} more steps cut "
                                                           f"(at most {STEPS_LIMIT} are recorded)"}})

    # -- internals ------------------------------------------------------------------------
    def _error(self, exc: BaseException) -> dict:
        if isinstance(exc, MemoryError) or _OUT_OF_MEMORY.search(safe_str(exc, 400)):
            self.out_of_memory = True
        with warnings.catch_warnings():  # reading the API surface to spell a name is not the scenario's doing
            warnings.simplefilter("ignore")
            missing = self._surface.missing(exc, self._in_case_file)
        return exception_info(exc, missing, with_traceback=True)

    def _add(self, label: str, line: int | None, pending: dict, **outcome: Any) -> None:
        if len(self.steps) >= STEPS_LIMIT:
            self._dropped_steps += 1
            return
        step = {"label": cut_text(safe_str(label), 400), "line": line, "source": self._source_line(line)}
        step.update(pending)
        step.update(outcome)
        self.steps.append(step)

    def _drain(self) -> dict:
        caught = [
            {"category": qualified_type_name(w.category), "message": safe_str(w.message),
             "origin": cut_text(origin_of(safe_str(w.filename, 1000)), 300)}
            for w in self._warnings[:100]
        ]
        if len(self._warnings) > 100:
            caught.append({"category": "cut", "message": f"{len(self._warnings) - 100} more warnings cut"})
        self._warnings.clear()
        return {"warnings": caught, "stdout": self._stdout.take()}

    def _in_case_file(self, filename: str, line: int) -> bool:
        """Code of the case's own file: the scenario and the helpers written beside it."""
        return filename == self._filename

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
        try:
            entries = traceback.extract_tb(exc.__traceback__, limit=200)
        except Exception:  # noqa: BLE001 - a traceback the implementation tampered with
            return None
        for entry in entries:
            if entry.lineno is not None and self._in_scenario(entry.filename, entry.lineno):
                found = entry.lineno - self._first_line + 1
        return found

    def _source_line(self, line: int | None) -> str | None:
        if line is None:
            return None
        return self._lines[line - 1].strip() if 0 < line <= len(self._lines) else None


def observe(case: Case, namespace: Any, device: str, dtype: str | None = None, options: dict | None = None) -> dict:
    """Run one case on one namespace, in this process, and return what it observed.

    ``options`` (``item.Item.options``): ``without``, the features the run leaves out
    (``Recorder.has``); ``trace``, whether to trace the gradients through every graph node of each
    backward call (``gradtrace``: the result then has a ``trace``).

    Warnings are recorded with the "always" filter, so a warning that the implementation emits
    once per process shows up exactly once, and one emitted on every call shows up every time.
    Callers isolate this in a fresh process (see ``isolation``).

    Where the namespace has a run hook (``RUN_HOOK``), the hook runs the scenario: it decides how
    torch code runs (compiled, say), never what is recorded (docs/writing-an-adapter.md).
    """
    started = time.perf_counter()
    status = "completed"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stdout = BoundedText()
        with contextlib.redirect_stdout(stdout):
            rec = Recorder(namespace, device, dtype or case.dtypes[0], case, caught, stdout,
                           without=tuple((options or {}).get("without") or ()))
            tracer = GradTracer(namespace, rec.position) if (options or {}).get("trace") else None
            try:
                seed = getattr(namespace, "manual_seed", None)
                if callable(seed):
                    seed(0)
                if tracer is not None:
                    tracer.install()
                run = getattr(namespace, RUN_HOOK, None)
                if run is None:
                    case.scenario(namespace, rec)
                else:
                    run(case.scenario, namespace, rec)
            except BaseException as exc:  # SystemExit too: the implementation must not end the run
                rec.uncaught(exc)
                status = "raised"
            finally:
                if tracer is not None:
                    tracer.uninstall()
            rec.finish()
    result = {"status": status, "steps": rec.steps, "duration": time.perf_counter() - started}
    if tracer is not None:
        result["trace"] = tracer.result()
    if rec.out_of_memory:
        result["out_of_memory"] = True
    return result
