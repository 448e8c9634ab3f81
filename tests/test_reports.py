"""The report writers: junit.xml, summary.md and report.html, from hand-built run results.

The results hold one item of every outcome and texts that try to break each format (a script
tag, a CDATA end, control characters, a lone surrogate, pipes and backticks): every writer must
escape them. The last test runs the whole pipeline for real, through the command line.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # plain `pytest` without the project installed
    sys.path.insert(0, str(ROOT))

from conformance.case import Case, Doc  # noqa: E402
from conformance.item import Item, ItemRecord  # noqa: E402
from conformance.reports import WRITERS, html, junit, markdown, write_all  # noqa: E402

HOSTILE = ("</script><script>alert(1)</script> ]]> <img src=x onerror=alert(2)> <marquee>m</marquee> "
           "\x00\x01\x08\x0b\x1b[31m\x7f\x85 \ud800 | `tick` | [link](javascript:alert(3)) *em* _u_ & &amp;\nline two")
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
DOC = {"url": "https://pytorch.org/docs/stable/notes/autograd.html#setting-requires-grad",
       "section": "Autograd mechanics \u203a Setting requires_grad"}
SOURCE = 'def scenario(torch, rec):\n    x = torch.ones(2, requires_grad=True)\n    rec("x", x)\n'


def tensor(values: list, **flags) -> dict:
    return {"t": "tensor", "dtype": "torch.float32", "shape": [len(values)], "device": "cpu", "values": values,
            "requires_grad": True, "is_leaf": True, "grad_fn": None, "retains_grad": False, "grad": None, **flags}


def step(value=None, error=None, warnings=(), stdout="") -> dict:
    found = {"label": "x", "line": 3, "source": 'rec("x", x)', "warnings": list(warnings), "stdout": stdout}
    found.update({"error": error} if error else {"value": value})
    return found


def side(*steps: dict, status: str = "completed", detail: str | None = None) -> dict:
    found = {"status": status, "steps": list(steps), "duration": 0.01}
    if detail:
        found["detail"] = detail
    return found


def record(case_id: str, device: str, outcome: str, detail: str = "", **extra) -> dict:
    topic = case_id.split(".", 1)[0]
    levels = {level: ("pass" if outcome in ("pass", "xpass") else "fail") for level in ("semantics", "api", "drop-in")}
    found = {"id": case_id, "topic": topic, "title": f"Title of {case_id}", "device": device, "dtype": "float32",
             "doc": dict(DOC), "several_dtypes": False, "levels": levels, "features": [], "tags": [],
             "source": SOURCE, "location": f"/catalog/{topic}.py:10", "outcome": outcome,
             "detail": detail, "duration": 0.25, "reference": side(step(tensor([1.0, 1.0]))),
             "implementation": side(step(tensor([1.0, 1.0]))), "diff": []}
    found.update(extra)
    return found


def diff(where: str, ref: str, impl: str, detail: str = "", unsupported: str | None = None,
         aspect: str = "value") -> dict:
    return {"where": where, "aspect": aspect, "reference": ref, "implementation": impl, "detail": detail,
            "unsupported": unsupported, "step": 1}


def make_result() -> dict:
    values_diff = diff("step 1: x: values", "[1.0, 1.0]", "[2.0, 2.0]", "mismatched elements: 2 / 2")
    warning_diff = diff("step 1: x: warnings", "none", f"['UserWarning: {HOSTILE}']")
    records = [
        record("leaf.passes", "cpu", "pass"),
        record("leaf.passes", "cuda", "skip", "CUDA not available", reference=None, implementation=None),
        record("leaf.values_differ", "cpu", "fail", f"step 1: x: values: torch [1.0, 1.0] / implementation {HOSTILE}",
               implementation=side(step(tensor([2.0, 2.0]), warnings=[{"category": "UserWarning", "message": HOSTILE}],
                                        stdout=HOSTILE)),
               diff=[values_diff, warning_diff, diff("step 1: x: printed output", "''", repr(HOSTILE))]),
        record("hooks.missing_api", "cpu", "unsupported", "unsupported: register_hook",
               implementation=side(step(error={"type": "AttributeError", "message": HOSTILE,
                                               "missing": "register_hook"}), status="raised"),
               diff=[diff("step 1", "observed 'x'", f"raised AttributeError: {HOSTILE}", "the runs diverge here",
                          "register_hook")]),
        record("hooks.crashes", "cpu", "crash", "the process was killed by SIGSEGV before reporting",
               implementation=side(status="crash", detail="the process was killed by SIGSEGV before reporting")),
        record("hooks.hangs", "cpu", "timeout", "no result within 30 s; the process was killed",
               implementation=side(status="timeout", detail="no result within 30 s; the process was killed")),
        record("view.harness", "cpu", "error", f"worker failure: {HOSTILE}", reference=None, implementation=None),
        record("view.known", "cpu", "xfail", "step 1: x: values: torch [1.0, 1.0] / implementation [2.0, 2.0]",
               expected={"outcome": "fail", "reason": f"known bug {HOSTILE}"},
               implementation=side(step(tensor([2.0, 2.0]))), diff=[values_diff]),
        record("view.fixed", "cpu", "xpass", "expected fail (fixed upstream) but it passes",
               expected={"outcome": "fail", "reason": "fixed upstream"}),
    ]
    summary = {name: 0 for name in ("pass", "fail", "xfail", "xpass", "unsupported", "error", "timeout", "crash",
                                    "skip")}
    for item in records:
        summary[item["outcome"]] += 1
    return {
        "implementation": {"name": "fakeimpl", "module": "fakeimpl", "version": f"0.1 {HOSTILE}"},
        "reference": {"name": "torch", "version": "2.13.0"},
        "python": "3.11.7", "platform": "Linux-test",
        "devices": {"cpu": "available", "cuda": "CUDA not available"},
        "started": "2026-01-01T00:00:00+00:00", "selection": {"k": None, "devices": ["cpu", "cuda"]},
        "timeout": 30.0, "isolation": "fork", "duration": 12.5, "interrupted": False,
        "summary": summary, "total": len(records),
        "expectations": {"file": "expectations/fakeimpl.toml",
                         "stale": [{"case": "gone.case", "device": None, "outcome": "fail",
                                    "reason": f"stale {HOSTILE}"}]},
        "exit_status": 1,
        "cases": records,
    }


PROBLEMS = ("fail", "unsupported", "crash", "timeout", "error", "xfail", "xpass")


@pytest.fixture
def result() -> dict:
    return make_result()


@pytest.fixture
def reports(result: dict, tmp_path: Path) -> Path:
    write_all(result, tmp_path)
    return tmp_path


# -- registry ---------------------------------------------------------------------------------
def test_every_writer_is_registered_and_writes(reports: Path) -> None:
    assert set(WRITERS) == {"results.json", "junit.xml", "summary.md", "report.html"}
    for name in WRITERS:
        assert (reports / name).stat().st_size > 0


def test_base_record_carries_source_and_location() -> None:
    def scenario(torch, rec):
        rec("one", 1)

    found = ItemRecord.of(Item(Case(id="leaf.example", title="t", doc=Doc("https://pytorch.org/x", "x"),
                                    scenario=scenario), "cpu", "float32")).as_dict()
    assert 'rec("one", 1)' in found["source"]
    assert found["location"].startswith("tests/test_reports.py:")  # relative to the repository root


# -- junit.xml --------------------------------------------------------------------------------
def junit_cases(path: Path) -> list[ET.Element]:
    return list(ET.parse(path).getroot().iter("testcase"))


def test_junit_counts_and_names(result: dict, reports: Path) -> None:
    root = ET.parse(reports / "junit.xml").getroot()
    cases = junit_cases(reports / "junit.xml")
    assert root.tag == "testsuites"
    assert [s.get("name") for s in root] == ["conformance.leaf", "conformance.hooks", "conformance.view"]
    assert len(cases) == len(result["cases"]) == int(root.get("tests"))
    assert {c.get("name") for c in cases} == {f"{r['id']}[{r['device']}]" for r in result["cases"]}
    assert all(c.get("classname") == "conformance." + c.get("name").split(".")[0] for c in cases)
    assert all(float(c.get("time")) == 0.25 for c in cases)
    failures = [c.find("failure") for c in cases if c.find("failure") is not None]
    errors = [c.find("error") for c in cases if c.find("error") is not None]
    skipped = [c.find("skipped") for c in cases if c.find("skipped") is not None]
    assert sorted(f.get("type") for f in failures) == ["fail", "unsupported", "xpass"]
    assert sorted(e.get("type") for e in errors) == ["crash", "error", "timeout"]
    assert [s.get("message") for s in skipped] == ["CUDA not available"]
    assert (int(root.get("failures")), int(root.get("errors")), int(root.get("skipped"))) == (3, 3, 1)
    for suite in root:
        inside = list(suite.iter("testcase"))
        assert int(suite.get("tests")) == len(inside)
        assert int(suite.get("failures")) == sum(c.find("failure") is not None for c in inside)


def test_junit_failure_holds_the_first_difference_and_the_full_diff(reports: Path) -> None:
    by_name = {c.get("name"): c for c in junit_cases(reports / "junit.xml")}
    failure = by_name["leaf.values_differ[cpu]"].find("failure")
    assert failure.get("message").startswith("step 1: x: values: torch [1.0, 1.0]")
    for text in ("step 1: x: values", "torch:          [1.0, 1.0]", "implementation: [2.0, 2.0]",
                 "step 1: x: warnings", "step 1: x: printed output", "mismatched elements: 2 / 2"):
        assert text in failure.text
    xfail = by_name["view.known[cpu]"]
    assert xfail.find("failure") is None and xfail.find("error") is None
    assert "expected fail: known bug" in xfail.find("system-out").text
    passing = by_name["leaf.passes[cpu]"]
    assert [child.tag for child in passing] == ["properties"]  # the outcome at each level, nothing more
    assert {p.get("name"): p.get("value") for p in passing.iter("property")} == {
        "level.semantics": "pass", "level.api": "pass", "level.drop-in": "pass"}
    crash = by_name["hooks.crashes[cpu]"].find("error")
    assert "SIGSEGV" in crash.get("message") and "implementation side: crash" in crash.text


def test_junit_properties(reports: Path) -> None:
    suite = ET.parse(reports / "junit.xml").getroot()[0]
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["implementation"] == "fakeimpl"
    assert props["reference.version"] == "2.13.0"
    assert props["implementation.version"].startswith("0.1 ")
    assert props["device.cpu"] == "available" and props["device.cuda"] == "CUDA not available"
    assert props["stale_expectation"].startswith("gone.case")


def test_junit_escapes_hostile_text(reports: Path) -> None:
    text = (reports / "junit.xml").read_text(encoding="utf-8")
    assert not CONTROL.search(text)
    assert "<script" not in text and "]]>" not in text and "<img" not in text
    by_name = {c.get("name"): c for c in junit_cases(reports / "junit.xml")}
    message = by_name["leaf.values_differ[cpu]"].find("failure").get("message")
    assert "</script><script>alert(1)</script> ]]>" in message  # intact once parsed
    assert "\\x00\\x01\\x08\\x0b\\x1b[31m\\x7f\\x85 \\ud800" in message  # control characters shown, not kept


def test_junit_of_an_empty_run_is_valid(result: dict, tmp_path: Path) -> None:
    result["cases"] = []
    junit.write(result, tmp_path / "junit.xml")
    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert root.get("tests") == "0" and len(root) == 1


# -- summary.md ----------------------------------------------------------------------------------
def tables(text: str) -> list[list[str]]:
    found, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found + ([current] if current else [])


def cells(line: str) -> list[str]:
    """Cells of a table row: split at pipes that no backslash escapes."""
    return re.split(r"(?<!\\)\|", line.strip())[1:-1]


def test_markdown_has_one_row_per_topic_and_no_empty_columns(result: dict, reports: Path) -> None:
    text = (reports / "summary.md").read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith("## ") and "fakeimpl" in first and "2.13.0" in first and "failed" in first
    assert "12.5 s" in first
    topic_table = tables(text)[0]
    assert [cells(row)[0].strip() for row in topic_table[2:]] == ["`leaf`", "`hooks`", "`view`"]
    header = [c.strip() for c in cells(topic_table[0])]
    assert len(header) == 2 + 9 + 3  # topic, nine outcomes (all occur), total, three levels
    assert header[-3:] == ["semantics", "api", "drop-in"]
    del result["cases"][4:6]  # no crash, no timeout
    text = markdown.render(result)
    header = " ".join(cells(tables(text)[0][0]))
    assert "crash" not in header and "timeout" not in header and "fail" in header


def test_markdown_ranks_missing_api(result: dict, reports: Path) -> None:
    text = (reports / "summary.md").read_text(encoding="utf-8")
    missing = tables(text)[1]
    assert cells(missing[0])[0].strip() == "name (torch spelling)"
    assert [c.strip() for c in cells(missing[2])] == ["`register_hook`", "1", "`hooks.missing_api`"]
    assert "report.html" in text.split("\n|", 1)[0]  # the pointer to the details, in the header


def test_markdown_lists_only_topics_with_problems(result: dict) -> None:
    result["cases"] = [r for r in result["cases"] if r["topic"] != "view"] + [
        {**result["cases"][0], "id": "view.ok", "topic": "view"}]
    text = markdown.render(result)
    assert [cells(row)[0].strip() for row in tables(text)[0][2:]] == ["`leaf`", "`hooks`"]
    assert "Every item that ran passed in the other 1 topics: `view`." in text


def test_markdown_lists_each_non_passing_item_once(result: dict, reports: Path) -> None:
    text = (reports / "summary.md").read_text(encoding="utf-8")
    items = tables(text)[2]
    rows = items[2:]
    assert len(rows) == len(PROBLEMS)
    assert sorted(cells(r)[0].split()[-1] for r in rows) == sorted(PROBLEMS)
    assert cells(rows[0])[0].split()[-1] != "xfail" and cells(rows[-1])[0].split()[-1] == "xfail"
    assert "step 1: x: values: torch \\[1.0, 1.0\\]" in text
    assert "### Stale expectations (1)" in text and "`gone.case`" in text
    assert "CUDA not available" in text


def test_markdown_escapes_hostile_text(reports: Path) -> None:
    text = (reports / "summary.md").read_text(encoding="utf-8")
    assert not CONTROL.search(text)
    for raw in ("<script", "</script", "<img", "<marquee"):
        assert raw not in text
    assert not re.search(r"(?<!\\)\]\(javascript", text) and "\\[link\\](javascript" in text
    assert "\\`tick\\`" in text and "\\|" in text
    for table in tables(text):
        widths = {len(cells(row)) for row in table}
        assert len(widths) == 1, table


def test_markdown_shortens_long_texts(result: dict) -> None:
    result["cases"][2]["detail"] = "x" * 5000 + "|`" * 100
    row = next(r for r in tables(markdown.render(result))[2] if "values\\_differ" in r or "values_differ" in r)
    assert len(row) < 400 and "\u2026" in row and len(cells(row)) == 3


# -- report.html ---------------------------------------------------------------------------------
class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)


def parse(path: Path) -> tuple[str, Page]:
    text = path.read_text(encoding="utf-8")
    page = Page()
    page.feed(text)
    page.close()
    return text, page


def test_html_is_self_contained(reports: Path) -> None:
    text, page = parse(reports / "report.html")
    assert [t for t, _ in page.tags if t in ("link", "img", "iframe", "object", "embed", "base")] == []
    for tag, attrs in page.tags:
        assert "src" not in attrs, tag
        href = attrs.get("href")
        if href is not None:
            assert tag == "a" and (href.startswith("#") or href.startswith("https://pytorch.org/")), href
    assert any(attrs.get("href") == DOC["url"] for _, attrs in page.tags)
    assert "@import" not in text and "url(" not in text
    assert page.scripts == [html.SCRIPT] and page.styles == [html.STYLE]
    policy = next(a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy")
    for inline in (html.SCRIPT, html.STYLE):
        digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert "default-src 'none'" in policy


def test_html_escapes_hostile_text(reports: Path) -> None:
    text, page = parse(reports / "report.html")
    assert text.count("<script") == 1 and text.count("</script>") == 1
    assert "<img" not in text and "<marquee" not in text
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert not CONTROL.search(text)
    assert [t for t, _ in page.tags if t == "marquee"] == []


def test_html_links_only_http_documentation(result: dict, tmp_path: Path) -> None:
    result["cases"][2]["doc"] = {"url": "javascript:alert(4)", "section": "bad link"}
    page_text = html.render(result)
    assert 'href="javascript' not in page_text and "bad link" in page_text


def test_html_header_matrix_and_details(result: dict, reports: Path) -> None:
    text, page = parse(reports / "report.html")
    for fact in ("fakeimpl", "2.13.0", "Linux-test", "CUDA not available", "fail 1", "skip 1", "gone.case"):
        assert fact in text
    rows = [a for t, a in page.tags if t == "tr" and a.get("class") == "case"]
    assert [r["data-topic"] for r in rows] == ["leaf", "leaf", "hooks", "hooks", "hooks", "view", "view", "view"]
    assert rows[0]["data-outcomes"] == "pass skip" and "title of leaf.passes" in rows[0]["data-search"]
    cells_ = [a["class"] for t, a in page.tags if t == "td" and "cell" in a.get("class", "")]
    assert len(cells_) == 8 * 2 and cells_[:2] == ["cell o-pass", "cell o-skip"]
    assert cells_.count("cell o-none") == 7  # those cases did not run on cuda
    sections = [a for t, a in page.tags if t == "details" and a.get("class") == "case"]
    problem_ids = {r["id"] for r in result["cases"] if r["outcome"] in PROBLEMS}
    assert {a["id"] for a in sections} == {f"case-{i}" for i in problem_ids}
    assert "case-leaf.passes" not in {a.get("id") for _, a in page.tags}
    assert "x = torch.ones(2, requires_grad=True)" in text  # the scenario source
    assert '<span class="line hl"><span class="ln">3</span>' in text  # the differing step's line
    assert '<span class="f hl"><span class="k">values</span>' in text  # the differing field
    assert '<div class="warn hl"><span class="k">warns</span>nothing</div>' in text
    assert 'class="diff"' in text and "Differences (3)" in text
    assert "nothing recorded: crash: the process was killed by SIGSEGV" in text
    assert {a.get("data-outcome") for t, a in page.tags if t == "input" and a.get("type") == "checkbox"} \
        == set(PROBLEMS) | {"pass", "skip"}


def test_html_scales_to_a_large_catalog(result: dict) -> None:
    many = []
    for number in range(300):
        for item in result["cases"][:2]:
            clone = copy.deepcopy(item)
            clone["id"] = f"topic{number % 12}.case_{number}"
            clone["topic"] = f"topic{number % 12}"
            many.append(clone)
    failing = copy.deepcopy(result["cases"][2])
    result["cases"] = many + [failing]
    page_text = html.render(result)
    assert page_text.count('<tr class="case"') == 301
    assert page_text.count('<details class="case"') == 1
    assert len(page_text) < 1_000_000


# -- the whole pipeline ----------------------------------------------------------------------------
def test_cli_run_writes_all_reports(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--impl", "torch", "-k", "user_created_is_leaf",
         "--report-dir", str(out), "--no-progress", "--jobs", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert result["total"] >= 2 and all(r["outcome"] in ("pass", "skip") for r in result["cases"])
    assert all(r["location"].startswith("conformance/catalog/leaf.py:") for r in result["cases"])  # no machine's path
    # passing items keep no observations or source by default (--full-observations keeps them)
    assert all("source" not in r and "steps" not in (r.get("reference") or {}) for r in result["cases"])
    root = ET.parse(out / "junit.xml").getroot()
    assert int(root.get("tests")) == result["total"] and root.get("failures") == "0"
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## ") and "passed" in summary.splitlines()[0]
    assert tables(summary) == [] and "Every item that ran passed" in summary
    text, page = parse(out / "report.html")
    assert "leaf.user_created_is_leaf" in text and page.scripts == [html.SCRIPT]
    assert '<details class="case"' not in text  # all passed: the matrix only


def test_differing_words_are_marked_and_everything_is_escaped():
    from conformance.reports.html_items import marked_pair

    ref, impl = marked_pair("through the graph a second time (<b>)", "through the graph twice (<b>)")
    assert ref == "through the graph <mark>a second time</mark> (&lt;b&gt;)"
    assert impl == "through the graph <mark>twice</mark> (&lt;b&gt;)"
    ref, impl = marked_pair("same <script>", "same <script>")
    assert ref == impl == "same &lt;script&gt;"
    ref, impl = marked_pair(None, "raised \x1b[31m")
    assert ref == "" and impl.startswith("<mark>raised") and "\x1b" not in impl


def test_operator_coverage_table(result: dict, tmp_path: Path) -> None:
    from conformance.reports import coverage

    assert not coverage.has_operators(result) and "coverage.md" not in {p.name for p in write_all(result, tmp_path)}
    op = {**copy.deepcopy(result["cases"][0]), "id": "op.sin.default", "topic": "op",
          "tags": ["op", "op:sin", "check:forward", "check:grad"]}
    failing = {**copy.deepcopy(op), "dtype": "float64", "outcome": "fail", "tags": ["op", "op:sin", "check:gradgrad"]}
    result["cases"] += [op, failing]
    columns, rows = coverage.table(result)
    assert columns == ["cpu float32", "cpu float64"]
    assert rows == {"sin": {"cpu float32": {"forward": "pass", "grad": "pass"}, "cpu float64": {"gradgrad": "fail"}}}
    text = coverage.render_markdown(result)
    assert ("| `sin` | \u2713fwd \u2713grad \u00b7gg \u00b7err \u00b7jvp \u00b7fwbw \u00b7vmap \u00b7vmvjp | "
            "\u00b7fwd \u00b7grad \u2717gg \u00b7err \u00b7jvp \u00b7fwbw \u00b7vmap \u00b7vmvjp |") in text
    assert (tmp_path / "coverage.md") in write_all(result, tmp_path)
    assert "Operator coverage (1 operators" in html.render(result)


def test_operator_coverage_of_items_run_without_autograd_grad(result: dict) -> None:
    """The second-order check of an item run without autograd.grad or higher-order is not made; its
    gradients came through .backward() (bwd)."""
    from conformance.reports import coverage

    op = {**copy.deepcopy(result["cases"][0]), "id": "op.sin.default", "topic": "op",
          "tags": ["op", "op:sin", "check:forward", "check:grad", "check:gradgrad"]}
    result["cases"] = [{**op, "without": ["autograd.grad"]}, {**op, "dtype": "float64", "without": ["higher-order"]}]
    columns, rows = coverage.table(result)
    assert rows == {"sin": {"cpu float32": {"forward": "pass", "grad": "pass"},
                            "cpu float64": {"forward": "pass", "grad": "pass"}}}
    text = coverage.render_markdown(result)
    assert ("| `sin` | \u2713fwd \u2713bwd \u00b7gg \u00b7err \u00b7jvp \u00b7fwbw \u00b7vmap \u00b7vmvjp | "
            "\u2713fwd \u2713grad \u00b7gg \u00b7err \u00b7jvp \u00b7fwbw \u00b7vmap \u00b7vmvjp |") in text
    assert "bwd: first-order gradients through `.backward()`" in text
    page = html.render(result)
    assert "grad: first order, bwd: first order through .backward()" in page
    assert "<li>1 item without autograd.grad</li><li>1 item without higher-order</li>" in page
    result["cases"] = [op]
    assert "bwd" not in coverage.render_markdown(result) and "Run without" not in html.render(result)


def test_operator_coverage_of_forward_mode(result: dict) -> None:
    """The forward-mode checks: made (jvp, fwbw), refused by torch in every item of a cell (the
    exception compared: \u00acfwbw), not made by an item run without forward-ad, or without
    higher-order (no forward-over-reverse)."""
    from conformance.reports import coverage

    tags = ["op", "op:huber_loss", "check:forward", "check:forward-mode", "check:forward-over-reverse"]
    op = {**copy.deepcopy(result["cases"][0]), "id": "op.huber_loss.default", "topic": "op", "tags": tags}
    refused = {**op, "tags": [*tags, "torch-refuses:forward-over-reverse"]}
    result["cases"] = [refused, {**refused, "dtype": "float64", "without": ["higher-order"]}]
    text = coverage.render_markdown(result)
    assert ("| `huber_loss` | \u2713fwd \u00b7grad \u00b7gg \u00b7err \u2713jvp \u2713\u00acfwbw \u00b7vmap \u00b7vmvjp | "
            "\u2713fwd \u00b7grad \u00b7gg \u00b7err \u2713jvp \u00b7fwbw \u00b7vmap \u00b7vmvjp |") in text
    assert "\u00acjvp, \u00acfwbw: torch refuses it for the operator" in text
    assert "\u00ac: refused by torch" in html.render(result)
    result["cases"] = [{**op, "without": ["forward-ad"]}, {**refused, "dtype": "float64", "id": "op.huber_loss.other"},
                       {**op, "dtype": "float64"}]  # one item of the column computes it: not refused there
    text = coverage.render_markdown(result)
    assert ("| `huber_loss` | \u2713fwd \u00b7grad \u00b7gg \u00b7err \u00b7jvp \u00b7fwbw \u00b7vmap \u00b7vmvjp | "
            "\u2713fwd \u00b7grad \u00b7gg \u00b7err \u2713jvp \u2713fwbw \u00b7vmap \u00b7vmvjp |") in text
    assert "\u00ac" not in text
