"""The functional higher-level API in the catalog: the topic ``autograd_functional``.

* torch against itself passes every item of the topic;
* a Jacobian returned transposed (``tests.broken.functional_jacobian_transposed``) fails the items that read a
  Jacobian or Hessian block that is not symmetric, on its shape and values, and the items that read only errors,
  products or diagonal blocks still pass;
* an ``hvp`` that ignores ``v`` (``tests.broken.functional_hvp_ignores_v``) fails the items that read ``hvp``
  with a ``v`` other than ones, at the ``hvp`` steps and not the ``vhp`` ones;
* myautograd passes every item (its profile lacks nothing, vmap and forward-mode AD included)
  ; every shipped peer profile lacks ``vmap``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.case import REGISTRY
from conformance.expectations import builtin_path, load_file

TOPIC = "autograd_functional"
TOYGRAD = Path(__file__).resolve().parent.parent / "docs" / "examples" / "toygrad.toml"
JACOBIAN_READERS = {f"{TOPIC}.{name}" for name in (
    "jacobian_single_input_and_output", "jacobian_tuples_nest", "jacobian_create_graph", "jacobian_vectorize",
    "jacobian_forward_mode", "hessian_single_and_tuple_inputs", "hessian_create_graph",
    "hessian_vectorize_and_outer_strategy", "jacobian_of_a_non_square_function")}
HVP_READERS = {f"{TOPIC}.{name}" for name in ("hvp_and_vhp_values", "hvp_and_vhp_create_graph", "hvp_and_vhp_strict")}


def cpu_cases():
    return [case for case in REGISTRY if case.topic == TOPIC and case.runs_on("cpu")]


def cpu_items() -> int:
    return sum(len(case.dtypes) for case in cpu_cases())


def run(run_cli, tmp_path, impl: str):
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", TOPIC, "--jobs", "1", "--no-progress",
                   "--report-dir", str(out))
    return done, json.loads((out / "results.json").read_text(encoding="utf-8"))


def failed(result) -> set[str]:
    return {record["id"] for record in result["cases"] if record["outcome"] != "pass"}


@pytest.fixture(scope="module")
def topic(catalog_registry):
    assert len(cpu_cases()) >= 20
    names = {case.id for case in cpu_cases()}
    assert JACOBIAN_READERS | HVP_READERS <= names


def test_torch_against_itself_passes_every_item(run_cli, tmp_path, topic):
    done, result = run(run_cli, tmp_path, "torch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["total"] == result["summary"]["pass"] == cpu_items()


def test_a_jacobian_returned_transposed_is_caught(run_cli, tmp_path, topic):
    done, result = run(run_cli, tmp_path, "tests.broken.functional_jacobian_transposed")
    assert done.returncode == 1, done.stdout + done.stderr
    assert failed(result) == JACOBIAN_READERS
    records = {(r["id"], r["dtype"]): r for r in result["cases"]}
    for dtype in ("float32", "float64"):
        record = records[(f"{TOPIC}.jacobian_single_input_and_output", dtype)]
        assert {(d["step"], d["aspect"]) for d in record["diff"]} >= {(1, "shape"), (1, "value"), (2, "value")}
    # the off-diagonal blocks of a Hessian of two inputs, not its diagonal ones
    hessian = records[(f"{TOPIC}.hessian_single_and_tuple_inputs", "float32")]
    assert {(d["step"], d["aspect"]) for d in hessian["diff"]} == {(2, "value")}, hessian["diff"]
    for name in ("jacobian_strict", "jacobian_of_non_tensors_raises", "hessian_strict", "vjp_values_and_v"):
        assert records[(f"{TOPIC}.{name}", "float32")]["outcome"] == "pass"


def test_an_hvp_that_ignores_v_is_caught(run_cli, tmp_path, topic):
    done, result = run(run_cli, tmp_path, "tests.broken.functional_hvp_ignores_v")
    assert done.returncode == 1, done.stdout + done.stderr
    assert failed(result) == HVP_READERS
    for record in result["cases"]:
        if record["id"] == f"{TOPIC}.hvp_and_vhp_values":  # steps 1 and 3 are hvp, 2 and 4 vhp, 5 hvp with v=1
            assert {(d["step"], d["aspect"]) for d in record["diff"]} == {(1, "value"), (3, "value")}
            assert record["detail"].startswith("step 1: hvp(f, (x, y), (u, w))"), record["detail"]


def test_myautograd_passes_every_item(run_cli, tmp_path, topic):
    done, result = run(run_cli, tmp_path, "myautograd")
    assert done.returncode == 0, done.stdout + done.stderr
    outcomes = {(r["id"], r["dtype"]): r["outcome"] for r in result["cases"]}
    assert set(outcomes.values()) == {"pass"}  # its profile lacks nothing: forward mode included
    assert result["summary"]["pass"] == result["total"] >= 25
    assert outcomes[(f"{TOPIC}.jacobian_vectorize", "float32")] == "pass"  # vectorize=True: on myautograd's vmap


@pytest.mark.parametrize("engine", ["mygrad", "tinygrad", "micrograd", "toygrad"])
def test_the_shipped_profiles_lack_func_transforms(engine):
    path = TOYGRAD if engine == "toygrad" else builtin_path(engine)
    assert "vmap" in load_file(path).profile.lacks
