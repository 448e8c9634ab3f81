"""A fuzzing campaign: draw programs, run both sides, judge, shrink the first difference, write it.

Programs are drawn with hypothesis (``generator.Generator``) in chunks of ``CHUNK`` examples, each
chunk seeded from ``--seed`` (chunk ``k`` uses seed ``seed + k``), and use only what the
implementation's profile keeps (``gate``). The budget is a limit on the whole campaign, shrinking
and every rerun included: it starts once both sides have started (start-up is shown, not
counted), no program starts after it, and the program running when it ends is stopped there; the
campaign then ends within ``conformance.fuzz.GRACE`` seconds. Shrinking that the budget cuts
short writes the shortest difference found so far, and says so.

Each program runs as one item through the same pool, isolation, recorder and judge as the
catalog's cases (``session.Session``), at the level given. A program that the reference itself
cannot run to the end (torch crashes or hangs on it) or on which one of torch's internal
assertions fails is no difference of the implementation: it is written out as
``reference-<hash>.py`` and the campaign goes on. Nor is a program whose every difference a
``[[fuzz]]`` entry of the implementation's expectations file explains
(``conformance/expectations.py``): it is counted under the entry's reason. Nor is a program whose
every difference is a value that rounding alone explains (``conditioning``: torch's own value
moves that far when the program's literal tensors are scaled by a few ulps): it is counted as
ill-conditioned and written out as ``ill-conditioned-<hash>.py`` (with its ``.diff.txt``) for a
person to check.

The first program that does not pass otherwise is shrunk. The campaign measures what a program
costs (the mean wall time of running and judging one, both sides); where the budget left affords
``HYPOTHESIS_RUNS`` runs at that cost, hypothesis shrinks the program to a minimal one through the
choices that drew it (it may need hundreds of runs); where it affords fewer (an implementation whose
every run is slow: ``torch.compile`` compiles again each time), the program is shrunk by deleting its
steps (``deletion``: a few dozen runs, each keeping the same difference). ``FuzzConfig.shrinker``
(``--shrinker``) can name either instead. Where its gradients differ, the shrunk program runs once
more traced, to say at which graph node they first diverge (``conformance.locate``). It is written
to the report directory as ``<hash>.py`` (a catalog-style scenario, ready to promote),
``<hash>.diff.txt`` (its differences, and where its gradients diverge) and ``<hash>.json`` (how to
replay it: implementation, versions, seed, chunk, dtype, device, level, shrinker; after how many
seconds and programs of fuzzing it was found; and how it was shrunk: runs, steps before and after, whether the budget cut
it short).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..bounds import for_console
from ..case import Doc, case_from_source
from ..compare import tolerances_for
from ..expectations import explained, explained_unsupported
from ..explaining import explain
from ..item import Item
from ..judge import REFERENCE_FAILED
from ..levels import DEFAULT_LEVEL
from ..locate import TRACE_FEATURES, needs_locating, untraceable
from ..operators.tolerances import COMPOSITE
from ..reports.common import diff_text
from ..session import Session
from . import HYPOTHESIS_RUNS
from .conditioning import could_be_ill_conditioned, ill_conditioned, scaled_source, scales
from .deletion import StepDeletion, Symptom, program_of, steps_of
from .gate import Gate
from .generator import Generator
from .ops import restricted_to
from .program import Program

CHUNK = 10
DOC = Doc("https://pytorch.org/docs/stable/notes/autograd.html", "Autograd mechanics (a fuzzed program)")
PROGRAM_TIMEOUT = 30.0
# A program chains up to 20 ops (matrix products of large values, reductions, optimizer steps): in
# float32 the roundings of two correct engines compound as in the operator table's composite class;
# float64 keeps the default tolerance, which is looser than that class.
TOLERANCES = {"float32": COMPOSITE.per_dtype()["float32"]}


# torch's own consistency checks failing: "... INTERNAL ASSERT FAILED at ..., please report a bug to PyTorch."
INTERNAL_ASSERT = "INTERNAL ASSERT FAILED"


def reference_broke(record: dict) -> bool:
    """Whether the reference could not run the program: it crashed, hung or ran out of memory, or
    one of its steps failed one of torch's internal assertions (a bug of torch's, which no
    implementation is asked to reproduce)."""
    reference = record.get("reference") or {}
    if record["outcome"] == "error" and reference.get("status") in REFERENCE_FAILED:
        return True
    return any(INTERNAL_ASSERT in str((step.get("error") or {}).get("message", ""))
               for step in reference.get("steps") or ())


class FoundDifference(AssertionError):
    """A program whose outcome is not pass (hypothesis shrinks it)."""


class SlowToShrink(BaseException):
    """The first difference, where hypothesis is not to shrink it (the budget left affords too few
    runs): not an ``Exception``, so that hypothesis lets it through at once."""


class OutOfTime(BaseException):
    """The budget is spent. Not an ``Exception``: hypothesis lets it through at once instead of
    taking it for a failing example to shrink."""


@dataclass
class FuzzConfig:
    impl: str = "myautograd"
    device: str = "cpu"
    budget: float = 60.0
    seed: int = 0
    level: str = DEFAULT_LEVEL
    report_dir: Path = Path("reports/fuzz")
    max_steps: int = 20
    startup_timeout: float = 120.0
    shrink: bool = True                 # False: the first difference as drawn
    shrinker: str = "auto"              # one of SHRINKERS: "auto" picks by the cost of a program (HYPOTHESIS_RUNS)
    baseline: str | None = None         # an implementation whose own differences are not findings
    known: tuple = ()                   # FuzzExpectation entries: differences explained, not findings
    lacks: tuple[str, ...] = ()         # features the implementation's profile lacks: no program uses them
    program_timeout: float = PROGRAM_TIMEOUT  # seconds per program and side (an implementation's [run] program_timeout)
    set_aside_from: tuple = ()          # modules whose warnings the judge sets aside ([warnings] of the same file)
    operators: tuple[str, ...] = ()     # only these operators of the table (``ops.restricted_to``); all when empty


@dataclass
class Finding:
    program: Program
    record: dict
    chunk: int
    paths: list[Path] = field(default_factory=list)
    cut_short: bool = False             # the budget ran out while shrinking: the shortest program found by then
    shrinker: str | None = None         # "hypothesis", "steps" (deleting steps), or None: not shrunk
    shrink_runs: int = 0                # programs run since the difference was found (shrinking, and its checks)
    steps: tuple[int, int] = (0, 0)     # the program's steps (top-level statements) as found, and as written

    def shrinking(self) -> str:
        """How the program was shrunk ("" when it was not): "shrunk by deleting steps in 23 runs, from
        26 steps to 2"."""
        if self.shrinker is None:
            return ""
        how = "by deleting steps" if self.shrinker == "steps" else "by hypothesis"
        return f"shrunk {how} in {self.shrink_runs} runs, from {self.steps[0]} steps to {self.steps[1]}"


