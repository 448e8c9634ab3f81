"""The benchmark report (``benchmarks/report.py``) and the benchmark options, on made-up results."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from types import SimpleNamespace

from benchmarks import memory, report

ROOT = Path(__file__).resolve().parent.parent


def bench(workload: str, library: str, times: list[float], kind: str = "time", **info):
    stats = SimpleNamespace(data=times, median=sorted(times)[len(times) // 2])
    return SimpleNamespace(extra_info={"workload": workload, "library": library, "kind": kind, **info}, stats=stats)


def results():
    return report.collect([
        bench("chain_1000_ops", "torch", [10.0, 10.0, 30.0]),
        # each round of the implementation follows a torch round (torch_seconds): half of it every time
        bench("chain_1000_ops", "mine", [5.0, 20.0, 15.0], torch_seconds=[10.0, 40.0, 30.0]),
        bench("hvp", "torch", [1.0, 1.0, 1.0]),
        bench("hvp", "mine", [1.5, 1.5, 1.5], torch_seconds=[1.0, 1.0, 1.0]),
        bench("mlp_step", "torch", [0.0], kind="memory", peak_bytes=2**20),
        bench("mlp_step", "mine", [0.0], kind="memory", peak_bytes=2**19),
    ])


def test_ratios_and_verdicts():
    rows = {(r.kind, r.workload): r for r in report.rows(results(), ["mine"])}
    chain = rows[("time", "chain_1000_ops")]
    assert chain.ratio == 15.0 / 10.0  # medians, taken apart
    assert chain.paired == 0.5 and chain.verdict == "met"  # judged on the paired ratio (goal 0.5)
    assert rows[("time", "hvp")].verdict == "not met"
    memory_row = rows[("memory", "mlp_step")]
    assert memory_row.ratio == 0.5 and memory_row.paired is None and memory_row.verdict == "met"


def test_markdown_and_chart(tmp_path):
    written = report.write(results(), ["mine"], tmp_path)
    assert sorted(p.name for p in written) == ["ratios.svg", "summary.md"]
    text = (tmp_path / "summary.md").read_text()
    assert "| chain_1000_ops | mine | 10.000 s" not in text  # times are shown in ms
    assert "| chain_1000_ops | mine | 10000.000 ms | 15000.000 ms | 1.50 | 0.50 | <= 0.5 | met |" in text
    assert "| hvp | mine | 1000.000 ms | 1500.000 ms | 1.50 | 1.50 | <= 1.0 | not met |" in text
    assert "| mlp_step | mine | 1.00 MiB | 0.50 MiB | 0.50 | <= 1.2 | met |" in text
    chart = ElementTree.parse(tmp_path / "ratios.svg").getroot()
    bars = [e for e in chart.iter() if e.tag.endswith("rect")]
    assert len(bars) == 3
    colours = [bar.get("fill") for bar in bars]
    assert colours == ["#2e7d32", "#c62828", "#2e7d32"]


def test_peak_memory_can_be_measured_here():
    assert memory.supported() is None


def test_an_unknown_implementation_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "pytest", "benchmarks", "-p", "no:xdist", "--collect-only", "-q",
                             "--bench-impl", "no_such_engine"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 4
    assert "unknown implementation 'no_such_engine'" in result.stderr + result.stdout
