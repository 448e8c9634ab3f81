"""Command line: ``python -m conformance {run,list,show}`` (also installed as ``conformance``).

Exit status: 0 when every outcome is expected (pass, xfail, skip); 1 when some are not;
2 for bad arguments (unknown implementation or device, a filter that matches nothing, a
malformed expectations file), with one line saying why; 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import catalog
from . import expectations as expectations_module
from .case import ALL_DEVICES, Case
from .execution import DEFAULT_TIMEOUT, Sides
from .implementations import REFERENCE, UnknownImplementation, resolve
from .isolation import MODES, default_mode
from .selection import SelectionError, compile_expression


class UsageError(Exception):
    """Bad arguments: reported in one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance",
        description="Run the PyTorch autograd conformance catalog on torch and an implementation under test.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run the catalog and write reports")
    run.add_argument("--impl", default="myautograd",
                     help="implementation under test: a module name (default: myautograd)")
    run.add_argument("-k", dest="select", metavar="EXPR", help="select cases by id, topic and tags (and/or/not)")
    run.add_argument("--device", default=None,
                     help="comma-separated devices (default: cpu,cuda; unavailable ones are skipped)")
    run.add_argument("--report-dir", type=Path, default=Path("reports"), help="where reports go (default: reports/)")
    run.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: one per core)")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                     help=f"seconds per case and side (default: {DEFAULT_TIMEOUT:g})")
    run.add_argument("--expectations", type=Path, default=None,
                     help="expectations file (default: the built-in one for the implementation, if any)")
    run.add_argument("--isolation", choices=MODES, default=default_mode(),
                     help="fork: a fresh process per case and side (default); none: in the worker")
    run.add_argument("--no-progress", action="store_true", help="no live progress line, even on a terminal")

    listing = commands.add_parser("list", help="list the catalog's cases")
    listing.add_argument("-k", dest="select", metavar="EXPR")
    listing.add_argument("--json", action="store_true", help="machine-readable output")

    show = commands.add_parser("show", help="show one case: its source, its documentation, and what torch observes")
    show.add_argument("id")
    show.add_argument("--device", default="cpu")
    return parser


def select_cases(expression: str | None) -> list[Case]:
    registry = catalog.load()
    cases = list(registry)
    if expression:
        try:
            predicate = compile_expression(expression)
        except SelectionError as exc:
            raise UsageError(str(exc)) from exc
        cases = [c for c in cases if predicate(c)]
        if not cases:
            raise UsageError(f"-k {expression!r} matches no case")
    return cases


def parse_devices(text: str | None) -> tuple[str, ...]:
    if text is None:
        return ALL_DEVICES
    devices = tuple(d.strip() for d in text.split(",") if d.strip())
    unknown = [d for d in devices if d not in ALL_DEVICES]
    if unknown or not devices:
        raise UsageError(f"unknown device {', '.join(unknown) or repr(text)}; "
                         f"expected a comma-separated list of {', '.join(ALL_DEVICES)}")
    return devices


def command_run(args: argparse.Namespace) -> int:
    from .reports import write_all
    from .runner import Run, RunConfig, WorkerError

    devices = parse_devices(args.device)
    cases = select_cases(args.select)
    expectations_path = args.expectations or expectations_module.builtin_path(args.impl)
    if args.expectations is not None and not args.expectations.exists():
        raise UsageError(f"expectations file {args.expectations} does not exist")
    try:
        entries = expectations_module.load(expectations_path)
    except expectations_module.ExpectationError as exc:
        raise UsageError(str(exc)) from exc
    if args.jobs < 0 or args.timeout <= 0:
        raise UsageError("--jobs must be 0 or more and --timeout above 0")
    config = RunConfig(
        impl=args.impl, cases=cases, devices=devices, report_dir=args.report_dir, jobs=args.jobs,
        timeout=args.timeout, isolation=args.isolation, expectations=entries,
        expectations_file=str(expectations_path) if expectations_path else None,
        all_case_ids=tuple(c.id for c in catalog.load()),
        selection={"k": args.select, "devices": list(devices)},
        live_progress=False if args.no_progress else None,
    )
    try:
        run = Run(config)
        result = run.execute()
    except (UnknownImplementation, WorkerError) as exc:
        raise UsageError(str(exc)) from exc
    written = write_all(result, args.report_dir)
    print(f"{result['implementation']['name']} {result['implementation']['version']} against torch "
          f"{result['reference']['version']}: " + ", ".join(f"{n} {c}" for n, c in result["summary"].items() if c))
    for stale in result["expectations"]["stale"]:
        print(f"stale expectation: {stale['case']} ({stale['outcome']}) matches no case")
    print("reports: " + ", ".join(str(p) for p in written))
    if result["interrupted"]:
        return 130
    return result["exit_status"]


def command_list(args: argparse.Namespace) -> int:
    cases = select_cases(args.select)
    if args.json:
        print(json.dumps([{"id": c.id, "topic": c.topic, "title": c.title, "doc": c.doc.url,
                           "devices": list(c.devices), "tags": list(c.tags)} for c in cases], indent=1))
        return 0
    width = max(len(c.id) for c in cases)
    for c in cases:
        print(f"{c.id:<{width}}  {c.title}  <{c.doc.url}>")
    print(f"{len(cases)} cases")
    return 0


def command_show(args: argparse.Namespace) -> int:
    from .compare import describe
    from .execution import run_item

    registry = catalog.load()
    if args.id not in registry:
        raise UsageError(f"no case {args.id!r}; `conformance list` shows the ids")
    case = registry.get(args.id)
    device = parse_devices(args.device)[0]
    print(f"{case.id}: {case.title}")
    print(f"topic: {case.topic}   devices: {', '.join(case.devices)}   tags: {', '.join(case.tags) or '-'}")
    print(f"checks: {case.doc}")
    print(f"source ({case.location}):\n")
    print(case.source)
    reference = resolve(REFERENCE)
    record = run_item(case, device, Sides(reference, reference), isolation=default_mode())
    observed = record["reference"]
    print(f"torch {reference.version} on {device} observes ({observed['status']}):")
    for number, step in enumerate(observed.get("steps", []), start=1):
        outcome = (f"raises {step['error']['type']}: {step['error']['message']}" if "error" in step
                   else describe(step["value"]))
        print(f"  step {number}: {step['label']} -> {outcome}")
        for warning in step.get("warnings", []):
            print(f"      warns {warning['category']}: {warning['message']}")
        if step.get("stdout"):
            print("      prints " + repr(step["stdout"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {"run": command_run, "list": command_list, "show": command_show}[args.command]
    try:
        return handler(args)
    except UsageError as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
