"""The rules of the verdict, each pinned with a tiny fake engine (``tests/fakes/engines.py``).

* ``unsupported`` only when the API surface lacks what the scenario uses, named in torch's
  spelling: a missing name, an unexpected keyword, a name that is not callable;
* an AttributeError on anything else (None after a wrong result) is a ``fail``;
* a difference observed before the scenario reached a missing name makes the item ``fail``;
* each kind of difference counts from its level up (message and node name at ``drop-in``,
  exception type and flags at ``api``, values and raised-or-not at ``semantics``);
* a feature the profile declares absent makes its items ``n/a``: not run, not scored.
"""

from __future__ import annotations

import json

import pytest

from conformance.implementations import resolve
from tests.fakes.cases import VERDICT_CASES
from tests.support.sides import judged

ALL = {"semantics", "api", "drop-in"}


@pytest.fixture(scope="module")
def verdict(reference_impl):
    cache: dict = {}

    def run(engine: str, case_name: str) -> dict:
        key = (engine, case_name)
        if key not in cache:
            target = engine if "." in engine else f"tests.fakes.engines:{engine}"
            cache[key] = judged(VERDICT_CASES.get(f"cases.{case_name}"), reference_impl, resolve(target))
        return cache[key]

    return run


def levels(record: dict) -> dict:
    return record["levels"]


@pytest.mark.parametrize(("engine", "case_name", "name", "kind"), [
    ("no_requires_grad_keyword", "leaf_with_requires_grad", "torch.tensor(requires_grad=)", "keyword"),
    ("no_autograd_grad", "autograd_grad_of_square", "torch.autograd.grad", "attribute"),
    ("backward_without_inputs", "backward_with_inputs", "Tensor.backward(inputs=)", "keyword"),
    ("no_grad_not_callable", "no_grad_block", "torch.no_grad", "not-callable"),
    ("tests.broken.no_retain_grad", "retain_grad_of_a_product", "Tensor.retain_grad", "attribute"),
    ("no_float_protocol", "float_of_a_tensor", "Tensor.__float__", "protocol"),
    ("no_autograd_function_module", "helper_looks_up_a_name", "torch.autograd.function", "attribute"),
    ("grad_without_materialize", "call_over_several_lines", "torch.autograd.grad(materialize_grads=)", "keyword"),
])
def test_a_missing_part_of_the_api_is_unsupported_in_torch_spelling(verdict, engine, case_name, name, kind):
    record = verdict(engine, case_name)
    assert record["outcome"] == "unsupported", record["detail"]
    assert record["detail"] == f"unsupported: {name}"
    assert {levels(record)[level] for level in ALL} == {"unsupported"}
    errors = [step["error"] for step in record["implementation"]["steps"] if "error" in step]
    assert errors[-1]["missing"] == {"name": name, "kind": kind}


def test_what_ran_before_the_missing_name_passed(verdict):
    record = verdict("no_autograd_grad", "autograd_grad_of_square")
    assert [d["step"] for d in record["diff"]] == [2]  # step 1 (x * 2) matched torch


def test_an_attribute_error_on_none_after_a_wrong_result_is_a_failure(verdict):
    record = verdict("backward_does_nothing", "zero_grad_in_place")
    assert record["outcome"] == "fail" and levels(record) == {level: "fail" for level in ALL}
    first = record["diff"][0]
    assert first["aspect"] == "raised" and first["unsupported"] is None
    assert "AttributeError: 'NoneType' object has no attribute 'zero_'" in first["implementation"]


def test_a_difference_before_the_missing_name_fails_the_item(verdict):
    record = verdict("doubled_without_retain_grad", "gradient_then_missing_name")
    assert record["outcome"] == "fail"
    assert [(d["aspect"], d["unsupported"]) for d in record["diff"]] == [
        ("gradient", None), ("raised", "Tensor.retain_grad")]


def test_a_message_only_difference_counts_only_for_drop_in(verdict):
    record = verdict("message_reworded", "second_backward_raises")
    assert levels(record) == {"semantics": "pass", "api": "pass", "drop-in": "fail"}
    assert [d["aspect"] for d in record["diff"]] == ["message"]


