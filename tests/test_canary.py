"""The canary (``conformance/adapters/canary.py``, ``--impl canary``) is caught on every aspect at every
level that counts it, and passes at the levels below.

The canary is torch with one deliberate, narrow, pure fault per aspect; its table (``FAULTS``) names
the catalog case that must catch each. The cases run once through the command line on the canary
and once on torch against itself, which must pass them all: the faults, not the cases, make the
differences. The aspects come from ``levels.ASPECTS``, so an aspect added without a fault fails
here, and so does a change that blinds the judge to an aspect.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch

from conformance.adapters.canary import FAULTS
from conformance.levels import ASPECTS, LEVELS
from conformance.operators import refused_in_dtype

CASES = sorted({fault.case for fault in FAULTS.values()})


def run_cases(run_cli, impl: str, report_dir: Path) -> dict:
    """``results.json`` of one run of every case of the canary's table on ``impl``, on the CPU."""
    done = run_cli("run", "--impl", impl, "-k", " or ".join(CASES), "--device", "cpu", "--report-dir", str(report_dir),
                   "--no-progress", "--jobs", "2")
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads((report_dir / "results.json").read_text(encoding="utf-8"))


def records_by_case(result: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for record in result["cases"]:
        found.setdefault(record["id"], []).append(record)
    return found


@pytest.fixture(scope="module")
def canary_run(run_cli, tmp_path_factory) -> dict:
    return run_cases(run_cli, "canary", tmp_path_factory.mktemp("canary"))


@pytest.fixture(scope="module")
def torch_run(run_cli, tmp_path_factory) -> dict:
    return run_cases(run_cli, "torch", tmp_path_factory.mktemp("torch"))


def test_every_fault_is_of_a_known_aspect():
    unknown = {name: fault.aspect for name, fault in FAULTS.items() if fault.aspect not in ASPECTS}
    assert not unknown


@pytest.mark.parametrize("aspect", list(ASPECTS))
def test_the_canary_is_caught_on_every_aspect_at_every_level_that_counts_it(canary_run, aspect):
    faults = [fault for fault in FAULTS.values() if fault.aspect == aspect]
    assert faults, f"the canary plants no fault of aspect {aspect!r}"
    # read from the table, not through levels.counts_at, so that a judge that stops counting an aspect is caught
    lowest = LEVELS.index(ASPECTS[aspect][0])
    expected = {level: "fail" if LEVELS.index(level) >= lowest else "pass" for level in LEVELS}
    by_case = records_by_case(canary_run)
    for fault in faults:
        records = by_case.get(fault.case)
        assert records, f"{fault.case} did not run"
        for record in records:
            if refused_in_dtype(record["id"], record["dtype"]) or record["dtype"] in ("float16", "bfloat16"):
                # torch refuses the operator in this dtype (no value for the fault to change), or the dtype is
                # judged by the reduced-precision rule, whose own tests plant faults sized for it
                continue
            label = f"{record['id']}[{record['dtype']}] ({fault.what})"
            assert record["implementation"]["status"] in ("completed", "raised"), (label, record["detail"])
            # caught where the table says, and nothing else differs: the fault is pure
            assert any(diff["aspect"] == aspect and fault.where in diff["where"] for diff in record["diff"]), \
                (label, record["diff"])
            assert {diff["aspect"] for diff in record["diff"]} == {aspect}, (label, record["diff"])
            assert record["levels"] == expected, (label, record["detail"])


def test_the_canary_says_it_is_the_canary(canary_run):
    assert canary_run["implementation"]["name"] == "canary"
    assert canary_run["implementation"]["module"] == "torch"  # normalisation is neutral
    assert canary_run["implementation"]["version"] == f"{torch.__version__} (canary)"


def test_torch_against_itself_passes_the_canarys_cases(torch_run, canary_run):
    by_case = records_by_case(torch_run)
    assert sorted(by_case) == sorted(records_by_case(canary_run))  # the same items
    assert set(CASES) <= set(by_case)
    for case_id, records in by_case.items():
        for record in records:
            assert record["levels"] == {level: "pass" for level in LEVELS}, (case_id, record["detail"])
            assert record["diff"] == []


def test_importing_the_canary_plants_nothing_here():
    """The test process imported the canary's table; its torch must be intact (the faults install only
    where a torch name is read through the canary's namespace)."""
    assert not torch.isnan(torch.tensor([math.inf])).item()
    assert torch.tensor([1, 2]).argmax().dtype == torch.int64
    assert "dtype=torch.float64" in repr(torch.zeros(1, dtype=torch.float64))
    assert not hasattr(torch.Tensor.__repr__, "__wrapped__")
