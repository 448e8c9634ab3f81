"""Shrinking a fuzzed difference where every run of a program is slow: the campaign picks its shrinker
by what a program costs, and deleting steps (``conformance.fuzz.deletion``) cuts a slow
implementation's difference down to the steps it needs within a small budget; hypothesis still
shrinks a fast implementation's (tests/test_fuzz.py).

``tests.broken.slow_grad_mode_leak`` takes 0.3 s more per program and differs only where an
exception leaves a ``torch.no_grad()`` block: a program of two steps shows it.
"""

from __future__ import annotations

import ast
import io
import json
import time

import pytest

from conformance.case import case_from_source
from conformance.expectations import FuzzExpectation
from conformance.fuzz import GRACE
from conformance.fuzz.campaign import DOC, TOLERANCES, Campaign, FuzzConfig
from conformance.fuzz.deletion import StepDeletion, Symptom, program_of, steps_of
from conformance.fuzz.program import Program
from conformance.item import Item
from conformance.session import Session

SLOW = "tests.broken.slow_grad_mode_leak"


def scenario_statements(source: str) -> list[ast.stmt]:
    """The top-level statements of the one function a written finding defines."""
    functions = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    assert len(functions) == 1
    return functions[0].body


# -- steps of a program -------------------------------------------------------------------------
def test_a_program_is_cut_into_its_top_level_statements_and_put_together_numbered_again():
    program = Program("float32", lines=[
        "t0 = torch.tensor([1.0, 2.0], dtype=rec.float_dtype, device=rec.device, requires_grad=True)",
        "with rec.attempt('s1: t1 = t0.sin()'):", "    t1 = t0.sin()", "    rec('t1', t1)",
        "with rec.attempt(\"s2: t2 = t1 * 2\"):", "    t2 = t1 * 2", "    rec('t2', t2)",
        "rec('torch.is_grad_enabled() after the block', torch.is_grad_enabled())",
    ])
    steps = steps_of(program)
    assert [len(step.lines) for step in steps] == [1, 3, 3, 1]
    assert [step.line for step in steps] == [2, 3, 6, 9]  # scenario lines: the def is line 1
    assert program_of("float32", steps).source() == program.source()
    kept = program_of("float32", [steps[0], steps[2], steps[3]])
    assert kept.body()[1] == "with rec.attempt(\"s1: t2 = t1 * 2\"):"  # numbered again, quotes kept
    assert kept.body()[2:] == ["    t2 = t1 * 2", "    rec('t2', t2)", program.lines[-1]]
    compile(kept.source(), "<kept>", "exec")


# -- the deletion -----------------------------------------------------------------------------
def dependent_steps(count: int, needs: dict[int, set[int]]) -> tuple[list, callable]:
    """``count`` one-line steps; step ``i`` uses the steps ``needs[i]`` made (deleting one of those
    leaves a name undefined: no difference); the difference shows in the last step of ``needs``."""
    steps = steps_of(Program("float64", lines=[f"t{i} = {i}" for i in range(count)]))
    showing = max(needs)

    def still_differs(candidate) -> bool:
        kept = {int(step.lines[0].split()[0][1:]) for step in candidate}
        return showing in kept and all(needs.get(i, set()) <= kept for i in kept)

    return steps, still_differs


def test_deleting_steps_keeps_the_steps_the_difference_needs_and_no_other():
    needs = {3: {0}, 17: {3, 9}, 9: set()}
    steps, still_differs = dependent_steps(30, needs)
    deletion = StepDeletion(steps, still_differs, line=steps[17].line)
    kept = [step.lines[0] for step in deletion.run()]
    assert kept == ["t0 = 0", "t3 = 3", "t9 = 9", "t17 = 17"]
    assert deletion.runs <= 30  # far fewer than hypothesis's hundreds
    for index in range(len(deletion.steps)):  # no single step of the result can go
        assert not still_differs(deletion.steps[:index] + deletion.steps[index + 1:])


