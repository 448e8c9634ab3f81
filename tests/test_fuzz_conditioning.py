"""Ill-conditioned values in fuzzed programs (``conformance.fuzz.conditioning``): a difference that
rounding alone explains is counted, not found; a wrong value, a jump at a kink or any other kind of
difference is still a finding.

The planted implementation ``tests.broken.exp_one_ulp`` rounds ``exp`` one ulp up (as NumPy's
``expf`` does now and then); ``sin(exp(5.6))`` in float32 amplifies that to 1e-4, far beyond the
campaign's tolerance.
"""

from __future__ import annotations

import time

import pytest

from conformance.fuzz import campaign as campaign_module
from conformance.fuzz.campaign import Campaign, FuzzConfig
from conformance.fuzz.conditioning import ill_conditioned, numbers, scaled_source, scales
from conformance.fuzz.program import Program, Var
from conformance.item import Item

TOLERANCE = (1.5e-5, 1.5e-5)


def sin_of_exp(value: float, dtype: str = "float32") -> Program:
    program = Program(dtype)
    program.emit(f"t0 = torch.tensor({value!r}, dtype=rec.float_dtype, device=rec.device, requires_grad=True)")
    program.vars.append(Var("t0", (), leaf=True, requires_grad=True))
    program.attempt("t1 = t0.exp().sin()", ["t1 = t0.exp().sin()", "rec('t1', t1)", "t1.backward()"])
    return program


@pytest.mark.parametrize("impl", ["tests.broken.exp_one_ulp", "myautograd"])
def test_a_rounding_that_the_program_amplifies_is_ill_conditioned_not_a_finding(impl, tmp_path):
    campaign = Campaign(FuzzConfig(impl=impl, report_dir=tmp_path))
    program = sin_of_exp(5.6)
    try:
        record = campaign.judge(program)
        assert record["outcome"] == "fail", "the program no longer differs beyond the tolerance: pick another"
        assert {d["aspect"] for d in record["diff"]} <= {"value", "gradient"}
        assert campaign.is_ill_conditioned(program, record)
        assert campaign.ill_conditioned == 1
    finally:
        campaign.session.close()


class FixedPrograms:
    """Stands in for the generator: ``sin(exp(5.6))`` first, then well-conditioned programs."""
    drawn = 0

    def __init__(self, *args) -> None:
        pass

    def program(self, dtype: str, max_steps: int) -> Program:
        FixedPrograms.drawn += 1
        return sin_of_exp(5.6 if FixedPrograms.drawn == 1 else 0.5)


def test_a_campaign_counts_an_ill_conditioned_program_and_goes_on(monkeypatch, tmp_path):
    monkeypatch.setattr(campaign_module, "Generator", FixedPrograms)
    campaign = Campaign(FuzzConfig(impl="tests.broken.exp_one_ulp", report_dir=tmp_path))
    try:
        assert campaign.run_chunk(0) is False
    finally:
        campaign.session.close()
    assert campaign.ill_conditioned == 1 and campaign.programs >= 2
    written = sorted(path.name for path in tmp_path.iterdir())
    assert len(written) == 2 and written[0].startswith("ill-conditioned-") and written[0].endswith(".diff.txt")
    assert "t0.exp().sin()" in (tmp_path / written[1]).read_text()


def test_the_scaled_reruns_run_on_the_reference_alone(tmp_path):
    """``tests.broken.hang`` never returns from backward: had the implementation run the rerun too,
    it would have lasted its whole time limit (of 20 s here)."""
    campaign = Campaign(FuzzConfig(impl="tests.broken.hang", report_dir=tmp_path, program_timeout=20))
    program = sin_of_exp(0.5)
    case = campaign.case_of(program, scaled_source(program.source(), scales("float32")["+δ"]), ".scaled0")
    try:
        campaign.start()
        begun = time.monotonic()
        reference = campaign.observed(campaign.session, Item(case, "cpu", "float32"), case.source, judged=False)
        took = time.monotonic() - begun
    finally:
        campaign.session.close()
    assert reference["status"] == "completed"
    assert [step["label"] for step in reference["steps"]] == ["t1", "s1: t1 = t0.exp().sin()", "t0.grad"]
    assert took < 10, f"{took:.1f} s"


def step(label: str, value) -> dict:
    return {"label": label, "value": value}


