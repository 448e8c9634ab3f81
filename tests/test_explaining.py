"""[[explained]] entries: known differences, finer than an expected outcome.

A difference an entry explains does not count; an item whose counting differences are all explained
is ``xfail`` under the entry's reason, one with another difference keeps the outcome that one gives;
an entry covers the cases its pattern names; the file's fields are checked; the reports mark what is
explained; entries without a case also explain fuzzed programs.
"""

from __future__ import annotations

import copy
import json

import pytest

from conformance import expectations
from conformance.expectations import ExpectationError, FuzzExpectation
from conformance.explaining import explain

DOUBLE_BACKWARD = FuzzExpectation("double backward is not supported", aspect="raised",
                                  where="second-order gradients of .* are taken", case="op.*")


def record(case_id: str = "op.sin.default", *diffs: dict) -> dict:
    levels = dict.fromkeys(("semantics", "api", "drop-in"), "fail")
    return {"id": case_id, "outcome": "fail", "detail": "x", "levels": levels, "diff": copy.deepcopy(list(diffs))}


RAISED = {"where": "step 4: 1: second-order gradients of x are taken: exception", "aspect": "raised",
          "reference": "raised nothing", "implementation": "RuntimeError: no double backward", "step": 4}
NONE_LEFT = {"where": "step 5: 1: second-order gradients of x through the gradients of x: kind", "aspect": "value",
             "reference": "[tensor(...)]", "implementation": "None", "step": 5}
NODE = {"where": "step 1: 1: torch.sin(x): grad_fn", "aspect": "node-name", "reference": "'SinBackward0'",
        "implementation": "'CompiledFunctionBackward'", "step": 1}


def test_an_item_whose_every_difference_is_explained_is_xfail_under_the_reason():
    second_value = FuzzExpectation("the gradients left None by it", aspect="value", where="second-order", case="op.*")
    found = explain(record("op.sin.default", RAISED, NONE_LEFT), [DOUBLE_BACKWARD, second_value], "drop-in")
    assert found["outcome"] == "xfail" and found["levels"] == dict.fromkeys(("semantics", "api", "drop-in"), "pass")
    assert found["expected"] == {"outcome": "explained",
                                 "reason": "double backward is not supported; the gradients left None by it"}
    assert [d["explained"] for d in found["diff"]] == ["double backward is not supported",
                                                       "the gradients left None by it"]


def test_another_difference_keeps_its_outcome():
    found = explain(record("op.sin.default", RAISED, NONE_LEFT, NODE), [DOUBLE_BACKWARD], "drop-in")
    assert found["outcome"] == "fail" and "explained" in found["diff"][0] and "explained" not in found["diff"][1]
    assert found["levels"] == dict.fromkeys(("semantics", "api", "drop-in"), "fail")
    assert found["detail"].startswith("step 5: 1: second-order gradients of x through the gradients of x: kind")
    only_node = explain(record("op.sin.default", RAISED, NODE), [DOUBLE_BACKWARD], "api")
    assert only_node["levels"] == {"semantics": "pass", "api": "pass", "drop-in": "fail"}
    assert only_node["outcome"] == "xfail"  # at api, the one difference that counts is explained


def test_an_entry_covers_only_the_cases_it_names():
    found = explain(record("hooks.something", RAISED), [DOUBLE_BACKWARD], "drop-in")
    assert found["outcome"] == "fail" and "explained" not in found["diff"][0]
    crashed = {**record("op.sin.default", RAISED), "outcome": "crash"}
    assert explain(crashed, [DOUBLE_BACKWARD], "drop-in")["outcome"] == "crash"


def test_the_file_is_checked_and_case_less_entries_explain_fuzzed_programs_too(tmp_path):
    path = tmp_path / "impl.toml"
    path.write_text('[[explained]]\ncase = "op.*"\naspect = "raised"\nreason = "r"\n\n'
                    '[[explained]]\naspect = "node-name"\nreason = "compiled nodes"\n\n'
                    '[[fuzz]]\naspect = "flag"\nreason = "f"\n')
    loaded = expectations.load_file(path)
    assert [e.case for e in loaded.explained] == ["op.*", None]
    assert [e.reason for e in loaded.known_in_fuzzing] == ["f", "compiled nodes"]
    for text, message in (('[[explained]]\ncase = "op.*"\nreason = "r"\n', "matches every difference"),
                          ('[[explained]]\naspect = "raised"\n', "lacks reason"),
                          ('[[explained]]\naspect = "raised"\nreason = "r"\nstep = 3\n', "step")):
        path.write_text(text)
        with pytest.raises(ExpectationError, match=message):
            expectations.load_file(path)


def test_a_run_marks_what_is_explained_and_judges_the_rest(run_cli, tmp_path):
    # the canary records lerp's result as CloneBackward0 (a node name) and doubles roll's gradient
    path = tmp_path / "canary.toml"
    path.write_text('[[explained]]\ncase = "op.lerp.*"\naspect = "node-name"\nimplementation = "CloneBackward0"\n'
                    'reason = "the canary clones lerp\'s result"\n\n'
                    '[[explained]]\ncase = "op.lerp.*"\naspect = "gradient"\nreason = "never met"\n')
    done = run_cli("run", "--impl", "canary", "--device", "cpu", "-k", "op.lerp.default or op.roll.default",
                   "--expectations", str(path), "--report-dir", str(tmp_path / "out"), "--no-progress")
    result = json.loads((tmp_path / "out" / "results.json").read_text())
    outcomes = {(r["id"], r["dtype"]): r["outcome"] for r in result["cases"]}
    assert done.returncode == 1, done.stdout
    assert outcomes[("op.lerp.default", "float32")] == "xfail" and outcomes[("op.roll.default", "float32")] == "fail"
    lerp = next(r for r in result["cases"] if r["id"] == "op.lerp.default")
    assert lerp["detail"] == "explained: the canary clones lerp's result"
    page = (tmp_path / "out" / "report.html").read_text()
    assert "explained, does not count: the canary clones lerp&#x27;s result" in page
