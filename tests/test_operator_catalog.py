"""The operator catalog (conformance/operators): its size, its generated scenarios, and its power.

* Every operator case runs cleanly on torch in float32 and float64: the invalid calls raise, and
  so do the forward-mode and vmap steps that the table says torch raises in (``torch_raises``),
  nothing else does, every recorded value can be read (in this process, no fork), and torch's vmap
  reproduces every member of each batch run alone (the vmap steps' own check holds on torch).
* Generation is deterministic, and the generated source is what runs (linecache, line numbers).
* Planted bugs are caught: a wrong derivative sign, a derivative off by five parts in a million
  (invisible under assert_close's default float32 tolerance), and float64 tensors built through
  float32 (invisible under the default float64 tolerance of 1e-7).
"""

from __future__ import annotations

import dataclasses
import json
import linecache
import types

import numpy as np
import pytest

from conformance import catalog
from conformance.item import Item
from conformance.judge import judge
from conformance.operators import coverage, operators, refused_by_torch, refused_in_dtype
from conformance.operators.cases import build
from conformance.operators.spec import DTYPES, Sample
from conformance.operators.tolerances import CHAINED, CLASSES, EXACT
from conformance.operators.values import case_seed, draw, literal
from conformance.recorder import observe

torch = pytest.importorskip("torch")

REGISTRY = catalog.load()
OPERATOR_CASES = [case for case in REGISTRY if case.topic == "op"]


def test_the_table_has_at_least_140_operators_in_float32_and_float64():
    names = {case.id.split(".")[1] for case in OPERATOR_CASES}
    assert len(names) >= 140
    assert all({"float32", "float64"} <= set(case.dtypes) <= set(DTYPES) for case in OPERATOR_CASES)
    assert {entry.name for entry in operators()} == names


def test_coverage_data_names_the_operator_and_its_checks():
    assert coverage(REGISTRY.get("op.add.default")) == (
        "add", ("forward", "grad", "error", "forward-mode", "vmap", "vmap-of-vjp"))
    assert coverage(REGISTRY.get("op.sin.default")) == (
        "sin", ("forward", "grad", "gradgrad", "forward-mode", "forward-over-reverse", "vmap", "vmap-of-vjp"))
    assert coverage(REGISTRY.get("op.eq.default")) == ("eq", ("forward", "error", "vmap"))
    assert coverage(REGISTRY.get("op.tensor.default")) == ("tensor", ("forward", "error"))  # no_vmap: no input
    assert coverage(REGISTRY.get("numeric.tanh_derivative")) is None
    checked = {check for case in OPERATOR_CASES for check in coverage(case)[1]}
    assert checked == {"forward", "grad", "gradgrad", "error", "forward-mode", "forward-over-reverse", "vmap",
                       "vmap-of-vjp"}
    assert refused_by_torch(REGISTRY.get("op.huber_loss.default").tags) == ("forward-over-reverse",)
    assert refused_by_torch(REGISTRY.get("op.mse_loss.default").tags) == ()  # torch raises in one sample of seven
    assert refused_by_torch(REGISTRY.get("op.sin.default").tags) == ()


def test_every_case_uses_one_tolerance_class():
    classes = [tolerance.per_dtype() for tolerance in CLASSES]
    assert all(case.tolerances in classes for case in OPERATOR_CASES)
    four = 4 * 2.0 ** -23, 4 * 2.0 ** -52  # COMPLEX_FLOOR_ULPS: a complex product is several real operations
    assert EXACT.per_dtype() == {"float32": (0.0, 0.0), "float64": (0.0, 0.0), "complex64": (four[0],) * 2,
                                 "complex128": (four[1],) * 2}  # float16 and bfloat16 are judged by their own rule


def test_the_real_values_of_a_complex_item_take_the_complex_floor():
    """abs, angle and real tangents in a complex item come from complex arithmetic (torch's own
    differ by an ulp between its vectorized and scalar loops): its class's floor applies to them;
    in a real item they keep the class's own tolerance."""
    from conformance.compare import Comparison

    def same(text):
        return text

    floors = {"complex64": 4 * 2.0 ** -23, "complex128": 4 * 2.0 ** -52}
    for dtype, parts in (("complex64", "torch.float32"), ("complex128", "torch.float64")):
        assert Comparison(same, same, EXACT.per_dtype(), dtype).tolerance_of(parts) == (floors[dtype],) * 2
        assert Comparison(same, same, EXACT.per_dtype(), parts[6:]).tolerance_of(parts) == (0.0, 0.0)
    chained = CHAINED.per_dtype()
    assert Comparison(same, same, chained, "complex64").tolerance_of("torch.float32") == chained["float32"]


def torch_raises_in(case) -> set[str]:
    """The labels of the attempts the operator table says torch raises in (``torch_raises``)."""
    entry = next(e for e in operators() if e.name == case.id.split(".")[1])
    variant = next(v for v in entry.variants if v.name == case.id.split(".")[2])
    samples = [sample for sample in variant.samples if isinstance(sample, Sample)]
    return {f"{number}: {step} is taken" for number, sample in enumerate(samples, 1)
            for step in (*entry.torch_raises, *sample.torch_raises)}


def _problems(steps: list[dict], raising: set[str]) -> list[str]:
    """What is wrong with torch's steps: an invalid call that raised nothing, another step that
    raised, except the forward-mode and vmap steps in ``raising``, which must raise; a value that
    cannot be read; a member of a vmap step's batch that torch's vmap does not reproduce."""
    found = []
    for step in steps:
        if step["label"].endswith("the members that running alone gives other results") and step.get("value"):
            found.append(f"{step['label']}: {step['value']}")
        invalid = step["label"].startswith("invalid")
        if (invalid or step["label"] in raising) and "error" not in step:
            found.append(f"{step['label']}: raised nothing")
        if not invalid and step["label"] not in raising and "error" in step:
            found.append(f"{step['label']}: raised {step['error']['type']}: {step['error']['message']}")
        encoded = json.dumps(step.get("value"))
        if '"t": "error"' in encoded or '"t": "unsupported"' in encoded:
            found.append(f"{step['label']}: a value could not be read: {encoded[:200]}")
    return found


