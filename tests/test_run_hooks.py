"""What an implementation's namespace and file may decide beside its API: how a scenario runs (the run
hook), a warm-up before the worker forks, warnings set aside by origin, and its run settings.

* ``__conformance_run__`` is called instead of the scenario: a planted hook that runs every
  scenario under ``no_grad`` (``tests.broken.run_under_no_grad``) is caught;
* ``__conformance_warm_up__`` runs once in the side worker, before it forks the items' children;
* every recorded warning keeps its origin; the judge leaves out, on both sides, the warnings
  issued from the modules of ``[warnings] set_aside_from`` and judges every other, and the
  reports say so;
* ``[run] timeout`` and ``level`` apply where the command line does not say; each field of
  ``[warnings]`` and ``[run]`` is checked.
"""

from __future__ import annotations

import json

import pytest

from conformance import docs, expectations
from conformance.case import Registry, case
from conformance.implementations import resolve
from conformance.item import Item
from conformance.judge import judge
from tests.support.sides import judged, observed

FAKES = "tests.fakes.cases:VERDICT_CASES"
HOOK_CASES = Registry()


@case("A product of a leaf, its gradient, and a warning the program gives", doc=docs.TENSOR_BACKWARD,
      devices=("cpu",), registry=HOOK_CASES)
def product_that_warns(torch, rec):
    import warnings

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = rec("x * 3", x * 3)
    warnings.warn("the program's own warning", UserWarning, stacklevel=1)
    y.sum().backward()
    rec("x.grad", x.grad)


# -- the run hook ----------------------------------------------------------------------------
def test_a_run_hook_decides_how_the_scenario_runs_and_a_planted_one_is_caught(reference_impl):
    record = judged(HOOK_CASES.get("test_run_hooks.product_that_warns"), reference_impl,
                    resolve("tests.broken.run_under_no_grad"))
    assert record["levels"]["semantics"] == "fail", record["detail"]
    found = {d["where"]: d for d in record["diff"]}
    assert found["step 1: x * 3: requires_grad"]["implementation"] == "False"
    assert found["step 2"]["aspect"] == "raised"  # the backward of a product that does not require grad raises
    assert "does not require grad" in found["step 2"]["implementation"]


def test_a_hook_that_runs_the_scenario_as_it_is_changes_only_what_it_adds(reference_impl):
    record = judged(HOOK_CASES.get("test_run_hooks.product_that_warns"), reference_impl,
                    resolve("tests.broken.noisy_compiler"))
    # the hook ran the scenario unchanged; the one difference is the hook's own warning, on step 1
    assert [d["where"] for d in record["diff"]] == ["step 1: x * 3: warnings"], record["diff"]


def test_the_warm_up_runs_once_in_the_worker_before_it_forks_the_items(run_cli, tmp_path):
    log = tmp_path / "hooks.log"
    done = run_cli("run", "--impl", "tests.broken.warmed_up", "--registry", FAKES, "-k",
                   "leaf_with_requires_grad or zero_grad_in_place", "--device", "cpu", "--jobs", "1",
                   "--report-dir", str(tmp_path / "out"), "--no-progress", env={"CONFORMANCE_TEST_HOOK_LOG": str(log)})
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    warm = [int(fields[1]) for fields in lines if fields[0] == "warm"]
    runs = [(int(fields[1]), int(fields[2])) for fields in lines if fields[0] == "run"]
    assert len(warm) == 1 and len(runs) == 2, lines
    assert lines[0][0] == "warm"
    assert all(parent == warm[0] and child != warm[0] for child, parent in runs), lines


def test_a_warm_up_that_raises_stops_the_run_with_one_line(run_cli, tmp_path):
    done = run_cli("run", "--impl", "tests.broken.warmed_up", "--registry", FAKES, "-k", "leaf_with_requires_grad",
                   "--device", "cpu", "--report-dir", str(tmp_path), "--no-progress",
                   env={"CONFORMANCE_TEST_HOOK_LOG": str(tmp_path / "no-such-dir" / "hooks.log")})
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "could not start: FileNotFoundError" in done.stderr, done.stderr


