"""A standalone script that reproduces one item on any engine, with no import of the suite (``replay --script``).

What an engine author attaches to a bug report: plain Python that runs the item's scenario on
torch (``python FILE``) or on any importable module (``python FILE --impl NAME``), prints every
step and compares it with what torch observed when the script was written. The script holds

* a header comment: the case, the documentation it checks, the torch version, how the
  implementation it was replayed against differed, how to run it;
* what the scenario needs from the module that defines it, found from the names its code reads
  as globals (:func:`read_globals`): imports (``import copy``), literal constants, the source of
  the helper functions and classes of its own module and of the suite
  (``once_differentiable_square``; ``random_floats`` of the operator cases), each with what it
  needs in turn, and imports of those of other modules; anything else cannot be written out
  (:class:`ScriptError`, before anything runs);
* the scenario's source, without its ``@case`` decorator;
* the recorder (``conformance/standalone.py``, copied as it is);
* torch's steps (``EXPECTED``) and the settings of the comparison: the item's tolerances per
  dtype (the suite's defaults with the case's own), the aspects and levels of ``levels``.
"""

from __future__ import annotations

import ast
import dis
import inspect
import pprint
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

from . import standalone
from .bounds import for_console
from .case import Case
from .compare import _GRADIENT_LABEL, tolerances_for
from .item import Item
from .levels import ASPECTS, LEVELS
from .normalize import IGNORED_WARNINGS

SUITE_PACKAGE = __name__.split(".")[0]
HEADER_DIFFERENCES = 5
WIDTH = 120
# names the script defines itself, besides the recorder's: a helper may not take them
SCRIPT_NAMES = ("EXPECTED", "SETTINGS", "annotations")


class ScriptError(Exception):
    """The item's scenario needs something that cannot be written into a standalone script."""


# -- what a piece of code reads from its module -------------------------------------------------
def read_globals(code: types.CodeType) -> list[str]:
    """The names that ``code`` and the code nested in it (functions, classes, comprehensions) read
    from their module, in the order they first appear. Names a class body binds for itself may
    appear too: they are looked up in the module and left alone if it does not have them."""
    names: list[str] = []
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.append(instruction.argval)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names.extend(read_globals(constant))
    return list(dict.fromkeys(names))


def compiled(source: str, name: str) -> types.CodeType:
    """Module-level ``source`` compiled as the script compiles it (annotations are not evaluated)."""
    # ``annotations``: the feature object that ``from __future__ import annotations`` above binds
    return compile(source, f"<{name}>", "exec", flags=annotations.compiler_flag, dont_inherit=True)


def defined_names(source: str) -> set[str]:
    """The names a block of module-level source binds (a def, a class, an assignment)."""
    return {name for node in ast.parse(source).body for name in _bound_by(node)}


