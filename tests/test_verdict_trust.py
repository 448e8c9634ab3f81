"""A verdict a CI can trust and an engine author can act on.

* "passed" is never said of nothing: a run in which nothing of the selection ran, or a device named
  with ``--device`` cannot be used, is *incomplete* (exit status 5) unless ``--allow-empty``;
  every report says what was compared (items, steps, values element by element);
* a case that compares nothing is an error of the case;
* a failing item's headline is its most severe difference, in every report and on the console,
  which lists the items that did not pass;
* the engine's traceback is kept with each exception it raised where the item differs;
* reports describe one run (no stale ``coverage.md``), name no machine's paths, show float32 in
  float32 digits, and keep full observations only for items that did not pass.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.compare import preview
from conformance.expectations import Profile
from conformance.reports import matrix

SIN_CASE = "op.sin.default"


def run(run_cli, tmp_path: Path, *args: str, name: str = "reports"):
    out = tmp_path / name
    done = run_cli("run", "--report-dir", str(out), "--no-progress", *args)
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return done, result, out


# -- no vacuous verdict -----------------------------------------------------------------------------
def test_a_device_asked_for_that_cannot_be_used_makes_the_run_incomplete(run_cli, tmp_path):
    done, result, out = run(run_cli, tmp_path, "--impl", "tests.broken.no_cuda", "--device", "cuda",
                            "-k", "leaf.user_created_is_leaf")
    assert done.returncode == 5, done.stdout + done.stderr
    assert result["exit_status"] == 5 and result["summary"]["skip"] == result["total"] > 0
    assert result["incomplete"][0].startswith("device cuda was asked for and cannot be used: CUDA not available")
    assert "incomplete (exit status 5; --allow-empty accepts it): device cuda was asked for" in done.stdout
    assert "passed" not in done.stdout
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "**incomplete**" in summary.splitlines()[0] and "passed" not in summary
    assert "Nothing ran in 1 topic: `leaf` (1 skip)" in summary
    verdict = ET.parse(out / "junit.xml").getroot().find(".//property[@name='verdict']").get("value")
    assert verdict.startswith("incomplete")
    assert '<span class="verdict incomplete">incomplete</span>' in (out / "report.html").read_text(encoding="utf-8")

    allowed, result, out = run(run_cli, tmp_path, "--impl", "tests.broken.no_cuda", "--device", "cuda",
                               "-k", "leaf.user_created_is_leaf", "--allow-empty", name="allowed")
    assert allowed.returncode == 0 and result["exit_status"] == 0
    assert "incomplete (allowed by --allow-empty)" in allowed.stdout


def test_devices_not_asked_for_need_not_be_usable(run_cli, tmp_path):
    done, result, _ = run(run_cli, tmp_path, "--impl", "tests.broken.no_cuda", "-k", "leaf.user_created_is_leaf")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["incomplete"] == [] and result["summary"]["pass"] == 1 and result["summary"]["skip"] == 1
    assert "passed: all 1 items that ran passed as expected; 1 not run (skip, n/a)" in done.stdout


def test_a_selection_of_which_nothing_runs_is_incomplete(run_cli, tmp_path):
    profile = tmp_path / "profile.toml"
    profile.write_text('[profile]\nlacks = ["hooks"]\n')
    done, result, out = run(run_cli, tmp_path, "--impl", "torch", "--device", "cpu", "-k", "hooks.hook_re",
                            "--expectations", str(profile))
    assert done.returncode == 5, done.stdout + done.stderr
    assert result["summary"]["n/a"] == result["total"] > 0
    assert result["incomplete"] == [f"nothing ran: all {result['total']} selected items were skipped or n/a"]
    assert result["compared"] == {"items": 0, "steps": 0, "elements": 0, "by_aspect": {}}
    assert "Nothing ran in 1 topic: `hooks`" in (out / "summary.md").read_text(encoding="utf-8")


def test_a_case_that_compares_nothing_is_an_error_and_what_is_compared_is_counted(run_cli, tmp_path):
    done, result, out = run(run_cli, tmp_path, "--impl", "torch", "--registry", "tests.fakes.quiet_cases:QUIET_CASES")
    assert done.returncode == 1, done.stdout + done.stderr
    records = {r["id"]: r for r in result["cases"]}
    quiet = records["quiet_cases.records_nothing"]
    assert quiet["outcome"] == "error"
    assert quiet["detail"].startswith("the case compared nothing: its scenario recorded no step on torch")
    product = records["quiet_cases.records_a_product"]
    assert product["outcome"] == "pass"
    assert product["compared"]["steps"] == 1 and product["compared"]["elements"] == 3
    assert product["compared"]["by_aspect"]["value"] == 3 and product["compared"]["by_aspect"]["dtype"] == 1
    assert result["compared"]["items"] == 2 and result["compared"]["elements"] == 3
    assert "compared: 2 items ran on both sides, 1 steps, 3 values and gradients element by element" in done.stdout


# -- the worst difference first, the failing items listed, the engine's traceback ----------------------
def test_wrong_values_headline_an_item_whose_node_name_also_differs(run_cli, tmp_path):
    done, result, out = run(run_cli, tmp_path, "--impl", "tests.broken.sin_off", "--device", "cpu", "-k", SIN_CASE)
    assert done.returncode == 1
    record = next(r for r in result["cases"] if r["dtype"] == "float32")
    aspects = [d["aspect"] for d in record["diff"]]
    assert "node-name" in aspects and aspects[0] == "value"  # most severe first
    first_node_name = min(d["step"] for d in record["diff"] if d["aspect"] == "node-name")
    assert first_node_name == 1  # the node name differs in the very step whose values are wrong
    headline = "step 1: 1: torch.sin(x): values (mismatched elements: 12 / 12"
    assert record["detail"].startswith(headline), record["detail"]
    assert f"  FAIL {SIN_CASE}[cpu,float32]: {headline}" in done.stdout  # the console lists failing items
    failure = ET.parse(out / "junit.xml").getroot().find(".//testcase[@name='op.sin.default[cpu,float32]']/failure")
    assert failure.get("message").startswith(headline)
    row = next(line for line in (out / "summary.md").read_text(encoding="utf-8").splitlines()
               if f"`{SIN_CASE}[cpu,float32]`" in line)
    assert "step 1: 1: torch.sin(x): values (mismatched elements: 12 / 12" in row.replace("\\", "")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "step 1: 1: torch.sin(x): values (mismatched elements: 12 / 12" in page
    assert "SinBackward0" in page  # the node name is still listed, below


def test_the_engines_traceback_is_kept_where_it_raised_differently(run_cli, tmp_path):
    done, result, out = run(run_cli, tmp_path, "--impl", "tests.broken.wrong_exception_type", "--device", "cpu",
                            "-k", "retain_graph.second_backward_raises")
    assert done.returncode == 1
    record = result["cases"][0]
    raised = [s for s in record["implementation"]["steps"] if "error" in s]
    trace = raised[0]["error"]["traceback"]
    assert 'File "tests/broken/wrong_exception_type.py"' in trace and "raise ValueError(str(exc))" in trace
    assert "conformance/recorder.py" not in trace  # the harness's own frames are left out
    text = ET.parse(out / "junit.xml").getroot().find(".//testcase/failure").text
    assert "Traceback (most recent call last):" in text and "wrong_exception_type.py" in text
    assert '<details class="tb"><summary>traceback</summary>' in (out / "report.html").read_text(encoding="utf-8")


# -- reports describe one run, compactly, readably --------------------------------------------------
def test_reports_of_another_run_do_not_linger_and_passing_items_are_slim(run_cli, tmp_path):
    _, result, out = run(run_cli, tmp_path, "--impl", "torch", "--device", "cpu", "-k", SIN_CASE)
    assert (out / "coverage.md").is_file()
    assert all("steps" not in r["reference"] and "source" not in r for r in result["cases"])
    _, result, out = run(run_cli, tmp_path, "--impl", "torch", "--device", "cpu", "-k", "leaf.user_created_is_leaf",
                         "--full-observations")
    coverage = (out / "coverage.md").read_text()  # the surface's figures of this run; no operator table left over
    assert "| `sin` |" not in coverage and "1 used by this run's cases" in coverage
    assert all(r["reference"]["steps"] and r["source"] for r in result["cases"])


def test_one_set_of_lacking_features_reads_the_same_in_any_order():
    profile = Profile(lacks=("hooks", "non-scalar", "float64"))
    assert profile.missing_for(["hooks", "non-scalar", "float64"]) == profile.missing_for(
        ["float64", "hooks", "non-scalar"]) == ["non-scalar", "float64", "hooks"]


def test_float32_values_are_shown_in_float32_digits():
    assert preview([0.8414709568023682, -0.1], "torch.float32") == "[0.84147096, -0.1]"
    assert preview([0.8414709568023682], "torch.float64") == "[0.8414709568023682]"
    assert preview([[1.0, {"t": "float", "v": "nan"}]], "torch.float32") == "[[1.0, nan]]"


def test_the_matrix_compares_items_only_where_they_ran(tmp_path):
    def run_of(name, outcomes):
        return {"implementation": {"name": name, "version": "1"}, "reference": {"version": "2.13"},
                "cases": [{"id": f"leaf.c{i}", "topic": "leaf", "device": "cpu", "dtype": "float32", "outcome": o}
                          for i, o in enumerate(outcomes)]}

    paths = []
    for name, outcomes in (("a", ["pass", "pass", "pass"]), ("b", ["n/a", "fail", "pass"]),
                           ("c", ["skip", "pass", "pass"])):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(run_of(name, outcomes)))
    runs = [matrix.load_run(path) for path in paths]
    assert matrix.differing(runs) == [("leaf.c1", "cpu", "float32")]  # n/a and skip are not differences
    page = matrix.render_html(runs)
    assert page.count('data-differs="1"') == 1 and page.count('class="item"') == 3
    assert 'id="f-differs"' in page and f"script-src {matrix.script_hash()}" in page
    assert 'data-failing=" 1 "' in page  # run b did not pass leaf.c1
