"""The fuzzer: deterministic programs, nothing found when torch runs against itself or against
myautograd, a planted bug found and shrunk to a short program that reads as a catalog case, and
known differences (``[[fuzz]]`` entries of an expectations file) counted instead of found.

The budgets are short (30 s each against torch and against myautograd: the CI run of the issue);
``tox -e fuzz`` runs longer ones.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import re
import time

import pytest

from conformance.case import REGISTRY
from conformance.expectations import FuzzExpectation, builtin_path, explained, load_file
from conformance.fuzz import GRACE
from conformance.fuzz.campaign import Campaign, FuzzConfig, reference_broke
from conformance.fuzz.ops import elementwise_ops

BUDGET = 30.0


def test_the_fuzzer_draws_its_operators_from_the_operator_table():
    ops = elementwise_ops()
    names = {op.name for op in ops}
    assert len(names) >= 50 and {"sin", "atan2", "relu", "div", "pow", "gelu"} <= names
    assert all(1 <= op.arity <= 2 and op.call(*["a", "b"][:op.arity]) for op in ops)


def test_a_program_the_reference_cannot_run_is_no_difference_of_the_implementation():
    def record(outcome, status="ok", message=None):
        steps = [{"label": "s1", "value": {"t": "ok"}}]
        if message is not None:
            steps.append({"label": "s2", "error": {"type": "RuntimeError", "message": message}})
        return {"outcome": outcome, "reference": {"status": status, "steps": steps}}

    torch_assert = ('out != nullptr INTERNAL ASSERT FAILED at "torch/csrc/autograd/variable.cpp":207, please report '
                    "a bug to PyTorch.")
    assert reference_broke(record("error", status="crash"))
    assert reference_broke(record("error", status="timeout"))
    assert reference_broke(record("fail", message=torch_assert))
    assert not reference_broke(record("fail", message="one of the variables needed for gradient computation has "
                                                      "been modified by an inplace operation"))
    assert not reference_broke(record("fail"))


def test_the_same_seed_draws_the_same_programs(tmp_path):
    def programs(seed: int) -> list[str]:
        campaign = Campaign(FuzzConfig(impl="torch", seed=seed, report_dir=tmp_path))
        drawn = []

        def judge(program):
            drawn.append(program.source())
            return {"outcome": "pass"}

        campaign.judge = judge
        assert campaign.run_chunk(0) is False
        return drawn

    first, again, other = programs(7), programs(7), programs(8)
    assert first == again and first != other and len(first) >= 5
    assert not any(re.search(r"\bid\(|torch\.rand|dropout", source) for source in first)


@pytest.mark.parametrize("impl", ["torch", "myautograd"])
def test_fuzzing_finds_no_difference(impl, tmp_path):
    """Each at its profile and with its file's known differences, as ``python -m conformance fuzz`` fuzzes it."""
    path = builtin_path(impl)
    impl_file = load_file(path) if path is not None else None
    lacks = impl_file.profile.lacks if impl_file is not None else ()
    known = impl_file.known_in_fuzzing if impl_file is not None else ()
    campaign = Campaign(FuzzConfig(impl=impl, budget=BUDGET, seed=2026, report_dir=tmp_path, lacks=lacks, known=known))
    finding = campaign.run()
    assert finding is None, "\n".join(path.read_text() for path in finding.paths[:2])
    assert campaign.programs >= 50


def test_a_planted_bug_is_found_shrunk_and_written_as_a_case(tmp_path):
    campaign = Campaign(FuzzConfig(impl="tests.broken.no_accumulation", budget=120, seed=1, report_dir=tmp_path))
    finding = campaign.run()
    assert finding is not None and finding.record["outcome"] == "fail"
    scenario, diff, meta = finding.paths
    source = scenario.read_text()
    tree = ast.parse(source)
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert len(functions) == 1 and functions[0].decorator_list  # one scenario, with its @case
    assert source.count("rec.attempt(") <= 6  # shrunk: a handful of steps
    spec = importlib.util.spec_from_file_location("found", scenario)
    module = importlib.util.module_from_spec(spec)
    before = set(REGISTRY._cases)
    try:
        spec.loader.exec_module(module)  # it registers as a catalog case
        assert len(set(REGISTRY._cases) - before) == 1
    finally:  # and leaves the catalog as it was, for the tests that count its items
        for added in set(REGISTRY._cases) - before:
            del REGISTRY._cases[added]
    assert "grad" in diff.read_text()
    written = json.loads(meta.read_text())
    assert written["replay"].startswith("python -m conformance fuzz --impl tests.broken.")
    # a fast implementation: the budget left affords hypothesis its runs (tests/test_fuzz_shrinking.py: a slow one)
    assert finding.shrinker == written["shrinker"] == "hypothesis" and finding.shrink_runs >= 1
    assert f"Shrunk by hypothesis in {finding.shrink_runs} runs" in source


