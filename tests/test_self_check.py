"""Self-tests of the harness: deliberately broken implementations must be caught, and reported
at the right step and field with the right texts on both sides.

The broken implementations are in ``tests/broken/`` (one fault each, installed lazily in the
forked child of the side under test); the small cases they trip over are in
``tests/broken/selfcheck.py``, in their own registry. Items run here in children forked from
this process, as a side worker forks them (``tests/support/sides.py``). The end-to-end tests run
``python -m conformance`` (and pytest with the plugin) in subprocesses on the real catalog, with
the broken implementations that misbehave only in the cases named by ``BROKEN_CASES``. The
hostile implementations, which attack the harness itself, are in ``tests/test_isolation.py``.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import tests.broken
from conformance import cli
from conformance.item import items_of
from tests.broken.selfcheck import SELF_CHECK
from tests.support.sides import judged

ROOT = Path(__file__).resolve().parent.parent
NOT_IMPLEMENTATIONS = ("selfcheck", "hostile", "gradients")  # gradients: planted on myautograd (test_locate)
BROKEN = sorted(m.name for m in pkgutil.iter_modules(tests.broken.__path__)
                if not m.name.startswith("_") and m.name not in NOT_IMPLEMENTATIONS)
NONLEAF_WARNING = "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."
SECOND_BACKWARD = "Trying to backward through the graph a second time"


def run_self_check(sides_for, impl: str, case_name: str, timeout: float = 20.0) -> dict:
    return judged(SELF_CHECK.get(f"selfcheck.{case_name}"), *sides_for(impl), timeout=timeout)


def without_durations(observed: dict) -> dict:
    return {key: value for key, value in observed.items() if key != "duration"}


@pytest.fixture(scope="module")
def torch_observes(sides_for):
    """What torch observes on each self-check case (torch on both sides), computed once."""
    cache: dict[str, dict] = {}

    def observe(case_name: str) -> dict:
        if case_name not in cache:
            record = run_self_check(sides_for, "torch", case_name)
            assert record["outcome"] == "pass", record["detail"]
            cache[case_name] = without_durations(record["reference"])
        return cache[case_name]

    return observe


# -- the broken implementations, one fault each ------------------------------------------------
# (implementation, case, outcome, first difference's where, text in torch's side, text in the
# implementation's side, detail)
DIFFERENCES = [
    ("drop_warning", "nonleaf_grad_warns", "fail", "step 2: b.grad: warnings",
     f'["{NONLEAF_WARNING}', "none",
     'step 2: b.grad: warnings (1 warning(s) on torch, 0 on the implementation): torch ["UserWarning'),
    ("message_changed", "second_backward_raises", "fail", "step 2: y.backward() again: message",
     f"RuntimeError: {SECOND_BACKWARD}", "RuntimeError: Trying to backward through the graph twice",
     "step 2: y.backward() again: message: torch RuntimeError: Trying"),
    ("wrong_exception_type", "second_backward_raises", "fail", "step 2: y.backward() again: exception",
     f"RuntimeError: {SECOND_BACKWARD}", f"ValueError: {SECOND_BACKWARD}",
     "step 2: y.backward() again: exception: torch RuntimeError"),
    ("no_accumulation", "grad_accumulates", "fail", "step 2: x.grad after the second backward: values",
     "[5.0, 7.0]", "[3.0, 3.0]", "step 2: x.grad after the second backward: values (mismatched elements: 2 / 2"),
    ("perturb_far", "grad_accumulates", "fail", "step 1: x.grad: values",
     "[2.0, 4.0]", "[2.001, 4.001]", "step 1: x.grad: values (mismatched elements: 2 / 2"),
    ("no_retain_grad", "retain_grad_keeps_nonleaf_grad", "unsupported", "step 2",
     "observed 'y.grad' at line", "raised AttributeError: 'Tensor' object has no attribute 'retain_grad'",
     "unsupported: Tensor.retain_grad"),
    ("no_retains_grad", "retain_grad_keeps_nonleaf_grad", "unsupported", "step 1: y: retains_grad",
     "False", "unsupported: Tensor.retains_grad", "unsupported: Tensor.retains_grad"),
    ("prints_differently", "print_tensor", "fail", "step 1: x: printed output",
     "'tensor([1., 2.])\\n'", "'Tensor([1., 2.])\\n'", "step 1: x: printed output: torch 'tensor("),
]


@pytest.mark.parametrize(("impl", "case_name", "outcome", "where", "torch_text", "impl_text", "detail"),
                         DIFFERENCES, ids=[row[0] for row in DIFFERENCES])
def test_fault_is_reported_where_it_is(sides_for, torch_observes, impl, case_name, outcome, where, torch_text,
                                       impl_text, detail):
    record = run_self_check(sides_for, impl, case_name)
    assert record["outcome"] == outcome, record["detail"]
    assert record["detail"].startswith(detail)
    first = record["diff"][0]
    assert first["where"] == where
    assert first["reference"].startswith(torch_text)
    assert first["implementation"].startswith(impl_text)
    assert record["implementation"]["status"] in ("completed", "raised")
    # the fault stayed on its side: the reference observed exactly what torch observes
    assert without_durations(record["reference"]) == torch_observes(case_name)


def test_missing_api_names_the_missing_attribute(sides_for):
    record = run_self_check(sides_for, "no_retain_grad", "retain_grad_keeps_nonleaf_grad")
    first = record["diff"][0]
    assert first["unsupported"] == "Tensor.retain_grad"
    assert first["aspect"] == "raised"
    assert first["detail"] == "the runs part here: one side raised or ended where the other went on"
    assert "at line" in first["implementation"] and "y.retain_grad()" in first["implementation"]


def test_perturbation_within_tolerance_passes(sides_for):
    record = run_self_check(sides_for, "perturb_near", "grad_accumulates")
    assert record["outcome"] == "pass", record["detail"]
    assert record["diff"] == []
    torch_grad = record["reference"]["steps"][0]["value"]["values"]
    impl_grad = record["implementation"]["steps"][0]["value"]["values"]
    assert torch_grad == [2.0, 4.0]
    assert impl_grad != torch_grad  # the fault was there, and stayed within rtol/atol
    assert all(abs(i - t) < 1e-5 for i, t in zip(impl_grad, torch_grad, strict=True))


def test_hang_times_out(sides_for):
    started = time.monotonic()
    record = run_self_check(sides_for, "hang", "grad_accumulates", timeout=1.0)
    assert record["outcome"] == "timeout"
    assert record["detail"] == "no result within 1 s; the process was killed"
    assert record["diff"] == []
    assert record["reference"]["status"] == "completed"
    assert time.monotonic() - started < 15


@pytest.mark.parametrize(("impl", "detail"), [
    ("exit_in_backward", "the process exited with status 3 before reporting"),
    ("sigkill_in_backward", "the process was killed by SIGKILL before reporting"),
    ("segfault_in_backward", "the process was killed by SIGSEGV before reporting"),
])
def test_process_death_is_a_crash(sides_for, impl, detail):
    record = run_self_check(sides_for, impl, "grad_accumulates")
    assert record["outcome"] == "crash"
    assert record["detail"] == detail
    assert record["implementation"]["status"] == "crash"
    assert record["implementation"]["detail"] == detail
    assert record["reference"]["status"] == "completed"


@pytest.mark.parametrize("impl", ["drop_warning", "message_changed", "wrong_exception_type", "no_accumulation",
                                  "perturb_far", "hang", "segfault_in_backward", "no_retain_grad"])
def test_broken_implementation_is_torch_elsewhere(sides_for, impl):
    record = run_self_check(sides_for, impl, "plain_values", timeout=10.0)
    assert record["outcome"] == "pass", record["detail"]


@pytest.mark.parametrize("case_name", [c.id.split(".", 1)[1] for c in SELF_CHECK])
def test_self_check_cases_pass_on_torch(sides_for, case_name):
    record = run_self_check(sides_for, "torch", case_name)
    assert record["outcome"] == "pass", record["detail"]


def test_broken_modules_leave_torch_alone_where_imported(sides_for):
    import torch

    def state():
        return {name: id(value) for name, value in vars(torch.Tensor).items()}

    before = state()
    for name in BROKEN:
        _, implementation = sides_for(name)
        namespace = implementation.namespace
        assert implementation.module_name == "torch"  # no "tests" -> "torch" rewriting
        assert namespace.tensor is torch.tensor  # an access in this process: no fault installed
        with pytest.raises(AttributeError):
            namespace.__wrapped__  # noqa: B018 - dunder names are not forwarded to torch
    assert state() == before
    assert importlib.import_module("tests.broken.drop_warning").__version__.endswith("(broken)")


# -- end to end: the command line ------------------------------------------------------------
def pick_cases(registry, count: int) -> list[str]:
    """The first ``count`` CPU cases of the real catalog whose ids select only themselves with -k."""
    ids = [c.id for c in registry]
    chosen = [c.id for c in registry
              if c.runs_on("cpu") and not any(c.id in other for other in ids if other != c.id)][:count]
    assert len(chosen) == count, "the catalog has too few cases for this test"
    return chosen


def read_journal(path: Path) -> list[dict]:
    """The complete lines of results.jsonl (a line being written is left out)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n")[:-1] if line]