@pytest.mark.parametrize("case", OPERATOR_CASES, ids=lambda c: c.id)
def test_torch_runs_the_case_cleanly_in_both_dtypes(case):
    raising = torch_raises_in(case)
    for dtype in ("float32", "float64"):  # the other dtypes: tests/test_operator_dtypes.py
        if dtype not in case.dtypes or refused_in_dtype(case.id, dtype):
            continue  # a complex-only operator (imag of a real tensor): its refusal is checked there
        observed = observe(case, torch, "cpu", dtype)
        assert observed["status"] == "completed", observed["steps"][-1]
        assert _problems(observed["steps"], raising) == [], dtype
        labels = {step["label"] for step in observed["steps"]}
        assert raising <= labels, f"the table says torch raises in steps the case does not take: {raising - labels}"
        labels = [step["label"] for step in observed["steps"]]
        assert len(labels) == len(set(labels)), "labels name their sample and are unique"


def test_generation_is_deterministic_and_the_source_is_what_runs():
    entry = next(e for e in operators() if e.name == "atan2")
    first = build(entry, entry.variants[0])
    again = build(entry, entry.variants[0])
    assert first.source == again.source == REGISTRY.get("op.atan2.default").source
    filename = first.scenario.__code__.co_filename
    assert "".join(linecache.getlines(filename)) == first.source
    step = observe(first, torch, "cpu", "float64")["steps"][0]
    assert step["source"] == first.source.splitlines()[step["line"] - 1].strip()
    assert step["source"].startswith('out = rec("1: torch.atan2(a, b)"')


def test_inputs_are_literals_seeded_by_the_case_id():
    source = REGISTRY.get("op.sin.default").source
    rng = np.random.default_rng(case_seed("op.sin.default"))
    first_input = literal(draw(rng, (3, 4), -3.0, 3.0))  # sample 1 of sin: R(3, 4, low=-3.0, high=3.0)
    # the real parts (the imaginary parts follow, for the complex dtypes)
    assert f"x = torch.tensor(drawn({first_input}, [[" in source
    assert "manual_seed" not in source and "torch.rand" not in source


# -- planted bugs -------------------------------------------------------------------------------
def namespace_with(**overrides) -> types.ModuleType:
    """torch with some attributes replaced: a broken implementation for one test."""
    module = types.ModuleType("planted")
    module.__dict__.update({k: v for k, v in vars(torch).items() if not k.startswith("__")})
    module.__dict__.update(overrides)
    return module


def verdict(case_id: str, namespace, dtype: str, tolerances=None) -> tuple[str, str]:
    case = REGISTRY.get(case_id)
    if tolerances is not None:
        case = dataclasses.replace(case, tolerances=tolerances)
    record = judge(Item(case, "cpu", dtype), observe(case, torch, "cpu", dtype), observe(case, namespace, "cpu", dtype),
                   "torch")
    return record.outcome, record.detail


def scaled_gradient(function, factor):
    """``function`` whose output scales the incoming gradient by ``factor`` (same node name)."""
    def planted(x, *args, **kwargs):
        out = function(x, *args, **kwargs)
        if out.requires_grad:
            out.register_hook(lambda grad: grad * factor)
        return out
    return planted


def test_torch_against_itself_passes():
    for case_id in ("op.sin.default", "op.exp.default", "op.add.default"):
        for dtype in ("float32", "float64"):
            assert verdict(case_id, torch, dtype) == ("pass", "")


def test_a_derivative_of_the_wrong_sign_is_caught():
    outcome, detail = verdict("op.sin.default", namespace_with(sin=scaled_gradient(torch.sin, -1.0)), "float32")
    assert outcome == "fail"
    assert detail.startswith("step 2: 1: gradients of x[0]: values")


def test_a_derivative_off_by_five_parts_in_a_million_is_caught_where_the_default_tolerance_misses_it():
    broken = namespace_with(sin=scaled_gradient(torch.sin, 1 + 5e-6))  # |d sin| <= 1: below atol 1e-5
    outcome, detail = verdict("op.sin.default", broken, "float32")
    assert outcome == "fail" and detail.startswith("step 2: 1: gradients of x[0]: values")
    assert verdict("op.sin.default", broken, "float32", tolerances={}) == ("pass", "")


def test_float64_built_through_float32_is_caught_where_the_default_tolerance_misses_it():
    def tensor(data, *args, dtype=None, requires_grad=False, **kwargs):
        if dtype is torch.float64:
            narrow = torch.tensor(data, *args, dtype=torch.float32, **kwargs)
            return narrow.to(torch.float64).requires_grad_(requires_grad)
        return torch.tensor(data, *args, dtype=dtype, requires_grad=requires_grad, **kwargs)

    broken = namespace_with(tensor=tensor)
    outcome, detail = verdict("op.add.default", broken, "float64")
    assert outcome == "fail" and detail.startswith("step 1: 1: torch.add(a, b): values")
    # the old float64 tolerance (rtol = atol = 1e-7) let it pass; the harness's default is now 1e-12
    assert verdict("op.add.default", broken, "float64", tolerances={"float64": (1e-7, 1e-7)}) == ("pass", "")
    assert verdict("op.add.default", broken, "float64", tolerances={})[0] == "fail"
    assert verdict("op.add.default", broken, "float32") == ("pass", "")
