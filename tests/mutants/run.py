"""The kill rate: the whole CPU catalog run against every mutant (``python -m tests.mutants``).

torch's side of each item is observed once and kept; then myautograd unchanged (the control,
which must pass every item, or the rates mean nothing; an item its expectations file records as a
known failure is set aside, as it cannot tell a mutant's failure from its own, and counted) and each
mutant run in a process of their own, each item in a forked child with the harness's time and memory limits, judged by the
harness's ``judge`` as ``conformance run`` judges it. A mutant is killed by its first item that
does not pass; the others are not run. ``--all`` runs every item of every mutant (slower), to
see everything a mutant breaks.

Usage: ``python -m tests.mutants [--only NAME,...] [-k EXPR] [--registry MODULE:ATTRIBUTE] [--jobs N] [--all]
[--report-dir DIR]`` (``-k`` narrows the items as ``conformance run -k`` does; a mutant that survives a narrowed
run may still be killed by an item left out; ``--registry conformance.catalog:load_with_databases`` adds torch's
sample databases, so mutants only their items reach are judged too). The
exit status is 0 when the kill rate is at least ``--target`` (default 0.95), 1 otherwise, 2 when
the control does not pass or a mutant's run fails (that is an error, not a kill).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONTROL = "(control)"
SELECTION_VARIABLE = "MUTANTS_SELECTION"
REGISTRY_VARIABLE = "MUTANTS_REGISTRY"
DEFAULT_REGISTRY = "conformance.catalog:load"
ROOT = Path(__file__).resolve().parents[2]


def _registry():
    """The catalog of ``--registry`` (``MUTANTS_REGISTRY`` in the environment, so that the workers load it too)."""
    from conformance.worker import load_registry

    return load_registry(os.environ.get(REGISTRY_VARIABLE) or DEFAULT_REGISTRY)


def _items():
    """The CPU items myautograd is run on: those of ``-k`` (``MUTANTS_SELECTION`` in the environment, so
    that the workers see it too), less those its profile makes ``n/a`` (a run lists them, not run)."""
    from conformance.expectations import builtin_path, load_file
    from conformance.item import items_of
    from conformance.selection import compile_expression

    profile = load_file(builtin_path("myautograd")).profile
    expression = os.environ.get(SELECTION_VARIABLE, "")
    selected = compile_expression(expression) if expression else (lambda case: True)
    return [item for item in items_of(_registry(), ("cpu",))
            if selected(item.case) and not profile.missing_for(item.features, item.case.optional_features)]


def _observe_reference(chunk: list[tuple[str, str]]) -> dict:
    import torch

    from conformance.worker import warm_up
    from tests.support.sides import observed

    warm_up()  # as a run's reference worker: torch's lazy imports (and their warnings) belong to no item
    registry = _registry()
    return {f"{case_id}|{dtype}": observed(registry.get(case_id), torch, "cpu", dtype)
            for case_id, dtype in chunk}


def observe_reference(path: Path, jobs: int) -> None:
    """torch's observations of every CPU item, written to ``path`` as JSON."""
    from concurrent.futures import ProcessPoolExecutor

    keys = [(item.case.id, item.dtype) for item in _items()]
    chunks = [keys[i::jobs] for i in range(jobs)]
    results: dict = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for part in pool.map(_observe_reference, chunks):
            results.update(part)
    path.write_text(json.dumps(results))


def _known_failure(item, entries) -> bool:
    """An item that unchanged myautograd fails as its expectations file records (the run reports it
    ``xfail``): set aside."""
    import torch

    return any(e.matches(item.case.id, "cpu", torch.__version__, item.dtype) for e in entries)


def run_one(name: str, reference_path: Path, every_item: bool, timeout: float) -> dict:
    """Run the catalog against one mutant (or the control) in this process; stop at the first item
    that does not pass unless ``every_item``."""
    import myautograd
    from conformance.judge import judge
    from tests.support.sides import observed

    if name != CONTROL:
        from . import apply

        apply(name)
    reference = json.loads(reference_path.read_text())
    items = _items()
    missing = [item.label for item in items if f"{item.case.id}|{item.dtype}" not in reference]
    if missing:
        raise SystemExit(f"the catalog changed since torch's side was observed: no reference for {missing[0]}")
    from conformance.expectations import builtin_path, load_file

    entries = load_file(builtin_path("myautograd")).entries
    failures = []
    count = set_aside = 0
    for item in items:
        if _known_failure(item, entries):
            set_aside += 1
            continue
        count += 1
        mine = observed(item.case, myautograd, "cpu", item.dtype, timeout)
        record = judge(item, reference[f"{item.case.id}|{item.dtype}"], mine, "myautograd")
        if record.outcome != "pass":
            failures.append({"item": item.label, "outcome": record.outcome, "detail": record.detail[:300]})
            if not every_item:
                break
    return {"name": name, "killed": bool(failures), "failures": failures, "items_run": count,
            "known_failures_set_aside": set_aside}


