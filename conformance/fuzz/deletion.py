"""Shrinking a program by deleting its steps: the campaign's shrinker where every run is slow.

hypothesis shrinks a program through the choices that drew it, and may need hundreds of runs of the
program to do so; against an implementation that takes seconds a run (``torch.compile``, which
compiles again each time), the budget ends long before. This shrinker works on the program's source
instead, and needs few runs. The program's body is cut into **steps**, its top-level statements: a
leaf, a whole ``with rec.attempt(...)`` block, a line that records (``steps_of``). Then steps are
deleted (``StepDeletion``):

* first, every step after the one that was running when the difference was recorded (one run:
  nothing that runs later can change what was observed before);
* then runs of steps, half of what is left, then quarters, and so on down to one step at a time,
  each sweep from the end backwards (so that the steps that use a tensor go before the step that
  makes it); one step at a time again until a sweep deletes nothing: no single step of the program
  can be deleted;
* last, inside each attempt block that is left (from the last), its statements the same way: the
  lines after the difference, the ``rec`` lines and operations it does not need (the block's
  ``with`` line and one statement stay); and so on inside each ``with`` block left within it (a
  ``dual_level``, a grad mode), at any depth;

keeping each deletion after which the program still shows **the same difference**
(``Symptom``): the same outcome, and its most severe difference that counts (at the campaign's
level, and that no ``[[fuzz]]`` entry explains) in the same aspect at the same place, the step
numbers that deletions shift aside. A deletion after which the program shows another difference
(one the deletion causes itself) is not kept; one that leaves a name undefined makes the program
raise a ``NameError`` where it uses the name, on both sides alike as a rule (no difference), and the
difference it showed is gone with what it needed.

Each candidate's attempt labels are numbered again (``s1``, ``s2``, ...), so the program written
reads as a drawn one does. The caller runs each candidate (and bounds its time): ``still_differs``.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..levels import counts_at
from .program import Program

ATTEMPT_LABEL = re.compile(r"^(with rec\.attempt\((['\"]))s\d+: ")
STEP_NUMBER = re.compile(r"^step \d+")
ATTEMPT_NUMBER = re.compile(r"^(step: )s\d+: ")


@dataclass(frozen=True)
class Step:
    """One statement of a program's body, top-level (its lines unindented) or in an attempt block's
    body (indented), and the scenario line it began at in the program as found (the ``def`` is line
    1, as the recorder counts)."""

    lines: tuple[str, ...]
    line: int


def steps_of(program: Program) -> list[Step]:
    """The program's body, cut into its top-level statements."""
    body = program.body()
    tree = ast.parse("\n".join(body))
    return [Step(tuple(body[node.lineno - 1:node.end_lineno]), node.lineno + 1) for node in tree.body]


def block_parts(step: Step, any_block: bool = False) -> tuple[tuple[str, ...], list[Step]]:
    """An attempt block's ``with`` line, and the statements of its body (indented, as steps); with
    ``any_block``, the same of any ``with`` block, indented or not. A step that is no such block has
    no statements of its own."""
    node = ast.parse(textwrap.dedent("\n".join(step.lines))).body[0]
    if not (isinstance(node, ast.With) and (any_block or ATTEMPT_LABEL.match(step.lines[0]))):
        return step.lines, []
    header = step.lines[:node.body[0].lineno - 1]
    return header, [Step(step.lines[s.lineno - 1:s.end_lineno], step.line + s.lineno - 1) for s in node.body]


def program_of(dtype: str, steps: Iterable[Step]) -> Program:
    """A program of these steps, in order, their attempt labels numbered again from ``s1``."""
    lines, number = [], 0
    for step in steps:
        first, *rest = step.lines
        if ATTEMPT_LABEL.match(first):
            number += 1
            first = ATTEMPT_LABEL.sub(rf"\g<1>s{number}: ", first, count=1)
        lines += [first, *rest]
    return Program(dtype, lines=lines)


