"""Forward-mode AD in the catalog: the topics ``forward_ad`` and ``forward_ad_function``.

* torch against itself passes every item of both topics;
* a planted fault in forward mode (``tests.broken.forward_ad_tangent_off``: ``unpack_dual`` returns the
  tangent off by a thousandth) fails the items that read a tangent, on the tangent, not on the primal;
* an engine whose profile lacks ``forward-ad`` (myautograd, the peers) has them ``n/a``, and the rest of
  its run still passes;
* the first ``make_dual`` of a process imports torch's forward-mode decompositions, which warn 18 times
  that ``torch.jit.script`` is deprecated; the worker imports them before it forks, so no scenario
  records those warnings.
"""

from __future__ import annotations

import json

import pytest

from conformance.case import REGISTRY
from conformance.expectations import builtin_path, load_file

SELECTION = "forward_ad"
JVP_CASE = "forward_ad.jacobian_vector_product"


def cpu_items() -> int:
    """How many CPU items ``-k forward_ad`` selects: each case once per dtype."""
    return sum(len(case.dtypes) for case in REGISTRY if SELECTION in case.id and case.runs_on("cpu"))


def run(run_cli, tmp_path, impl: str, selection: str = SELECTION, *options: str):
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", selection, "--jobs", "1", "--no-progress",
                   "--report-dir", str(out), *options)
    return done, json.loads((out / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def topics(catalog_registry):
    assert cpu_items() >= 30


def test_torch_against_itself_passes_every_forward_ad_item(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "torch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["total"] == result["summary"]["pass"] == cpu_items()
    assert {record["topic"] for record in result["cases"]} == {"forward_ad", "forward_ad_function"}


def test_a_tangent_off_by_a_thousandth_is_caught(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "tests.broken.forward_ad_tangent_off")
    assert done.returncode == 1, done.stdout + done.stderr
    records = {(r["id"], r["dtype"]): r for r in result["cases"]}
    for dtype in ("float32", "float64"):
        jvp = records[(JVP_CASE, dtype)]
        assert jvp["outcome"] == "fail", jvp["detail"]
        assert {(d["step"], d["aspect"]) for d in jvp["diff"]} == {(2, "value")}  # the tangent; the primal is right
        assert jvp["detail"].startswith("step 2: tangent: the Jacobian-vector product: values"), jvp["detail"]
    failed = {r["topic"] for r in result["cases"] if r["outcome"] == "fail"}
    assert failed == {"forward_ad", "forward_ad_function"}
    # items that read no tangent's values (errors, tangents of None) still pass
    for case_id in ("forward_ad.make_dual_outside_a_level_raises", "forward_ad.plain_tensor_has_no_tangent",
                    "forward_ad_function.function_without_jvp_raises"):
        assert records[(case_id, "float32")]["outcome"] == "pass", records[(case_id, "float32")]["detail"]


@pytest.mark.parametrize("engine", ["mygrad", "tinygrad", "micrograd"])
def test_the_peers_profiles_lack_forward_ad(engine):
    assert "forward-ad" in load_file(builtin_path(engine)).profile.lacks


def test_myautograd_passes_every_forward_ad_item(run_cli, tmp_path, topics):
    assert "forward-ad" not in load_file(builtin_path("myautograd")).profile.lacks
    done, result = run(run_cli, tmp_path, "myautograd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["summary"]["pass"] == result["total"] == cpu_items()


def test_an_engine_without_forward_ad_has_the_items_not_applicable_and_passes_the_rest(run_cli, tmp_path, topics):
    lacking = tmp_path / "lacks-forward-ad.toml"  # myautograd, told it does not aim for forward mode
    lacking.write_text('[profile]\nlacks = ["forward-ad"]\n', encoding="utf-8")
    done, result = run(run_cli, tmp_path, "myautograd", f"{SELECTION} or retain_graph.second_backward_raises",
                       "--expectations", str(lacking))
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["summary"]["n/a"] == cpu_items()
    assert result["summary"]["pass"] == result["total"] - cpu_items() > 0
    not_applicable = [r for r in result["cases"] if r["outcome"] == "n/a"]
    assert all(SELECTION in r["id"] and "forward-ad" in r["features"] for r in not_applicable)


def test_no_scenario_records_the_warnings_of_torchs_first_make_dual(run_cli):
    shown = run_cli("show", JVP_CASE)
    assert shown.returncode == 0, shown.stderr
    observed = shown.stdout.split("observes (completed):", 1)[1]
    assert "step 2: tangent: the Jacobian-vector product" in observed
    assert "warns" not in observed and "torch.jit.script" not in observed
