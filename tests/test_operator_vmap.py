"""vmap in the operator table: each sample under ``torch.func.vmap`` and its vjp under vmap, over a batch.

* a planted vmap that takes every batched argument's batch dimension to be its first
  (``tests.broken.func_vmap_batch_dim_first``) fails the items of operators with an input batched at
  another dimension on the vmap steps and nothing else, also where it raises no error and gives wrong
  values (the batch's members run alone give other results), and leaves a one-input operator passing;
* torch against itself passes, also where torch refuses to batch a sample (``torch_raises``: the same
  exception compared), and the coverage table shows the vmap columns;
* the scenario says why a sample is not run under vmap (``no_vmap``), and the table must say it where a
  sample has no tensor input; ``torch_raises`` accepts the vmap steps and nothing unknown;
* ``batching.differing`` names the members a batched result does not reproduce, within a tolerance.
"""

from __future__ import annotations

import json

import pytest

from conformance import catalog
from conformance.operators.batching import differing
from conformance.operators.spec import DTYPES, R, S, op
from conformance.operators.tolerances import EXACT

CHECK = "\u2713"
FAIL = "\u2717"
NOT_CHECKED = "\u00b7"
REGISTRY = catalog.load()


def run(run_cli, tmp_path, impl: str, selection: str) -> tuple[int, str, dict, str]:
    """Run the CPU items of ``selection`` on ``impl``: (exit status, output, results.json, coverage.md)."""
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", selection, "--jobs", "2", "--no-progress",
                   "--full-observations", "--report-dir", str(out))
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return done.returncode, done.stdout + done.stderr, result, (out / "coverage.md").read_text(encoding="utf-8")


def step_of(label: str) -> str:
    """The step a label belongs to: ``vmap`` or ``vmap-of-vjp`` for theirs, else the rest of the label."""
    rest = label.split(": ", 1)[1]
    return next((step for step in ("vmap-of-vjp", "vmap") if rest.startswith(step)), rest)


def test_a_vmap_reading_every_batch_dimension_as_the_first_fails_the_vmap_steps_and_nothing_else(run_cli, tmp_path):
    status, output, result, coverage = run(run_cli, tmp_path, "tests.broken.func_vmap_batch_dim_first",
                                           "op.atan2.default or op.sin.default")
    assert status == 1, output
    outcomes = {(r["id"], r["dtype"]): r for r in result["cases"]}
    assert len(outcomes) == 2 * len(DTYPES)
    for dtype in ("float32", "float64"):
        atan2 = outcomes[("op.atan2.default", dtype)]
        assert atan2["outcome"] == "fail", atan2["detail"]
        assert atan2["detail"].startswith("step 10: 1: vmap is taken: exception: torch raised nothing / implementation "
                                          "RuntimeError: The size of tensor a (4) must match")
        labels = [step["label"] for step in atan2["implementation"]["steps"]]
        assert {step_of(labels[d["step"] - 1]) for d in atan2["diff"]} == {"vmap", "vmap-of-vjp"}
        # sample 2 (square inputs): no error, wrong values, which running each member alone shows
        found = {step["label"]: step.get("value") for step in atan2["implementation"]["steps"]}
        assert found["2: vmap: the members that running alone gives other results"] == [0, 1, 2]
        assert found["2: vmap-of-vjp: the members that running alone gives other results"] == [0, 1, 2]
        assert outcomes[("op.sin.default", dtype)]["outcome"] == "pass"  # one input, batched at dim 0
    assert f"{FAIL}vmap {FAIL}vmvjp |" in coverage and f"{CHECK}vmap {CHECK}vmvjp |" in coverage


