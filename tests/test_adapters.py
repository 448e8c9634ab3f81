"""Adapters: the worked example of docs/writing-an-adapter.md runs to the verdicts the guide shows,
and each peer adapter (a shipped adapter of another engine) whose engine is not installed stops at
start-up with one line.

The default test environment does not install the peers (MyGrad, tinygrad, micrograd): an
engine's absence is made here on purpose, with a stand-in package that raises what Python raises
for a missing module, placed first on the path of the run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conformance.implementations import PEER_ADAPTERS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"

# case id -> (outcome at semantics, at api, at drop-in, detail at drop-in or None)
EXAMPLE_VERDICTS = {
    # values and gradients match; toygrad has no torch repr, shape or requires_grad flags of results
    "leaf.backward_fills_every_leaf": ("pass", "fail", "fail", None),
    # requires_grad_() has no toygrad equivalent: missing, named in torch's spelling
    "requires_grad.requires_grad_two_ways": ("unsupported",) * 3 + ("unsupported: Tensor.requires_grad_",),
    # a list has no toygrad equivalent: the adapter's tensor() raises NotImplementedError
    "leaf.nonleaf_grad_warns": ("unsupported",) * 3 + ("unsupported: torch.tensor",),
    # no torch.autograd at all
    "autograd_grad.autograd_grad_returns_tuple": ("unsupported",) * 3 + ("unsupported: torch.autograd",),
    # toygrad does not warn when the .grad of a non-leaf is read: a real difference
    "leaf.only_leaves_keep_grad": ("fail", "fail", "fail", None),
    # the profile says toygrad does not aim at tensors of several elements
    "accumulation.grad_is_none_until_backward": ("n/a",) * 3 + (None,),
}


def test_the_worked_example_runs_to_the_verdicts_the_guide_shows(run_cli, tmp_path):
    selection = " or ".join(EXAMPLE_VERDICTS)
    done = run_cli("run", "--impl", "toygrad_adapter:namespace", "--expectations", str(EXAMPLES / "toygrad.toml"),
                   "--device", "cpu", "-k", selection, "--report-dir", str(tmp_path), "--jobs", "1", "--no-progress",
                   env={"PYTHONPATH": os.pathsep.join([str(EXAMPLES), str(ROOT)])})
    assert done.returncode == 1, done.stderr  # drop-in decides the exit status: the example fails it
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["implementation"]["version"] == "1.0"
    got = {case["id"]: case for case in results["cases"]}  # -k matches words inside ids: maybe a few more
    assert set(EXAMPLE_VERDICTS) <= set(got)
    for case_id, (semantics, api, drop_in, detail) in EXAMPLE_VERDICTS.items():
        case = got[case_id]
        assert case["levels"] == {"semantics": semantics, "api": api, "drop-in": drop_in}, (case_id, case["detail"])
        if detail is not None:
            assert case["detail"] == detail, case_id


def test_the_worked_example_is_what_the_guide_shows():
    guide = (ROOT / "docs" / "writing-an-adapter.md").read_text(encoding="utf-8")
    adapter = (EXAMPLES / "toygrad_adapter.py").read_text(encoding="utf-8")
    assert "docs/examples/toygrad_adapter.py" in guide
    for name in ("class Tensor", "def wrap", "def tensor", "__conformance_module__"):
        assert name in adapter and name in guide, name


def _stand_in_for_a_missing(tmp_path: Path, engine: str) -> Path:
    """A directory holding a package ``engine`` that raises what Python raises when it is not installed."""
    package = tmp_path / "missing" / engine
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{engine}'\", name={engine!r})\n",
                                         encoding="utf-8")
    return package.parent


@pytest.mark.parametrize("engine", sorted(PEER_ADAPTERS))
def test_a_shipped_adapter_without_its_engine_stops_with_one_line(run_cli, tmp_path, engine):
    missing = _stand_in_for_a_missing(tmp_path, engine)
    done = run_cli("run", "--impl", engine, "--device", "cpu", "-k", "leaf.backward_fills_every_leaf",
                   "--report-dir", str(tmp_path / "reports"), "--no-progress",
                   env={"PYTHONPATH": os.pathsep.join([str(missing), str(ROOT)])})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"the {engine} adapter needs {engine}" in lines[0]
    assert "pip install 'autograd-conformance[peers]'" in lines[0]
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("engine", sorted(PEER_ADAPTERS))
def test_each_shipped_adapter_has_a_profile_that_loads(engine):
    from conformance.expectations import builtin_path, load_file

    profile = load_file(builtin_path(engine)).profile
    assert profile.lacks and profile.note
    assert "cuda" not in profile.lacks or engine != "tinygrad"  # tinygrad has CUDA; only the adapter maps the CPU


def test_the_peers_extra_pins_the_engines_the_adapters_were_checked_with():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for pin in ("mygrad==2.5.0", "tinygrad==0.14.0", "micrograd==0.1.0"):
        assert pin in pyproject
    tox = (ROOT / "tox.ini").read_text(encoding="utf-8")
    assert "[testenv:peers]" in tox
    for engine in ("torch", "myautograd", *PEER_ADAPTERS):
        assert f"--impl {engine} " in tox
    assert "python -m conformance matrix" in tox