class Campaign:
    def __init__(self, config: FuzzConfig, stream=None) -> None:
        self.config = config
        self.stream = stream or sys.stderr
        self.programs = 0
        self.judging = 0.0              # seconds spent running and judging those programs (both sides)
        self.session = Session(config.impl, devices=(config.device,), level=config.level,
                               startup_timeout=config.startup_timeout, set_aside_from=config.set_aside_from)
        self.baseline = None if config.baseline is None else Session(
            config.baseline, devices=(config.device,), level=config.level, startup_timeout=config.startup_timeout)
        self.baseline_differences = 0   # programs on which the baseline differs too: not findings
        self.explained: dict[str, int] = {}  # reason of a [[fuzz]] entry -> programs it explained
        self.ill_conditioned = 0        # programs whose every difference is an ill-conditioned value
        self.gate = Gate.of(config.lacks)
        self.ops, self.table = restricted_to(config.operators)
        self.startup: float | None = None   # seconds both sides took to start
        self.started = time.monotonic()     # when fuzzing began (once both sides had started)
        self.deadline = self.started + config.budget
        self.unchecked = False              # the budget ran out while a differing program was being checked
        self._checking = False
        self._last_shown = 0.0
        self._failing: tuple[Program, dict] | None = None
        self._found: tuple[Program, int] | None = None  # the first difference as drawn, and self.programs then
        self.found_after: tuple[float, int] | None = None  # seconds of fuzzing and programs run until then
        self.shrinker: str | None = "hypothesis" if config.shrink else None  # the shrinker that runs
        self.reference_failures: list[Path] = []
        self.finding: Finding | None = None

    # -- running programs -------------------------------------------------------------------
    def case_of(self, program: Program, source: str | None = None, suffix: str = ""):
        return case_from_source(source or program.source(), f"fuzz.p{program.digest()}{suffix}",
                                "A fuzzed autograd program", DOC, dtypes=(program.dtype,), tags=("fuzz",),
                                tolerances=TOLERANCES)

    def time_limit(self) -> float:
        """The time limit of the next program: its ``program_timeout``, or what is left of the budget
        (OutOfTime when nothing is)."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OutOfTime
        return min(self.config.program_timeout, left)

    def observed(self, session: Session, item: Item, source: str, judged: bool = True):
        """One item run through ``session`` within the budget: its record (``judged``), or the
        reference's result alone (the implementation does not run); OutOfTime when the budget stopped it."""
        limit = self.time_limit()
        if judged:
            result = session.run(item, limit, source)
            sides = (result.reference or {}, result.implementation or {})
        else:
            result, _ = session.observe(item, limit, source, sides=("reference",))
            sides = (result,)
        if limit < self.config.program_timeout and any(side.get("status") == "timeout" for side in sides):
            raise OutOfTime
        return result

    def judge(self, program: Program) -> dict:
        case = self.case_of(program)
        begun = time.monotonic()
        record = self.observed(self.session, Item(case, self.config.device, program.dtype), case.source)
        self.judging += time.monotonic() - begun
        self.programs += 1
        self.show()
        return record.as_dict()

    def runs_affordable(self) -> float:
        """How many more programs the budget left affords, at the mean cost of those judged so far."""
        return max(self.deadline - time.monotonic(), 0.0) / (self.judging / max(self.programs, 1) or 1e-9)

    def baseline_differs(self, program: Program) -> bool:
        """With a baseline: whether it differs from the reference on ``program`` too (then the
        difference is not the implementation's own: a patched copy of the baseline, say)."""
        if self.baseline is None:
            return False
        case = self.case_of(program)
        record = self.observed(self.baseline, Item(case, self.config.device, program.dtype), case.source)
        if record.outcome == "pass":
            return False
        self.baseline_differences += 1
        return True

    def is_explained(self, record: dict) -> bool:
        """Whether a [[fuzz]] entry of the implementation's expectations explains every difference
        of ``record`` that counts at the campaign's level, or, for an unsupported program, the one at
        the name the implementation lacks (then it is counted, not a finding)."""
        if record["outcome"] == "unsupported":
            entry = explained_unsupported(record, self.config.known, self.config.level)
        else:
            entry = explained(record.get("diff") or (), self.config.known, self.config.level)
        if entry is None:
            return False
        self.explained[entry.reason] = self.explained.get(entry.reason, 0) + 1
        return True

    def is_ill_conditioned(self, program: Program, record: dict) -> bool:
        """Whether every difference of ``record`` is a value that rounding alone explains: the
        reference runs the program again with its literal tensors scaled (``conditioning``)."""
        if not could_be_ill_conditioned(record, self.config.level):
            return False
        scaled = {}
        for number, (name, factor) in enumerate(scales(program.dtype).items()):
            case = self.case_of(program, scaled_source(program.source(), factor), f".scaled{number}")
            reference = self.observed(self.session, Item(case, self.config.device, program.dtype), case.source,
                                      judged=False)
            if reference.get("status") != "completed":
                return False
            scaled[name] = reference["steps"]
        tolerance = tolerances_for(TOLERANCES)[f"torch.{program.dtype}"]
        if not ill_conditioned(record, scaled, self.config.level, tolerance):
            return False
        self.ill_conditioned += 1
        self.set_aside(program, record, "ill-conditioned", "every difference of this fuzzed program is a value that "
                       "torch's own moves as far when its literal tensors are scaled by a few ulps")
        return True

    # -- the campaign ---------------------------------------------------------------------
    def run(self) -> Finding | None:
        """Fuzz until the budget is spent or a difference is found (and shrunk, as far as the budget
        lets)."""
        self.start()
        self.write_line(f"fuzz {self.config.impl} on {self.config.device}: started in {self.startup:.1f} s; "
                        f"fuzzing for {self.config.budget:g} s")
        try:
            chunk = 0
            while time.monotonic() < self.deadline:
                cut_short = False
                try:
                    found = self.run_chunk(chunk)
                except OutOfTime:
                    found = cut_short = self._failing is not None
                    self.unchecked = self._checking and not found
                if found:
                    if self.shrinker == "steps" and not cut_short:
                        cut_short = self.shrink_by_steps()
                    self.finding = self.found(chunk, cut_short)
                    self.locate(self.finding)
                    self.finding.paths = self.write(self.finding)
                    break
                chunk += 1
        finally:
            self.close()
            self.show(final=True)
        return self.finding

    def start(self) -> None:
        """Start both sides (and the baseline), then the clock of the budget (once)."""
        if self.startup is not None:
            return
        begun = time.monotonic()
        self.session.start()
        if self.baseline is not None:
            self.baseline.start()
        self.started = time.monotonic()
        self.startup = self.started - begun
        self.deadline = self.started + self.config.budget

    def close(self) -> None:
        self.session.close()
        if self.baseline is not None:
            self.baseline.close()

    def run_chunk(self, chunk: int) -> bool:
        """Run one chunk of programs: True when one differs (hypothesis has shrunk it, unless the
        shrinker picked is deleting steps); OutOfTime when the budget runs out first."""
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as with_seed
        from hypothesis import strategies as st

        def check(data) -> None:
            dtype = data.draw(st.sampled_from(self.gate.dtypes()))
            program = Generator(data.draw, self.ops, st, self.table, self.gate).program(dtype, self.config.max_steps)
            # out of time only once the program is drawn: hypothesis takes a test case that stops
            # drawing earlier than another with the same choices for a flaky strategy
            record = self.judge(program)
            if record["outcome"] == "pass":
                return
            self._checking = True
            differs = self.is_difference(program, record)
            self._checking = False
            if not differs:
                return
            if self._failing is None or len(program.source()) <= len(self._failing[0].source()):
                self._failing = (program, record)
            if self._found is None:
                self._found = (program, self.programs)
                self.found_after = (time.monotonic() - self.started, self.programs)
                if self.config.shrink and self.pick_shrinker() == "steps":
                    raise SlowToShrink
            raise FoundDifference(record["detail"])

        # no explain phase: it reruns the shrunk example only to annotate hypothesis's own report
        phases = tuple(p for p in Phase if p is not Phase.explain) if self.config.shrink else (Phase.explicit,
                                                                                                 Phase.generate)
        test = settings(max_examples=CHUNK, deadline=None, database=None, derandomize=False, phases=phases,
                        suppress_health_check=list(HealthCheck), print_blob=False)(
            with_seed(self.config.seed + chunk)(given(st.data())(check)))
        try:
            test()
        except (FoundDifference, SlowToShrink):
            return True
        return False

    # -- shrinking --------------------------------------------------------------------------
    def pick_shrinker(self) -> str:
        """The shrinker for the first difference, once it is found: the one the configuration names,
        or hypothesis where the budget left affords ``HYPOTHESIS_RUNS`` runs, deleting steps where not."""
        affordable = self.runs_affordable()
        self.shrinker = self.config.shrinker
        if self.shrinker == "auto":
            self.shrinker = "hypothesis" if affordable >= HYPOTHESIS_RUNS else "steps"
        if self.shrinker == "steps":
            why = (": shrinking by deleting steps (--shrinker steps)" if self.config.shrinker == "steps" else
                   f" (below {HYPOTHESIS_RUNS}, too few for hypothesis): shrinking by deleting steps")
            self.write_line(f"\na difference after {self.programs} programs; a program costs "
                            f"{self.judging / self.programs:.1f} s, the budget left affords about {affordable:.0f} "
                            f"runs{why}")
        return self.shrinker

    def is_difference(self, program: Program, record: dict) -> bool:
        """Whether ``record`` (of ``program``) is a difference of the implementation's own, as the
        campaign finds one: not a pass, nor a program the reference cannot run, nor one every
        difference of which is explained, ill-conditioned, or the baseline's too."""
        if record["outcome"] == "pass":
            return False
        if reference_broke(record):
            self.set_aside(program, record)
            return False
        if record["outcome"] in ("fail", "unsupported") and self.is_explained(record):
            return False
        if record["outcome"] == "fail" and self.is_ill_conditioned(program, record):
            return False
        if self.baseline_differs(program):
            return False
        explain(record, self.config.known, self.config.level)  # its headline: a difference no entry explains
        return True

    def shrink_by_steps(self) -> bool:
        """Shrink the first difference by deleting its program's steps (``deletion``), keeping each
        deletion after which the program shows the same difference; whether the budget cut it short
        (the shortest program found by then is kept)."""
        found, record = self._failing
        symptom = Symptom.of(record, self.config.level, self.config.known)

        def still_differs(steps) -> bool:
            candidate = program_of(found.dtype, steps)
            judged = self.judge(candidate)
            if not (self.is_difference(candidate, judged)
                    and Symptom.of(judged, self.config.level, self.config.known) == symptom):
                return False
            self._failing = (candidate, judged)
            return True

        try:
            StepDeletion(steps_of(found), still_differs, symptom.line).run()
        except OutOfTime:
            return True
        return False

    def found(self, chunk: int, cut_short: bool) -> Finding:
        """The finding: the shortest program that showed the difference, and how it was shrunk."""
        program, record = self._failing
        drawn, programs_then = self._found or (program, self.programs)
        return Finding(program, record, chunk, cut_short=cut_short, shrinker=self.shrinker,
                       shrink_runs=self.programs - programs_then,
                       steps=(len(steps_of(drawn)), len(steps_of(program))))

    def locate(self, finding: Finding) -> None:
        """Where the gradients of the shrunk program first diverge (``conformance.locate``), kept in
        its record (``record["divergence"]``) when its gradients differ."""
        if not needs_locating(finding.record):
            return
        lacking = [feature for feature in TRACE_FEATURES if feature in self.config.lacks]
        if lacking:  # as a run does: an engine without node hooks is not traced
            finding.record["divergence"] = untraceable(lacking)
            return
        case = self.case_of(finding.program)
        try:
            limit = self.time_limit()
        except OutOfTime:
            finding.record["divergence"] = {"found": "unavailable", "summary": "cannot locate: the budget ran out"}
            return
        finding.record["divergence"] = self.session.locate(Item(case, self.config.device, finding.program.dtype),
                                                           limit, case.source)

    # -- output -----------------------------------------------------------------------------
    def show(self, final: bool = False) -> None:
        """The progress line (its time never reads beyond the budget)."""
        now = time.monotonic()
        live = getattr(self.stream, "isatty", lambda: False)()
        if not final and now - self._last_shown < (0.2 if live else 10.0):
            return
        self._last_shown = now
        found = 0 if self._failing is None else 1
        spent = min(max(now - self.started, 0.0), self.config.budget)
        text = (f"fuzz {self.config.impl} on {self.config.device}: {self.programs} programs, {found} difference(s), "
                f"{spent:.0f} s of {self.config.budget:g}")
        if found and not final:
            text += ", shrinking by deleting steps" if self.shrinker == "steps" else ", shrinking"
        if self.baseline is not None:
            text += f" ({self.baseline_differences} where {self.config.baseline} differs too)"
        if self.explained:
            text += f" ({sum(self.explained.values())} explained by known differences)"
        if self.ill_conditioned:
            text += f" ({self.ill_conditioned} ill-conditioned)"
        try:
            self.stream.write(("\r" + text.ljust(90) if live and not final else text) + ("\n" if final or not live
                                                                                          else ""))
            if final and live:
                self.stream.write("\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def write_line(self, text: str) -> None:
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def set_aside(self, program: Program, record: dict, kind: str = "reference",
                  why: str = "the reference could not run this fuzzed program") -> None:
        """A program that is no finding, kept for a person to look at: one the reference could not
        run (to report upstream), or an ill-conditioned one (with its differences)."""
        directory = self.config.report_dir
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{kind}-{program.digest()}.py"
        detail = for_console(record.get("detail", ""), 300)
        path.write_text(f'"""{why[0].upper() + why[1:]} ({program.dtype}, {self.config.device}): {detail}\n"""\n\n'
                        + program.source(), encoding="utf-8")
        if kind == "reference":
            self.reference_failures.append(path)
            self.stream.write(f"\nthe reference failed on a program (set aside, not a difference): {path}\n")
        else:
            path.with_suffix(".diff.txt").write_text(diff_text(record) + "\n", encoding="utf-8")


    def write(self, finding: Finding) -> list[Path]:
        directory = self.config.report_dir
        directory.mkdir(parents=True, exist_ok=True)
        name = finding.program.digest()
        scenario = directory / f"{name}.py"
        replay = (f"python -m conformance fuzz --impl {self.config.impl} --device {self.config.device} "
                  f"--seed {self.config.seed} --level {self.config.level} --max-steps {self.config.max_steps}"
                  + (f" --shrinker {finding.shrinker}" if finding.shrinker else " --no-shrink"))
        detail = for_console(finding.record.get("detail", ""), 300)
        float32 = finding.program.dtype == "float32"  # compared at the campaign's float32 tolerance
        tolerance = ", tolerances={'float32': COMPOSITE.per_dtype()['float32']}" if float32 else ""
        tolerance_import = "from conformance.operators.tolerances import COMPOSITE\n" if float32 else ""
        cut_short = ("Shrinking was cut short by the budget: this is the shortest program found by then.\n"
                     if finding.cut_short else "")
        shrinking = finding.shrinking()
        shrinking = f"{shrinking[:1].upper()}{shrinking[1:]}.\n" if shrinking else ""
        scenario.write_text(
            f'"""Found by the fuzzer: {self.config.impl} differs from torch at level {self.config.level}\n'
            f"({finding.program.dtype}, {self.config.device}): {detail}\n\n"
            f"{shrinking}{cut_short}"
            f"Replay: {replay} (the difference is in chunk {finding.chunk}).\n"
            f"To promote it, move the function into a topic module of conformance/catalog/ and give it a title,\n"
            f'the documentation it checks and its features."""\n\n'
            f"from conformance import docs\nfrom conformance.case import case\n{tolerance_import}\n\n"
            f'@case("A fuzzed program ({name})", doc=docs.HISTORY, dtypes=({finding.program.dtype!r},),'
            f' tags=("hard",){tolerance})\n'
            + finding.program.source(f"fuzzed_{name}"), encoding="utf-8")
        diff = directory / f"{name}.diff.txt"
        diff.write_text(diff_text(finding.record) + "\n", encoding="utf-8")
        meta = directory / f"{name}.json"
        info = self.session.info
        meta.write_text(json.dumps({
            "implementation": self.config.impl, "device": self.config.device, "dtype": finding.program.dtype,
            "level": self.config.level, "seed": self.config.seed, "chunk": finding.chunk,
            "max_steps": self.config.max_steps, "replay": replay, "outcome": finding.record.get("outcome"),
            "shrinking": ("cut short by the budget" if finding.cut_short else "done") if self.config.shrink else "off",
            "shrinker": finding.shrinker, "shrink_runs": finding.shrink_runs,
            "steps": {"found": finding.steps[0], "written": finding.steps[1]},
            "seconds_per_program": round(self.judging / max(self.programs, 1), 3),
            "found_after": None if self.found_after is None else {"seconds": round(self.found_after[0], 1),
                                                                  "programs": self.found_after[1]},
            "versions": {side: info.get(side, {}).get("version") for side in ("reference", "implementation")},
        }, indent=1) + "\n", encoding="utf-8")
        return [scenario, diff, meta]
