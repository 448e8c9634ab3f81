"""The documented autograd surface of the installed torch is covered by the catalog (``conformance.documented``).

Every public name must have a case that uses it or a reasoned exclusion in
``conformance/surface_exclusions.toml``; a torch release that adds a name fails here until it is
covered or excluded. The names still missing are listed, dated, in ``STILL_MISSING``; the test
checks that the missing set is exactly that, so a case added without its name leaving the list fails
too, and the list can only shrink.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import catalog, documented
from conformance.case import Case, Doc
from conformance.cli import main

ROOT = Path(__file__).resolve().parent.parent

# Names of torch 2.13 that no case uses yet, by who is adding their cases: none since issue 24's branches merged
# (2026-11-26). A name put here must come out when its case lands: the test below checks both ways.
STILL_MISSING: dict[str, set[str]] = {}


@pytest.fixture(scope="module")
def found() -> dict:
    return documented.derived()


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return list(catalog.load())


@pytest.fixture(scope="module")
def survey(found, cases) -> documented.Survey:
    return documented.survey(found, cases)


def test_every_documented_name_has_a_case_or_a_reasoned_exclusion(survey):
    still_missing = set().union(set(), *STILL_MISSING.values())
    missing = set(survey.missing)
    assert not missing - still_missing, \
        f"documented names with neither a case nor an exclusion: {sorted(missing - still_missing)}"
    assert not still_missing - missing, (f"now used by a case (or excluded): take them out of STILL_MISSING: "
                                         f"{sorted(still_missing - missing)}")


def test_the_lists_and_the_exclusions_are_sound(survey):
    # a name of an explicit list that torch lacks, an exclusion that matches nothing or covers a used name
    assert survey.errors == []
    assert all(reason.strip() for reason in survey.excluded.values())


def test_the_surface_is_derived_from_torchs_own_lists(found):
    import_check = subprocess.run(
        [sys.executable, "-c", "import json, torch, torch.func, torch.utils.checkpoint, torch.autograd.graph as g; "
                               "print(json.dumps([torch.autograd.__all__, g.__all__, torch.func.__all__, "
                               "torch.utils.checkpoint.__all__]))"], capture_output=True, text=True, check=True)
    autograd, graph, func, checkpoint = json.loads(import_check.stdout)
    spellings = {s for entry in found["names"] for s in entry["spellings"]}
    for module, names in (("torch.autograd", autograd), ("torch.autograd.graph", graph), ("torch.func", func),
                          ("torch.utils.checkpoint", checkpoint)):
        assert {f"{module}.{name}" for name in names} <= spellings
    areas = {entry["area"] for entry in found["names"]}
    assert {"Tensor", "Function", "FunctionCtx", "Node", "clipping", "Module"} <= areas
    # an object exported under several names is one name with every spelling
    no_grad = next(e for e in found["names"] if e["name"] == "torch.autograd.no_grad")
    assert {"torch.no_grad", "torch.autograd.grad_mode.no_grad"} <= set(no_grad["spellings"])


def test_removing_a_names_only_case_makes_it_missing(found, cases):
    full = documented.survey(found, cases)
    name, (only,) = next((name, used) for name, used in sorted(full.used.items()) if len(used) == 1)
    filtered = documented.survey(found, [c for c in cases if c.id != only])
    assert name in filtered.missing
    assert name not in full.missing


def test_a_new_torch_name_is_missing_until_covered_or_excluded(found, cases):
    added = {**found, "names": [*found["names"], {"name": "torch.autograd.graph.brand_new", "area": "torch.autograd.graph",
                                                   "spellings": ["torch.autograd.graph.brand_new"]}]}
    assert "torch.autograd.graph.brand_new" in documented.survey(added, cases).missing
    excluded = documented.survey(added, cases, [documented.Exclusion(("*.brand_new",), "a reason")])
    assert "torch.autograd.graph.brand_new" not in excluded.missing
    assert excluded.excluded["torch.autograd.graph.brand_new"] == "a reason"


def test_an_explicit_name_torch_lacks_is_an_error_of_the_list(monkeypatch):
    monkeypatch.setitem(documented.EXPLICIT, "Node", ("torch.autograd.graph.Node", ("name", "no_such_member")))
    result = documented.derive()  # in this process: it imports torch here
    assert "explicit list Node: torch.autograd.graph.Node has no no_such_member" in result["errors"]


def test_stale_exclusions_are_errors(found, cases):
    result = documented.survey(found, cases, [documented.Exclusion(("torch.no_such_thing",), "r"),
                                              documented.Exclusion(("torch.autograd.grad",), "r")])
    assert any("torch.no_such_thing matches no documented name" in e for e in result.errors)
    assert any("excludes torch.autograd.grad, which" in e for e in result.errors)


def _case(source: str) -> Case:
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<test>", "exec"), namespace)  # noqa: S102 - a test scenario
    scenario = next(v for k, v in namespace.items() if k == "scenario")
    return Case("t.scenario", "t", Doc("u", "s"), scenario, source=textwrap.dedent(source))


NAMES = [{"name": n, "area": a, "spellings": s} for n, a, s in (
    ("torch.autograd.graph.save_on_cpu", "torch.autograd.graph", ["torch.autograd.graph.save_on_cpu"]),
    ("torch.autograd.forward_ad.make_dual", "torch.autograd.forward_ad", ["torch.autograd.forward_ad.make_dual"]),
    ("Function.setup_context", "Function", ["torch.autograd.Function.setup_context"]),
    ("Function.apply", "Function", ["torch.autograd.Function.apply"]),
    ("FunctionCtx.save_for_backward", "FunctionCtx", ["torch.autograd.function.FunctionCtx.save_for_backward"]),
    ("Node.register_prehook", "Node", ["torch.autograd.graph.Node.register_prehook"]),
    ("Tensor.register_hook", "Tensor", ["torch.Tensor.register_hook"]),
)]


def uses(source: str) -> set[str]:
    return {name for name, ids in documented.usage(NAMES, [_case(source)]).items() if ids}


def test_a_name_in_the_docstring_or_a_string_is_not_a_use():
    assert uses('''
        def scenario(torch, rec):
            """Checks torch.autograd.graph.save_on_cpu and x.register_hook."""
            rec("a", "torch.autograd.graph.save_on_cpu")
    ''') == set()


def test_uses_are_found_through_aliases_and_by_role():
    assert uses('''
        def scenario(torch, rec):
            fwAD = torch.autograd.forward_ad
            graph = torch.autograd.graph
            with graph.save_on_cpu():
                fwAD.make_dual(1, 2)
    ''') == {"torch.autograd.graph.save_on_cpu", "torch.autograd.forward_ad.make_dual"}
    assert uses('''
        def scenario(torch, rec):
            class Base(torch.autograd.Function):
                pass

            class Square(Base):
                @staticmethod
                def setup_context(ctx, inputs, output):
                    ctx.save_for_backward(*inputs)

            Square.apply(x)
    ''') == {"Function.setup_context", "Function.apply", "FunctionCtx.save_for_backward"}
    # on a node (through grad_fn, or a name bound to one), register_hook is Node's; on a tensor, Tensor's
    assert uses('''
        def scenario(torch, rec):
            node = y.grad_fn
            node.register_prehook(print)
    ''') == {"Node.register_prehook"}
    assert uses('''
        def scenario(torch, rec):
            y.register_hook(print)
            y.grad_fn.register_hook(print)
    ''') == {"Tensor.register_hook"}


def test_the_command_prints_the_table_and_the_missing_names(capsys, monkeypatch, found, survey):
    monkeypatch.setattr(documented, "derived", lambda: found)  # read once for the module (a torch import)
    status = main(["surface"])
    out = capsys.readouterr().out
    assert status == (1 if survey.missing else 0)
    assert "| area | names | used | excluded | missing |" in out
    assert "| `torch.autograd.graph` |" in out
    for name in survey.missing:
        assert f"* `{name}`" in out
    assert main(["surface", "--json"]) == status
    result = json.loads(capsys.readouterr().out)
    assert result["missing"] == survey.missing
    row = next(r for r in result["areas"] if r["area"] == "torch.autograd.forward_ad")
    assert row == {"area": "torch.autograd.forward_ad", "names": 6, "used": 6, "excluded": 0, "missing": 0}


def test_bad_input_is_one_line_and_status_2(capsys):
    assert main(["surface", "--registry", "no_such_module:load"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("conformance: error: --registry no_such_module:load")


def test_an_unknown_implementation_is_one_line_and_status_2(capsys, monkeypatch, found):
    monkeypatch.setattr(documented, "derived", lambda: found)
    assert main(["surface", "--impl", "no_such_engine"]) == 2
    assert capsys.readouterr().err == "conformance: error: unknown implementation 'no_such_engine': no module named " \
                                      "'no_such_engine'\n"


def test_docs_list_what_myautograd_lacks_as_the_command_finds_it(found, survey):
    text = (ROOT / "docs" / "myautograd.md").read_text(encoding="utf-8")
    listed = text.split("<!-- surface: lacks -->", 1)[1].split("<!-- /surface: lacks -->", 1)[0]
    documented_lacks = re.findall(r"^\* `([^`]+)`$", listed, flags=re.MULTILINE)
    in_scope = [entry for entry in found["names"] if entry["name"] not in survey.excluded]
    lacks = documented.implementation_lacks("myautograd", in_scope)
    assert documented_lacks == lacks, "update docs/myautograd.md from `python -m conformance surface --impl myautograd`"
    assert f"myautograd lacks {len(lacks)} of {len(in_scope)} names" in " ".join(text.split())


def test_an_implementation_lacking_a_name_is_reported(monkeypatch):
    monkeypatch.setenv("BROKEN_STANDALONE", "1")  # the planted fault is installed in the process that imports it
    names = [{"name": "torch.autograd.grad", "area": "torch.autograd", "spellings": ["torch.autograd.grad"]},
             {"name": "Tensor.grad", "area": "Tensor", "spellings": ["torch.Tensor.grad"]},
             {"name": "torch.utils.checkpoint.checkpoint", "area": "torch.utils.checkpoint",
              "spellings": ["torch.utils.checkpoint.checkpoint"]}]
    # the planted implementation: torch without autograd.grad (tests/broken/no_autograd_grad.py)
    assert documented.implementation_lacks("tests.broken.no_autograd_grad", names) == ["torch.autograd.grad"]
    assert documented.implementation_lacks("torch", names) == []


def _run_result() -> dict:
    names = [{"name": "torch.autograd.grad", "area": "torch.autograd", "cases": ["a.one"], "excluded": None},
             {"name": "torch.autograd.backward", "area": "torch.autograd", "cases": ["a.two"], "excluded": None},
             {"name": "torch.autograd.Variable", "area": "torch.autograd", "cases": [], "excluded": "deprecated"},
             {"name": "Tensor.grad", "area": "Tensor", "cases": [], "excluded": None}]
    cases = [{"id": "a.one", "device": "cpu", "dtype": "float32", "outcome": "pass"},
             {"id": "a.two", "device": "cpu", "dtype": "float32", "outcome": "pass"},
             {"id": "a.two", "device": "cpu", "dtype": "float64", "outcome": "fail"}]
    return {"documented_surface": {"torch": "2.13.0", "names": names}, "cases": cases}


def test_a_runs_coverage_shows_the_surface_per_area():
    from conformance.reports import surface_coverage

    rows, not_used = surface_coverage.table(_run_result())
    assert rows == [{"area": "torch.autograd", "names": 3, "used": 2, "passing": 1, "excluded": 1, "not used": 0},
                    {"area": "Tensor", "names": 1, "used": 0, "passing": 0, "excluded": 0, "not used": 1}]
    assert not_used == ["Tensor.grad"]
    text = surface_coverage.render_markdown(_run_result())
    assert "| `torch.autograd` | 3 | 2 | 1 | 1 | 0 |" in text
    assert "Not used: `Tensor.grad`" in text
    assert surface_coverage.render_markdown({"cases": []}) == ""


def test_coverage_md_and_report_html_carry_the_section(tmp_path, monkeypatch):
    from conformance import reports
    from conformance.reports import html

    result = _run_result()
    section = html.surface_section(result)
    assert "<code>torch.autograd</code></td><td>3</td><td>2</td><td>1</td><td>1</td><td>0</td>" in section
    assert "Documented autograd surface of torch 2.13.0" in section
    assert html.surface_section({"cases": []}) == ""
    monkeypatch.setattr(reports, "WRITERS", {})  # only coverage.md: the other writers need a whole run's result
    (tmp_path / "coverage.md").write_text("from an earlier run")
    assert [p.name for p in reports.write_all(result, tmp_path)] == ["coverage.md"]
    assert (tmp_path / "coverage.md").read_text().startswith("## Documented autograd surface of torch 2.13.0")
    assert reports.write_all({"cases": []}, tmp_path) == [] and not (tmp_path / "coverage.md").exists()


def test_a_run_of_another_catalog_carries_no_survey():
    from conformance.runner import RunConfig, documented_surface

    assert documented_surface(RunConfig(impl="torch", cases=[], devices=("cpu",), report_dir=Path("."),
                                        registry="tests.fakes:registry")) is None
