"""The operator table's dtype axis: complex64, complex128, float16 and bfloat16 besides float32 and float64.

* every entry declares its dtypes; the catalog has items in each, complex-specific operators and
  ``torch.fft``; torch's refusals are data of the table (``dtype_refusals``) and match what torch does;
* in the complex dtypes torch's own vmap reproduces each member (the tolerance of complex dtypes);
* the reduced-precision rule (``tolerances.reduced_precision_problem``): its arithmetic, and that a
  failing item's report gives both errors;
* the features ``complex``, ``float16``, ``bfloat16`` and ``fft`` make an item ``n/a`` on a profile
  lacking them;
* planted bugs are caught through the catalog: a multiplication's backward without the conjugate
  (``tests.broken.mul_without_conjugate``), a bfloat16 result computed in float32 and not rounded
  (``tests.broken.bfloat16_unrounded``), a float16 sum accumulated in float16
  (``tests.broken.float16_sum_in_float16``); torch against itself passes the same items.
"""

from __future__ import annotations

import json

import pytest
import torch

from conformance import catalog
from conformance.expectations import Profile
from conformance.item import Item
from conformance.operators import checks_made, operators
from conformance.operators.cases import build
from conformance.operators.dtype_refusals import TORCH_REFUSES
from conformance.operators.probe_dtypes import refusal
from conformance.operators.spec import DTYPES, R, S, op
from conformance.operators.tolerances import EXACT, FLOOR_ULPS, reduced_precision_problem, representable

REGISTRY = catalog.load()
OPERATOR_CASES = [case for case in REGISTRY if case.topic == "op"]
NEW_DTYPES = ("complex64", "complex128", "float16", "bfloat16")


def test_every_entry_declares_its_dtypes_and_the_catalog_runs_in_all_six():
    assert DTYPES == ("float32", "float64", "complex64", "complex128", "float16", "bfloat16")
    for entry in operators():
        assert {"float32", "float64"} <= set(entry.dtypes) <= set(DTYPES), entry.name
    counts = {dtype: sum(dtype in case.dtypes for case in OPERATOR_CASES) for dtype in DTYPES}
    assert min(counts.values()) == len(OPERATOR_CASES) > 200
    with pytest.raises(ValueError, match="unknown dtype 'float8'"):
        op("f", "torch.f", EXACT, dtypes=("float32", "float64", "float8"), default=[S("x", x=R(2))])


def test_the_complex_operators_and_the_fourier_transforms_are_in_the_table():
    names = {entry.name for entry in operators()}
    assert {"real", "imag", "conj", "conj_physical", "resolve_conj", "resolve_neg", "abs", "angle", "sgn", "polar",
            "complex", "view_as_real", "view_as_complex", "vdot"} <= names
    assert {"fft_fft", "fft_ifft", "fft_rfft", "fft_irfft", "fft_fft2", "fft_fftn"} <= names
    fft = REGISTRY.get("op.fft_fft.default")
    assert "fft" in fft.features and all(f"norm={norm!r}" in fft.source for norm in (None, "forward", "backward", "ortho"))
    conj = REGISTRY.get("op.conj.default").source
    assert "out.is_conj()" in conj and "view.mul_(2)" in conj


def test_complex_items_draw_imaginary_parts_and_complex_grad_outputs():
    case = REGISTRY.get("op.mul.default")
    observed = torch_run(case, "complex128")
    tensors = [step["value"] for step in observed["steps"] if isinstance(step.get("value"), dict)]
    assert tensors[0]["dtype"] == "torch.complex128"
    gradients = next(step["value"] for step in observed["steps"] if step["label"].startswith("1: gradients of"))
    assert all(g["dtype"] == "torch.complex128" for g in gradients)
    real = torch_run(case, "float64")["steps"][0]["value"]["values"]
    complex_values = observed["steps"][0]["value"]["values"]
    assert complex_values != real  # the same real parts, and imaginary ones
    assert "imag" in json.dumps(complex_values[0]) or isinstance(complex_values[0], (dict, list))


def torch_run(case, dtype):
    from conformance.recorder import observe

    return observe(case, torch, "cpu", dtype)


