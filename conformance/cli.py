"""Command line: ``python -m conformance {run,list,show,replay,matrix,fuzz,surface}`` (also installed as ``conformance``).

Everything given on the command line is checked before the first case runs: numbers (finite, in
range), the report directory (a writable directory, created if missing; report files that are
not regular files), the expectations file (every field's type and value, unknown keys), the
implementation (it must import in its workers within ``--startup-timeout``), its own device where
``--impl NAME@DEVICE`` names one (a device name, not the CPU, known to the implementation; the
reference then runs on the CPU only: ``placement``). A problem is one line on stderr and exit
status 2.

Exit status of ``run``: 0 when every outcome at the deciding ``--level`` is expected (pass,
xfail, skip, n/a) and something ran; 1 when some are not; 2 for bad arguments; 5 when the run is
incomplete (nothing of the selection ran, or a device named with ``--device`` cannot be used)
unless ``--allow-empty``; 130 when interrupted by SIGINT, 143 by SIGTERM (the reports then hold
what was done, marked interrupted). Output piped into a
program that stops reading (``| head``) ends quietly.

This process judges and writes reports; it never imports the implementation under test (see
``pool``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from . import catalog
from . import expectations as expectations_module
from .bounds import for_console
from .case import ALL_DEVICES, Case
from .fuzz import GRACE as FUZZ_GRACE
from .fuzz import HYPOTHESIS_RUNS, SHRINKERS
from .isolation import MODES, default_mode
from .levels import DEFAULT_LEVEL, LEVELS
from .placement import Placement, PlacementError
from .selection import SelectionError, compile_expression

DEFAULT_REGISTRY = "conformance.catalog:load"
REPORT_FILES = ("results.jsonl", "results.json", "junit.xml", "summary.md", "report.html", "coverage.md")


class UsageError(Exception):
    """Bad arguments: reported in one line, exit status 2."""


def number(kind, low: float, high: float, what: str):
    """An argparse type: a finite number of ``kind`` within [low, high]."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what}") from None
        if isinstance(value, float) and not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: expected {what} from {low:g} to {high:g}")
        return value

    return parse


