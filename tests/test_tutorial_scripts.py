"""The tutorial corpus (``tests/scripts/``) prints the same under ``python -m myautograd`` as under torch.

Each script runs twice, each time in a fresh interpreter and a fresh working directory, one BLAS
and OpenMP thread each (the machine is shared; results stay deterministic): once with torch,
once through myautograd's command line entry (``myautograd.__main__.main``, what
``python -m myautograd script.py`` runs). The runs must agree on:

* stdout, line by line: exactly, except on the lines a script declares subject to BLAS and libm
  drift, where decimal numbers are compared with the tolerance below (``tests/scripts/README.md``
  states the rule for script authors);
* how the run ends (both finish, or both raise the same exception);
* the warnings emitted (category and message), as the seed snippets compare them.

A script whose frontmatter says ``waits for: <reason>`` depends on work not merged yet: the test
then asserts that it still fails, and fails itself as soon as the script passes, so that the
line is removed.

The drift rule, the one place it is implemented:
on a drift line, the text with the numbers taken out must be identical, integers must be equal,
and a decimal number (one written with a point or an exponent) may differ from torch's by at
most one unit in the last digit torch printed plus ``DRIFT_RTOL`` times its size. One unit in the
last place absorbs a rounding that fell the other way (seen in the regression and LSTM scripts);
the relative part absorbs last-bit differences carried through training and printed at full
precision (observed worst case in this corpus: 6e-10 relative, a float64 value after 300 SGD
steps in the spiral script; float32 values printed in full would drift near 1e-7).

This module is also the runner: ``python tests/test_tutorial_scripts.py torch|myautograd SCRIPT
WARNINGS_JSON`` runs one script on one side.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # when run as the runner, the tests package must be importable
    sys.path.insert(0, str(ROOT))

from tests.test_seed_snippets import Outcome, side_by_side, stderr_tail  # noqa: E402

SCRIPTS = sorted((HERE / "scripts").glob("*.py"))
TIMEOUT = 300
DRIFT_RTOL = 1e-6
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


# -- frontmatter ---------------------------------------------------------------------------------------
def frontmatter(script: Path) -> dict[str, str]:
    """The ``# key: value`` lines between the two ``# ---`` lines that open a script."""
    lines = script.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].strip() != "# ---":
        return {}
    fields = {}
    for line in lines[1:]:
        if line.strip() == "# ---":
            return fields
        key, _, value = line.lstrip("# ").partition(":")
        fields[key.strip()] = value.strip()
    return {}


# -- the drift rule -------------------------------------------------------------------------------------
def _numbers_agree(ours: str, theirs: str) -> bool:
    if not re.search(r"[.eE]", theirs):
        return ours == theirs
    digits = theirs.split("e")[0].split("E")[0]
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    exponent = int(re.split("[eE]", theirs)[1]) if re.search("[eE]", theirs) else 0
    last_unit = 10.0 ** (exponent - decimals)
    return abs(float(ours) - float(theirs)) <= last_unit + DRIFT_RTOL * abs(float(theirs))


def lines_agree(ours: str, theirs: str, drifting: bool) -> bool:
    if ours == theirs:
        return True
    if not drifting:
        return False
    our_numbers, their_numbers = NUMBER.findall(ours), NUMBER.findall(theirs)
    if NUMBER.sub("#", ours) != NUMBER.sub("#", theirs) or len(our_numbers) != len(their_numbers):
        return False
    return all(_numbers_agree(o, t) for o, t in zip(our_numbers, their_numbers, strict=True))


def output_differences(ours: str, theirs: str, drift: str | None) -> list[int]:
    """Line numbers (from 1) where the outputs disagree under the rule; a missing line counts."""
    pattern = re.compile(drift) if drift else None
    our_lines, their_lines = ours.splitlines(), theirs.splitlines()
    bad = []
    for number in range(max(len(our_lines), len(their_lines))):
        if number >= len(our_lines) or number >= len(their_lines):
            bad.append(number + 1)
            continue
        theirs_line = their_lines[number]
        drifting = bool(pattern and pattern.search(theirs_line))
        if not lines_agree(our_lines[number], theirs_line, drifting):
            bad.append(number + 1)
    return bad


