"""The topics complex_autograd, gradcheck and type_promotion: torch against itself passes them, and planted bugs
are caught where they should be.

* ``tests.broken.gradcheck_drops_imaginary`` (torch's gradcheck checking only the real part of complex outputs,
  as myautograd's did) fails ``gradcheck.wrong_complex_derivatives_caught`` only: it passes the backward that
  drops the imaginary part of its incoming gradient where torch raises (``raised``, a semantics difference), and
  its messages for a missing conjugate lack "While considering the imaginary part"; every real case passes.
"""

from __future__ import annotations

import json

TOPICS = "complex_autograd or gradcheck or type_promotion"


def run(run_cli, tmp_path, impl: str, selection: str) -> tuple[int, str, dict]:
    out = tmp_path / "reports"
    done = run_cli("run", "--impl", impl, "--device", "cpu", "-k", selection, "--jobs", "2", "--no-progress",
                   "--full-observations", "--report-dir", str(out))
    return done.returncode, done.stdout + done.stderr, json.loads((out / "results.json").read_text(encoding="utf-8"))


def test_torch_against_itself_passes_the_three_topics(run_cli, tmp_path):
    status, output, result = run(run_cli, tmp_path, "torch", TOPICS)
    assert status == 0, output
    topics = {r["id"].split(".")[0] for r in result["cases"]}
    assert topics == {"complex_autograd", "gradcheck", "type_promotion"}
    assert len(result["cases"]) >= 25 and all(r["outcome"] == "pass" for r in result["cases"])


def test_a_gradcheck_that_drops_the_imaginary_part_is_caught(run_cli, tmp_path):
    status, output, result = run(run_cli, tmp_path, "tests.broken.gradcheck_drops_imaginary", "gradcheck")
    assert status == 1, output
    failed = {r["id"]: r for r in result["cases"] if r["outcome"] != "pass"}
    assert list(failed) == ["gradcheck.wrong_complex_derivatives_caught"], output
    item = failed["gradcheck.wrong_complex_derivatives_caught"]
    assert item["levels"]["semantics"] == "fail"
    labels = [step["label"] for step in item["implementation"]["steps"]]
    differences = {(d["aspect"], labels[d["step"] - 1]) for d in item["diff"]}
    assert ("raised", "gradcheck(Square dropping the gradient's imaginary part)") in differences
    assert ("message", "gradcheck(Square without conjugate)") in differences