SIN_TANGENT_OFF = "tests.broken.forward_ad_sin_tangent_off"   # sin's forward-mode derivative off by 1e-3
TANGENT = re.compile(r"tangent|Jacobian \(from tangents\)")
FIVE_OPERATORS = ("sin", "cos", "mul", "exp", "tanh")


def test_programs_draw_dual_levels_and_transforms_of_pure_functions(tmp_path):
    campaign = Campaign(FuzzConfig(impl="torch", seed=3, report_dir=tmp_path))
    drawn = []
    campaign.judge = lambda program: drawn.append(program.source()) or {"outcome": "pass"}
    for chunk in range(6):
        campaign.run_chunk(chunk)
    text = "\n".join(drawn)
    assert "with fwAD.dual_level():" in text and "fwAD.make_dual(" in text and "tangent_of(" in text
    for transform in ("grad", "vjp", "jvp", "vmap"):
        assert f"torch.func.{transform}(" in text, transform
    assert "torch.func.vmap(torch.func.grad(" in text


def test_a_wrong_forward_formula_is_found_within_100_programs_and_shrunk_to_its_tangent(tmp_path):
    """Among five operators (``--operators``: the whole table of 195 has sin in one draw of 195, and seed 0
    reached it after 544 programs); the programs a seed draws do not depend on the machine, their pace does."""
    campaign = Campaign(FuzzConfig(impl=SIN_TANGENT_OFF, budget=150, seed=0, report_dir=tmp_path,
                                   operators=FIVE_OPERATORS))
    finding = campaign.run()
    assert finding is not None and finding.record["outcome"] == "fail"
    seconds, programs = campaign.found_after
    assert programs <= 100, campaign.found_after
    scenario, diff, meta = finding.paths
    first = finding.record["diff"][0]
    assert first["aspect"] == "value" and TANGENT.search(first["where"]), first
    source = scenario.read_text()
    assert re.search(r"torch\.sin\(|\.sin\(\)", source)
    assert json.loads(meta.read_text())["found_after"] == {"seconds": round(seconds, 1), "programs": programs}


def test_a_wrong_forward_formula_is_shrunk_by_deleting_steps_to_a_program_that_still_shows_it(tmp_path):
    """The steps shrinker on programs with dual levels and transforms: what it writes is a valid program
    that, run again, shows the same difference in a tangent."""
    campaign = Campaign(FuzzConfig(impl=SIN_TANGENT_OFF, budget=150, seed=0, report_dir=tmp_path, shrinker="steps",
                                   operators=FIVE_OPERATORS))
    finding = campaign.run()
    assert finding is not None and finding.shrinker == "steps" and not finding.cut_short
    assert finding.steps[1] < finding.steps[0]
    again = Campaign(FuzzConfig(impl=SIN_TANGENT_OFF, budget=60, report_dir=tmp_path / "again"))
    try:
        again.start()
        record = again.judge(finding.program)
    finally:
        again.close()
    assert record["outcome"] == "fail" and TANGENT.search(record["diff"][0]["where"]), record["diff"]