# -- warnings set aside ----------------------------------------------------------------------
def test_each_warning_keeps_the_module_it_came_from(reference_impl):
    side = observed(HOOK_CASES.get("test_run_hooks.product_that_warns"), resolve("tests.broken.noisy_compiler").namespace)
    first, second = side["steps"][0]["warnings"], side["steps"][1]["warnings"]
    assert [w["origin"] for w in first] == ["tests.broken._noisy_diagnostics"]
    assert [w["origin"] for w in second] == ["tests.test_run_hooks"]


def warning_step(origin: str | None) -> dict:
    warning = {"category": "UserWarning", "message": "something"} | ({"origin": origin} if origin else {})
    return {"label": "y", "line": 3, "source": "rec('y', y)", "warnings": [warning], "stdout": "", "value": 1.0}


@pytest.mark.parametrize(("origin", "judged_at_all"), [
    ("torch._dynamo", False),
    ("torch._dynamo.variables.tensor", False),
    ("<string>", False),
    ("torch._dynamo_like", True),        # not inside torch._dynamo
    ("torch.autograd.graph", True),
    ("conformance.catalog.leaf", True),
    (None, True),                        # a result without origins (an older worker): judged
])
def test_warnings_from_a_set_aside_module_are_not_judged_and_others_are(origin, judged_at_all):
    item = Item(HOOK_CASES.get("test_run_hooks.product_that_warns"), "cpu", "float32")
    quiet = {"status": "completed", "steps": [{**warning_step(None), "warnings": []}], "duration": 0.0}
    noisy = {"status": "completed", "steps": [warning_step(origin)], "duration": 0.0}
    record = judge(item, quiet, noisy, "torch", set_aside_from=("torch._dynamo", "<string>")).as_dict()
    assert record["outcome"] == ("fail" if judged_at_all else "pass"), record["diff"]
    assert bool(noisy["steps"][0]["warnings"][0].get("set_aside")) is not judged_at_all
    unruled = judge(item, quiet, {**noisy, "steps": [warning_step(origin)]}, "torch").as_dict()
    assert unruled["outcome"] == "fail"  # without the rule every warning is judged


def test_a_set_aside_mark_the_implementation_sends_is_not_trusted():
    item = Item(HOOK_CASES.get("test_run_hooks.product_that_warns"), "cpu", "float32")
    forged = warning_step("tests.anything")
    forged["warnings"][0]["set_aside"] = True
    record = judge(item, {"status": "completed", "steps": [{**warning_step(None), "warnings": []}]},
                   {"status": "completed", "steps": [forged]}, "torch", set_aside_from=("torch._dynamo",)).as_dict()
    assert record["outcome"] == "fail" and "set_aside" not in forged["warnings"][0]


def test_the_rule_reaches_the_judge_and_the_reports(run_cli, tmp_path):
    rule = tmp_path / "noisy.toml"
    rule.write_text('[warnings]\nset_aside_from = ["tests.broken._noisy_diagnostics"]\n'
                    'reason = "the diagnostics of the planted compiler"\n', encoding="utf-8")
    args = ("run", "--impl", "tests.broken.noisy_compiler", "--registry", FAKES, "-k", "leaf_with_requires_grad",
            "--device", "cpu", "--no-progress")
    ruled = run_cli(*args, "--expectations", str(rule), "--report-dir", str(tmp_path / "ruled"), "--full-observations")
    assert ruled.returncode == 0, ruled.stdout + ruled.stderr
    results = json.loads((tmp_path / "ruled" / "results.json").read_text(encoding="utf-8"))
    assert results["warnings"] == {"set_aside_from": ["tests.broken._noisy_diagnostics"],
                                   "reason": "the diagnostics of the planted compiler"}
    [warning] = results["cases"][0]["implementation"]["steps"][0]["warnings"]
    assert warning["set_aside"] is True
    html = (tmp_path / "ruled" / "report.html").read_text(encoding="utf-8")
    assert "warnings set aside" in html and "the diagnostics of the planted compiler" in html
    summary = (tmp_path / "ruled" / "summary.md").read_text(encoding="utf-8")
    assert "Warnings set aside" in summary and "tests.broken.\\_noisy\\_diagnostics" in summary  # markdown-escaped
    bare = tmp_path / "bare.toml"
    bare.write_text("", encoding="utf-8")
    unruled = run_cli(*args, "--expectations", str(bare), "--report-dir", str(tmp_path / "unruled"))
    assert unruled.returncode == 1, unruled.stdout + unruled.stderr
    assert "step 1: x: warnings" in unruled.stdout


