"""torch's op_db as a source of cases (``conformance/databases/render_operators.py``, catalog topic ``opinfo``):
what the rendered file holds, how robustly it is read and rendered, the cases it makes (selection, metadata,
the disk cache), the report's counts, a CI smoke torch against itself and myautograd against torch, and
planted bugs that the hand-written operator table misses and op_db's samples catch.

The smoke items run each side in a child forked from the test process (``tests/support/sides``).
"""

from __future__ import annotations

import json
import re
import types
import warnings

import pytest
import torch

from conformance import databases
from conformance.case import Registry
from conformance.catalog import load, opinfo
from conformance.databases import FILES, expected, render_operators
from conformance.implementations import REFERENCE, resolve
from conformance.operators import cases as operator_cases
from conformance.recorder import observe
from conformance.reports import markdown
from conformance.reports.coverage import database_text
from conformance.reports.databases import implementation_counts
from conformance.selection import compile_expression
from conformance.worker import warm_up
from tests.support.sides import isolated, judged

OPERATOR_TAGS = {"op", "check:forward", "check:grad", "check:gradgrad", "check:error", "check:forward-mode",
                 "check:forward-over-reverse", "database", "op_db"}


def with_op_db() -> Registry:
    """The catalog with op_db's cases, in a registry of its own (the default one stays without them)."""
    registry = Registry()
    for case in load():
        registry.add(case)
    opinfo.register(registry)
    return registry


REGISTRY = with_op_db()
with warnings.catch_warnings():  # as a side's worker does before it forks: torch's lazy imports warn here, in no item
    warnings.simplefilter("ignore")
    warm_up()
OPINFO = [case for case in REGISTRY if case.topic == "opinfo"]
#: The CI smoke selection: a few operators of different kinds (binary with broadcasting, unary, a
#: reduction with a dim, a matrix product, nn.functional entries with keyword arguments).
SMOKE = ("opinfo.add.default", "opinfo.sin.default", "opinfo.sum.default", "opinfo.mm.default",
         "opinfo.nn.functional.relu.default", "opinfo.nn.functional.hardtanh.default")
CONV1D = "opinfo.nn.functional.conv1d.default"


# -- the file -----------------------------------------------------------------------------------
def test_the_file_holds_the_samples_of_the_installed_torch_with_its_counts():
    counts = databases.counts("op_db")
    assert counts["torch"] == torch.__version__
    assert counts["names"] >= 500, counts["names"]
    assert counts["rendered"] + counts["skipped"] >= 700  # op_db has 702 entries in torch 2.13: each is one or the other
    assert all(reason for reason in counts["skip_reasons"])


def test_every_entry_is_a_case_opinfo_name_variant_in_the_dtypes_torch_supports():
    database = opinfo.loaded()
    assert database.skipped == json.loads(FILES["op_db"].read_text())["skipped"]  # every entry of the file read
    assert [case.id for case in OPINFO] == list(opinfo.case_ids())
    assert len(OPINFO) == len(database.operators) == databases.counts("op_db")["rendered"]
    assert {"opinfo.add.default", "opinfo.nn.functional.conv2d.default", "opinfo.max.reduction_with_dim"} <= set(
        opinfo.case_ids())
    add = REGISTRY.get("opinfo.add.default")
    assert add.dtypes == ("float32", "float64") and add.devices == ("cpu",)


@pytest.mark.parametrize("case", OPINFO[::25], ids=lambda case: case.id)
def test_case_metadata_is_complete(case):
    name, variant = case.id.removeprefix("opinfo.").rsplit(".", 1)
    assert case.scenario.__name__ == re.sub(r"\W", "_", f"opinfo_{name}__{variant}")
    assert set(case.tags) - OPERATOR_TAGS == {f"op:opinfo.{name}"}, case.tags
    assert case.title.startswith(f"{name} ({variant}): ") and case.doc.section
    assert set(case.dtypes) <= {"float32", "float64"} and case.dtypes


def test_the_cases_are_selectable_as_a_whole_and_per_operator():
    whole, matmul = compile_expression("opinfo"), compile_expression("opinfo.matmul")
    assert [case for case in REGISTRY if whole(case)] == OPINFO
    assert [case.id for case in REGISTRY if matmul(case)] == ["opinfo.matmul.default"]


def test_the_default_catalog_holds_none_of_them():
    assert not any(case.id.startswith("opinfo.") for case in load())