def test_an_exception_type_difference_counts_from_api(verdict):
    record = verdict("exception_retyped", "second_backward_raises")
    assert levels(record) == {"semantics": "pass", "api": "fail", "drop-in": "fail"}
    assert [d["aspect"] for d in record["diff"]] == ["exception-type"]


def test_node_names_count_only_for_drop_in_and_every_difference_is_reported(verdict):
    record = verdict("nodes_renamed", "node_of_a_product")
    assert levels(record) == {"semantics": "pass", "api": "pass", "drop-in": "fail"}
    assert [(d["where"], d["aspect"]) for d in record["diff"]] == [
        ("step 1: y.grad_fn", "node-name"), ("step 2: y: grad_fn", "node-name")]


def test_a_plain_tuple_for_a_size_differs_only_in_kind(verdict):
    record = verdict("shape_as_tuple", "shape_is_a_size")
    assert levels(record) == {"semantics": "pass", "api": "fail", "drop-in": "fail"}
    assert [(d["where"], d["aspect"]) for d in record["diff"]] == [("step 1: x.shape: kind", "type")]


def test_a_raise_for_a_missing_name_is_unsupported_even_where_torch_raises(verdict):
    record = verdict("tests.broken.no_retain_grad", "retain_grad_without_requires_grad")
    assert record["outcome"] == "unsupported"
    assert levels(record)["semantics"] == "unsupported"
    assert [(d["aspect"], d["unsupported"]) for d in record["diff"]] == [("raised", "Tensor.retain_grad")]


def test_a_missing_flag_is_unsupported_from_api(verdict):
    record = verdict("tests.broken.no_retains_grad", "leaf_with_requires_grad")
    assert levels(record) == {"semantics": "pass", "api": "unsupported", "drop-in": "unsupported"}
    assert record["diff"][0]["unsupported"] == "Tensor.retains_grad"


def test_a_feature_the_profile_lacks_makes_its_items_not_applicable(run_cli, tmp_path):
    profile = tmp_path / "profile.toml"
    profile.write_text('[profile]\nlacks = ["retain-grad", "autograd.grad"]\nnote = "no retain_grad"\n')
    done = run_cli("run", "--impl", "tests.broken.no_retain_grad", "--registry", "tests.fakes.cases:VERDICT_CASES",
                   "--device", "cpu", "--expectations", str(profile), "--report-dir", str(tmp_path), "--no-progress",
                   "--jobs", "1")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    result = json.loads((tmp_path / "results.json").read_text())
    outcomes = {r["id"].split(".", 1)[1]: r["outcome"] for r in result["cases"]}
    not_applicable = {"autograd_grad_of_square", "retain_grad_of_a_product", "gradient_then_missing_name",
                      "retain_grad_without_requires_grad", "call_over_several_lines"}
    assert {name for name, outcome in outcomes.items() if outcome == "n/a"} == not_applicable
    assert all(outcome == "pass" for name, outcome in outcomes.items() if name not in not_applicable)
    assert result["scores"]["drop-in"] == {"pass": 9, "total": 9, "rate": 1.0}  # n/a items are not scored
    assert result["profile"] == {"lacks": ["retain-grad", "autograd.grad"], "note": "no retain_grad"}
    assert "n/a: the implementation does not aim to support retain-grad" in (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize("level", ["semantics", "api", "drop-in"])
def test_the_level_decides_the_exit_status(run_cli, tmp_path, level):
    done = run_cli("run", "--impl", "tests.fakes.engines:message_reworded", "--registry",
                   "tests.fakes.cases:VERDICT_CASES", "-k", "second_backward_raises", "--device", "cpu",
                   "--level", level, "--report-dir", str(tmp_path), "--no-progress", "--jobs", "1")
    assert done.returncode == (1 if level == "drop-in" else 0), done.stdout + done.stderr[-2000:]
    record = json.loads((tmp_path / "results.json").read_text())["cases"][0]
    assert record["outcome"] == ("fail" if level == "drop-in" else "pass")
