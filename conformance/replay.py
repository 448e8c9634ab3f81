"""Replaying one item alone on both sides: ``python -m conformance replay ITEM --impl NAME``.

For an engine author chasing one difference. ``ITEM`` is a case id (``leaf.grad_of_leaf``) or an
item label as the reports print it (``op.sin.default[cpu,float64]``, which also sets the device
and dtype). The item runs in a :class:`session.Session` (one worker per side, the same isolation
and judge as a run) and the console shows the case, the documentation it checks, every step as
each side observed it (label, scenario line and source, value or exception, warnings, printed
output) with the steps that differ marked, the differences most severe first, and the outcome
at each level. ``--script FILE`` also writes a standalone script that reproduces the item on any
engine (``script``).

Exit status: 0 when the item passes at ``--level``, 1 when it does not, 2 for bad input (one
line; raised here as :class:`BadInput`, reported by the CLI). Everything the implementation
produced reaches the console through ``bounds.for_console``.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import time
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from . import script
from .bounds import for_console
from .case import ALL_DEVICES, Registry
from .compare import describe
from .expectations import ImplementationFile, find
from .explaining import explain
from .item import Item
from .levels import level_of
from .locate import TRACE_FEATURES, needs_locating, untraceable
from .session import Session
from .worker import DEFAULT_REGISTRY

LABEL = re.compile(r"(?P<id>[^\[\],\s]+)\[(?P<device>[^\[\],\s]+)(?:,(?P<dtype>[^\[\],\s]+))?\]")
SUGGESTIONS = 3
VALUE_WIDTH = 400


class BadInput(Exception):
    """An unknown case, device or dtype, or a script that cannot be written: one line, exit status 2."""


# -- which item --------------------------------------------------------------------------------
def resolve_item(text: str, registry: Registry, device: str | None = None, dtype: str | None = None) -> Item:
    """The item ``text`` names (a case id or an item label), on ``device`` in ``dtype`` where given."""
    match = LABEL.fullmatch(text)
    case_id = match["id"] if match else text
    if match:
        for option, given, labelled in (("--device", device, match["device"]), ("--dtype", dtype, match["dtype"])):
            if given is not None and labelled is not None and given != labelled:
                raise BadInput(f"{text} names {labelled}, but {option} says {given}")
        device, dtype = device or match["device"], dtype or match["dtype"]
    if case_id not in registry:
        raise BadInput(f"no case {case_id!r}{hint(case_id, registry)}; `conformance list -k WORD` lists the ids")
    case = registry.get(case_id)
    if device is not None and device not in ALL_DEVICES:
        raise BadInput(f"unknown device {device!r}; expected one of {', '.join(ALL_DEVICES)}")
    device = device or ("cpu" if case.runs_on("cpu") else case.devices[0])
    if not case.runs_on(device):
        raise BadInput(f"case {case.id} does not run on {device}; it runs on {', '.join(case.devices)}")
    dtype = dtype or case.dtypes[0]
    if dtype not in case.dtypes:
        raise BadInput(f"case {case.id} runs in {', '.join(case.dtypes)}, not {dtype}")
    return Item(case, device, dtype)


def hint(case_id: str, registry: Registry) -> str:
    """`` (did you mean ...?)`` with the ids that end with ``case_id`` (a function name without its topic),
    or else the closest ones, if any."""
    ids = [case.id for case in registry]
    tail = case_id.rsplit(".", 1)[-1]
    close = [i for i in ids if i.rsplit(".", 1)[-1] == tail] or difflib.get_close_matches(case_id, ids, SUGGESTIONS)
    close = close[:SUGGESTIONS]
    if not close:
        return ""
    return f" (did you mean {close[0]}?)" if len(close) == 1 else \
        f" (did you mean {', '.join(close[:-1])} or {close[-1]}?)"


def check_script_path(path: Path) -> None:
    if path.is_dir():
        raise BadInput(f"--script {path} is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise BadInput(f"--script {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or path.exists() and not os.access(path, os.W_OK):
        raise BadInput(f"--script {path} is not writable")


# -- replaying it ------------------------------------------------------------------------------
def replay(item: Item, impl: str, level: str, timeout: float, startup_timeout: float, registry: str,
           impl_file: ImplementationFile, script_path: Path | None = None, out: TextIO | None = None) -> int:
    """Run ``item`` on torch and ``impl``, print the comparison, write the script if asked; the exit status."""
    say = Console(out)
    if script_path is not None:
        check_script_path(script_path)
        try:
            script.check(item.case)
        except script.ScriptError as exc:
            raise BadInput(f"--script: cannot write {item.case.id} as a standalone script: {exc}") from None
    show_case(item, say)
    lacking = impl_file.profile.missing_for(item.features, item.case.optional_features)
    if lacking:
        say(f"note: the profile of {impl} lacks {', '.join(lacking)}: a run lists this item as n/a")
    item = replace(item, without=impl_file.profile.left_out_of(item.case.optional_features))
    if item.without:
        say(f"note: the profile of {impl} lacks {', '.join(item.without)}: the item runs without, as in a run")
    started = time.monotonic()
    with Session(impl, registry=registry, devices=(item.device,), startup_timeout=startup_timeout,
                 level=level, set_aside_from=impl_file.warnings.set_aside_from) as session:
        reason = session.device_reason(item.device)
        if reason is not None:
            raise BadInput(f"device {item.device}: {reason}")
        record = session.run(item, timeout=item.case.timeout or timeout).as_dict()
        record = explain(record, impl_file.explained, level)  # judged as a run judges it
        if needs_locating(record):  # as a run does: where the gradients first diverge
            lacking = impl_file.profile.missing_for(TRACE_FEATURES)
            record["divergence"] = untraceable(lacking) if lacking else \
                session.locate(item, timeout=item.case.timeout or timeout)
        info = session.info
    elapsed = time.monotonic() - started
    reference_version = info["reference"]["version"]
    implementation = for_console(f"{impl} {info['implementation'].get('version', '?')}", 120)
    say(f"\n{item.label} on torch {reference_version} and {implementation}, {elapsed:.1f} s:")
    show_steps(record, reference_version, implementation, say)
    show_verdict(record, level, say)
    expected = find(impl_file.entries, item.case.id, item.device, reference_version, item.dtype)
    if expected is not None:
        say(f"known: the expectations of {impl} expect {expected.outcome} ({for_console(expected.reason)})")
    if script_path is not None:
        problem = script.reference_problem(record)
        if problem:
            say(f"no script written: {problem}")
        else:
            command = shlex.join(["python", "-m", "conformance", "replay", item.label, "--impl", impl,
                                  *(["--registry", registry] if registry != DEFAULT_REGISTRY else []),
                                  "--script", script_path.name])
            text = script.render(record, item, reference_version, implementation, command, script_path.name)
            script_path.write_text(text, encoding="utf-8")
            say(f"script: {script_path} (python {script_path} [--impl NAME])")
    status = 0 if record["levels"][level] == "pass" else 1
    say(f"exit status {status}: {record['levels'][level]} at {level}")
    return status


class Console:
    """Prints to ``out`` (stdout by default, looked up when printing so that redirections apply)."""

    def __init__(self, out: TextIO | None) -> None:
        self.out = out

    def __call__(self, text: str = "") -> None:
        print(text, file=self.out)


def show_case(item: Item, say: Console) -> None:
    case = item.case
    say(f"{item.label}: {case.title}")
    say(f"checks: {case.doc}")
    say(f"tags: {', '.join(case.tags) or '-'}   features: {', '.join(case.features) or '-'}")
    if case.provenance:
        say(f"provenance: {case.provenance}")
    say(f"source ({case.location}):")
    lines = case.source.rstrip("\n").splitlines()
    width = len(str(len(lines)))
    for number, line in enumerate(lines, start=1):
        say(f"  {number:>{width}}  {line}")


def show_steps(record: dict, reference_version: str, implementation: str, say: Console) -> None:
    reference = f"torch {reference_version}"
    names = (reference, implementation if implementation != reference else f"{implementation} (under test)")
    sides = (record.get("reference") or {}, record.get("implementation") or {})
    for who, side in zip(names, sides):
        if side.get("status") not in ("completed", "raised"):
            say(f"  {who} did not finish: {side.get('status')}: {for_console(side.get('detail', ''), 400)}")
    recorded = [side.get("steps") or [] for side in sides]
    differing = {diff.get("step") for diff in record.get("diff") or []}
    for index in range(max(map(len, recorded))):
        steps = [steps[index] if index < len(steps) else None for steps in recorded]
        first = steps[0] or steps[1]
        mark = " [differs]" if index + 1 in differing else ""
        say(f"  step {index + 1}{mark}: {for_console(first['label'], 200)}{where(first)}")
        for who, step in zip(names, steps):
            show_step(who, step, first, say)


def where(step: dict) -> str:
    return f"  (line {step['line']}: {for_console(step.get('source') or '', 200)})" if step.get("line") else ""


def show_step(who: str, step: dict | None, first: dict, say: Console) -> None:
    if step is None:
        say(f"      {who}: no such step (its run ended before)")
        return
    other = "" if step["label"] == first["label"] else f" (its step {for_console(step['label'], 200)!r}{where(step)})"
    if "error" in step:
        what = f"raises {step['error']['type']}: {step['error']['message']}"
    else:
        what = describe(step.get("value"))
    say(f"      {who}{other}: {for_console(what, VALUE_WIDTH)}")
    for warning in step.get("warnings") or []:
        say(f"          warns {for_console(warning['category'], 100)}: {for_console(warning['message'], VALUE_WIDTH)}")
    if step.get("stdout"):
        say(f"          prints {for_console(repr(step['stdout']), VALUE_WIDTH)}")


def show_verdict(record: dict, level: str, say: Console) -> None:
    diffs = record.get("diff") or []
    if diffs:
        say(f"\ndifferences, most severe first ({len(diffs)}):")
    for number, diff in enumerate(diffs, start=1):
        missing = f"; unsupported: {diff['unsupported']}" if diff.get("unsupported") else ""
        say(f"  {number}. [{diff['aspect']}, counts from {level_of(diff['aspect'])}{missing}] "
            f"{for_console(diff['where'], 300)}")
        say(f"       torch:          {for_console(diff['reference'], VALUE_WIDTH)}")
        say(f"       implementation: {for_console(diff['implementation'], VALUE_WIDTH)}")
        if diff.get("detail"):
            say(f"       {for_console(diff['detail'], VALUE_WIDTH)}")
        if diff.get("explained"):
            say(f"       explained, does not count: {for_console(diff['explained'], VALUE_WIDTH)}")
    if record.get("divergence"):
        say(f"\nwhere gradients diverge: {for_console(record['divergence'].get('summary', ''), 1000)}")
    levels = record.get("levels") or {}
    say("\noutcome: " + ", ".join(f"{name} {outcome}" for name, outcome in levels.items()))
    if record.get("outcome") == "xfail":
        say(f"{for_console(record['detail'], VALUE_WIDTH)}")
    elif record.get("detail") and levels.get(level) != "pass":
        say(f"at {level}: {for_console(record['detail'], VALUE_WIDTH)}")
