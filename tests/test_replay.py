"""``python -m conformance replay``: one item on both sides, step by step; ``--script``: the item as a
standalone script that runs on any engine with no import of the suite.

The command runs in subprocesses, against torch, myautograd and the planted broken implementations
of ``tests/broken`` (faults installed in the forked side; a standalone script installs them in its
own process under ``BROKEN_STANDALONE=1``). The scripts run with plain ``python`` from a directory
where an import of ``conformance`` fails.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import normalize, script, standalone
from conformance.case import Case, Doc
from conformance.item import Item

ROOT = Path(__file__).resolve().parent.parent
BEHAVIOUR = "accumulation.grad_accumulates_across_backward_calls"
HELPER = "function.once_differentiable_result_without_grad"      # calls once_differentiable_square, a module-level helper
IMPORT = "nondiff.deepcopy_leaf_and_nonleaf"                      # uses the module ``copy`` its catalog file imports
OPERATOR = "op.sin.default[cpu,float64]"                          # calls random_floats, injected into generated cases
MESSAGE = "retain_graph.second_backward_raises"                   # ends with torch's message for a second backward
FORWARD_MODE = "forward_ad.jacobian_vector_product"    # torch's first make_dual imports a module that warns
CLASS = "function.legacy_non_static_forward"     # torch's warning names a class the scenario defines, by its module


# -- the command -------------------------------------------------------------------------------------
@pytest.mark.parametrize("item", [BEHAVIOUR, OPERATOR])
def test_replay_against_torch_passes_and_shows_every_step(run_cli, item):
    result = run_cli("replay", item, "--impl", "torch")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "checks: " in out and "source (" in out
    assert "[differs]" not in out and "differences, most severe first" not in out
    assert "outcome: semantics pass, api pass, drop-in pass" in out
    assert out.rstrip().endswith("exit status 0: pass at drop-in")
    if item == BEHAVIOUR:
        assert "  step 2: x.grad after two backward  (line 9: rec(\"x.grad after two backward\", x.grad))" in out
        assert out.count("tensor([6.0, 6.0], dtype=torch.float32") == 2  # both sides
    else:
        assert "op.sin.default[cpu,float64]: sin (default)" in out
        assert "  step 2: 1: gradients of x" in out and "dtype=torch.float64" in out


def test_replay_against_a_broken_implementation_marks_the_step_and_lists_the_difference(run_cli):
    result = run_cli("replay", BEHAVIOUR, "--impl", "tests.broken.no_accumulation")
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "  step 1: x.grad after one backward" in out
    assert "  step 2 [differs]: x.grad after two backward" in out
    assert "differences, most severe first (1):\n  1. [gradient, counts from semantics] step 2: x.grad after two " \
           "backward: values\n       torch:          [6.0, 6.0]\n       implementation: [3.0, 3.0]" in out
    assert "outcome: semantics fail, api fail, drop-in fail" in out
    assert out.rstrip().endswith("exit status 1: fail at drop-in")


def test_replay_of_an_operator_case_against_a_broken_implementation(run_cli):
    result = run_cli("replay", OPERATOR, "--impl", "tests.broken.grad_results_off")
    assert result.returncode == 1, result.stderr
    assert "  step 2 [differs]: 1: gradients of x" in result.stdout
    assert "[gradient, counts from semantics] step 2: 1: gradients of x[0]: values" in result.stdout


def test_replay_says_where_the_gradients_first_diverge(run_cli):
    result = run_cli("replay", "broadcast.add_grads_summed_to_operand_shape", "--impl", "tests.broken.gradients.broadcast")
    assert result.returncode == 1, result.stderr
    assert ("where gradients diverge: gradients first diverge at AddBackward0 (position 0.0) in call 1 "
            "`y.sum().backward()`") in result.stdout


def test_the_level_decides_the_exit_status(run_cli):
    """The message of the second backward differs: a fail at drop-in, a pass at api."""
    at_api = run_cli("replay", MESSAGE, "--impl", "tests.broken.message_changed", "--level", "api")
    assert at_api.returncode == 0, at_api.stdout + at_api.stderr
    assert "[message, counts from drop-in]" in at_api.stdout
    assert "outcome: semantics pass, api pass, drop-in fail" in at_api.stdout
    assert at_api.stdout.rstrip().endswith("exit status 0: pass at api")


def test_replay_judges_as_a_run_by_the_implementations_file(run_cli, tmp_path):
    """Its [run] level decides (no --level given), its [[explained]] entries do not count, and the
    warnings it sets aside by origin are not compared."""
    file = tmp_path / "impl.toml"
    file.write_text('[run]\nlevel = "api"\n')
    at_file_level = run_cli("replay", MESSAGE, "--impl", "tests.broken.message_changed", "--expectations", str(file))
    assert at_file_level.stdout.rstrip().endswith("exit status 0: pass at api"), at_file_level.stdout
    file.write_text('[[explained]]\ncase = "retain_graph.*"\naspect = "message"\nreason = "reworded on purpose"\n')
    explained = run_cli("replay", MESSAGE, "--impl", "tests.broken.message_changed", "--expectations", str(file))
    assert "       explained, does not count: reworded on purpose" in explained.stdout
    assert "explained: reworded on purpose" in explained.stdout
    assert explained.stdout.rstrip().endswith("exit status 0: pass at drop-in"), explained.stdout
    noisy = ("replay", BEHAVIOUR, "--impl", "tests.broken.noisy_compiler")
    assert run_cli(*noisy).returncode == 1
    file.write_text('[warnings]\nset_aside_from = ["tests.broken._noisy_diagnostics"]\nreason = "diagnostics"\n')
    quiet = run_cli(*noisy, "--expectations", str(file))
    assert quiet.returncode == 0, quiet.stdout


@pytest.mark.parametrize("args, message", [
    ([BEHAVIOUR[:-1]], f"no case '{BEHAVIOUR[:-1]}' (did you mean {BEHAVIOUR}, "),
    (["grad_accumulates_across_backward_calls"], f"(did you mean {BEHAVIOUR}?); `conformance list -k WORD` lists"),
    ([BEHAVIOUR, "--device", "tpu"], "unknown device 'tpu'; expected one of cpu, cuda"),
    ([BEHAVIOUR, "--dtype", "float64"], f"case {BEHAVIOUR} runs in float32, not float64"),
    (["op.sin.default[cpu,int32]"], "case op.sin.default runs in float32, float64, complex64, complex128, float16, "
                                    "bfloat16, not int32"),
    (["op.sin.default[cpu,float64]", "--dtype", "float32"], "op.sin.default[cpu,float64] names float64, but --dtype "
                                                              "says float32"),
    ([BEHAVIOUR, "--script", "/nonexistent/dir/case.py"], "the directory /nonexistent/dir does not exist"),
    ([BEHAVIOUR, "--timeout", "0"], "'0' is out of range"),
])
def test_bad_input_is_one_line_and_exit_status_2(run_cli, args, message):
    result = run_cli("replay", *args, "--impl", "torch")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_what_a_hostile_implementation_says_reaches_the_console_and_the_script_escaped(run_cli, tmp_path):
    """Its exception message is full of escape sequences, a carriage return and NUL; its version's str() raises."""
    path = tmp_path / "hostile.py"
    result = run_cli("replay", "attacks.huge_message", "--impl", "tests.broken.hostile.in_case",
                     "--registry", "tests.broken.hostile.attacks:ATTACKS", "--script", str(path))
    assert result.returncode == 1, result.stderr
    text = path.read_text()
    for written in (result.stdout, text):
        assert not any(c in written for c in "\x1b\r\x00")
        assert "\\x1b[2J\\x1b[31mred\\x0dover\\x00mmm" in written
    assert "  step 1 [differs]: x.grad  (line 3: _square_sum(torch, rec))" in result.stdout
    ast.parse(text)
    comments = " ".join(line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#"))
    assert ("(`python -m conformance replay 'attacks.huge_message[cpu]' --impl tests.broken.hostile.in_case "
            "--registry tests.broken.hostile.attacks:ATTACKS --script hostile.py`)") in comments
    assert "\ndef _square_sum(torch, rec):" in text  # a helper of a catalog of the tests


# -- the standalone script ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> dict[str, Path]:
    """The scripts of the items above, written by replays against myautograd (which passes them)."""
    directory = tmp_path_factory.mktemp("scripts")
    written = {}
    for item in (BEHAVIOUR, HELPER, IMPORT, OPERATOR, MESSAGE, CLASS):
        path = directory / (item.replace("[", "-").replace("]", "").replace(",", "-") + ".py")
        result = subprocess.run([sys.executable, "-m", "conformance", "replay", item, "--impl", "myautograd",
                                 "--script", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"script: {path}" in result.stdout
        written[item] = path
    return written


@pytest.fixture(scope="module")
def no_suite(tmp_path_factory) -> Path:
    """A directory holding a ``conformance`` package whose import fails, put first on the path."""
    directory = tmp_path_factory.mktemp("no_suite")
    (directory / "conformance").mkdir()
    (directory / "conformance" / "__init__.py").write_text(
        'raise ImportError("a standalone script imported the suite")\n')
    return directory


def run_script(path: Path, no_suite: Path, *args: str, broken: bool = False) -> subprocess.CompletedProcess:
    """``python SCRIPT ARGS`` from the script's directory; the repository (myautograd, tests.broken) on the
    path after a ``conformance`` that cannot be imported."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(no_suite), str(ROOT)])}
    env.pop("BROKEN_STANDALONE", None)
    if broken:
        env["BROKEN_STANDALONE"] = "1"
    return subprocess.run([sys.executable, str(path), *args], cwd=path.parent, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("item", [BEHAVIOUR, HELPER, IMPORT, OPERATOR, CLASS])
@pytest.mark.parametrize("engine", ["torch", "myautograd"])
def test_a_script_runs_standalone_and_matches_on_torch_and_myautograd(scripts, no_suite, item, engine):
    args = () if engine == "torch" else ("--impl", engine)
    result = run_script(scripts[item], no_suite, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DIFFERS" not in result.stdout
    assert result.stdout.count("  matches torch ") == result.stdout.count("\nstep ")
    assert result.stdout.rstrip().endswith("observed, at drop-in (exit status 0)")


def test_a_forward_mode_script_runs_standalone_on_torch(tmp_path, no_suite):
    """torch's first forward-mode use imports a module whose import warns; the script imports it quietly
    first, as the worker does, so the scenario's first step does not record those warnings."""
    path = tmp_path / "jvp.py"
    written = subprocess.run([sys.executable, "-m", "conformance", "replay", FORWARD_MODE, "--impl", "torch",
                              "--script", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert written.returncode == 0, written.stdout + written.stderr
    result = run_script(path, no_suite)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("observed, at drop-in (exit status 0)")


@pytest.mark.parametrize("item, broken, where", [
    (BEHAVIOUR, "no_accumulation", "step 2: x.grad after two backward: values"),
    (HELPER, "grad_results_off", "step 1: g: values"),
    (IMPORT, "perturb_far", "step 1: c = deepcopy(x).grad: values"),
    (OPERATOR, "grad_results_off", "step 2: 1: gradients of x[0]: values"),
    (MESSAGE, "message_changed", "step 2: raised: message"),
])
def test_a_script_stops_at_the_difference_of_a_broken_implementation(scripts, no_suite, item, broken, where):
    result = run_script(scripts[item], no_suite, "--impl", f"tests.broken.{broken}", broken=True)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("  DIFFERS (") and f"): {where}: torch " in line for line in lines), result.stdout
    assert lines[-1].startswith("stopped: this step differs from what torch ")
    assert lines[-1].endswith("(exit status 1)")
    differing = next(i for i, line in enumerate(lines) if line.startswith("  DIFFERS"))
    assert not any(line.startswith("step ") for line in lines[differing:]), "the run goes on after a difference"


def test_a_script_stops_only_at_differences_that_count_at_its_level(scripts, no_suite):
    result = run_script(scripts[MESSAGE], no_suite, "--impl", "tests.broken.message_changed", "--level", "api",
                        broken=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "  DIFFERS (message; counts only at drop-in): step 2: raised: message" in result.stdout


def test_a_script_names_an_engine_it_cannot_import_in_one_line(scripts, no_suite):
    result = run_script(scripts[BEHAVIOUR], no_suite, "--impl", "no_such_engine")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot import no_such_engine: ModuleNotFoundError" in result.stderr


def test_a_script_imports_nothing_of_the_suite_and_says_what_it_replays(scripts):
    text = scripts[HELPER].read_text()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            assert not any(alias.name.split(".")[0] == "conformance" for alias in node.names)
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and (node.module or "").split(".")[0] != "conformance"
    header = text[:text.index("from __future__")]
    assert f"# Standalone replay of {HELPER} on cpu in float32" in header
    assert "# Expected: what torch 2." in header and "# Replayed against myautograd " in header
    assert "the same at every level" in header
    assert "def once_differentiable_square(torch):" in text      # the helper, from its catalog file
    assert "@case(" not in text                                   # the scenario, without its decorator


def test_the_header_lists_the_differences_of_the_replay(run_cli, tmp_path):
    path = tmp_path / "broken.py"
    result = run_cli("replay", BEHAVIOUR, "--impl", "tests.broken.no_accumulation", "--script", str(path))
    assert result.returncode == 1, result.stderr
    header = path.read_text().split("\nfrom __future__")[0]
    assert "# Replayed against tests.broken.no_accumulation " in header
    assert "fail at semantics, fail at api, fail at drop-in" in header
    assert "#   - [gradient] step 2: x.grad after two backward: values: torch [6.0, 6.0] / implementation [3.0, 3.0]" \
           in header


# -- what a script holds --------------------------------------------------------------------------------
def test_what_a_scenario_needs_is_found_from_the_names_it_reads(catalog_registry):
    _, needs = script.plan(catalog_registry.get(IMPORT))
    assert needs.imports == ["import copy"] and needs.blocks == []
    _, needs = script.plan(catalog_registry.get(HELPER))
    assert [origin for origin, _ in needs.blocks] == [
        "once_differentiable_square, from conformance/catalog/function.py"]
    _, needs = script.plan(catalog_registry.get("op.sin.default"))
    assert sorted(needs.imports) == ["import math", "import numpy as np"]
    written = [origin.split(",")[0] for origin, _ in needs.blocks]
    # dependencies first: the values' helpers, then the vmap steps' check and what it calls
    assert written == ["a constant", "a constant", "drawn", "_holds_complex", "tidy", "random_floats", "a constant",
                       "leaves", "values_of", "within_tolerance", "reproduces", "differing"]


UNWRITABLE = object()
CONSTANT = (1.5, "two", [3])


def uses_an_object(torch, rec):
    rec("x", UNWRITABLE)


def uses_the_suite(torch, rec):
    rec("x", standalone.PREVIEW)


def uses_a_constant(torch, rec):
    rec("x", CONSTANT)


def a_case(scenario) -> Case:
    return Case(id=f"test.{scenario.__name__}", title="t", doc=Doc("https://pytorch.org", "t"), scenario=scenario)


def test_what_cannot_be_written_out_is_refused_before_anything_runs():
    with pytest.raises(script.ScriptError, match="'UNWRITABLE', an object of type object that cannot be written"):
        script.check(a_case(uses_an_object))
    with pytest.raises(script.ScriptError, match="the module conformance.standalone of the suite itself"):
        script.check(a_case(uses_the_suite))
    _, needs = script.plan(a_case(uses_a_constant))
    assert needs.blocks == [("a constant", "CONSTANT = (1.5, 'two', [3])\n")]


# -- the recorder a script holds ------------------------------------------------------------------------
def test_the_recorder_imports_only_the_standard_library():
    tree = ast.parse(Path(standalone.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported and imported <= set(sys.stdlib_module_names)


def test_the_recorder_normalises_texts_as_the_suite_does(catalog_registry):
    for rule in normalize.COMMON_RULES:
        assert standalone.normalized(rule.example) == rule.expected, rule.name
    rule = normalize.module_name_rule("myautograd")
    assert standalone.normalized(rule.example, "myautograd") == rule.expected
    assert standalone.normalized(rule.example) == rule.example  # torch's side is not renamed
    settings = script.settings_of(Item(catalog_registry.get(BEHAVIOUR), "cpu", "float32"), "2.13.0")
    comparison = standalone.Comparison(settings, None)
    for ignored in normalize.IGNORED_WARNINGS:
        category, message = ignored.example.split(": ", 1)
        step = {"warnings": [{"category": category, "message": message}]}
        assert comparison.warnings(step, engine=True) == [], ignored.name
