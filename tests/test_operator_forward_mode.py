"""Forward mode in the operator table: each sample's forward-mode tangents and forward-over-reverse.

* a planted wrong forward formula of one element-wise operator (``tests.broken.forward_ad_sin_tangent_off``:
  the tangent of ``sin``'s result off by a thousandth) fails ``sin``'s items on the forward-mode tangents
  of exactly the samples that call ``torch.sin`` or ``Tensor.sin`` and on nothing else (values,
  gradients, second-order gradients and forward-over-reverse pass), and leaves ``cos`` passing;
* torch against itself passes, also where torch raises in a forward-mode step (huber_loss has no
  forward-over-reverse; mse_loss raises in one sample), and the coverage table shows the forward-mode
  columns: checked, refused by torch, not applicable;
* an engine whose profile lacks ``forward-ad`` (myautograd) runs the operator items without the
  forward-mode steps, passing, not ``n/a``.
"""

from __future__ import annotations

import json
import re

from conformance.operators import operators
from conformance.operators.spec import DTYPES, Sample

CHECK = "\u2713"
FAIL = "\u2717"
REFUSED = "\u00ac"
NOT_CHECKED = "\u00b7"


def run(run_cli, tmp_path, impl: str, selection: str, *options: str) -> tuple[int, str, dict, str]:
    """Run the CPU items of ``selection`` on ``impl``: (exit status, output, results.json, coverage.md)."""
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", selection, "--jobs", "2", "--no-progress",
                   "--full-observations", "--report-dir", str(out), *options)
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return done.returncode, done.stdout + done.stderr, result, (out / "coverage.md").read_text(encoding="utf-8")


def calls_to_sin() -> set[int]:
    """The numbers of the samples of ``op.sin.default`` that call ``torch.sin`` or ``Tensor.sin`` (not
    ``sin_``) on a tensor with elements: those whose tangent the planted fault changes."""
    sin = next(entry for entry in operators() if entry.name == "sin")
    samples = [s for s in sin.variants[0].samples if isinstance(s, Sample)]
    return {number for number, sample in enumerate(samples, 1)
            if re.search(r"\bsin\(", sample.call) and all(inp.numel for inp in sample.inputs.values())}


def test_a_wrong_forward_formula_of_sin_fails_its_forward_mode_tangents_and_nothing_else(run_cli, tmp_path):
    status, output, result, coverage = run(run_cli, tmp_path, "tests.broken.forward_ad_sin_tangent_off",
                                           "op.sin.default or op.cos.default")
    assert status == 1, output
    outcomes = {(r["id"], r["dtype"]): r for r in result["cases"]}
    assert len(outcomes) == 2 * len(DTYPES)
    expected = {f"{number}: forward-mode tangents of the outputs for tangents of x" for number in calls_to_sin()}
    assert len(expected) >= 3
    for dtype in ("float32", "float64"):
        sin = outcomes[("op.sin.default", dtype)]
        assert sin["outcome"] == "fail", sin["detail"]
        assert sin["detail"].startswith("step 7: 1: forward-mode tangents of the outputs for tangents of x[0]: values")
        labels = [step["label"] for step in sin["implementation"]["steps"]]
        assert {d["aspect"] for d in sin["diff"]} == {"value"}
        assert {labels[d["step"] - 1] for d in sin["diff"]} == expected, "the forward-mode tangents, nothing else"
        assert {f"{n}: forward-over-reverse is taken" for n in calls_to_sin()} <= set(labels)  # checked, and passing
        assert outcomes[("op.cos.default", dtype)]["outcome"] == "pass"
    passed, failed = (f"{mark}fwd {mark}grad {mark}gg {NOT_CHECKED}err {mark}jvp {mark}fwbw {mark}vmap {mark}vmvjp"
                      for mark in (CHECK, FAIL))
    assert f"| `cos` | {passed} | {passed} |" in coverage and f"| `sin` | {failed} | {failed} |" in coverage


def test_torch_against_itself_passes_forward_mode_also_where_torch_refuses(run_cli, tmp_path):
    status, output, result, coverage = run(run_cli, tmp_path, "torch",
                                           "op.sin.default or op.huber_loss.default or op.mse_loss.default "
                                           "or op.add.default")
    assert status == 0, output
    assert len(result["cases"]) == 4 * len(DTYPES) and all(r["outcome"] == "pass" for r in result["cases"])
    huber = next(r for r in result["cases"] if r["id"] == "op.huber_loss.default")
    refused = [step for step in huber["reference"]["steps"] if step["label"].endswith("forward-over-reverse is taken")]
    # one per valid sample of huber_loss in the table (conformance/operators/losses.py: 7, and 2 weighted)
    assert len(refused) == 9 and all(step["error"]["type"] == "NotImplementedError" for step in refused)
    assert refused[0]["error"]["message"].startswith("Trying to use forward AD with huber_loss_backward that does "
                                                     "not support it")
    vmap, refused_fwbw = f"{CHECK}vmap {CHECK}vmvjp", f"{CHECK}{REFUSED}fwbw"
    assert f"| `sin` | {CHECK}fwd {CHECK}grad {CHECK}gg {NOT_CHECKED}err {CHECK}jvp {CHECK}fwbw {vmap} |" in coverage
    assert f"| `huber_loss` | {CHECK}fwd {CHECK}grad {CHECK}gg {CHECK}err {CHECK}jvp {refused_fwbw} {vmap} |" in coverage
    assert f"| `mse_loss` | {CHECK}fwd {CHECK}grad {CHECK}gg {CHECK}err {CHECK}jvp {CHECK}fwbw {vmap} |" in coverage
    assert f"| `add` | {CHECK}fwd {CHECK}grad {NOT_CHECKED}gg {CHECK}err {CHECK}jvp {NOT_CHECKED}fwbw {vmap} |" in coverage
    assert f"{REFUSED}jvp, {REFUSED}fwbw: torch refuses it for the operator" in coverage


def test_an_engine_without_forward_ad_runs_the_operator_items_without_the_forward_mode_steps(run_cli, tmp_path):
    lacking = tmp_path / "lacks.toml"  # myautograd, told it does not aim for forward mode or vmap
    lacking.write_text('[profile]\nlacks = ["forward-ad", "vmap"]\n', encoding="utf-8")
    status, output, result, coverage = run(run_cli, tmp_path, "myautograd", "op.sin.default or op.huber_loss.default",
                                           "--expectations", str(lacking))
    assert status == 0, output
    assert {(r["outcome"], tuple(r["without"])) for r in result["cases"]} == {("pass", ("forward-ad", "vmap"))}
    for record in result["cases"]:
        labels = [step["label"] for step in record["reference"]["steps"]]
        assert labels and not any("forward-mode" in label or "forward-over-reverse" in label for label in labels)
    not_checked = " ".join(f"{NOT_CHECKED}{name}" for name in ("jvp", "fwbw", "vmap", "vmvjp"))
    assert f"| `sin` | {CHECK}fwd {CHECK}grad {CHECK}gg {NOT_CHECKED}err {not_checked} |" in coverage
    # huber_loss's forward-over-reverse is not checked: no refusal of a forward step to show (its complex
    # columns show torch's refusal of the dtype, ¬dtype)
    assert f"{REFUSED}fwbw" not in coverage and f"{REFUSED}jvp" not in coverage