class Parser(argparse.ArgumentParser):
    """argparse, with its errors in one line (and exit status 2) like every other usage error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="conformance",
        description="Run the PyTorch autograd conformance catalog on torch and an implementation under test.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    run = commands.add_parser("run", help="run the catalog and write reports")
    run.add_argument("--impl", default="myautograd",
                     help="implementation under test: a module name, module:attribute, or a shipped adapter "
                          "(mygrad, tinygrad, micrograd; canary: torch with planted faults); NAME@DEVICE runs it on "
                          "DEVICE against the reference on the CPU (torch@cuda: a device backend); default: myautograd")
    run.add_argument("-k", dest="select", metavar="EXPR", help="select cases by id, topic and tags (and/or/not)")
    run.add_argument("--device", default=None,
                     help="comma-separated devices; a device named here must be usable, or the run is incomplete "
                          "(exit status 5) (default: cpu, and cuda where both sides can use it; cpu only with "
                          "--impl NAME@DEVICE)")
    run.add_argument("--dtype", dest="dtypes", metavar="NAMES", default=None,
                     help="comma-separated dtypes (float32,float64): only the items in these (default: every dtype "
                          "of each case)")
    run.add_argument("--allow-empty", action="store_true",
                     help="exit 0 also when the run is incomplete: nothing of the selection ran, or a device named "
                          "with --device cannot be used (the reports still say so)")
    run.add_argument("--level", choices=LEVELS, default=None,
                     help=f"the level whose outcomes decide the exit status (default: the implementation's [run] level "
                          f"in its expectations file, else {DEFAULT_LEVEL})")
    run.add_argument("--report-dir", type=Path, default=Path("reports"), help="where reports go (default: reports/)")
    run.add_argument("--jobs", "-j", type=number(int, 0, 256, "whole number"), default=0,
                     help="workers per side (default: one per core)")
    run.add_argument("--timeout", type=number(float, 0.01, 86400, "number of seconds"), default=None,
                     help="seconds per case and side (default: the implementation's [run] timeout in its expectations "
                          "file, else 30)")
    run.add_argument("--memory-limit", type=number(int, 0, 1 << 20, "number of MiB"), default=2048, metavar="MIB",
                     help="memory a case may add to its process, in MiB; 0: no limit (default: 2048)")
    run.add_argument("--startup-timeout", type=number(float, 1, 3600, "number of seconds"), default=None,
                     help="seconds for each side to import and get ready (default: the implementation's [run] "
                          "startup_timeout, else 120)")
    run.add_argument("--expectations", type=Path, default=None,
                     help="expectations and profile file (default: the built-in one for the implementation, if any)")
    run.add_argument("--isolation", choices=MODES, default=default_mode(),
                     help="fork: a fresh forked process per case and side (default); spawn: a fresh interpreter "
                          "per case and side, for implementations that cannot run after a fork (slow)")
    run.add_argument("--no-progress", action="store_true", help="no live progress line, even on a terminal")
    run.add_argument("--full-observations", action="store_true",
                     help="keep both sides' observations (and the scenario source) of passing items in results.json "
                          "and results.jsonl too (by default only items that did not pass keep them)")
    run.add_argument("--registry", default=DEFAULT_REGISTRY, metavar="MODULE:ATTRIBUTE",
                     help="the catalog to run: a Registry, or a function returning one (default: the built-in "
                          "catalog; the harness's own tests run small catalogs of their own)")

    listing = commands.add_parser("list", help="list the catalog's cases")
    listing.add_argument("-k", dest="select", metavar="EXPR")
    listing.add_argument("--json", action="store_true", help="machine-readable output")

    show = commands.add_parser("show", help="show one case: its source, its documentation, and what torch observes")
    show.add_argument("id")
    show.add_argument("--device", default="cpu")
    show.add_argument("--dtype", default=None)

    replay = commands.add_parser(
        "replay", help="run one item on torch and an implementation, step by step; --script writes it as a standalone file",
        description="Run one item on torch and on the implementation (a worker each, a few seconds) and print "
                    "every step as each side observed it, the differences most severe first and the outcome at "
                    "each level. Exit status: 0 when the item passes at --level, 1 when not, 2 for bad input.")
    replay.add_argument("item", metavar="ITEM",
                        help="a case id, or an item label as reports print it (op.sin.default[cpu,float64]), "
                             "which also sets the device and dtype")
    replay.add_argument("--impl", default="myautograd",
                        help="implementation under test, as for run (default: myautograd)")
    replay.add_argument("--device", default=None, help="the device (default: cpu, or the label's)")
    replay.add_argument("--dtype", default=None, help="one of the case's dtypes (default: its first, or the label's)")
    replay.add_argument("--level", choices=LEVELS, default=None,
                        help=f"the level whose outcome decides the exit status (default: the implementation's [run] "
                             f"level, else {DEFAULT_LEVEL}, as in run)")
    replay.add_argument("--timeout", type=number(float, 0.01, 86400, "number of seconds"), default=None,
                        help="seconds for the item on each side (default: the implementation's [run] timeout, else "
                             "30; a case with a time limit of its own keeps it, as in run)")
    replay.add_argument("--startup-timeout", type=number(float, 1, 3600, "number of seconds"), default=None,
                        help="seconds for each side to import and get ready (default: the implementation's [run] "
                             "startup_timeout, else 120)")
    replay.add_argument("--expectations", type=Path, default=None,
                        help="expectations and profile file, for its notes on the item (default: the built-in one)")
    replay.add_argument("--script", type=Path, default=None, metavar="FILE",
                        help="also write FILE: plain Python that reproduces the item with no import of the suite "
                             "and compares each step with what torch observed here (python FILE [--impl NAME])")
    replay.add_argument("--registry", default=DEFAULT_REGISTRY, metavar="MODULE:ATTRIBUTE",
                        help="the catalog the item comes from (default: the built-in catalog)")

    fuzz = commands.add_parser("fuzz", help="differential fuzzing of whole autograd programs against torch",
                               description="Differential fuzzing of whole autograd programs against torch. Programs "
                                           "use only the features the implementation's profile keeps (its "
                                           "expectations file's [profile] lacks).")
    fuzz.add_argument("--impl", default="myautograd", help="implementation under test (as for run)")
    fuzz.add_argument("--device", default="cpu", choices=ALL_DEVICES, help="the device programs run on (default: cpu)")
    fuzz.add_argument("--budget", type=number(float, 1, 7 * 86400, "number of seconds"), default=60.0,
                      help="seconds to fuzz for, shrinking included (default: 60); counted once both sides have "
                           f"started, and the campaign ends at most {FUZZ_GRACE:g} s after it (the program running "
                           "then is stopped; a shrink cut short writes the shortest program found so far)")
    fuzz.add_argument("--seed", type=number(int, 0, 2**32 - 1, "whole number"), default=0,
                      help="seed of the first chunk of programs (default: 0); the same seed replays a campaign")
    fuzz.add_argument("--level", choices=LEVELS, default=None,
                      help=f"the level at which a program must pass (default: the implementation's [run] level, else "
                           f"{DEFAULT_LEVEL})")
    fuzz.add_argument("--max-steps", type=number(int, 1, 200, "whole number"), default=20,
                      help="steps a program may have at most (default: 20)")
    fuzz.add_argument("--report-dir", type=Path, default=Path("reports/fuzz"),
                      help="where a shrunk difference is written (default: reports/fuzz/)")
    fuzz.add_argument("--startup-timeout", type=number(float, 1, 3600, "number of seconds"), default=None,
                      help="seconds for each side to import and get ready (default: the implementation's [run] "
                           "startup_timeout, else 120)")
    fuzz.add_argument("--baseline", metavar="IMPL",
                      help="an implementation whose own differences from torch are not findings: a program on "
                           "which it differs too is passed over (to find what a change to it broke)")
    fuzz.add_argument("--expectations", type=Path, default=None,
                      help="a file whose [profile] says which features programs may not use, and whose [[fuzz]] "
                           "entries explain known differences (default: the built-in one for the implementation, "
                           "if any)")
    fuzz.add_argument("--operators", metavar="NAMES", type=lambda text: tuple(n for n in text.split(",") if n),
                      default=(), help="comma-separated operators of the table (sin,mul,mse_loss): programs draw only "
                                       "these, at least one of them elementwise (default: all)")
    fuzz.add_argument("--no-shrink", action="store_true",
                      help="write the first difference as drawn, without shrinking it (quicker; for measuring "
                           "how soon differences are found)")
    fuzz.add_argument("--shrinker", choices=SHRINKERS, default="auto",
                      help="how the first difference is shrunk: hypothesis (through the choices that drew the program; "
                           "it may need hundreds of runs), steps (deleting the program's steps, keeping the "
                           "difference; a few dozen runs), or auto (default): hypothesis where the budget left affords "
                           f"{HYPOTHESIS_RUNS} runs of a program at the cost measured so far, steps where not (a slow "
                           "implementation)")

    surface = commands.add_parser(
        "surface", help="the documented autograd surface of the installed torch, and the cases that use each name",
        description="Derive the documented autograd surface from the installed torch (the __all__ of torch.autograd "
                    "and its submodules, torch.func and torch.utils.checkpoint; short checked lists for Tensor, "
                    "Function, FunctionCtx, Node, clipping and nn.Module's backward hooks) and find, in the source "
                    "of each case's scenario, the names it uses. Prints a table per area (names, used, excluded "
                    "on purpose, missing) and the missing names. Exit status: 0 when no name is missing, 1 when "
                    "some are, 2 for bad input.")
    surface.add_argument("--json", action="store_true", help="machine-readable output: every name with its cases "
                                                              "or the reason it is excluded")
    surface.add_argument("--registry", default=DEFAULT_REGISTRY, metavar="MODULE:ATTRIBUTE",
                         help="the catalog whose cases are searched (default: the built-in catalog)")
    surface.add_argument("--impl", default=None,
                         help="also list the names in scope (not excluded) that this implementation lacks, read in a "
                              "process of its own (exit status 1 when it lacks some)")

    matrix = commands.add_parser("matrix", help="a cross-implementation matrix from several results.json files")
    matrix.add_argument("results", nargs="+", type=Path, help="results.json files of runs to set side by side")
    matrix.add_argument("--report-dir", type=Path, default=Path("reports/matrix"),
                        help="where matrix.html and matrix.md go (default: reports/matrix/)")
    return parser


def known_case_ids(registry: str) -> tuple[str, ...]:
    """The ids an expectation may name without being stale: the registry's, and for the default catalog
    also those of the topics it runs only on request (torch's test databases)."""
    ids = tuple(c.id for c in load_registry(registry))
    if registry == DEFAULT_REGISTRY:
        from .catalog import database_case_ids  # noqa: PLC0415 - only the default catalog has them

        ids += database_case_ids()
    return ids


def load_registry(target: str = None):
    """The catalog named by ``--registry`` (``module:attribute``), loaded in this process."""
    from .worker import load_registry as load

    try:
        return load(target or DEFAULT_REGISTRY)
    except Exception as exc:  # noqa: BLE001 - a bad --registry is a usage error
        raise UsageError(f"--registry {target}: cannot load it ({type(exc).__name__}: {exc})") from None


def select_cases(expression: str | None, registry_target: str | None = None) -> list[Case]:
    registry = load_registry(registry_target)
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


def parse_dtypes(text: str | None) -> tuple[str, ...]:
    """``--dtype float32,float64``: the dtypes named (empty for all); one line for a name no case runs in."""
    from .operators.spec import DTYPES

    names = tuple(name for name in (text or "").split(",") if name)
    unknown = [name for name in names if name not in DTYPES]
    if unknown:
        raise UsageError(f"--dtype: unknown dtype {unknown[0]!r}; known: {', '.join(DTYPES)}")
    return names


def parse_devices(text: str | None, impl: str | None = None) -> tuple[str, ...]:
    """The devices of ``--device`` (``None``: left out); ``impl``: the implementation, whose device of
    its own (``NAME@DEVICE``, ``placement``) leaves the CPU to the reference."""
    placement = parse_placement(impl or "")
    devices = None
    if text is not None:
        devices = tuple(dict.fromkeys(d.strip() for d in text.split(",") if d.strip()))
        unknown = [d for d in devices if d not in ALL_DEVICES]
        if unknown or not devices:
            raise UsageError(f"unknown device {', '.join(unknown) or repr(text)}; "
                             f"expected a comma-separated list of {', '.join(ALL_DEVICES)}")
    try:
        return placement.reference_devices(devices)
    except PlacementError as exc:
        raise UsageError(str(exc)) from None


def parse_placement(impl: str) -> Placement:
    """The placement ``--impl`` asks for (the implementation on a device of its own: ``torch@cuda``)."""
    try:
        return Placement.of(impl)
    except PlacementError as exc:
        raise UsageError(str(exc)) from None


def check_report_dir(directory: Path, names: tuple[str, ...] = REPORT_FILES) -> None:
    """A writable directory (created if missing) whose report files, where present, are files."""
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--report-dir {directory} is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--report-dir {directory}: cannot create it ({exc.strerror or exc})") from None
    if not directory.is_dir():
        raise UsageError(f"--report-dir {directory} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise UsageError(f"--report-dir {directory} is not writable ({exc.strerror or exc})") from None
    for name in names:
        path = directory / name
        if path.exists() and not path.is_file() or path.is_symlink() and not path.exists():
            raise UsageError(f"{path} exists and is not a regular file; reports cannot be written there")
        if path.exists() and not os.access(path, os.W_OK):
            raise UsageError(f"{path} is not writable")


def load_implementation_file(args: argparse.Namespace):
    path = args.expectations or expectations_module.builtin_path(args.impl)
    if args.expectations is not None and not args.expectations.is_file():
        raise UsageError(f"expectations file {args.expectations} does not exist or is not a file")
    try:
        return expectations_module.load_file(path)
    except expectations_module.ExpectationError as exc:
        raise UsageError(str(exc)) from exc


def command_run(args: argparse.Namespace) -> int:
    from .pool import StartupError
    from .reports import write_all
    from .runner import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT, Run, RunConfig

    devices = parse_devices(args.device, args.impl)
    cases = select_cases(args.select, args.registry)
    impl_file = load_implementation_file(args)
    check_report_dir(args.report_dir)
    level = args.level or impl_file.run.level or DEFAULT_LEVEL
    config = RunConfig(
        impl=args.impl, cases=cases, devices=devices, dtypes=parse_dtypes(args.dtypes), report_dir=args.report_dir,
        jobs=args.jobs,
        timeout=args.timeout or impl_file.run.timeout or DEFAULT_TIMEOUT, memory_mib=args.memory_limit,
        isolation=args.isolation, level=level,
        impl_file=impl_file, all_case_ids=known_case_ids(args.registry), registry=args.registry,
        selection={"k": args.select, "devices": list(devices), "level": level,
                   **({"dtypes": args.dtypes.split(",")} if args.dtypes else {})},
        live_progress=False if args.no_progress else None,
        startup_timeout=args.startup_timeout or impl_file.run.startup_timeout or DEFAULT_STARTUP_TIMEOUT,
        required_devices=devices if args.device is not None else (), allow_empty=args.allow_empty,
        full_observations=args.full_observations,
    )
    run = Run(config)
    try:
        result = run.execute()
    except StartupError as exc:
        raise UsageError(for_console(str(exc), 400)) from exc
    if result["interrupted"] and not result["cases"] and run.info.keys() != {"reference", "implementation"}:
        print(f"conformance: interrupted ({result['interrupted_by']}) before any case ran", file=sys.stderr)
    written = write_all(result, args.report_dir)
    for line in console_summary(result):
        print(line)
    print("reports: " + ", ".join(str(p) for p in written))
    if result["interrupted"]:
        print(f"conformance: interrupted by {result['interrupted_by']}; the reports hold what was done",
              file=sys.stderr)
    return result["exit_status"]


FAILING_SHOWN = 20


def console_summary(result: dict) -> list[str]:
    """The run in a few lines for the terminal: the verdict, the counts, what was compared, why it is
    incomplete, and the items that did not pass (most severe difference first)."""
    from .reports.common import UNEXPECTED_OUTCOMES, label, verdict_line

    implementation = result["implementation"]
    compared = result["compared"]
    lines = [for_console(f"{implementation['name']} {implementation['version']} against torch "
                         f"{result['reference']['version']}: ", 200)
             + ", ".join(f"{n} {c}" for n, c in result["summary"].items() if c),
             f"compared: {compared['items']} items ran on both sides, {compared['steps']} steps, "
             f"{compared['elements']} values and gradients element by element",
             "scores: " + ", ".join(f"{level} {s['pass']}/{s['total']}" for level, s in result["scores"].items())
             + f" (the exit status follows {result['level']})"]
    failing = [r for r in result["cases"] if r["outcome"] in UNEXPECTED_OUTCOMES]
    for record in failing[:FAILING_SHOWN]:
        lines.append(for_console(f"  {record['outcome'].upper()} {label(record)}: {record.get('detail', '')}"))
    if len(failing) > FAILING_SHOWN:
        lines.append(f"  ... and {len(failing) - FAILING_SHOWN} more not passing: see summary.md or report.html")
    for stale in result["expectations"]["stale"]:
        lines.append(f"stale expectation: {for_console(stale['case'])} ({stale['outcome']}) matches no case")
    lines.append(for_console(verdict_line(result), 400))
    return lines


def command_list(args: argparse.Namespace) -> int:
    cases = select_cases(args.select)
    if args.json:
        print(json.dumps([{"id": c.id, "topic": c.topic, "title": c.title, "doc": c.doc.url,
                           "devices": list(c.devices), "dtypes": list(c.dtypes), "tags": list(c.tags),
                           "features": list(c.features)} for c in cases], indent=1))
        return 0
    width = max(len(c.id) for c in cases)
    for c in cases:
        print(f"{c.id:<{width}}  {c.title}  <{c.doc.url}>")
    print(f"{len(cases)} cases")
    return 0


def command_show(args: argparse.Namespace) -> int:
    from .compare import describe
    from .item import Item
    from .pool import StartupError
    from .session import Session

    registry = catalog.load()
    if args.id not in registry:
        raise UsageError(f"no case {args.id!r}; `conformance list` shows the ids")
    case = registry.get(args.id)
    device = parse_devices(args.device)[0]
    dtype = args.dtype or case.dtypes[0]
    if dtype not in case.dtypes:
        raise UsageError(f"case {case.id} runs in {', '.join(case.dtypes)}, not {dtype}")
    print(f"{case.id}: {case.title}")
    print(f"topic: {case.topic}   devices: {', '.join(case.devices)}   dtypes: {', '.join(case.dtypes)}   "
          f"tags: {', '.join(case.tags) or '-'}   features: {', '.join(case.features) or '-'}")
    print(f"checks: {case.doc}")
    print(f"source ({case.location}):\n")
    print(case.source)
    with Session("torch", devices=(device,)) as session:
        try:
            reason = session.device_reason(device)
            if reason is not None:
                raise UsageError(f"device {device}: {reason}")
            observed, _ = session.observe(Item(case, device, dtype))
        except StartupError as exc:
            raise UsageError(str(exc)) from exc
        version = session.info["reference"]["version"]
    print(f"torch {version} on {device} ({dtype}) observes ({observed['status']}):")
    for step_number, step in enumerate(observed.get("steps", []), start=1):
        outcome = (f"raises {step['error']['type']}: {step['error']['message']}" if "error" in step
                   else describe(step["value"]))
        print(f"  step {step_number}: {step['label']} -> {outcome}")
        for warning in step.get("warnings", []):
            print(f"      warns {warning['category']}: {warning['message']}")
        if step.get("stdout"):
            print("      prints " + repr(step["stdout"]))
    return 0


def command_replay(args: argparse.Namespace) -> int:
    from . import replay
    from .pool import StartupError
    from .runner import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT

    placement = parse_placement(args.impl)
    if placement.device is not None and args.script is not None:
        raise UsageError(f"--script: a standalone script runs its implementation on the item's device; it cannot "
                         f"reproduce --impl {args.impl} (run the replay without --script)")
    try:
        item = replay.resolve_item(args.item, load_registry(args.registry), args.device, args.dtype)
        reason = placement.skip_reason(item.case, item.device)
        if reason is not None:
            raise UsageError(for_console(f"{item.label} does not run with --impl {args.impl}: {reason}", 400))
        impl_file = load_implementation_file(args)
        return replay.replay(item, args.impl, args.level or impl_file.run.level or DEFAULT_LEVEL,
                             args.timeout or impl_file.run.timeout or DEFAULT_TIMEOUT,
                             args.startup_timeout or impl_file.run.startup_timeout or DEFAULT_STARTUP_TIMEOUT,
                             args.registry, impl_file, args.script)
    except replay.BadInput as exc:
        raise UsageError(for_console(str(exc), 400)) from exc
    except StartupError as exc:
        raise UsageError(for_console(str(exc), 400)) from exc


def command_matrix(args: argparse.Namespace) -> int:
    from .reports import matrix

    check_report_dir(args.report_dir, matrix.FILES)
    try:
        runs = [matrix.load_run(path) for path in args.results]
    except matrix.MatrixError as exc:
        raise UsageError(str(exc)) from exc
    written = matrix.write(runs, args.report_dir)
    print("matrix: " + ", ".join(str(p) for p in written))
    return 0


def command_surface(args: argparse.Namespace) -> int:
    from . import documented

    cases = list(load_registry(args.registry))
    try:
        found = documented.derived()
        exclusions = documented.load_exclusions()
    except (documented.DeriveError, ValueError, OSError) as exc:
        raise UsageError(str(exc)) from None
    result = documented.survey(found, cases, exclusions).as_dict()
    if args.impl is not None:
        names = [entry for entry in found["names"] if entry["name"] not in
                 {row["name"] for row in result["names"] if row["excluded"]}]
        try:
            lacks = documented.implementation_lacks(args.impl, names)
        except documented.DeriveError as exc:
            raise UsageError(for_console(str(exc), 400)) from None
        result["implementation"] = {"name": args.impl, "in_scope": len(names), "lacks": lacks}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print("\n".join(documented.render_text(result)))
    lacking = result.get("implementation", {}).get("lacks")
    return 1 if result["missing"] or result["errors"] or lacking else 0


def command_fuzz(args: argparse.Namespace) -> int:
    from .fuzz.campaign import PROGRAM_TIMEOUT, Campaign, FuzzConfig
    from .fuzz.ops import restricted_to
    from .pool import StartupError
    from .runner import DEFAULT_STARTUP_TIMEOUT

    try:
        import hypothesis  # noqa: F401 - the fuzzer draws programs with it
    except ImportError:
        raise UsageError("the fuzzer needs hypothesis: pip install 'autograd-conformance[fuzz]'") from None

    parse_devices(args.device, args.impl)  # the implementation's own device (NAME@DEVICE) leaves the CPU to torch
    check_report_dir(args.report_dir, ())
    impl_file = load_implementation_file(args)
    try:
        restricted_to(args.operators)
    except ValueError as exc:
        raise UsageError(f"--operators: {exc}") from None
    campaign = Campaign(FuzzConfig(impl=args.impl, device=args.device, budget=args.budget, seed=args.seed,
                                   level=args.level or impl_file.run.level or DEFAULT_LEVEL,
                                   report_dir=args.report_dir, max_steps=args.max_steps,
                                   startup_timeout=args.startup_timeout or impl_file.run.startup_timeout
                                   or DEFAULT_STARTUP_TIMEOUT, shrink=not args.no_shrink, shrinker=args.shrinker,
                                   baseline=args.baseline, known=impl_file.known_in_fuzzing, lacks=impl_file.profile.lacks,
                                   program_timeout=impl_file.run.program_timeout or PROGRAM_TIMEOUT,
                                   set_aside_from=impl_file.warnings.set_aside_from, operators=args.operators))
    refusal = campaign.gate.refusal(args.device)
    if refusal is not None:
        raise UsageError(f"{impl_file.path or 'the expectations file'}: {refusal}")
    try:
        campaign.start()
        reason = campaign.session.device_reason(args.device)
        if reason is not None:
            campaign.close()
            raise UsageError(f"device {args.device}: {reason}")
        finding = campaign.run()
    except StartupError as exc:
        raise UsageError(for_console(str(exc), 400)) from exc
    for reason, count in campaign.explained.items():
        print(for_console(f"explained by a [[fuzz]] entry in {count} program(s): {reason}", 400))
    if campaign.ill_conditioned:
        print(f"ill-conditioned (torch's own value moves as far when the leaves are scaled by a few ulps) in "
              f"{campaign.ill_conditioned} program(s)")
    if finding is None:
        counted = campaign.explained or campaign.ill_conditioned
        if campaign.unchecked:
            print("the budget ran out while a program that differs was being checked (not reported; a longer "
                  "--budget or another --seed shows it)")
        print(f"no {'unexplained ' if counted else ''}difference in {campaign.programs} programs "
              f"({args.budget:g} s after a start-up of {campaign.startup:.1f} s, seed {args.seed})")
        return 0
    print(for_console(f"difference: {finding.record.get('outcome')}: {finding.record.get('detail', '')}", 400))
    if (finding.record.get("divergence") or {}).get("summary"):
        print(for_console(f"where gradients diverge: {finding.record['divergence']['summary']}", 400))
    if finding.shrinker:
        print(finding.shrinking())
    if finding.cut_short:
        print("shrinking was cut short by the budget: the program written is the shortest found by then")
    label = "shrunk program: " if campaign.config.shrink else "program (not shrunk): "
    print(label + ", ".join(str(p) for p in finding.paths))
    return 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {"run": command_run, "list": command_list, "show": command_show, "replay": command_replay,
               "matrix": command_matrix, "fuzz": command_fuzz, "surface": command_surface}[args.command]
    try:
        return handler(args)
    except UsageError as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        quiet_stdout()
        return 141
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return 130


def quiet_stdout() -> None:
    """The reader of our stdout went away (``| head``): drop what is left, without a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
