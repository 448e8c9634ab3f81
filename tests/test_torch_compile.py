"""torch.compile as the implementation under test (``--impl torch-compile*``, ``conformance/adapters/torch_compile.py``).

* the CI smoke: a handful of catalog items with ``torch-compile-aot-eager`` through the command
  line, warm-up included, pass at the level its file names, every step at the scenario line torch
  records it at, and the results show that the regions ran compiled (compiled graphs' nodes);
* a planted compiler bug, a backend that wraps AOTAutograd and zeroes one gradient of every
  backward graph (``tests.broken.compile_zeroes_gradient``), is caught on the same items;
* every shipped name resolves to a namespace whose version says how it compiles, and finds its
  expectations file, for ``run``, ``fuzz`` and the pytest plugin alike.
"""

from __future__ import annotations

import json

import pytest

from conformance import expectations
from conformance.implementations import ADAPTERS, TORCH_COMPILE_ADAPTERS, TORCH_COMPILE_VARIANTS, resolve

SMOKE = ("accumulation.grad_accumulates_across_backward_calls", "hooks.hook_replaces_grad_until_removed",
         "retain_graph.second_backward_raises", "nonscalar.gradient_shape_mismatch_raises",
         "leaf.backward_fills_every_leaf", "leaf.leaf_has_no_grad_fn", "higher_order.hessian_vector_product")
AOT_EAGER_FILE = str(expectations.BUILTIN_DIR / "torch-compile-aot-eager.toml")


def run_smoke(run_cli, tmp_path, impl: str, *extra: str) -> tuple[int, dict]:
    done = run_cli("run", "--impl", impl, "-k", " or ".join(SMOKE), "--device", "cpu", "--jobs", "2",
                   "--report-dir", str(tmp_path), "--no-progress", "--full-observations", *extra, timeout=240)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def smoke(run_cli, tmp_path_factory):
    return run_smoke(run_cli, tmp_path_factory.mktemp("aot-eager"), "torch-compile-aot-eager")


def test_the_smoke_selection_passes_with_aot_eager(smoke):
    status, results = smoke
    assert results["implementation"]["version"].endswith("(torch.compile, backend aot_eager)")
    assert results["level"] == "api" and results["warnings"]["set_aside_from"]
    outcomes = {record["id"]: record["outcome"] for record in results["cases"]}
    assert outcomes == {**{case: "pass" for case in SMOKE}, "higher_order.hessian_vector_product": "xfail"}, \
        [(r["id"], r["detail"]) for r in results["cases"] if r["outcome"] != "pass"]
    assert status == 0


def test_each_step_is_where_torch_records_it_and_the_regions_ran_compiled(smoke):
    _, results = smoke
    compiled = []
    for record in results["cases"]:
        reference, implementation = record["reference"]["steps"], record["implementation"]["steps"]
        if record["outcome"] == "pass":
            assert [(s["label"], s["line"], s["source"]) for s in implementation] == \
                   [(s["label"], s["line"], s["source"]) for s in reference], record["id"]
        compiled += [record["id"] for step in implementation if "CompiledFunctionBackward" in json.dumps(step)]
    assert "leaf.leaf_has_no_grad_fn" in compiled  # a tensor made in a compiled region has the region's node


def test_a_backend_that_zeroes_a_gradient_is_caught(run_cli, tmp_path, smoke):
    status, results = run_smoke(run_cli, tmp_path, "tests.broken.compile_zeroes_gradient",
                                "--expectations", AOT_EAGER_FILE)
    assert status == 1
    record = next(r for r in results["cases"] if r["id"] == "leaf.backward_fills_every_leaf")
    assert record["levels"]["semantics"] == "fail"
    first = record["diff"][0]
    assert (first["aspect"], first["where"], first["reference"], first["implementation"]) == \
        ("gradient", "step 1: x.grad: values", "12.0", "0.0")
    caught = {r["id"] for r in results["cases"] if any(d["aspect"] == "gradient" for d in r.get("diff") or ())}
    assert len(caught) >= 3, caught  # the same items pass with aot_eager (the smoke fixture)


def test_every_shipped_name_resolves_and_finds_its_file():
    assert set(TORCH_COMPILE_ADAPTERS) <= set(ADAPTERS)
    assert len(TORCH_COMPILE_ADAPTERS) == 2 * len(TORCH_COMPILE_VARIANTS)
    for name in TORCH_COMPILE_ADAPTERS:
        loaded = resolve(name)
        assert loaded.module_name == "torch" and "torch.compile" in loaded.version, name
        assert (":dynamic" in name) == ("dynamic" in loaded.version)
        assert callable(loaded.namespace.__conformance_run__) and callable(loaded.namespace.__conformance_warm_up__)
        assert loaded.namespace.float32 is __import__("torch").float32
        path = expectations.builtin_path(name)
        assert path is not None and path.name == f"{name.partition(':')[0]}.toml", name
        rule = expectations.load_file(path)
        assert "torch._dynamo" in rule.warnings.set_aside_from and rule.run.timeout and rule.run.level == "api"
    assert "compiled autograd" in resolve("torch-compile-compiled-autograd").version


def test_the_pytest_plugin_and_the_fuzzer_take_the_same_names(tmp_path):
    from conformance.pytest_plugin import ConformanceSession

    session = ConformanceSession("torch-compile-aot-eager:dynamic", None)
    assert session.problem is None
    assert (session.timeout, session.level) == (120.0, "api")
    assert "torch._dynamo" in session.impl_file.warnings.set_aside_from