@pytest.mark.parametrize("dtype", NEW_DTYPES + ("float32", "float64"))
def test_the_refusals_written_into_the_table_are_what_torch_does(dtype):
    """``dtype_refusals`` is data written once (``probe_dtypes``); torch still does exactly that."""
    wrong = []
    for entry in operators():
        for variant in entry.variants:
            case = build(entry, variant)
            found = refusal(case, dtype)
            if found != TORCH_REFUSES.get(case.id, {}).get(dtype):
                wrong.append(f"{case.id}: {found}")
    assert wrong == []
    assert dtype in ("float32", "float64") or any(dtype in by_dtype for by_dtype in TORCH_REFUSES.values())


@pytest.mark.parametrize("dtype", ("complex64", "complex128"))
def test_torch_reproduces_its_own_batches_in_the_complex_dtypes(dtype):
    differing = []
    for case in OPERATOR_CASES:
        for step in torch_run(case, dtype)["steps"]:
            if step["label"].endswith("the members that running alone gives other results") and step.get("value"):
                differing.append(f"{case.id}: {step['label']}")
    assert differing == []


def test_reduced_items_leave_out_the_checks_that_need_a_float64_computation_of_their_own():
    assert checks_made(("forward", "grad", "gradgrad", "forward-mode", "vmap"), (), "bfloat16") == ("forward", "grad")
    assert checks_made(("forward", "grad", "gradgrad"), (), "complex64") == ("forward", "grad", "gradgrad")
    steps = [step["label"] for step in torch_run(REGISTRY.get("op.sin.default"), "float16")["steps"]]
    assert "1: torch.sin(x) (in double precision, on the same inputs)" in steps
    assert "1: gradients of x (in double precision, on the same inputs)" in steps
    assert not any("second-order" in label or "forward-mode" in label or "vmap" in label for label in steps)


# -- the rule ---------------------------------------------------------------------------------------
def test_the_rule_allows_torchs_error_and_a_floor():
    eps = 2.0 ** -10
    exact = [1.0001, 3.0]
    assert reduced_precision_problem([1.0, 3.0], [1.0, 3.0], exact, "float16") == ""
    # one unit more than torch's error at 3.0 (a float16 neighbour): within the floor of FLOOR_ULPS units
    assert FLOOR_ULPS >= 1 and reduced_precision_problem([1.0, 3.0], [1.0, 3.0 + 2 * eps], exact, "float16") == ""
    far = reduced_precision_problem([1.0, 3.0], [1.0, 3.0 + 8 * 2 * eps], exact, "float16")
    assert far.startswith("mismatched elements: 1 / 2, against float64 of the same inputs; at index (1,)")
    assert "the implementation's error 0.015625, torch's own in float16 0 (allowed 0.00390625" in far
    # an implementation as far off as torch is passes; torch's error is the measure
    assert reduced_precision_problem([3.0], [3.0 - 0.0234375], [3.0 - 0.0117], "float16") == ""


def test_the_rule_wants_values_of_the_dtype_and_matches_non_finite_values():
    assert representable([1.0, 1.0078125, float("inf"), float("nan")], "bfloat16").tolist() == [True, True, True, True]
    assert representable([1.00390625, 0.1], "bfloat16").tolist() == [False, False]
    assert representable([0.0999755859375], "float16").tolist() == [True]
    assert "not bfloat16 values" in reduced_precision_problem([1.0], [1.00390625], [1.0], "bfloat16")
    nan, inf = float("nan"), float("inf")
    assert reduced_precision_problem([nan, inf], [nan, inf], [nan, inf], "float16") == ""
    assert reduced_precision_problem([nan, inf], [1.0, -inf], [nan, inf], "float16").startswith("mismatched elements: 2")
    assert reduced_precision_problem([1 + 1j], [1 + 1j], [1 + 1j], "float16") == ""