def test_torch_against_torch_passes_the_whole_catalog(run_cli, catalog_registry, tmp_path):
    count = len(items_of(catalog_registry, ["cpu"]))  # one item per case and dtype
    done = run_cli("run", "--impl", "torch", "--device", "cpu", "--report-dir", str(tmp_path), "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads((tmp_path / "results.json").read_text())
    assert result["summary"]["pass"] == count, (result["summary"], done.stdout[-2000:])
    assert sum(result["summary"].values()) == result["total"] == count
    # every check of the catalog compares something (a case that records no step is an error)
    assert all(r["compared"]["steps"] > 0 for r in result["cases"])
    assert result["compared"]["items"] == count and result["compared"]["elements"] > 10 * count
    assert f": pass {count}\n" in done.stdout
    assert len(read_journal(tmp_path / "results.jsonl")) == count + 1  # the run's header, then the items


@pytest.mark.parametrize(("argv", "message"), [
    (["--impl", "no_such_implementation_xyz"], "unknown implementation 'no_such_implementation_xyz'"),
    (["--device", "tpu"], "unknown device tpu"),
    (["-k", "no_case_is_called_this_xyz"], "-k 'no_case_is_called_this_xyz' matches no case"),
    (["-k", "leaf and"], "the expression ends too early"),
    (["--expectations", "{tmp}/missing.toml"], "does not exist"),
    (["--expectations", "{tmp}/syntax.toml"], "cannot read expectations file"),
    (["--expectations", "{tmp}/no_reason.toml"], "entry 1 lacks reason"),
    (["--expectations", "{tmp}/bad_outcome.toml"], "entry 1 has outcome 'xfail'"),
    (["--expectations", "{tmp}/bad_reference.toml"], "entry 1 has reference '2.13': '2.13' is not a comparison"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "syntax.toml").write_text("[[expected]\ncase = \n")
    (tmp_path / "no_reason.toml").write_text('[[expected]]\ncase = "leaf.*"\noutcome = "fail"\n')
    (tmp_path / "bad_outcome.toml").write_text('[[expected]]\ncase = "leaf.*"\noutcome = "xfail"\nreason = "r"\n')
    (tmp_path / "bad_reference.toml").write_text(
        '[[expected]]\ncase = "leaf.*"\noutcome = "fail"\nreason = "r"\nreference = "2.13"\n')
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    status = cli.main(["run", "--report-dir", str(tmp_path / "reports"), "--no-progress", *argv])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert err.startswith("conformance: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert message in err
    assert not (tmp_path / "reports" / "results.jsonl").exists()


def test_expectations_end_to_end(run_cli, catalog_registry, tmp_path):
    xfail, xpass, other_kind = pick_cases(catalog_registry, 3)
    expectations = tmp_path / "expectations.toml"
    expectations.write_text(f"""
[[expected]]
case = "{xfail}"
outcome = "fail"
reason = "prints in this case"

[[expected]]
case = "{xpass}"
device = "cpu"
outcome = "fail"
reason = "it used to fail"

[[expected]]
case = "{other_kind}"
outcome = "crash"
reason = "it used to crash"

[[expected]]
case = "no_such_topic.*"
outcome = "fail"
reason = "gone"
""")
    done = run_cli("run", "--impl", "tests.broken.print_in_case", "-k", f"{xfail} or {xpass} or {other_kind}",
                   "--device", "cpu", "--expectations", str(expectations), "--report-dir", str(tmp_path),
                   "--no-progress", "--jobs", "1", env={"BROKEN_CASES": f"{xfail},{other_kind}"})
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    assert "stale expectation: no_such_topic.* (fail) matches no case" in done.stdout
    result = json.loads((tmp_path / "results.json").read_text())
    assert result["expectations"]["file"] == str(expectations)
    assert [e["case"] for e in result["expectations"]["stale"]] == ["no_such_topic.*"]
    records = {r["id"]: r for r in result["cases"]}
    assert records[xfail]["outcome"] == "xfail"
    assert records[xfail]["expected"] == {"outcome": "fail", "reason": "prints in this case"}
    assert records[xfail]["diff"][0]["where"].startswith("step 1: ")
    assert records[xfail]["diff"][0]["where"].endswith(": printed output")
    assert records[xfail]["diff"][0]["implementation"] == repr("broken: print_in_case\n")
    assert records[xpass]["outcome"] == "xpass"
    assert records[xpass]["detail"] == "expected fail (it used to fail) but it passes"
    assert records[other_kind]["outcome"] == "fail"  # not the expected crash: stays unexpected
    assert records[other_kind]["expected"]["outcome"] == "crash"
    assert result["summary"]["xfail"] == 1 and result["summary"]["xpass"] == 1 and result["summary"]["fail"] == 1


def test_a_crash_does_not_stop_the_run(run_cli, catalog_registry, tmp_path):
    crashing, following = pick_cases(catalog_registry, 2)
    done = run_cli("run", "--impl", "tests.broken.crash_in_case", "-k", f"{crashing} or {following}",
                   "--device", "cpu", "--report-dir", str(tmp_path), "--no-progress", "--jobs", "1",
                   env={"BROKEN_CASES": crashing})
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    order = [(r["id"], r["outcome"], r["detail"]) for r in read_journal(tmp_path / "results.jsonl")[1:]]
    assert order == [(crashing, "crash", "the process was killed by SIGSEGV before reporting"),
                     (following, "pass", "")]
    assert f"CRASH {crashing}[cpu]: the process was killed by SIGSEGV" in done.stderr


def test_journal_is_written_as_items_finish(catalog_registry, tmp_path):
    finishing, hanging = pick_cases(catalog_registry, 2)
    journal = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "conformance", "run", "--impl", "tests.broken.hang_in_case",
               "-k", f"{finishing} or {hanging}", "--device", "cpu", "--jobs", "1", "--timeout", "4",
               "--report-dir", str(tmp_path), "--no-progress"]
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "BROKEN_CASES": hanging},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and process.poll() is None:
            ids = [r.get("id") for r in read_journal(journal)]
            if finishing in ids:
                seen = (ids, process.poll() is None)
                break
            time.sleep(0.05)
        out, err = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert seen is not None, out + err[-3000:]
    ids, still_running = seen
    assert still_running and hanging not in ids  # the first item was on disk while the second hung
    assert process.returncode == 1, out + err[-3000:]
    records = {r["id"]: r for r in read_journal(journal)[1:]}
    assert records[finishing]["outcome"] == "pass"
    assert records[hanging]["outcome"] == "timeout"
    assert records[hanging]["detail"] == "no result within 4 s; the process was killed"


# -- end to end: the pytest plugin -----------------------------------------------------------
def test_pytest_plugin_reports_outcomes(catalog_registry, tmp_path):
    xfail, xpass, failing = pick_cases(catalog_registry, 3)
    expectations = tmp_path / "expectations.toml"
    expectations.write_text(
        f'[[expected]]\ncase = "{xfail}"\noutcome = "fail"\nreason = "prints here"\n\n'
        f'[[expected]]\ncase = "{xpass}"\noutcome = "fail"\nreason = "it used to fail"\n')
    junit = tmp_path / "junit.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_catalog.py", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--impl", "tests.broken.print_in_case", "--conformance-expectations", str(expectations),
         "-k", f"({xfail} or {xpass} or {failing}) and cpu", f"--junitxml={junit}", "-q"],
        cwd=ROOT, env={**env, "BROKEN_CASES": f"{xfail},{failing}"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    cases = {tc.get("name"): tc for tc in ET.parse(junit).iter("testcase")}
    assert set(cases) == {f"test_case[{case_id}-cpu]" for case_id in (xfail, xpass, failing)}

    def failure(case_id):
        found = cases[f"test_case[{case_id}-cpu]"].find("failure")
        return None if found is None else found.text

    def properties(case_id):
        return {p.get("name"): p.get("value") for p in cases[f"test_case[{case_id}-cpu]"].iter("property")}

    assert failure(xfail) is None and properties(xfail)["conformance_outcome"] == "xfail"
    assert "xpass: expected fail (it used to fail) but it passes; the expectation should go" in failure(xpass)
    message = failure(failing)
    assert "fail at level drop-in: 1 difference, the most severe: step 1: " in message
    assert "printed output [printed]\n  torch:          ''\n  implementation: 'broken: print_in_case\\n'" in message
    assert "2 failed, 1 passed" in done.stdout


def test_pytest_plugin_failure_messages():
    from conformance.pytest_plugin import failure_message

    base = {"id": "leaf.x", "device": "cpu", "dtype": "float32", "title": "A title", "diff": [],
            "doc": {"section": "docstring of torch.Tensor.grad", "url": "https://example.org/grad"}}
    unsupported = failure_message({**base, "outcome": "unsupported", "detail": "unsupported: Tensor.retain_grad",
                                   "levels": {"semantics": "unsupported", "api": "unsupported",
                                              "drop-in": "unsupported"}, "diff": [
        {"where": "step 2", "aspect": "raised", "reference": "observed 'y.grad'",
         "implementation": "raised AttributeError: ...", "detail": "the runs part here",
         "unsupported": "Tensor.retain_grad"}]})
    assert unsupported.splitlines() == [
        "unsupported: Tensor.retain_grad",
        "case: leaf.x on cpu (float32): A title",
        "levels: semantics unsupported, api unsupported, drop-in unsupported",
        "checks: docstring of torch.Tensor.grad <https://example.org/grad>",
        "see: python -m conformance show leaf.x --device cpu",
        "",
        "step 2 [raised] (the runs part here)",
        "  torch:          observed 'y.grad'",
        "  implementation: raised AttributeError: ...",
    ]
    changed = failure_message({**base, "outcome": "crash", "detail": "the process was killed by SIGSEGV",
                               "expected": {"outcome": "fail", "reason": "known"}})
    assert changed.splitlines()[:2] == [
        "crash: the process was killed by SIGSEGV",
        "expected fail (known), but the outcome is crash: the way it fails changed"]
    xpass = failure_message({**base, "outcome": "xpass", "detail": "expected fail (known) but it passes",
                             "expected": {"outcome": "fail", "reason": "known"}}, "/x/impl.toml")
    assert xpass.splitlines()[0] == ("xpass: expected fail (known) but it passes; the expectation should go "
                                     "(remove its entry from /x/impl.toml)")


def test_the_packaged_test_module_runs_outside_the_source_tree(tmp_path):
    """``pytest --pyargs conformance.testsuite --impl ... --level ...`` from an engine's own directory."""
    from importlib.metadata import entry_points

    installed = any(ep.value == "conformance.pytest_plugin" for ep in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "conformance.pytest_plugin"]  # in a checkout not installed
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    if not installed:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "conformance.testsuite", *plugin, "-p", "no:cacheprovider",
         "-p", "no:xdist", "--impl", "tests.broken.print_in_case", "--level", "semantics",
         "-k", "retain_graph and cpu", "-q", "--rootdir", str(tmp_path)],
        cwd=tmp_path, env={**env, "BROKEN_CASES": "retain_graph.second_backward_raises",
                           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))},
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout  # printing counts at drop-in only
