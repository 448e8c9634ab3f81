"""Features a case can do without, and the operator checks made through ``.backward()``.

A case may declare, among its features, those it can do without (``Case.optional_features``). An
implementation whose profile lacks one of them runs the case without it (``Item.without``;
``rec.has`` is False on both sides) instead of its items being ``n/a``. The operator cases can do
without ``autograd.grad`` (their first-order gradients then come through ``.backward()`` and the
leaves' ``.grad``), ``higher-order`` (their second-order gradients and forward-over-reverse are then
left out) and ``forward-ad`` (both forward-mode steps are then left out).

* torch against itself passes every operator case run without any of them, and the steps are
  those of the full run less the ones left out, under the same labels;
* a planted engine without ``torch.autograd.grad`` (``tests/broken/no_autograd_grad``) whose
  profile lacks ``autograd.grad`` has its operator items run, not ``n/a``, and pass; the same
  engine with ``sin``'s gradient negated (``no_autograd_grad_wrong_sin``) fails ``sin``'s case
  on its gradients, through the CLI and through the pytest plugin;
* the records say what each item ran without; the coverage table does not count the
  second-order check of such items and shows their gradients as made through ``.backward()``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conformance import catalog, docs
from conformance.case import Registry, case
from conformance.expectations import Profile
from conformance.features import UnknownFeature
from conformance.item import Item
from conformance.judge import judge
from conformance.operators import OPTIONAL_FEATURES, refused_in_dtype
from conformance.operators.spec import DTYPES
from conformance.recorder import observe
from tests.conftest import ROOT

torch = pytest.importorskip("torch")

REGISTRY = catalog.load()
GRADIENT_CASES = [c for c in REGISTRY if c.topic == "op" and "check:grad" in c.tags]
SECOND_ORDER = ("nodes that recorded the gradients", "second-order gradients", "forward-over-reverse is taken",
                "forward-mode tangents of the gradients")
FORWARD_MODE = ("forward-mode", "forward-over-reverse")
LEFT_OUT = {"autograd.grad": (*SECOND_ORDER, "vmap-of-vjp"), "higher-order": SECOND_ORDER, "forward-ad": FORWARD_MODE,
            "vmap": ("vmap",), "func-transforms": ("vmap",)}
CASES = ("op.sin.default", "op.add.default", "op.var_mean.default")  # second order; two inputs; two outputs


# -- declaring and planning ------------------------------------------------------------------------
def test_a_case_can_do_without_only_features_it_declares():
    def scenario(torch, rec):
        pass

    registry = Registry()
    case("Fine", doc=docs.TENSOR_GRAD, features=("autograd.grad", "views"), optional_features=("autograd.grad",),
         registry=registry)(scenario)
    assert registry.get(f"{__name__.rsplit('.', 1)[-1]}.scenario").optional_features == ("autograd.grad",)
    with pytest.raises(ValueError, match="can do without features it does not declare: hooks"):
        case("Bad", doc=docs.TENSOR_GRAD, features=("views",), optional_features=("hooks",),
             registry=Registry())(scenario)
    with pytest.raises(UnknownFeature, match="unknown feature 'grad'"):
        case("Bad", doc=docs.TENSOR_GRAD, optional_features=("grad",), registry=Registry())(scenario)


def test_a_lacking_feature_the_case_can_do_without_is_left_out_not_missing():
    profile = Profile(lacks=("autograd.grad", "higher-order", "hooks"))
    features, optional = ("non-scalar", "autograd.grad", "higher-order"), ("autograd.grad", "higher-order")
    assert profile.missing_for(features, optional) == []
    assert profile.left_out_of(optional) == ("autograd.grad", "higher-order")
    assert profile.missing_for((*features, "hooks"), optional) == ["hooks"]
    assert profile.missing_for(features) == ["autograd.grad", "higher-order"]


def test_operator_cases_can_do_without_autograd_grad_higher_order_and_forward_ad():
    sin, add, eq = (REGISTRY.get(f"op.{name}.default") for name in ("sin", "add", "eq"))
    assert sin.optional_features == OPTIONAL_FEATURES == (
        "autograd.grad", "higher-order", "forward-ad", "func-transforms", "vmap")
    assert add.optional_features == ("autograd.grad", "forward-ad", "func-transforms", "vmap")  # no second order
    assert eq.optional_features == ("func-transforms", "vmap")  # no gradients: only the vmap step
    assert all(set(c.optional_features) <= set(c.features) for c in REGISTRY)


# -- torch against itself -------------------------------------------------------------------------
def labels(observed: dict) -> list[str]:
    return [step["label"] for step in observed["steps"]]


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=lambda c: c.id)
def test_torch_against_itself_passes_the_operator_cases_without_optional_features(case):
    # the real dtypes, whose items take every optional step; the complex ones for a complex-only operator
    dtypes = [d for d in ("float32", "float64") if d in case.dtypes and not refused_in_dtype(case.id, d)]
    dtypes = dtypes or ["complex64", "complex128"]
    whole = observe(case, torch, "cpu", dtypes[-1])
    for without in (("autograd.grad", "higher-order", "forward-ad"), ("higher-order",), ("forward-ad",), ("vmap",)):
        without = tuple(name for name in without if name in case.optional_features)
        options = {"without": without}
        for dtype in dtypes:
            reference, implementation = (observe(case, torch, "cpu", dtype, options) for _ in range(2))
            record = judge(Item(case, "cpu", dtype, without=without), reference, implementation, "torch")
            assert (record.outcome, record.detail) == ("pass", ""), (without, dtype)
            assert record.without == list(without)
        left_out = tuple(prefix for name in without for prefix in LEFT_OUT[name])
        assert labels(reference) == [label for label in labels(whole)
                                     if not label.split(": ", 1)[1].startswith(left_out)], without


def test_the_gradients_through_backward_are_those_of_autograd_grad():
    sin = REGISTRY.get("op.sin.default")
    whole = {step["label"]: step for step in observe(sin, torch, "cpu", "float64")["steps"]}
    through_backward = observe(sin, torch, "cpu", "float64", {"without": ("autograd.grad",)})["steps"]
    gradients = [step for step in through_backward if step["label"].endswith(": gradients of x")]
    assert len(gradients) == sum(label.endswith(": gradients of x") for label in whole) > 1
    assert all(step["source"].endswith("[x.grad])") for step in gradients)
    assert all(step["value"] == whole[step["label"]]["value"] for step in gradients)


# -- a planted engine without torch.autograd.grad -------------------------------------------------
def run_operator_cases(run_cli, tmp_path, impl: str) -> dict:
    profile = tmp_path / "profile.toml"
    profile.write_text('[profile]\nlacks = ["autograd.grad"]\nnote = "backward() only"\n')
    done = run_cli("run", "--impl", impl, "-k", " or ".join(CASES), "--device", "cpu", "--expectations", str(profile),
                   "--report-dir", str(tmp_path), "--no-progress", "--jobs", "1", "--full-observations")
    result = json.loads((tmp_path / "results.json").read_text())
    result["returncode"], result["output"] = done.returncode, done.stdout + done.stderr[-2000:]
    return result


def test_an_engine_without_autograd_grad_has_its_operator_items_run_and_passing(run_cli, tmp_path):
    result = run_operator_cases(run_cli, tmp_path, "tests.broken.no_autograd_grad")
    assert result["returncode"] == 0, result["output"]
    assert {(r["id"], r["outcome"]) for r in result["cases"]} == {(c, "pass") for c in CASES}
    assert len(result["cases"]) == 3 * len(DTYPES) and all(r["without"] == ["autograd.grad"] for r in result["cases"])
    sin = next(r for r in result["cases"] if r["id"] == "op.sin.default")
    steps = [step["label"] for step in sin["implementation"]["steps"]]
    assert "1: gradients of x" in steps and not any("second-order" in label for label in steps)
    coverage = (tmp_path / "coverage.md").read_text()
    cell = "\u2713fwd \u2713bwd \u00b7gg \u00b7err \u2713jvp \u00b7fwbw \u2713vmap \u00b7vmvjp"  # no fwbw, no vjp
    assert f"| `sin` | {cell} | {cell} |" in coverage
    assert "bwd: first-order gradients through `.backward()`" in coverage
    page = (tmp_path / "report.html").read_text()
    assert "<b>Run without</b>" in page and f"<li>{3 * len(DTYPES)} items without autograd.grad</li>" in page


def test_a_wrong_gradient_through_backward_is_caught(run_cli, tmp_path):
    result = run_operator_cases(run_cli, tmp_path, "tests.broken.no_autograd_grad_wrong_sin")
    assert result["returncode"] == 1, result["output"]
    outcomes = {(r["id"], r["dtype"]): (r["outcome"], r["detail"]) for r in result["cases"]}
    for dtype in ("float32", "float64"):
        outcome, detail = outcomes[("op.sin.default", dtype)]
        assert outcome == "fail" and detail.startswith("step 2: 1: gradients of x[0]: values"), detail
        assert outcomes[("op.add.default", dtype)] == ("pass", "")
    assert "\u2717fwd \u2717bwd \u00b7gg \u00b7err" in (tmp_path / "coverage.md").read_text()
    page = (tmp_path / "report.html").read_text()
    assert "ran without autograd.grad (the profile lacks them; the case does without them)" in page


def test_the_pytest_plugin_runs_such_items_without_autograd_grad(tmp_path):
    profile = tmp_path / "profile.toml"
    profile.write_text('[profile]\nlacks = ["autograd.grad"]\n')
    junit = tmp_path / "junit.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_catalog.py", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--impl", "tests.broken.no_autograd_grad_wrong_sin", "--conformance-expectations", str(profile),
         "-k", "(op.sin.default or op.add.default) and cpu and float64", f"--junitxml={junit}", "-q"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    cases = {tc.get("name"): tc.find("failure") for tc in ET.parse(junit).iter("testcase")}
    assert set(cases) == {"test_case[op.sin.default-cpu-float64]", "test_case[op.add.default-cpu-float64]"}
    assert cases["test_case[op.add.default-cpu-float64]"] is None
    assert "the most severe: step 2: 1: gradients of x[0]" in cases["test_case[op.sin.default-cpu-float64]"].text