def test_inside_the_blocks_left_the_statements_the_difference_does_not_need_are_deleted_too():
    program = Program("float32", lines=[
        "t0 = torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device, requires_grad=True)",
        "with rec.attempt('s1: t1 = t0.sin()'):", "    t1 = t0.sin()", "    rec('t1', t1)", "    t9 = t1 * 3",
        "t5 = torch.tensor([2.0], dtype=rec.float_dtype, device=rec.device)",
        "with rec.attempt('s2: t2 = t1.cos()'):", "    t2 = t1.cos()", "    rec('t2', t2)", "    rec('t2 again', t2)",
        "rec('t0.grad', t0.grad)",
    ])
    needed = ("t0 = torch.tensor(", "    t1 = t0.sin()", "    t2 = t1.cos()", "    rec('t2', t2)")

    def still_differs(steps) -> bool:  # the difference shows at rec('t2', t2) and needs what makes t2
        body = program_of("float32", steps).body()
        return all(any(line.startswith(start) for line in body) for start in needed)

    deletion = StepDeletion(steps_of(program), still_differs, line=10)
    assert program_of("float32", deletion.run()).body() == [
        program.lines[0], "with rec.attempt('s1: t1 = t0.sin()'):", "    t1 = t0.sin()",
        "with rec.attempt('s2: t2 = t1.cos()'):", "    t2 = t1.cos()", "    rec('t2', t2)"]
    assert deletion.runs <= 15


def test_inside_a_dual_level_in_a_block_the_statements_the_difference_does_not_need_are_deleted_too():
    """A fuzzed dual level (``transforms``): the statements inside the ``with fwAD.dual_level()`` of an
    attempt block are deleted as the block's own are."""
    program = Program("float32", lines=[
        "fwAD = torch.autograd.forward_ad",
        "t0 = torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device)",
        "with rec.attempt('s1: dual level: t0 made dual; tangents of t2, t3'):", "    with fwAD.dual_level():",
        "        t1 = fwAD.make_dual(t0, torch.tensor([1.0], dtype=rec.float_dtype, device=rec.device))",
        "        t2 = t1 * 2", "        rec('t2: tangent', fwAD.unpack_dual(t2).tangent)", "        t3 = torch.sin(t1)",
        "        rec('t3', t3)", "        rec('t3: tangent', fwAD.unpack_dual(t3).tangent)",
        "    rec('t3: unpack_dual after the level', fwAD.unpack_dual(t3))",
    ])
    needed = ("fwAD = ", "t0 = torch.tensor(", "    with fwAD.dual_level():", "        t1 = fwAD.make_dual(",
              "        t3 = torch.sin(t1)", "        rec('t3: tangent'")

    def still_differs(steps) -> bool:  # the difference shows at t3's tangent and needs what makes t3
        body = program_of("float32", steps).body()
        return all(any(line.startswith(start) for line in body) for start in needed)

    deletion = StepDeletion(steps_of(program), still_differs)
    assert program_of("float32", deletion.run()).body() == [
        *program.lines[:4], program.lines[4], "        t3 = torch.sin(t1)", "        rec('t3: tangent', "
        "fwAD.unpack_dual(t3).tangent)"]


def test_a_deletion_stopped_by_the_budget_keeps_the_shortest_program_found_by_then():
    steps, still_differs = dependent_steps(30, {0: set(), 20: {0}})
    runs = []

    def budgeted(candidate) -> bool:
        if len(runs) == 3:
            raise TimeoutError("the budget is spent")
        runs.append(candidate)
        return still_differs(candidate)

    deletion = StepDeletion(steps, budgeted, line=steps[20].line)
    with pytest.raises(TimeoutError):
        deletion.run()
    assert deletion.runs == 4 and len(deletion.steps) < 21 and still_differs(deletion.steps)


# -- the same difference ------------------------------------------------------------------------
def record(*diffs: dict, outcome: str = "fail", lines=(2, 3, 9, 5, 6), implementation=None) -> dict:
    steps = [{"label": f"l{line}", "line": line} for line in lines]
    return {"outcome": outcome, "diff": list(diffs), "reference": {"steps": steps},
            "implementation": {"steps": steps[:len(lines) if implementation is None else implementation]}}


def diff(where: str, aspect: str = "value", step: int = 1, **more) -> dict:
    return {"where": where, "aspect": aspect, "step": step, "reference": "True", "implementation": "False", **more}


def test_the_same_difference_is_the_same_aspect_at_the_same_place_whatever_its_step_number():
    found = Symptom.of(record(diff("step 24: s13: t5 = t4.sin(): values", step=2)), "drop-in")
    # the program had reached line 9 by then (step 2's line 3 is in a function an earlier statement defined)
    assert found == Symptom("fail", "value", "step: s: t5 = t4.sin(): values") and found.line == 9
    assert Symptom.of(record(diff("step 2: s1: t5 = t4.sin(): values", step=2)), "drop-in") == found
    assert Symptom.of(record(diff("step 2: s1: t5 = t4.sin(): values", "gradient")), "drop-in") != found
    assert Symptom.of(record(diff("step 2: s1: t6 = t4.sin(): values")), "drop-in") != found
    assert Symptom.of(record(diff("step 2: s1: t5 = t4.sin(): values"), outcome="unsupported"), "drop-in") != found