# -- run settings --------------------------------------------------------------------------------
def test_the_implementation_file_sets_the_timeout_and_level_where_the_command_line_does_not(run_cli, tmp_path):
    settings = tmp_path / "hang.toml"
    settings.write_text('[run]\ntimeout = 2\nlevel = "semantics"\n', encoding="utf-8")
    done = run_cli("run", "--impl", "tests.broken.hang", "--registry", FAKES, "-k", "zero_grad_in_place",
                   "--device", "cpu", "--expectations", str(settings), "--report-dir", str(tmp_path / "out"),
                   "--no-progress")
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert (results["timeout"], results["level"]) == (2.0, "semantics")
    assert results["cases"][0]["outcome"] == "timeout" and "no result within 2 s" in results["cases"][0]["detail"]
    assert done.returncode == 1
    given = run_cli("run", "--impl", "tests.broken.hang", "--registry", FAKES, "-k", "zero_grad_in_place",
                    "--device", "cpu", "--expectations", str(settings), "--report-dir", str(tmp_path / "given"),
                    "--no-progress", "--timeout", "1", "--level", "api")
    results = json.loads((tmp_path / "given" / "results.json").read_text(encoding="utf-8"))
    assert (results["timeout"], results["level"]) == (1.0, "api"), given.stderr


@pytest.mark.parametrize(("text", "message"), [
    ('[warnings]\nset_aside_from = ["torch._dynamo"]\n', "set_aside_from needs a reason"),
    ('[warnings]\nset_aside_from = ["torch/_dynamo"]\nreason = "r"\n', "must list module names"),
    ('[warnings]\nset_aside_from = "torch._dynamo"\nreason = "r"\n', "set_aside_from must be a list"),
    ('[warnings]\nignore = ["x"]\n', "unknown key 'ignore'"),
    ('[run]\ntimeout = 0\n', "timeout must be a positive number of seconds"),
    ('[run]\nprogram_timeout = true\n', "program_timeout must be a positive number of seconds"),
    ('[run]\nstartup_timeout = 1e9\n', "startup_timeout must be a positive number of seconds"),
    ('[run]\nlevel = "strict"\n', "level 'strict' is not one of semantics, api, drop-in"),
    ('[run]\nretries = 2\n', "unknown key 'retries'"),
    ('run = 3\n', r"\[run\] must be a table"),
])
def test_malformed_warnings_and_run_tables_are_refused_with_one_line(tmp_path, text, message):
    path = tmp_path / "implementation.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(expectations.ExpectationError, match=message):
        expectations.load_file(path)


def test_a_malformed_run_table_stops_the_cli_with_one_line_and_status_2(run_cli, tmp_path):
    path = tmp_path / "implementation.toml"
    path.write_text("[run]\ntimeout = -1\n", encoding="utf-8")
    done = run_cli("run", "--impl", "torch", "--registry", FAKES, "--expectations", str(path), "--device", "cpu",
                   "--report-dir", str(tmp_path / "out"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "[run] timeout must be a positive number of seconds" in done.stderr


def test_an_option_of_a_shipped_name_reads_the_file_of_its_name(tmp_path, monkeypatch):
    assert expectations.builtin_path("torch-compile-aot-eager:dynamic") == \
        expectations.BUILTIN_DIR / "torch-compile-aot-eager.toml"
    monkeypatch.setattr(expectations, "BUILTIN_DIR", tmp_path)
    (tmp_path / "engine.toml").write_text("", encoding="utf-8")
    (tmp_path / "engine_fast.toml").write_text("", encoding="utf-8")
    assert expectations.builtin_path("engine:fast") == tmp_path / "engine_fast.toml"
    assert expectations.builtin_path("engine:slow") == tmp_path / "engine.toml"
    assert expectations.builtin_path("other:fast") is None