def _launch(name: str, reference: Path, out: Path, every_item: bool, timeout: float) -> subprocess.Popen:
    command = [sys.executable, "-m", "tests.mutants.run", "--worker", name, "--reference", str(reference),
               "--out", str(out), "--timeout", str(timeout)] + (["--all"] if every_item else [])
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def run_all(names: list[str], reference: Path, workdir: Path, jobs: int, every_item: bool, timeout: float) -> list[dict]:
    """Each of ``names`` in a process of its own, ``jobs`` at a time; results in ``names``' order."""
    pending = list(names)
    running: dict[str, tuple[subprocess.Popen, Path]] = {}
    results: dict[str, dict] = {}
    while pending or running:
        while pending and len(running) < jobs:
            name = pending.pop(0)
            out = workdir / f"{len(results) + len(running)}-{abs(hash(name))}.json"
            running[name] = (_launch(name, reference, out, every_item, timeout), out)
        time.sleep(0.2)
        for name, (process, out) in list(running.items()):
            if process.poll() is None:
                continue
            del running[name]
            if process.returncode == 0 and out.exists():
                results[name] = json.loads(out.read_text())
            else:  # the run itself failed: no verdict, and not a kill
                error = (process.stderr.read() if process.stderr else "").strip().splitlines()[-1:] or ["no output"]
                results[name] = {"name": name, "killed": None, "items_run": 0, "failures": [], "error": error[0]}
            _progress(results[name])
    return [results[name] for name in names]


def _progress(result: dict) -> None:
    if result.get("error"):
        print(f"ERROR    {result['name']}: the run failed: {result['error']}", flush=True)
    elif result["name"] == CONTROL:
        print(f"control: myautograd unchanged, {result['items_run']} items "
              f"({result.get('known_failures_set_aside', 0)} known failures set aside), "
              f"{'failures: ' + str(len(result['failures'])) if result['killed'] else 'all pass'}", flush=True)
    elif result["killed"]:
        first = result["failures"][0]
        print(f"killed   {result['name']}: {first['item']} {first['outcome']}", flush=True)
    else:
        print(f"SURVIVED {result['name']} ({result['items_run']} items pass)", flush=True)


def report(results: list[dict]) -> str:
    from . import MUTANTS

    judged = [r for r in results if not r.get("error")]
    killed = sum(bool(r["killed"]) for r in judged)
    errors = len(results) - len(judged)
    rate = f"{killed / len(judged):.1%}" if judged else "n/a"
    lines = [f"# Mutants: {killed} of {len(judged)} killed ({rate})"
             + (f"; {errors} could not be run" if errors else ""), "",
             "| mutant | area | bug | killed by |", "|:--|:--|:--|:--|"]
    for r in results:
        mutant = MUTANTS[r["name"]]
        if r.get("error"):
            by = f"**error**: {r['error']}"
        elif r["killed"]:
            by = f"`{r['failures'][0]['item']}` ({r['failures'][0]['outcome']})"
        else:
            by = "**survived**"
        lines.append(f"| `{r['name']}` | {mutant.area} | {mutant.bug} | {by} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated mutant names (default: all)")
    parser.add_argument("-k", dest="select", default="", help="run only the items this expression selects, as "
                        "`conformance run -k` (default: every CPU item)")
    parser.add_argument("--registry", default=DEFAULT_REGISTRY, metavar="MODULE:ATTRIBUTE",
                        help="the catalog to run, as `conformance run --registry` (default: the built-in catalog; "
                        "conformance.catalog:load_with_databases adds torch's sample databases)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at a time (default 2)")
    parser.add_argument("--all", action="store_true", help="run every item of every mutant, not up to the first kill")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per item (default 30)")
    parser.add_argument("--report-dir", help="where to write mutants.md and mutants.json")
    parser.add_argument("--target", type=float, default=0.95, help="the kill rate to reach (default 0.95)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--reference", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        result = run_one(args.worker, Path(args.reference), args.all, args.timeout)
        Path(args.out).write_text(json.dumps(result))
        return 0
    from conformance.selection import SelectionError, compile_expression

    from . import MUTANTS

    try:
        if args.select:
            compile_expression(args.select)
    except SelectionError as error:
        print(error, file=sys.stderr)
        return 2
    os.environ[SELECTION_VARIABLE] = args.select
    os.environ[REGISTRY_VARIABLE] = args.registry
    try:
        _registry()
    except Exception as error:  # noqa: BLE001 - a bad --registry is a usage error
        print(f"--registry {args.registry}: cannot load it ({type(error).__name__}: {error})", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.only.split(",")] if args.only else list(MUTANTS)
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        print(f"unknown mutant(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        workdir = Path(tmp)
        reference = workdir / "reference.json"
        started = time.monotonic()
        print("observing torch on every CPU item...", flush=True)
        observe_reference(reference, args.jobs)
        control = run_all([CONTROL], reference, workdir, 1, True, args.timeout)[0]
        if control["killed"]:
            print(f"the control (myautograd unchanged) does not pass: {control['failures'][:3]}", file=sys.stderr)
            return 2
        results = run_all(names, reference, workdir, args.jobs, args.all, args.timeout)
    text = report(results)
    print(text)
    print(f"{len(names)} mutants in {time.monotonic() - started:.0f} s")
    if args.report_dir:
        directory = Path(args.report_dir)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "mutants.md").write_text(text)
        (directory / "mutants.json").write_text(json.dumps(results, indent=1))
    if any(r.get("error") for r in results):
        return 2
    rate = sum(bool(r["killed"]) for r in results) / len(results)
    return 0 if rate >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