def _bound_by(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return [n.id for target in targets if target is not None for n in ast.walk(target) if isinstance(n, ast.Name)]


def scenario_source(case: Case) -> str:
    """The scenario's function as plain source: the case's source without its decorators."""
    tree = ast.parse(case.source)
    function = next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if function is None:
        raise ScriptError(f"the source of case {case.id} defines no function")
    lines = case.source.splitlines()
    return "\n".join(lines[function.lineno - 1:function.end_lineno]) + "\n"


def in_suite(module_name: str | None) -> bool:
    return bool(module_name) and module_name.split(".")[0] == SUITE_PACKAGE


class Needs:
    """What a scenario needs from its module, gathered name by name, dependencies first. Functions and
    classes of the scenario's own module (``home``) and of the suite are written out as source; those
    of other modules are imported."""

    def __init__(self, home: str, reserved: dict[str, Any]) -> None:
        self.home = home
        self.imports: list[str] = []
        self.blocks: list[tuple[str, str]] = []   # (where it comes from, source)
        self.bound: dict[str, Any] = {}
        self.reserved = reserved

    def add_code(self, code: types.CodeType, scope: dict, defines: set[str]) -> None:
        for name in read_globals(code):
            if name not in defines:
                self.add(name, scope)

    def add(self, name: str, scope: dict) -> None:
        if name == "__name__" or name not in scope or name == "__builtins__":
            return  # a builtin, or a name the code binds for itself
        value = scope[name]
        if name in self.bound:
            if self.bound[name] is not value:
                raise ScriptError(f"two different objects are named {name!r} in what the scenario uses")
            return
        if name in self.reserved and self.reserved[name] is not value:
            raise ScriptError(f"the scenario uses a global {name!r}, a name the script's recorder takes")
        self.bound[name] = value
        if isinstance(value, types.ModuleType):
            self.imports.append(import_statement(name, value))
        elif literal_source(value) is not None:
            self.blocks.append(("a constant", f"{name} = {literal_source(value)}\n"))
        elif inspect.isfunction(value) or inspect.isclass(value):
            self.add_definition(name, value)
        else:
            raise ScriptError(f"the scenario uses {name!r}, an object of type {type(value).__name__} that cannot be "
                              f"written into a standalone script")

    def add_definition(self, name: str, value: Any) -> None:
        module = getattr(value, "__module__", None)
        if not in_suite(module) and module != self.home and importable(value, module):
            self.imports.append(f"from {module} import {value.__qualname__}"
                                + ("" if name == value.__qualname__ else f" as {name}"))
            return
        if value.__name__ != name or value.__qualname__ != value.__name__:
            raise ScriptError(f"the scenario uses {name!r}, which is {value.__qualname__} of {module}: "
                              f"only top-level definitions can be written out")
        try:
            source = textwrap.dedent(inspect.getsource(value))
        except (OSError, TypeError) as exc:
            raise ScriptError(f"the source of {name!r} ({module}) cannot be read: {exc}") from None
        scope = value.__globals__ if inspect.isfunction(value) else vars(sys.modules[module])
        self.add_code(compiled(source, name), scope, {name})
        self.blocks.append((f"{name}, from {module_file(module)}", source))


def import_statement(name: str, module: types.ModuleType) -> str:
    full = module.__name__
    if in_suite(full):
        raise ScriptError(f"the scenario uses the module {full} of the suite itself")
    if name == full:
        return f"import {full}"
    parent, _, last = full.rpartition(".")
    return f"from {parent} import {last}" if parent and last == name else f"import {full} as {name}"


def importable(value: Any, module: str | None) -> bool:
    loaded = sys.modules.get(module or "")
    return loaded is not None and getattr(loaded, getattr(value, "__qualname__", ""), None) is value


def literal_source(value: Any) -> str | None:
    """Python source that gives ``value`` back (numbers, strings, and containers of them), or None."""
    if isinstance(value, (type(None), bool, int, float, complex, str, bytes, tuple, list, dict, set)):
        text = repr(value)
        try:
            if ast.literal_eval(text) == value:
                return text
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return None


def module_file(module: str | None) -> str:
    loaded = sys.modules.get(module or "")
    path = getattr(loaded, "__file__", None)
    if not path:
        return module or "?"
    root = Path(sys.modules[SUITE_PACKAGE].__file__).resolve().parent.parent
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


# -- the recorder, as the script holds it ------------------------------------------------------------
def recorder_source() -> str:
    """``standalone``'s source with its docstring turned into comments."""
    source = inspect.getsource(standalone)
    tree = ast.parse(source)
    docstring = tree.body[0]
    lines = source.splitlines()
    comment = ["# " + line if line else "#" for line in textwrap.dedent(ast.get_docstring(tree)).splitlines()]
    return "\n".join([*comment, *lines[docstring.end_lineno:]]).strip("\n") + "\n"


def reserved_names() -> dict[str, Any]:
    """The names the script defines besides the scenario's, with what they are bound to (a helper may
    not take them; a module the recorder imports too is the same)."""
    taken = {name: vars(standalone).get(name) for name in defined_names(inspect.getsource(standalone))}
    return taken | {name: SCRIPT_NAMES for name in SCRIPT_NAMES}


# -- the script ---------------------------------------------------------------------------------------
def plan(case: Case) -> tuple[str, Needs]:
    """The scenario's source and what it needs; a :class:`ScriptError` says why it cannot be written."""
    source = scenario_source(case)
    name = case.scenario.__name__
    needs = Needs(case.scenario.__module__, reserved_names())
    if name in needs.reserved:
        raise ScriptError(f"the scenario's name {name!r} is a name the script's recorder takes")
    needs.bound[name] = case.scenario
    needs.add_code(compiled(source, case.id), case.scenario.__globals__, {name})
    return source, needs


def settings_of(item: Item, reference_version: str) -> dict:
    return {
        "item": item.label,
        "module": item.case.scenario.__module__,
        "device": item.device,
        "dtype": item.dtype,
        "without": list(item.without),
        "reference": f"torch {reference_version}",
        "tolerances": {dtype: list(pair) for dtype, pair in tolerances_for(item.case.tolerances).items()},
        "levels": list(LEVELS),
        "aspect_levels": {aspect: level for aspect, (level, _) in ASPECTS.items()},
        "gradient_label": _GRADIENT_LABEL.pattern,
        "ignored_warnings": [[w.category, w.message_prefix] for w in IGNORED_WARNINGS],
    }


def expected_steps(reference: dict) -> list[dict]:
    """torch's steps as the script compares them: what was observed, without where it was recorded."""
    steps = []
    for recorded in reference.get("steps", []):
        step = {"label": recorded["label"]}
        if "error" in recorded:
            step["error"] = {"type": recorded["error"]["type"], "message": recorded["error"]["message"]}
        else:
            step["value"] = recorded.get("value")
        for key in ("aspect", "warnings", "stdout"):
            if recorded.get(key):
                step[key] = recorded[key]
        steps.append(step)
    return steps


def header(record: dict, item: Item, reference_version: str, implementation: str, command: str,
           filename: str) -> list[str]:
    case = item.case
    lines = [
        f"Standalone replay of {record['id']} on {item.device} in {item.dtype}, written by autograd-conformance "
        f"(`{command}`).",
        f"Case: {case.title}",
        f"Checks: {case.doc}",
        f"Expected: what torch {reference_version} observed, step by step (EXPECTED, at the end).",
    ]
    outcome = record["levels"]
    if record["outcome"] == "pass" and set(outcome.values()) == {"pass"}:
        lines.append(f"Replayed against {implementation}: the same at every level.")
    else:
        lines.append(f"Replayed against {implementation}: " + ", ".join(f"{o} at {level}" for level, o in outcome.items())
                     + (f" ({record['detail']})" if not record.get("diff") and record.get("detail") else ""))
        diffs = record.get("diff") or []
        for diff in diffs[:HEADER_DIFFERENCES]:
            detail = f" ({diff['detail']})" if diff.get("detail") else ""
            lines.append(f"  - [{diff['aspect']}] {diff['where']}: torch {diff['reference']} / "
                         f"implementation {diff['implementation']}{detail}")
        if len(diffs) > HEADER_DIFFERENCES:
            lines.append(f"  ... and {len(diffs) - HEADER_DIFFERENCES} more differences")
    lines += [
        "",
        f"Run:  python {filename}                 on torch",
        f"      python {filename} --impl NAME     on any importable module with torch's API (module:attribute too)",
        "      --level semantics|api stops only at differences that count at that level (default: drop-in).",
        "Each step prints what the engine observed and whether it matches torch. Exit status 0: every step",
        "matches; 1: a step differs (the run stops there); 2: the engine cannot be imported.",
    ]
    comments = ["#!/usr/bin/env python3"]
    for line in lines:
        indent = "      " if line.startswith("  ") else "  "
        parts = textwrap.wrap(for_console(line, 600), WIDTH - 2, subsequent_indent=indent, break_long_words=False,
                              break_on_hyphens=False)
        comments += [f"# {part}".rstrip() for part in parts or [""]]
    return comments


def render(record: dict, item: Item, reference_version: str, implementation: str, command: str, filename: str) -> str:
    """The whole script (``record``: the judged item, as ``ItemRecord.as_dict`` gives it; ``implementation``:
    the name and version of the side it was judged against; ``command``: the command that wrote it)."""
    source, needs = plan(item.case)
    parts = ["\n".join(header(record, item, reference_version, implementation, command, filename)), "",
             "from __future__ import annotations", ""]
    if needs.imports:
        parts += [*sorted(set(needs.imports)), ""]
    for origin, block in needs.blocks:
        parts += ["", f"# {origin}", block.rstrip("\n"), ""]
    parts += ["", f"# the scenario of {item.case.id}", source.rstrip("\n"), "", "",
              "# -- the recorder " + "-" * (WIDTH - 18), recorder_source().rstrip("\n"), "", "",
              f"# -- what torch {reference_version} observed, and how to compare " + "-" * 40,
              "SETTINGS = " + pprint.pformat(settings_of(item, reference_version), width=WIDTH, sort_dicts=False),
              "", "EXPECTED = ["]
    for number, step in enumerate(expected_steps(record["reference"]), start=1):
        parts.append(f"    # step {number}")
        parts.append(textwrap.indent(pprint.pformat(step, width=WIDTH - 4, sort_dicts=False), "    ") + ",")
    parts += ["]", "", "", 'if __name__ == "__main__":',
              f"    sys.exit(main({item.case.scenario.__name__}, EXPECTED, SETTINGS))", ""]
    return "\n".join(parts)


def check(case: Case) -> None:
    """Raise :class:`ScriptError` now if the case's script could not be written (before anything runs)."""
    plan(case)


def reference_problem(record: dict) -> str | None:
    """Why no script can be written from this record (torch did not finish the item), or None."""
    reference = record.get("reference") or {}
    if reference.get("status") not in ("completed", "raised"):
        return f"torch did not finish the item ({reference.get('status')}: {reference.get('detail', '')})"
    return None