def record_of(ref, impl, aspect="value") -> dict:
    return {"diff": [{"aspect": aspect, "step": 1, "where": "step 1: y: values"}],
            "reference": {"steps": [step("y", ref)]}, "implementation": {"steps": [step("y", impl)]}}


def scaled_steps(up, down, up2, down2) -> dict:
    return {name: [step("y", value)] for name, value in zip(("+δ", "-δ", "+2δ", "-2δ"), (up, down, up2, down2))}


def test_a_difference_within_a_smooth_movement_of_the_reference_is_ill_conditioned():
    record = record_of([0.2468], [0.2470])
    assert ill_conditioned(record, scaled_steps([0.2478], [0.2458], [0.2488], [0.2448]), "drop-in", TOLERANCE)


@pytest.mark.parametrize("why, impl, scaled", [
    ("beyond the movement", [0.26], ([0.2478], [0.2458], [0.2488], [0.2448])),
    ("a one-sided kink: scaled down, the value stays", [0.0], ([0.0], [0.2468], [0.0], [0.2468])),
    ("a jump that does not grow with the scale", [0.2], ([0.2], [0.3], [0.2], [0.3])),
    ("non-finite where torch is finite", [float("inf")], ([0.2478], [0.2458], [0.2488], [0.2448])),
])
def test_a_difference_the_reference_does_not_move_smoothly_by_is_a_finding(why, impl, scaled):
    assert not ill_conditioned(record_of([0.2468], impl), scaled_steps(*scaled), "drop-in", TOLERANCE), why


@pytest.mark.parametrize("why, ref, impl", [
    ("bools (ctx.needs_input_grad)", {"t": "tuple", "items": [True, False]}, {"t": "tuple", "items": [True, True]}),
    ("None against a number", {"t": "tuple", "items": [None, 0.5]}, {"t": "tuple", "items": [0.5, 0.5]}),
    ("equal numbers, so the difference is elsewhere", [0.2468], [0.2468]),
])
def test_a_value_difference_outside_the_numbers_is_a_finding(why, ref, impl):
    smooth = scaled_steps(ref, ref, ref, ref)
    assert not ill_conditioned(record_of(ref, impl), smooth, "drop-in", TOLERANCE), why


def test_only_value_and_gradient_differences_can_be_ill_conditioned():
    smooth = scaled_steps([0.2478], [0.2458], [0.2488], [0.2448])
    assert ill_conditioned(record_of([0.2468], [0.2470], "gradient"), smooth, "drop-in", TOLERANCE)
    assert not ill_conditioned(record_of([0.2468], [0.2470], "flag"), smooth, "drop-in", TOLERANCE)
    record = record_of([0.2468], [0.2470])
    record["diff"].append({"aspect": "node-name", "step": 1, "where": "step 1: y: grad_fn"})
    assert not ill_conditioned(record, smooth, "drop-in", TOLERANCE)


def test_scaling_touches_only_the_literal_float_tensors_and_keeps_zeros_and_ties():
    source = ("t0 = torch.tensor([[5.6, -0.0, 0.5], [0.5, float('nan'), 1e-05]], dtype=rec.float_dtype)\n"
              "i = torch.tensor([0, 2], device=rec.device)\n"
              "y = F.leaky_relu(t0, 0.25) + 1.5\n")
    factor = scales("float32")["+δ"]
    scaled = scaled_source(source, factor)
    first = scaled.splitlines()[0]
    assert f"{5.6 * factor!r}" in first and "-0.0" in first and first.count(repr(0.5 * factor)) == 2
    assert "float('nan')" in first and repr(1e-05 * factor) in first
    assert scaled.splitlines()[1:] == source.splitlines()[1:]
    assert factor == 1 + 2 ** -20 and scales("float64")["-2δ"] == 1 - 2 ** -48


def test_numbers_walks_tensors_gradients_and_tuples_in_order():
    value = {"t": "tuple", "items": [{"t": "tensor", "values": [[1.0, 2.0]], "grad": {"t": "tensor", "values": [3.0]},
                                      "requires_grad": True, "dtype": "torch.float32"},
                                     {"t": "float", "v": "nan"}]}
    found = numbers(value)
    assert found[:3] == [3.0, 1.0, 2.0] and found[3] != found[3]
