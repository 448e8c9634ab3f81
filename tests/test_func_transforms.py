"""torch.func in the catalog: the topics ``func_transforms`` and ``func_transforms_vmap``.

* every public name of ``torch.func`` is used by some case of the two topics;
* torch against itself passes every item of both;
* two planted faults are caught where they should be, and only there: ``vmap`` reading a tuple of
  ``in_dims`` in reverse (``tests.broken.func_vmap_in_dims_reversed``) fails the items that give in_dims per
  argument, not those with one int; ``jacrev`` returning its Jacobians transposed
  (``tests.broken.func_jacrev_transposed``) fails the items that read a non-square or non-symmetric
  Jacobian from jacrev, on the values, while the Hessians (symmetric) still pass;
* myautograd, whose profile lacks nothing, passes every item of both; told that it lacks ``forward-ad``,
  the items that need forward mode are ``n/a`` and the rest pass; the peers lack every torch.func feature.
"""

from __future__ import annotations

import json
import re

import pytest

from conformance.case import REGISTRY
from conformance.expectations import builtin_path, load_file
from conformance.features import detected

SELECTION = "func_transforms"
TOPICS = {"func_transforms", "func_transforms_vmap"}
# what myautograd's torch.func lacks, as features of its profile
BEYOND_MYAUTOGRAD = {"forward-ad"}  # what the second myautograd run is told it lacks
FUNC_FEATURES = {"func-transforms", "vmap", "functional-call", "functionalize"}
# the cases that give vmap in_dims per argument, as a tuple
IN_DIMS_PER_ARGUMENT = {
    "func_transforms.per_sample_gradients", "func_transforms_vmap.vmap_over_the_first_dimension",
    "func_transforms_vmap.vmap_in_dims_and_out_dims", "func_transforms_vmap.vmap_nested_containers",
    "func_transforms_vmap.nested_vmap", "func_transforms_vmap.vmap_inplace_into_an_unbatched_tensor_raises",
    "func_transforms_vmap.ensemble_with_vmap", "func_transforms.transforms_of_an_inference_tensor",
}
JACREV_NOT_SYMMETRIC = {"func_transforms.jacrev_of_a_function", "func_transforms.jacobian_shapes",
                        "func_transforms.jacrev_with_empty_outputs", "func_transforms.jacobians_of_non_square_functions"}


def topic_cases():
    return [case for case in REGISTRY if case.topic in TOPICS]


def cpu_items(cases=None) -> int:
    """How many CPU items the cases make: each case once per dtype."""
    return sum(len(case.dtypes) for case in (topic_cases() if cases is None else cases) if case.runs_on("cpu"))


def run(run_cli, tmp_path, impl: str, *options: str):
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", SELECTION, "--jobs", "1", "--no-progress",
                   "--report-dir", str(out), *options)
    return done, json.loads((out / "results.json").read_text(encoding="utf-8"))


def outcomes(result) -> dict[str, set[str]]:
    """Case id -> the outcomes of its items (one per dtype)."""
    found: dict[str, set[str]] = {}
    for record in result["cases"]:
        found.setdefault(record["id"], set()).add(record["outcome"])
    return found


@pytest.fixture(scope="module")
def topics(catalog_registry):
    assert cpu_items() >= 40


def test_every_public_name_of_torch_func_is_used_by_a_case(topics):
    import torch  # a pinned dependency: its absence is a failure, not a skip
    sources = "\n".join(case.source for case in topic_cases())
    unused = [name for name in torch.func.__all__ if not re.search(rf"\bfunc\.{name}\(", sources)]
    assert unused == []


def test_the_detectors_see_torch_funcs_transforms():
    assert detected("torch.func.grad(f)(x); torch.func.vjp(f, x)") & FUNC_FEATURES == {"func-transforms"}
    assert detected("func.jacfwd(f)(x)") >= {"func-transforms", "vmap", "forward-ad"}
    assert detected("func.jvp(f, (x,), (v,))") >= {"func-transforms", "forward-ad"}
    assert "vmap" not in detected("func.jvp(f, (x,), (v,))")
    assert detected("func.stack_module_state(models)") & FUNC_FEATURES == {"functional-call"}
    assert detected("func.functionalize(f)(x)") & FUNC_FEATURES == {"functionalize"}
    assert not detected("torch.autograd.functional.hessian(f, x); torch.autograd.functional.jvp(f, x, v)") & (
        FUNC_FEATURES | {"forward-ad"})


