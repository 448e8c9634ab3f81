"""torch.autograd.graph's utilities and gradient clipping in the catalog: the topics ``graph_utilities`` and
``clipping``.

* torch against itself passes every item of both;
* a ``clip_grad_norm_`` that ignores ``norm_type`` (``tests.broken.clip_grad_norm_ignores_norm_type``) fails the
  items that clip with another norm than 2, and no other;
* an ``increment_version`` that does nothing (``tests.broken.increment_version_does_nothing``) fails the item
  that bumps a version, at its first step;
* myautograd passes every item (before these topics it lacked GradientEdge, increment_version,
  allow_mutation_on_saved_tensors and set_multithreading_enabled, and its disable_saved_tensors_hooks was inert).
"""

from __future__ import annotations

import json

import pytest

from conformance.case import REGISTRY

TOPICS = ("graph_utilities", "clipping")
NORM_TYPE_READERS = {f"clipping.{name}" for name in (
    "clip_grad_norm_of_each_norm_type", "clip_grad_foreach_changes_nothing", "clip_grad_norm_of_non_finite_gradients")}


def cpu_cases():
    return [case for case in REGISTRY if case.topic in TOPICS and case.runs_on("cpu")]


def run(run_cli, tmp_path, impl: str):
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", " or ".join(TOPICS), "--jobs", "1",
                   "--no-progress", "--report-dir", str(out))
    return done, json.loads((out / "results.json").read_text(encoding="utf-8"))


def failed(result) -> set[str]:
    return {record["id"] for record in result["cases"] if record["outcome"] != "pass"}


@pytest.fixture(scope="module")
def topics(catalog_registry):
    cases = cpu_cases()
    assert len([c for c in cases if c.topic == "graph_utilities"]) >= 12
    assert len([c for c in cases if c.topic == "clipping"]) >= 9
    assert NORM_TYPE_READERS <= {c.id for c in cases}
    return cases


def test_torch_against_itself_passes_every_item(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "torch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["total"] == result["summary"]["pass"] == sum(len(c.dtypes) for c in topics)


def test_clip_grad_norm_ignoring_norm_type_is_caught(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "tests.broken.clip_grad_norm_ignores_norm_type")
    assert done.returncode == 1, done.stdout + done.stderr
    assert failed(result) == NORM_TYPE_READERS
    record = next(r for r in result["cases"] if r["id"] == "clipping.clip_grad_norm_of_each_norm_type")
    assert record["detail"].startswith("step 1: norm_type=1: total"), record["detail"]


def test_increment_version_doing_nothing_is_caught(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "tests.broken.increment_version_does_nothing")
    assert done.returncode == 1, done.stdout + done.stderr
    assert failed(result) == {"graph_utilities.increment_version_fails_a_later_backward"}
    record = next(r for r in result["cases"] if r["id"] == "graph_utilities.increment_version_fails_a_later_backward")
    assert record["detail"].startswith("step 1: y._version"), record["detail"]


def test_myautograd_passes_every_item(run_cli, tmp_path, topics):
    done, result = run(run_cli, tmp_path, "myautograd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(r["outcome"] for r in result["cases"]) == {"pass"}
    assert result["summary"]["pass"] == result["total"] == sum(len(c.dtypes) for c in topics)