def test_the_command_line_fuzzer_without_shrinking_writes_the_program_as_drawn(run_cli, tmp_path):
    done = run_cli("fuzz", "--impl", "tests.broken.no_accumulation", "--budget", "60", "--seed", "1", "--no-shrink",
                   "--report-dir", str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert "program (not shrunk): " in done.stdout
    written = sorted(tmp_path.glob("*.py"))
    assert len(written) == 1 and "@case(" in written[0].read_text()


def test_with_a_baseline_only_differences_the_baseline_does_not_share_are_findings(tmp_path):
    campaign = Campaign(FuzzConfig(impl="tests.broken.no_accumulation", baseline="tests.broken.no_accumulation",
                                   budget=20, seed=1, report_dir=tmp_path, shrink=False))
    assert campaign.run() is None  # the same bug on both: nothing of the implementation's own
    assert campaign.baseline_differences >= 1 and not list(tmp_path.glob("*.py"))


def test_programs_whose_every_difference_a_fuzz_entry_explains_are_counted_not_found(tmp_path):
    known = (FuzzExpectation("backward overwrites .grad", aspect="gradient"),
             FuzzExpectation("values computed from an overwritten .grad", aspect="value"))
    campaign = Campaign(FuzzConfig(impl="tests.broken.no_accumulation", budget=20, seed=1, report_dir=tmp_path,
                                   shrink=False, known=known))
    finding = campaign.run()
    assert campaign.explained.get("backward overwrites .grad", 0) >= 1
    if finding is not None:  # what stopped the campaign is a difference no entry explains
        assert explained(finding.record["diff"], known, "drop-in") is None


def test_a_difference_is_headlined_by_the_first_difference_no_fuzz_entry_explains(tmp_path):
    """A wrapped exception a [[fuzz]] entry explains comes first; the flag after it is the finding."""
    known = (FuzzExpectation("wrapped errors", aspect="exception-type", implementation=r"^torch\._dynamo\.exc\."),)
    campaign = Campaign(FuzzConfig(impl="torch", seed=0, report_dir=tmp_path, shrink=False, known=known))
    wrapped = {"step": 1, "aspect": "exception-type", "where": "step 1: s1: t0.mul_(1.5): exception",
               "reference": "RuntimeError", "implementation": "torch._dynamo.exc.TorchRuntimeError"}
    flag = {"step": 8, "aspect": "flag", "where": "step 8: t3: requires_grad", "reference": "False",
            "implementation": "True"}
    record = {"id": "fuzz.p0[cpu]", "outcome": "fail", "detail": "step 1: s1: t0.mul_(1.5): exception: ...",
              "diff": [wrapped, flag]}
    assert campaign.is_difference(None, record)
    assert record["detail"] == "step 8: t3: requires_grad: torch False / implementation True"
    assert record["diff"][0]["explained"] == "wrapped errors" and "explained" not in record["diff"][1]


def test_a_program_that_reaches_a_name_an_entry_explains_is_counted_not_found(tmp_path):
    """tests.broken.no_retain_grad has no Tensor.retain_grad: its programs are unsupported there."""
    known = (FuzzExpectation("no retain_grad", unsupported=r"^Tensor\.retain_grad$"),)
    campaign = Campaign(FuzzConfig(impl="tests.broken.no_retain_grad", budget=15, seed=2, report_dir=tmp_path,
                                   shrink=False, known=known))
    finding = campaign.run()
    assert campaign.explained.get("no retain_grad", 0) >= 1
    assert finding is None, finding.record["detail"]


def test_the_command_line_fuzzer_refuses_a_malformed_fuzz_entry_in_one_line(run_cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[fuzz]]\nwhere = "t[0"\nreason = "r"\n')
    done = run_cli("fuzz", "--impl", "torch", "--budget", "5", "--expectations", str(bad),
                   "--report-dir", str(tmp_path / "out"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "where is not a regular expression" in done.stderr


def test_the_budget_bounds_the_whole_campaign_shrinking_included(tmp_path):
    """Every program differs and each takes 0.3 s: shrinking would take minutes, the budget is 4 s."""
    stream = io.StringIO()
    campaign = Campaign(FuzzConfig(impl="tests.broken.slow_wrong_gradients", budget=4, seed=1, report_dir=tmp_path),
                        stream=stream)
    begun = time.monotonic()
    finding = campaign.run()
    fuzzing = time.monotonic() - begun - campaign.startup
    assert fuzzing <= 4 + GRACE, f"{fuzzing:.1f} s after a start-up of {campaign.startup:.1f} s"
    assert finding is not None and finding.cut_short and campaign.programs >= 2
    scenario, _, meta = finding.paths
    assert "Shrinking was cut short by the budget" in scenario.read_text()
    assert json.loads(meta.read_text())["shrinking"] == "cut short by the budget"
    progress = stream.getvalue()
    assert f"started in {campaign.startup:.1f} s; fuzzing for 4 s" in progress
    spent = [int(seconds) for seconds in re.findall(r"(\d+) s of 4\b", progress)]
    assert spent and max(spent) <= 4, progress


def test_the_program_running_when_the_budget_ends_is_stopped_there_and_is_no_finding(tmp_path):
    """Backward never returns: the first program would run to its 30 s time limit."""
    campaign = Campaign(FuzzConfig(impl="tests.broken.hang", budget=3, seed=1, report_dir=tmp_path))
    begun = time.monotonic()
    finding = campaign.run()
    fuzzing = time.monotonic() - begun - campaign.startup
    assert finding is None and not list(tmp_path.iterdir())
    assert 3 <= fuzzing <= 3 + GRACE, f"{fuzzing:.1f} s"


def test_the_command_line_fuzzer_refuses_operators_it_cannot_draw_in_one_line(run_cli):
    unknown = run_cli("fuzz", "--operators", "sin,no_such_op", "--budget", "5")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "no_such_op" in unknown.stderr
    none_elementwise = run_cli("fuzz", "--operators", "mse_loss", "--budget", "5")
    assert none_elementwise.returncode == 2 and "none of mse_loss is elementwise" in none_elementwise.stderr