def test_the_rendered_scenarios_are_cached_and_read_back_without_rendering(tmp_path, monkeypatch):
    operators = opinfo.loaded().operators[:3]
    first = opinfo.cases(opinfo.Database(operators=operators), tmp_path)
    assert [path.name.split("-")[0] for path in tmp_path.glob("*.pickle")] == ["opinfo"]

    def render_again(*args):
        raise AssertionError("rendered although the cache holds it")

    monkeypatch.setattr(operator_cases, "rendered", render_again)
    again = opinfo.cases(opinfo.Database(operators=operators), tmp_path)
    assert [case.source for case in again] == [case.source for case in first]


# -- robustness ---------------------------------------------------------------------------------
def test_a_missing_or_foreign_file_leaves_the_database_empty_with_the_reason(tmp_path):
    missing = opinfo.read(tmp_path / "absent.json")
    assert missing.operators == [] and "cannot read absent.json" in missing.skipped[0]["reason"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": 99, "entries": []}))
    assert "of format 99, not 1: render it again" in opinfo.read(other).skipped[0]["reason"]


def test_an_entry_whose_data_changed_shape_is_skipped_with_the_reason_and_the_others_kept(tmp_path):
    data = json.loads(FILES["op_db"].read_text())
    good = next(entry for entry in data["entries"] if entry["name"] == "sin")
    broken = {**good, "name": "cos"}
    del broken["supports_gradgrad"]
    path = tmp_path / "op_db.json"
    path.write_text(json.dumps({**data, "entries": [good, broken], "skipped": []}))
    database = opinfo.read(path)
    assert [operator.name for operator in database.operators] == ["sin"]
    assert database.skipped == [{"name": "cos", "variant": "default",
                                 "reason": "its data does not make an operator: KeyError: 'supports_gradgrad'"}]


def test_the_renderer_skips_an_entry_torch_changed_and_renders_the_rest():
    from torch.testing._internal.common_methods_invocations import op_db

    sin = next(op for op in op_db if op.name == "sin")
    changed = types.SimpleNamespace(name="renamed_internals", variant_test_name="")  # no supported_dtypes any more
    data = render_operators.render([changed, sin])
    assert data["torch"] == torch.__version__
    assert [entry["name"] for entry in data["entries"]] == ["sin"]
    assert data["skipped"] == [{"name": "renamed_internals", "variant": "default", "reason":
                                "reading the entry raised AttributeError: 'types.SimpleNamespace' object has no "
                                "attribute 'supported_dtypes'"}]
    entry = data["entries"][0]
    assert entry["call"] == "torch.sin" and entry["dtypes"] == ["float32", "float64"]
    assert all(sample["call"] == "torch.sin(a)" for sample in entry["samples"])



def test_torch_runs_a_sample_on_its_inputs_as_the_scenario_rebuilds_them_from_the_data():
    writer = render_operators.SampleWriter(torch, "float32")
    base = torch.arange(12.0).requires_grad_()
    call = writer.call("torch.as_strided", False, types.SimpleNamespace(input=base[4:], args=((2, 2), (1, 2)), kwargs={}))
    assert call == "torch.as_strided(a, (2, 2), (1, 2))"
    rebuilt = writer.tensors["a"]
    assert rebuilt.storage_offset() == 0 and rebuilt.tolist() == base[4:].tolist() and rebuilt.requires_grad
    strided = writer.tensors[writer.tensor(torch.ones(2, 6)[:, ::3])]
    assert strided.stride() == (4, 2) and strided.tolist() == [[1.0, 1.0], [1.0, 1.0]]



def test_the_sample_s_own_dtype_is_written_as_the_item_s_and_another_as_it_is():
    writer = render_operators.SampleWriter(torch, "float32")  # the entry's samples are taken in float32
    assert writer.source(torch.float32) == "dtype" and writer.source(torch.float64) == "torch.float64"
    assert writer.source(torch.int64) == "torch.int64"


# -- the report -----------------------------------------------------------------------------------
def test_the_run_metadata_and_coverage_report_count_entries_rendered_and_skipped_by_reason():
    found = databases.summaries([REGISTRY.get("opinfo.sin.default"), REGISTRY.get("op.sin.default")])
    assert list(found) == ["op_db"] and found["op_db"]["selected"] == 1
    text = database_text({"databases": found})
    counts = databases.counts("op_db")
    assert f"## torch's op_db (samples of torch {torch.__version__})" in text
    assert f"{counts['rendered']} entries ({counts['names']} names) rendered, 1 cases selected" in text
    reason, count = max(counts["skip_reasons"].items(), key=lambda pair: pair[1])
    assert f"* {count}: {reason}" in text
    assert database_text({"databases": databases.summaries([REGISTRY.get("op.sin.default")])}) == ""


def test_the_reports_count_the_entries_the_implementation_implements_and_those_passing_every_item():
    def record(case_id, outcome, level=None, database="op_db"):
        return {"id": case_id, "tags": ["database", database] if database else ["op"], "outcome": outcome,
                "levels": {"drop-in": level or outcome}}

    result = {"level": "drop-in", "implementation": {"name": "engine"},
              "databases": {name: {**databases.counts(name), "selected": 0} for name in ("op_db", "module_db")},
              "cases": [record("opinfo.sin.default", "pass"), record("opinfo.sin.default", "pass"),
                        record("opinfo.cos.default", "pass"), record("opinfo.cos.default", "xfail", "fail"),
                        record("opinfo.addr.default", "xfail", "unsupported"),
                        record("opinfo.tan.default", "n/a"),
                        record("moduleinfo.Linear.0", "pass", database="module_db"),
                        record("moduleinfo.Linear.1", "fail", database="module_db"),
                        record("moduleinfo.GRU.0", "unsupported", database="module_db"),
                        record("op.sin.default", "fail", database=None)]}
    assert implementation_counts(result) == {"op_db": {"entries": 4, "implemented": 2, "passing": 1},
                                             "module_db": {"entries": 2, "implemented": 1, "passing": 0}}
    assert "Of the 4 entries selected, engine implements 2 (some item runs past every name it lacks), and 1 of " \
           "those pass every item." in database_text(result)
    summary = markdown.render({**result, "summary": {}})
    assert "of the 2 entries this run selected, engine implements 1, and 0 of those pass every item." in summary


# -- smoke: torch against itself, myautograd, planted bugs ----------------------------------------
def test_non_contiguous_inputs_of_the_database_are_rendered_strided():
    entry = next(entry for entry in json.loads(FILES["op_db"].read_text())["entries"]
                 if any(not inp["contiguous"] and inp["values"] for sample in entry["samples"]
                        for inp in sample["inputs"].values()))
    case = REGISTRY.get(f"opinfo.{entry['name']}.{entry['variant']}")
    assert "[..., ::2]" in case.source
    record = judged(case, resolve(REFERENCE), resolve("torch"), dtype=case.dtypes[0])
    assert record["outcome"] == "pass", record


@pytest.mark.parametrize("case_id", SMOKE)
@pytest.mark.parametrize("impl", ["torch", "myautograd"])
def test_smoke(case_id, impl):
    case = REGISTRY.get(case_id)
    for dtype in case.dtypes:
        record = judged(case, resolve(REFERENCE), resolve(impl), dtype=dtype)
        assert record["outcome"] == "pass", record


def test_a_planted_conv1d_the_hand_written_table_passes_is_caught_by_op_db():
    broken = resolve("tests.broken.opdb_conv1d_same_ignores_dilation")
    hand_written = [case for case in REGISTRY if case.id.startswith("op.conv1d.")]
    assert hand_written
    for case in hand_written:
        assert judged(case, resolve(REFERENCE), broken, dtype="float32")["outcome"] == "pass", case.id
    record = judged(REGISTRY.get(CONV1D), resolve(REFERENCE), broken, dtype="float32")
    assert record["outcome"] == "fail"
    assert "padding='same'" in record["detail"] and "shape" in record["detail"], record["detail"]


def mutant_record(name: str, case, dtype: str) -> dict:
    def task():
        import myautograd
        import tests.mutants as mutants

        mutants.apply(name)
        return observe(case, myautograd, "cpu", dtype)

    from conformance.item import Item
    from conformance.judge import judge

    reference = isolated(lambda: observe(case, resolve(REFERENCE).namespace, "cpu", dtype))
    return judge(Item(case, "cpu", dtype), reference, isolated(task), "myautograd").as_dict()


def test_the_mutant_of_myautograd_s_same_padding_is_killed_by_op_db_and_not_by_the_table():
    for case in [case for case in REGISTRY if case.id.startswith("op.conv1d.")]:
        assert mutant_record("conv_same_padding_ignores_dilation", case, "float32")["outcome"] == "pass", case.id
    assert judged(REGISTRY.get(CONV1D), resolve(REFERENCE), resolve("myautograd"), dtype="float32")["outcome"] == "pass"
    record = mutant_record("conv_same_padding_ignores_dilation", REGISTRY.get(CONV1D), "float32")
    assert record["outcome"] == "fail", record


@pytest.mark.parametrize(("mutant", "case_id", "hand_written", "step"), [
    # repeated indices only in op_db's samples: max pooling's indices, which the hand-written cases unpool, never repeat
    ("max_unpool_tangent_sums_repeats", "opinfo.nn.functional.max_unpool2d.default", None, "forward-mode tangents"),
    # a negative padding only in op_db's error inputs
    ("pool_negative_padding_clamped", "opinfo.nn.functional.max_pool2d.default", "op.max_pool2d.default",
     "padding=-1"),
])
def test_the_mutants_of_myautograd_s_pooling_are_killed_by_op_db(mutant, case_id, hand_written, step):
    if hand_written:
        assert mutant_record(mutant, REGISTRY.get(hand_written), "float64")["outcome"] == "pass"
    assert judged(REGISTRY.get(case_id), resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record(mutant, REGISTRY.get(case_id), "float64")
    assert record["outcome"] == "fail" and step in record["detail"], record["detail"]


#: Mutants of what op_db's samples reach and the hand-written table does not: the op_db case that kills each
#: (an empty dim; a row of one element) and the hand-written cases of the same operator, which pass it.
OPDB_ONLY_MUTANTS = {
    "softmax_peak_of_an_empty_dim_raises": ("opinfo.softmax.default", "op.softmax.default"),
    "layer_norm_weight_gradient_unfused": ("opinfo.nn.functional.layer_norm.default", "op.layer_norm.default"),
}


@pytest.mark.parametrize("name", list(OPDB_ONLY_MUTANTS))
def test_a_mutant_only_op_db_samples_reach_is_killed_by_op_db_and_not_by_the_table(name):
    killer, hand_written = (REGISTRY.get(case_id) for case_id in OPDB_ONLY_MUTANTS[name])
    for dtype in ("float32", "float64"):
        assert judged(killer, resolve(REFERENCE), resolve("myautograd"), dtype=dtype)["outcome"] == "pass"
        assert mutant_record(name, hand_written, dtype)["outcome"] == "pass", (hand_written.id, dtype)
        record = mutant_record(name, killer, dtype)
        assert record["outcome"] == "fail", record


def test_the_mutant_of_the_argument_parser_s_reasons_is_killed_by_op_db_and_not_by_the_table():
    """remainder(2, 3)'s message lists why its (Number self, Tensor other) did not match: only op_db's
    error samples reach it; the hand-written remainder case has no invalid call."""
    assert mutant_record("parser_reasons_marked_by_fit", REGISTRY.get("op.remainder.default"), "float32")["outcome"] \
        == "pass"
    remainder = REGISTRY.get("opinfo.remainder.default")
    assert judged(remainder, resolve(REFERENCE), resolve("myautograd"), dtype="float32")["outcome"] == "pass"
    record = mutant_record("parser_reasons_marked_by_fit", remainder, "float32")
    assert record["outcome"] == "fail", record
    assert any(d["aspect"] == "message" and "(int, !int!)" in d["implementation"] for d in record["diff"]), record


def test_the_mutant_of_clamp_min_s_tensor_bound_is_killed_by_op_db():
    """The hand-written table has no clamp_min case; op_db's samples give it a tensor bound."""
    clamp_min = REGISTRY.get("opinfo.clamp_min.default")
    assert judged(clamp_min, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record("clamp_min_bound_gradient_mask_copied", clamp_min, "float64")
    assert record["outcome"] == "fail", record
    assert record["diff"][0]["aspect"] == "gradient", record["diff"][0]


def test_the_mutant_of_take_along_dim_s_negative_indices_is_killed_by_op_db_and_not_by_the_table():
    # the hand-written table has no take_along_dim case; its gather, which take_along_dim calls, passes
    for case in [case for case in REGISTRY if case.id.startswith("op.gather.")]:
        assert mutant_record("take_along_dim_negative_indices_kept", case, "float32")["outcome"] == "pass", case.id
    take_along_dim = REGISTRY.get("opinfo.take_along_dim.default")
    assert judged(take_along_dim, resolve(REFERENCE), resolve("myautograd"), dtype="float32")["outcome"] == "pass"
    record = mutant_record("take_along_dim_negative_indices_kept", take_along_dim, "float32")
    assert record["outcome"] == "fail", record
    assert "index -1 is out of bounds for dimension 1 with size 5" in record["detail"], record["detail"]


def test_the_mutant_of_tensordot_refusing_dimensions_of_one_is_killed_by_op_db_and_not_by_the_table():
    """torch's tensordot sums an operand over a contracted dimension where the other has size one
    (opinfo.tensordot's sample 3); the hand-written table contracts equal sizes only."""
    name, case = "tensordot_refuses_broadcast_dims", REGISTRY.get("opinfo.tensordot.default")
    table = [case for case in REGISTRY if case.id.startswith("op.tensordot.")]
    assert table
    for table_case in table:
        assert mutant_record(name, table_case, "float64")["outcome"] == "pass", table_case.id
    assert judged(case, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record(name, case, "float64")
    assert record["outcome"] == "fail", record
    assert "contracted dimensions need to match" in record["detail"], record["detail"]


# -- expectations written by cause ----------------------------------------------------------------
def item(case_id, dtype, outcome, *diffs, detail=""):
    return {"id": case_id, "device": "cpu", "dtype": dtype, "outcome": outcome, "detail": detail,
            "several_dtypes": True, "diff": [dict(zip(("where", "aspect", "reference", "implementation", "unsupported"),
                                                      diff)) for diff in diffs]}


def test_expected_entries_name_the_cause_not_the_difference():
    softshrink = "torch.nn.functional.softshrink"
    lacks = (f"step 3: 1: {softshrink}(a)", "value", "tensor", "unsupported", softshrink)
    refused = ("step 9: invalid 1: torch.sin(a, b)", "raised", "TypeError: sin() takes 1", "raised nothing", None)
    tangent = ("step 5: 1: forward-mode tangents of the outputs for tangents of a", "value", "[1.0]", "[2.0]", None)
    result = {"cases": [
        item("opinfo.nn.functional.softshrink.default", "float32", "unsupported", lacks),
        item("opinfo.nn.functional.softshrink.default", "float64", "unsupported", lacks),
        item("opinfo.sin.default", "float32", "fail", refused), item("opinfo.sin.default", "float64", "fail", refused),
        item("opinfo.cos.default", "float32", "pass"), item("opinfo.cos.default", "float64", "fail", tangent),
        item("op.tan.default", "float64", "fail", refused),
    ]}
    assert expected.entries(result) == [
        "# op_db operators myautograd does not implement (1): every item stops at the name it lacks",
        "", "[[expected]]", 'case = "opinfo.nn.functional.softshrink.*"', 'outcome = "unsupported"',
        'reason = "op_db: torch.nn.functional.softshrink is not implemented"',
        "", "# an invalid call that torch refuses is not refused (1)",
        "", "[[expected]]", 'case = "opinfo.sin.default"', 'outcome = "fail"',
        'reason = "op_db: an invalid call that torch refuses is not refused"',
        "", "# forward-mode tangents differ (1)",
        "", "[[expected]]", 'case = "opinfo.cos.default"', 'dtype = "float64"', 'outcome = "fail"',
        'reason = "op_db: forward-mode tangents differ"']
    assert expected.causes(result) == {"unsupported": 2, "an invalid call that torch refuses is not refused": 2,
                                       "forward-mode tangents differ": 1}


def test_where_the_runs_part_the_cause_names_the_side_that_raised_and_the_part_of_the_sample():
    parts = ("step 11", "raised", "observed '2: gradients of a' at line 80: rec(...)", "raised IndexError: shape at line 79")
    assert expected.cause_of(item("opinfo.x.default", "float32", "fail", parts)) == (
        "a valid sample raises where torch does not (gradients)")
    reversed_sides = (*parts[:2], parts[3], parts[2])
    assert expected.cause_of(item("opinfo.x.default", "float32", "fail", reversed_sides)) == (
        "torch raises and the implementation does not (gradients)")


def test_the_mutant_harness_runs_the_database_items_with_registry(monkeypatch, capsys):
    """In a child process: loading the databases' topics adds them to the process's catalog, which the other
    tests of this worker must not see."""
    import os
    import subprocess
    import sys

    from tests.mutants import run

    def item_ids(registry: str | None) -> set[str]:
        env = {**os.environ, run.SELECTION_VARIABLE: CONV1D}
        env.pop(run.REGISTRY_VARIABLE, None)
        if registry:
            env[run.REGISTRY_VARIABLE] = registry
        done = subprocess.run([sys.executable, "-c", "from tests.mutants import run\n"
                               "print(' '.join(item.case.id for item in run._items()))"],
                              env=env, capture_output=True, text=True, check=True, cwd=run.ROOT)
        return set(done.stdout.split())

    assert item_ids(None) == set()  # the default catalog has no op_db cases
    assert item_ids("conformance.catalog:load_with_databases") == {CONV1D}
    for variable in (run.SELECTION_VARIABLE, run.REGISTRY_VARIABLE):  # main sets them: restored after the test
        monkeypatch.delenv(variable, raising=False)
    assert run.main(["--registry", "no_such_module:load", "--only", "conv_same_padding_ignores_dilation"]) == 2
    assert "--registry no_such_module:load: cannot load it (ModuleNotFoundError" in capsys.readouterr().err
    assert not any(case.topic == "opinfo" for case in load())