def test_torch_against_itself_passes_every_func_item(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "torch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["total"] == result["summary"]["pass"] == cpu_items()
    assert {record["topic"] for record in result["cases"]} == TOPICS


def test_in_dims_applied_to_the_wrong_arguments_is_caught(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "tests.broken.func_vmap_in_dims_reversed")
    assert done.returncode == 1, done.stdout + done.stderr
    found = outcomes(result)
    assert {case for case, seen in found.items() if seen == {"fail"}} == IN_DIMS_PER_ARGUMENT
    assert all(seen == {"pass"} for case, seen in found.items() if case not in IN_DIMS_PER_ARGUMENT)
    # an int in_dims applies to every argument alike: those items pass
    assert found["func_transforms_vmap.vmap_chunk_size"] == {"pass"}


def test_a_transposed_jacobian_is_caught(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "tests.broken.func_jacrev_transposed")
    assert done.returncode == 1, done.stdout + done.stderr
    found = outcomes(result)
    assert {case for case, seen in found.items() if seen == {"fail"}} == JACREV_NOT_SYMMETRIC
    assert all(seen == {"pass"} for case, seen in found.items() if case not in JACREV_NOT_SYMMETRIC)
    records = {r["id"]: r for r in result["cases"]}
    jacobian = records["func_transforms.jacrev_of_a_function"]
    assert jacobian["detail"].startswith("step 1: jacrev(f)(x, y): 2 x 3: values"), jacobian["detail"]
    assert {d["aspect"] for d in jacobian["diff"]} >= {"value", "shape"}


def test_myautograd_passes_every_item(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "myautograd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["summary"]["pass"] == result["total"] == cpu_items()


def test_without_forward_ad_the_items_that_need_it_are_not_applicable(run_cli, tmp_path, topics):
    lacking = tmp_path / "lacks-forward-ad.toml"  # myautograd, told it does not aim for forward mode
    lacking.write_text('[profile]\nlacks = ["forward-ad"]\n', encoding="utf-8")
    done, result = run(run_cli, tmp_path, "myautograd", "--expectations", str(lacking))
    assert done.returncode == 0, done.stdout + done.stderr
    within = [case for case in topic_cases() if not set(case.features) & BEYOND_MYAUTOGRAD]
    assert result["summary"]["pass"] == cpu_items(within) >= 12
    assert result["summary"]["n/a"] == cpu_items() - cpu_items(within)
    assert result["summary"]["pass"] + result["summary"]["n/a"] == result["total"]
    for record in result["cases"]:
        needs = set(record["features"]) & BEYOND_MYAUTOGRAD
        assert record["outcome"] == ("n/a" if needs else "pass"), (record["id"], record["detail"])
    passed = {record["id"] for record in result["cases"] if record["outcome"] == "pass"}
    assert {"func_transforms.grad_has_aux", "func_transforms.vjp_has_aux_and_tuple_outputs",
            "func_transforms.grad_of_a_non_scalar_or_non_tensor_output_raises"} <= passed
    assert {"func_transforms.per_sample_gradients", "func_transforms.jacrev_of_a_function",
            "func_transforms_vmap.vmap_nested_containers", "func_transforms_vmap.ensemble_with_vmap",
            "func_transforms_vmap.vmap_inplace_into_an_unbatched_tensor_raises",
            "func_transforms_vmap.functional_call_tied_weights"} <= passed


def test_myautograds_profile_keeps_every_torch_func_feature():
    lacks = set(load_file(builtin_path("myautograd")).profile.lacks)
    assert not lacks & (FUNC_FEATURES | BEYOND_MYAUTOGRAD)


@pytest.mark.parametrize("engine", ["mygrad", "tinygrad", "micrograd"])
def test_the_peers_profiles_lack_torch_func(engine):
    assert set(load_file(builtin_path(engine)).profile.lacks) >= FUNC_FEATURES | {"forward-ad"}