# -- features -----------------------------------------------------------------------------------------
def test_an_items_dtype_is_a_feature_it_needs():
    case = REGISTRY.get("op.sin.default")
    assert "complex" not in case.features and "float16" not in case.features
    profile = Profile(("complex", "bfloat16", "fft"), "")
    needed = {dtype: profile.missing_for(Item(case, "cpu", dtype).features) for dtype in DTYPES}
    assert needed == {"float32": [], "float64": [], "complex64": ["complex"], "complex128": ["complex"],
                      "float16": [], "bfloat16": ["bfloat16"]}
    # a transform computes in complex numbers in every dtype: a real item needs complex too
    assert profile.missing_for(Item(REGISTRY.get("op.fft_fft.default"), "cpu", "float32").features) == ["complex", "fft"]


def test_complex_values_built_from_float16_parts_need_complex32():
    """torch.complex and view_as_complex of float16 make torch.complex32; polar of float16 is refused before."""
    lacking = Profile(("complex32",), "")
    for name, needs in (("op.complex.default", True), ("op.view_as_complex.default", True),
                        ("op.polar.default", False), ("op.angle.default", False)):
        case = REGISTRY.get(name)
        assert lacking.missing_for(Item(case, "cpu", "float16").features) == (["complex32"] if needs else []), name
        assert lacking.missing_for(Item(case, "cpu", "float32").features) == [], name
    with pytest.raises(ValueError, match="does not run in"):
        op("x", "torch.x", operators()[0].tolerance, dtypes=("float32", "float64"),
           dtype_features={"float16": ("complex32",)}, default=[S("torch.neg(a)", "n", a=R(2))])


# -- planted bugs through the catalog -----------------------------------------------------------------
def run(run_cli, tmp_path, impl: str, selection: str) -> tuple[int, str, dict]:
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", selection, "--jobs", "2", "--no-progress",
                   "--report-dir", str(out))
    return done.returncode, done.stdout + done.stderr, json.loads((out / "results.json").read_text(encoding="utf-8"))


def by_dtype(result: dict, case_id: str) -> dict[str, dict]:
    return {record["dtype"]: record for record in result["cases"] if record["id"] == case_id}


def test_a_multiplication_backward_without_the_conjugate_fails_the_complex_gradients(run_cli, tmp_path):
    status, output, result = run(run_cli, tmp_path, "tests.broken.mul_without_conjugate", "op.mul.default")
    assert status == 1, output
    records = by_dtype(result, "op.mul.default")
    for dtype in ("complex64", "complex128"):
        assert records[dtype]["outcome"] == "fail"
        assert any(d["aspect"] == "gradient" and "gradients of" in d["where"] for d in records[dtype]["diff"])
    assert all(records[dtype]["outcome"] == "pass" for dtype in ("float32", "float64", "float16", "bfloat16"))


def test_a_bfloat16_result_left_in_float32_is_caught_by_its_values(run_cli, tmp_path):
    status, output, result = run(run_cli, tmp_path, "tests.broken.bfloat16_unrounded", "op.sin.default")
    assert status == 1, output
    records = by_dtype(result, "op.sin.default")
    failing = records["bfloat16"]
    assert failing["outcome"] == "fail"
    values = [d for d in failing["diff"] if d["aspect"] == "value"]
    assert values and all("not bfloat16 values" in d["detail"] for d in values)
    assert {d["aspect"] for d in failing["diff"]} <= {"value", "node-name"}  # the fault's view is another node
    assert all(records[dtype]["outcome"] == "pass" for dtype in DTYPES if dtype != "bfloat16")


def test_a_float16_sum_accumulated_in_float16_is_caught_and_the_report_gives_both_errors(run_cli, tmp_path):
    status, output, result = run(run_cli, tmp_path, "tests.broken.float16_sum_in_float16", "op.sum.many")
    assert status == 1, output
    records = by_dtype(result, "op.sum.many")
    values = [d for d in records["float16"]["diff"] if d["aspect"] == "value"]
    assert records["float16"]["outcome"] == "fail" and values
    assert "the implementation's error" in values[0]["detail"] and "torch's own in float16" in values[0]["detail"]
    assert all(records[dtype]["outcome"] == "pass" for dtype in DTYPES if dtype != "float16")


def test_torch_against_itself_passes_the_same_items(run_cli, tmp_path):
    status, output, result = run(run_cli, tmp_path, "torch", "op.mul.default or op.sin.default or op.sum.many")
    assert status == 0, output
    assert len(result["cases"]) == 3 * len(DTYPES)