def test_torch_against_itself_passes_the_vmap_steps_also_where_torch_refuses(run_cli, tmp_path):
    status, output, result, coverage = run(run_cli, tmp_path, "torch",
                                           "op.getitem.mask or op.one_hot.default or op.eq.default")
    assert status == 0, output
    assert len(result["cases"]) == 3 * len(DTYPES) and all(r["outcome"] == "pass" for r in result["cases"])
    mask = next(r for r in result["cases"] if r["id"] == "op.getitem.mask")
    steps = {step["label"]: step for step in mask["reference"]["steps"]}
    assert steps["3: vmap is taken"]["error"]["message"].startswith("vmap: We do not support batching operators that "
                                                                    "can support dynamic shape")
    assert steps["1: vmap: the members that running alone gives other results"]["value"] == []
    assert "error" not in steps["1: vmap-of-vjp is taken"]
    assert f"| `eq` | {CHECK}fwd {NOT_CHECKED}grad {NOT_CHECKED}gg {CHECK}err" in coverage
    assert f"{NOT_CHECKED}fwbw {CHECK}vmap {NOT_CHECKED}vmvjp |" in coverage  # eq: no gradients, no vjp
    assert "vmap: the outputs under `torch.func.vmap`" in coverage


def test_a_sample_not_run_under_vmap_says_why_in_the_scenario():
    source = REGISTRY.get("op.addmm.default").source
    assert "# not run under vmap: torch 2.13's vmap of addmm with beta=0 propagates the bias's NaN" in source
    assert '"4: vmap is taken"' not in source and '"3: vmap is taken"' in source
    tensor = REGISTRY.get("op.tensor.default")
    assert "torch.func.vmap" not in tensor.source and "check:vmap" not in tensor.tags
    assert "# not run under vmap: made from Python numbers: no tensor input to batch" in tensor.source


def test_the_table_must_say_why_a_sample_without_tensor_inputs_is_not_run_under_vmap():
    with pytest.raises(ValueError, match="operator 'zeros': sample 'torch.zeros.2, 3.' has no tensor input to batch"):
        op("zeros", "torch.zeros", EXACT, default=[S("torch.zeros(2, 3)")])
    assert op("zeros", "torch.zeros", EXACT, no_vmap="no input", default=[S("torch.zeros(2, 3)")]).no_vmap
    assert op("zeros", "torch.zeros", EXACT, default=[S("torch.zeros(2, 3)", no_vmap="no input")])
    assert S("x[x > 0]", x=R(3), torch_raises=("vmap", "vmap-of-vjp")).torch_raises == ("vmap", "vmap-of-vjp")
    with pytest.raises(ValueError, match="unknown step 'vmap-of-jvp'; known: forward-mode, forward-over-reverse, "
                                         "vmap, vmap-of-vjp"):
        S("x.sin()", x=R(3), torch_raises=("vmap-of-jvp",))


class Values:
    """A stand-in for a tensor: what ``differing`` reads of one (``detach().tolist()``)."""

    def __init__(self, values) -> None:
        self.values = values

    def detach(self) -> Values:
        return self

    def tolist(self):
        return self.values


def test_differing_names_the_members_a_batched_result_does_not_reproduce():
    batched = Values([[1.0, float("nan")], [2.0, 3.0], [float("inf"), 4.0]])
    alone = [Values([1.0, float("nan")]), Values([2.0, 3.0]), Values([float("inf"), 4.0])]
    assert differing(batched, alone, 0.0, 0.0) == []
    assert differing(batched, [alone[1], alone[0], alone[2]], 0.0, 0.0) == [0, 1]
    assert differing(batched, [Values([1.0 + 1e-9, float("nan")]), *alone[1:]], 0.0, 0.0) == [0]
    assert differing(batched, [Values([1.0 + 1e-9, float("nan")]), *alone[1:]], 1e-6, 1e-6) == []
    assert differing(batched, [Values([1.0, 0.0]), *alone[1:]], 1.0, 1.0) == [0]  # NaN only where NaN
    assert differing(batched, [*alone[:2], Values([-float("inf"), 4.0])], 1.0, 1.0) == [2]
    assert differing(batched, [*alone[:2], Values([4.0])], 1.0, 1.0) == [2]  # another shape
    assert differing(Values([1, 2]), [Values(1), Values(3)], 1.0, 1.0) == [1]  # integers: exactly
    pairs = (Values([[1.0], [2.0]]), None)
    assert differing(pairs, [(Values([1.0]), None), (Values([2.0]), None)], 0.0, 0.0) == []
    assert differing(pairs, [(Values([1.0]), Values([0.0])), (Values([2.0]),)], 0.0, 0.0) == [0, 1]
    assert differing(Values(5.0), [Values(5.0)], 0.0, 0.0) == [0]  # no batch dimension: reproduces nothing