def test_where_the_runs_part_the_same_difference_is_at_a_step_of_the_same_label():
    ended = Symptom.of(record(diff("step 4", "raised", step=4), implementation=3), "drop-in")
    assert ended == Symptom("fail", "raised", "step: l5") and ended.line == 9
    assert Symptom.of(record(diff("step 2", "raised", step=2), lines=(2, 5), implementation=1), "drop-in") == ended
    assert Symptom.of(record(diff("step 3", "raised", step=3), implementation=2), "drop-in") != ended


def test_the_difference_compared_is_the_most_severe_that_counts_and_is_not_explained():
    node = diff("step 1: t1", "node-name", step=1)
    flag = diff("step 2: t2: version", "flag", step=2)
    value = diff("step 4: t3: values", "value", step=4)
    both = record(value, flag, node)  # as the judge sorts them: most severe first
    assert Symptom.of(both, "semantics").where == "step: t3: values"
    assert Symptom.of(record(flag, node), "semantics") == Symptom("fail", None, None)
    assert Symptom.of(record(flag, node), "api").where == "step: t2: version"
    version = FuzzExpectation("functionalized writes", aspect="flag", where="version$")
    assert Symptom.of(record(flag, node), "drop-in", [version]).aspect == "node-name"


# -- the campaign -------------------------------------------------------------------------------
def test_a_slow_implementations_difference_is_shrunk_by_deleting_steps_within_the_budget(tmp_path):
    """Each program takes 0.3 s more: the 15 s budget affords hypothesis too few runs; deleting steps
    cuts the program found down to the two steps that show the difference."""
    stream = io.StringIO()
    campaign = Campaign(FuzzConfig(impl=SLOW, budget=15, seed=1, report_dir=tmp_path), stream=stream)
    begun = time.monotonic()
    finding = campaign.run()
    fuzzing = time.monotonic() - begun - campaign.startup
    assert finding is not None, stream.getvalue()
    scenario, diff_file, meta = finding.paths
    source = scenario.read_text()
    block, recorded = scenario_statements(source)  # the two steps: nothing else is needed
    assert ast.unparse(block).startswith("with rec.attempt('s1: an exception leaves the block torch.no_grad()'):")
    assert ast.unparse(recorded) == "rec('torch.is_grad_enabled() after the block', torch.is_grad_enabled())"
    assert fuzzing <= 15 + GRACE, f"{fuzzing:.1f} s after a start-up of {campaign.startup:.1f} s"
    assert "torch.is_grad_enabled() after the block: torch True / implementation False" in diff_file.read_text()

    assert finding.shrinker == "steps" and not finding.cut_short and finding.steps[1] == 2
    assert finding.steps[0] > 2 and 1 <= finding.shrink_runs < 40
    written = json.loads(meta.read_text())
    assert (written["shrinker"], written["shrink_runs"], written["steps"]) == (
        "steps", finding.shrink_runs, {"found": finding.steps[0], "written": 2})
    assert written["replay"].endswith("--shrinker steps") and written["shrinking"] == "done"
    assert f"Shrunk by deleting steps in {finding.shrink_runs} runs, from {finding.steps[0]} steps to 2." in source
    assert "shrinking by deleting steps" in stream.getvalue()

    case = case_from_source(finding.program.source(), "fuzz.written", "the written program", DOC,
                            dtypes=(finding.program.dtype,), tolerances=TOLERANCES)
    item = Item(case, "cpu", finding.program.dtype)
    with Session("torch", devices=("cpu",)) as torch_itself:  # the difference is the implementation's
        assert torch_itself.run(item, 30, case.source).outcome == "pass"


def test_the_command_line_names_the_shrinker_and_refuses_an_unknown_one_in_one_line(run_cli, tmp_path):
    done = run_cli("fuzz", "--impl", "tests.broken.no_accumulation", "--budget", "60", "--seed", "1",
                   "--shrinker", "steps", "--report-dir", str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert "shrunk by deleting steps in " in done.stdout
    (meta,) = tmp_path.glob("*.json")
    assert json.loads(meta.read_text())["shrinker"] == "steps"
    refused = run_cli("fuzz", "--impl", "torch", "--shrinker", "delta", "--report-dir", str(tmp_path / "out"))
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "--shrinker: invalid choice: 'delta'" in refused.stderr