# -- running ---------------------------------------------------------------------------------------------
def run_script(side: str, script: str, warnings_file: str) -> None:
    """The runner: one script on one side, in this process, recording warnings."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if side == "myautograd":
                from myautograd.__main__ import main

                main([script])
            else:
                import torch  # noqa: F401 - imported before the script, as the other side imports myautograd

                sys.argv = [script]
                runpy.run_path(script, run_name="__main__")
    finally:
        records = [{"category": w.category.__name__ if w.category.__module__ == "builtins"
                    else f"{w.category.__module__}.{w.category.__qualname__}", "message": str(w.message)}
                   for w in caught]
        Path(warnings_file).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        sys.stdout.flush()


def run_side(side: str, script: Path, workdir: Path) -> Outcome:
    workdir.mkdir()
    warnings_file = workdir / "warnings.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               PYTHONIOENCODING="utf-8", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), side, str(script), str(warnings_file)],
                          cwd=workdir, env=env, capture_output=True, text=True, encoding="utf-8", timeout=TIMEOUT)
    recorded = []
    if warnings_file.exists():
        recorded = [(w["category"], w["message"]) for w in json.loads(warnings_file.read_text(encoding="utf-8"))]
    return Outcome(side, done.returncode, done.stdout, done.stderr, recorded)


def compare(script: Path, tmp_path: Path) -> tuple[list[str], Outcome, Outcome]:
    theirs = run_side("torch", script, tmp_path / "torch")
    if theirs.returncode != 0:
        pytest.fail(f"{script.name} fails under torch itself:\n{stderr_tail(theirs)}", pytrace=False)
    ours = run_side("myautograd", script, tmp_path / "myautograd")
    problems = []
    differing = output_differences(ours.printed, theirs.printed, frontmatter(script).get("drift"))
    if differing:
        problems.append(f"printed output (lines {differing[:10]})")
    if ours.ending != theirs.ending:
        problems.append("ending")
    if ours.warning_list != theirs.warning_list:
        problems.append("warnings")
    return problems, theirs, ours


def report(script: Path, problems: list[str], theirs: Outcome, ours: Outcome) -> str:
    parts = [f"{script.name}: myautograd differs from torch ({', '.join(problems)})", "", "printed output:",
             side_by_side(theirs.printed, ours.printed), "", "how the run ends:",
             side_by_side(theirs.ending, ours.ending), "", "warnings:",
             side_by_side("\n".join(f"{c}: {m}" for c, m in theirs.warning_list),
                          "\n".join(f"{c}: {m}" for c, m in ours.warning_list))]
    if ours.returncode != 0:
        parts += ["", "myautograd's stderr (tail):", stderr_tail(ours)]
    return "\n".join(parts)


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_prints_the_same(script: Path, tmp_path: Path) -> None:
    problems, theirs, ours = compare(script, tmp_path)
    waiting = frontmatter(script).get("waits for")
    if waiting:
        assert problems, (f"{script.name} now prints the same as torch: remove its 'waits for: {waiting}' line "
                          "from the frontmatter")
        return
    if problems:
        pytest.fail(report(script, problems, theirs, ours), pytrace=False)


def test_every_script_has_frontmatter() -> None:
    assert len(SCRIPTS) >= 8
    for script in SCRIPTS:
        fields = frontmatter(script)
        assert fields.get("title") and fields.get("style"), f"{script.name}: title and style are required"
        assert set(fields) <= {"title", "style", "drift", "waits for"}, f"{script.name}: unknown keys {set(fields)}"
        if "drift" in fields:
            re.compile(fields["drift"])


# -- the rule catches what it must ---------------------------------------------------------------------------
TORCH_OUTPUT = "epoch 1 loss 0.123457\nweights tensor([0.1235, -2.0000])\nsteps 10\nName: w\n"


@pytest.mark.parametrize(("ours", "agree"), [
    (TORCH_OUTPUT, True),
    ("epoch 1 loss 0.123458\nweights tensor([0.1234, -2.0000])\nsteps 10\nName: w\n", True),  # last-digit flips
    ("epoch 1 loss 0.123460\nweights tensor([0.1235, -2.0000])\nsteps 10\nName: w\n", False),  # 3 units off
    ("epoch 2 loss 0.123457\nweights tensor([0.1235, -2.0000])\nsteps 10\nName: w\n", False),  # an integer
    ("epoch 1 loss 0.123457\nweights tensor([0.1235, -2.0000])\nsteps 11\nName: w\n", False),  # not a drift line
    ("epoch 1 cost 0.123457\nweights tensor([0.1235, -2.0000])\nsteps 10\nName: w\n", False),  # the words
    ("epoch 1 loss 0.123457\nweights tensor([0.1235, -2.0000, 1.0])\nsteps 10\nName: w\n", False),  # a number more
    ("epoch 1 loss 0.123457\nweights tensor([0.1235, -2.0000])\nsteps 10\n", False),  # a line less
    ("epoch 1 loss 0.123457\nweights tensor([0.1235, -2.0000])\nsteps 10\nName: v\n", False),
])
def test_the_drift_rule(ours: str, agree: bool) -> None:
    assert (output_differences(ours, TORCH_OUTPUT, r"^(epoch|weights)") == []) is agree


def test_full_precision_numbers_get_the_relative_tolerance() -> None:
    assert lines_agree("loss 0.12345678", "loss 0.12345671", True)  # 6e-7 relative
    assert not lines_agree("loss 0.12345678", "loss 0.12345071", True)  # 5e-5 relative
    assert lines_agree("grad 1.2345e-05", "grad 1.2346e-05", True)  # one unit of the mantissa's last digit
    assert not lines_agree("grad 1.2345e-05", "grad 1.2348e-05", True)


if __name__ == "__main__":
    run_script(*sys.argv[1:4])