@dataclass(frozen=True)
class Symptom:
    """What a judged program shows, as the shrinker compares it: its outcome, and the aspect and the
    place (``where``, its step numbers left out; where the runs part, the label of the step there) of
    its most severe difference that counts; ``line``: a scenario line the program had reached when
    that difference was recorded (None where the record does not say)."""

    outcome: str
    aspect: str | None
    where: str | None
    line: int | None = field(default=None, compare=False)

    @classmethod
    def of(cls, record: dict, level: str, known: Iterable = ()) -> Symptom:
        """``record``'s difference: the most severe of those that count at ``level`` and that no entry
        of ``known`` (``expectations.FuzzExpectation``) explains."""
        known = tuple(known)
        first = next((diff for diff in record.get("diff") or ()
                      if counts_at(diff["aspect"], level) and not any(entry.explains(diff) for entry in known)), None)
        if first is None:
            return cls(record.get("outcome", ""), None, None)
        where, number = str(first.get("where", "")), first.get("step") or 0
        if STEP_NUMBER.fullmatch(where):  # the runs part here: one side raised or ended
            where += ": " + ", ".join(str(step.get("label")) for step in steps_at(record, number))
        where = ATTEMPT_NUMBER.sub(r"\1s: ", STEP_NUMBER.sub("step", where))
        return cls(record.get("outcome", ""), first["aspect"], where, line_reached(record, number))


def steps_at(record: dict, number: int) -> list[dict]:
    """The steps each side recorded as its step ``number`` (counted from 1), where it has one."""
    sides = ((record.get(side) or {}).get("steps") or () for side in ("reference", "implementation"))
    return [steps[number - 1] for steps in sides if 0 < number <= len(steps)]


def line_reached(record: dict, number: int) -> int | None:
    """The last scenario line of the steps up to the one after step ``number``, on the side that
    recorded more: the program was running its top-level statement there, or an earlier one, when it
    recorded step ``number`` (a step recorded in a function the program defined earlier, a custom
    Function's backward say, has a line before the statement that called it)."""
    if not number:
        return None
    sides = ((record.get(side) or {}).get("steps") or () for side in ("reference", "implementation"))
    lines = [step.get("line") for step in max(sides, key=len)[:number + 1]]
    return max((line for line in lines if line is not None), default=None)


class StepDeletion:
    """Deletes steps of a program while ``still_differs(steps)`` says the program they make shows the
    difference; ``line``: a scenario line the program had reached when the difference was recorded
    (``Symptom.line``: the steps after it go first).
    ``steps`` is the shortest program found so far at any moment, ``runs`` the candidates tried: an
    exception of ``still_differs`` (the budget spent) stops the deletion, and both stay readable."""

    def __init__(self, steps: list[Step], still_differs: Callable[[list[Step]], bool], line: int | None = None) -> None:
        self.steps = list(steps)
        self.still_differs = still_differs
        self.line = line
        self.runs = 0

    def run(self) -> list[Step]:
        self._delete()
        for index in reversed(range(len(self.steps))):
            self._delete_inside(index)
        return self.steps

    def _delete(self) -> None:
        """The steps after ``line``, then runs of steps, down to one at a time until none can go."""
        if self.line is not None:
            self._try([step for step in self.steps if step.line <= self.line])
        size = max(len(self.steps) // 2, 1)
        while True:
            deleted = self._sweep(size)
            if size == 1 and not deleted:
                return
            size = max(min(size // 2, len(self.steps) // 2), 1)

    def _delete_inside(self, index: int, any_block: bool = False) -> None:
        """Delete statements of the attempt block that is step ``index`` as ``_delete`` deletes steps,
        then inside each ``with`` block left in it (``any_block``: step ``index`` may be any ``with`` block)."""
        block = self.steps[index]
        header, inner = block_parts(block, any_block)
        if not inner:
            return

        def still_differs(kept: list[Step]) -> bool:
            candidate = [*self.steps[:index], Step(header + sum((s.lines for s in kept), ()), block.line),
                         *self.steps[index + 1:]]
            if not self.still_differs(candidate):
                return False
            self.steps = candidate
            return True

        nested = StepDeletion(inner, still_differs, self.line)
        try:
            if len(inner) >= 2:
                nested._delete()
            for inner_index in reversed(range(len(nested.steps))):
                nested._delete_inside(inner_index, any_block=True)
        finally:
            self.runs += nested.runs

    def _sweep(self, size: int) -> bool:
        """Try deleting each run of ``size`` steps, from the end backwards; whether one was deleted."""
        deleted = False
        end = len(self.steps)
        while end > 0:
            start = max(end - size, 0)
            deleted |= self._try(self.steps[:start] + self.steps[end:])
            end = start
        return deleted

    def _try(self, candidate: list[Step]) -> bool:
        if not candidate or len(candidate) == len(self.steps):
            return False
        self.runs += 1
        if not self.still_differs(candidate):
            return False
        self.steps = candidate
        return True
