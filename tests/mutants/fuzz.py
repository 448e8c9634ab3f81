"""The fuzzer alone against every mutant: how many it finds within a budget each.

``python -m tests.mutants.fuzz [--budget 60] [--jobs 2] [--seed 0] [--only NAME,...] [--report-dir DIR]``
runs ``python -m conformance fuzz --impl tests.mutants:<name> --no-shrink`` once per mutant (no
catalog at all), each in a process of its own, and writes ``fuzz.md`` and ``fuzz.json``: per
mutant, found or not, the seconds it took (start-up included; no shrinking, which can take
minutes), and the first line of the difference. The campaigns run with ``--baseline myautograd``:
a program on which myautograd unchanged differs from torch too is passed over (that difference is
myautograd's own, not the mutant's), so only the mutant's bug counts. The exit status is 0 when
every run ended normally (found or not), 2 when one failed for another reason (an error, which
is never counted as found).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ._registry import MUTANTS

ROOT = Path(__file__).resolve().parents[2]


def fuzz_one(name: str, budget: float, seed: int) -> dict:
    """One campaign against mutant ``name``: found (exit 1), not found (exit 0), or an error."""
    with tempfile.TemporaryDirectory() as report_dir:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "conformance", "fuzz", "--impl", f"tests.mutants:{name}", "--budget", str(budget),
             "--seed", str(seed), "--report-dir", report_dir, "--no-shrink", "--baseline", "myautograd"],
            cwd=ROOT, capture_output=True, text=True, timeout=budget * 6 + 300)
        seconds = round(time.monotonic() - started, 1)
        outcome = {0: "not found", 1: "found"}.get(done.returncode, "error")
        difference = ""
        if outcome == "found":
            diffs = sorted(Path(report_dir).glob("*.diff.txt"))
            text = diffs[0].read_text() if diffs else done.stdout
            difference = next((line.strip() for line in text.splitlines() if line.strip().startswith("- step")),
                              text.strip().splitlines()[0] if text.strip() else "")
        elif outcome == "error":
            difference = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
    return {"mutant": name, "area": MUTANTS[name].area, "outcome": outcome, "seconds": seconds,
            "difference": difference[:200]}


def write_report(results: list[dict], budget: float, seed: int, report_dir: Path) -> str:
    found = sum(r["outcome"] == "found" for r in results)
    lines = [f"# The fuzzer alone against the mutants ({budget:g} s each, seed {seed})", "",
             f"Found {found} of {len(results)} mutants.", "",
             "| mutant | area | outcome | seconds | first difference |", "|---|---|---|---:|---|"]
    for r in sorted(results, key=lambda r: (r["area"], r["mutant"])):
        text = r["difference"].replace("|", "\\|")
        lines.append(f"| `{r['mutant']}` | {r['area']} | {r['outcome']} | {r['seconds']} | {text} |")
    by_area: dict[str, list[int]] = {}
    for r in results:
        counts = by_area.setdefault(r["area"], [0, 0])
        counts[0] += r["outcome"] == "found"
        counts[1] += 1
    lines += ["", "| area | found |", "|---|---:|"]
    lines += [f"| {area} | {hit}/{total} |" for area, (hit, total) in sorted(by_area.items())]
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "fuzz.md").write_text("\n".join(lines) + "\n")
    (report_dir / "fuzz.json").write_text(json.dumps({"budget": budget, "seed": seed, "results": results}, indent=1))
    return f"fuzzer alone: found {found} of {len(results)} mutants within {budget:g} s each"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds of fuzzing per mutant (default 60)")
    parser.add_argument("--seed", type=int, default=0, help="the campaigns' seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants fuzzed at a time (default 2)")
    parser.add_argument("--only", help="comma-separated mutant names (default: all)")
    parser.add_argument("--report-dir", default=str(ROOT / "reports" / "mutants"), help="where fuzz.md goes")
    args = parser.parse_args(argv)
    names = list(MUTANTS) if not args.only else args.only.split(",")
    unknown = [n for n in names if n not in MUTANTS]
    if unknown or args.budget <= 0 or args.jobs < 1:
        parser.error(f"unknown mutant {unknown[0]}" if unknown else "--budget and --jobs must be positive")
    results = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(lambda n: fuzz_one(n, args.budget, args.seed), names):
            results.append(result)
            print(f"[{len(results)}/{len(names)}] {result['mutant']}: {result['outcome']} ({result['seconds']} s)",
                  flush=True)
    print(write_report(results, args.budget, args.seed, Path(args.report_dir)))
    return 2 if any(r["outcome"] == "error" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
