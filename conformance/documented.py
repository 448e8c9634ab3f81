"""The documented autograd surface of the installed torch, and the catalog cases that use each name.

Not to be confused with ``surface``, which decides at run time whether an exception means that an
implementation lacks a name. This module answers another question, about the catalog itself:
which public autograd names of torch does some case exercise, which are left out on purpose, and
which are missing (``python -m conformance surface``).

**The names** come from the installed torch (``derive``), in areas:

* the ``__all__`` of ``torch.autograd``, of each public submodule of ``torch.autograd`` that has one
  (found by walking the package, so a new submodule appears by itself), of ``torch.func`` and of
  ``torch.utils.checkpoint``;
* short explicit lists where torch has no ``__all__`` (``EXPLICIT``): the Tensor attributes that
  autograd's documentation lists, the members of ``Function``, ``FunctionCtx`` and ``Node``,
  gradient clipping in ``torch.nn.utils``, and nn.Module's backward hooks with their global
  variants. Each listed name is checked to exist; one that torch lacks is an error of the list,
  reported as such.

An object that several modules export (``torch.autograd.grad_mode.no_grad`` is
``torch.autograd.no_grad``) is one name, in the first area that has it, with every spelling.

Deriving imports torch, and the process that judges never does: ``derived()`` runs
``python -m conformance.documented`` in a child process and reads its JSON. Likewise, which names an
implementation lacks (``lacking``: none of a name's spellings resolves on its namespace) is read in a
child that imports it (``implementation_lacks``; ``surface --impl NAME``).

**Use by a case** is read from the source of its scenario (and of the catalog helpers it calls by
name), never from its docstring or title, with the AST (``names_used``): attribute chains from the
``torch`` parameter through the aliases cases bind (``fwAD = torch.autograd.forward_ad``, ``func =
torch.func``); methods and class attributes of a ``Function`` subclass (``Function.setup_context``,
``Function.generate_vmap_rule``) and ``apply`` on it; attributes read on a method's ``ctx``
(``FunctionCtx.save_for_backward``); attributes read on a node (an expression through ``grad_fn``
or ``next_functions``, or a name bound to one: ``Node.register_prehook``); any other attribute read
on a value counts for ``Tensor`` and ``Module`` members of that name.

**Exclusions** on purpose, each with its reason, are in ``surface_exclusions.toml`` (``fnmatch``
patterns on the names); a pattern that matches no name, and an excluded name that a case uses, are
reported as errors, so the file cannot go stale.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import pkgutil
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from . import cache

EXCLUSIONS_FILE = Path(__file__).with_name("surface_exclusions.toml")

# Modules whose ``__all__`` is documented surface; the public submodules of torch.autograd are added.
ALL_LISTS = ("torch.autograd", "torch.func", "torch.utils.checkpoint")
AUTOGRAD_PACKAGE = "torch.autograd"
# Modules that re-export surveyed names under another spelling a case may use.
ALIAS_MODULES = ("torch.nn.utils.clip_grad",)

# Where torch has no ``__all__``: area -> (the owner's path, its documented names).
EXPLICIT: dict[str, tuple[str, tuple[str, ...]]] = {
    "Tensor": ("torch.Tensor", (
        "grad", "requires_grad", "requires_grad_", "is_leaf", "grad_fn", "backward", "detach", "detach_",
        "register_hook", "register_post_accumulate_grad_hook", "retain_grad", "retains_grad")),
    "Function": ("torch.autograd.Function", (
        "forward", "backward", "setup_context", "vjp", "jvp", "vmap", "generate_vmap_rule", "apply",
        "clear_saved_tensors_on_access", "boxed_grads_call")),
    "FunctionCtx": ("torch.autograd.function.FunctionCtx", (
        "save_for_backward", "save_for_forward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads",
        "mark_shared_storage")),
    "Node": ("torch.autograd.graph.Node", ("name", "next_functions", "metadata", "register_hook", "register_prehook")),
    "clipping": ("torch.nn.utils", ("clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm")),
    "Module": ("torch.nn.Module", (
        "register_full_backward_hook", "register_full_backward_pre_hook", "register_backward_hook")),
    "torch.nn.modules.module": ("torch.nn.modules.module", (
        "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
        "register_module_backward_hook")),
}
# Explicit areas whose names are class members, spelled ``Owner.member``.
MEMBER_AREAS = ("Tensor", "Function", "FunctionCtx", "Node", "Module")
# Base classes that make a class of a scenario a custom Function.
FUNCTION_BASES = ("torch.autograd.Function", "torch.autograd.function.Function",
                  "torch.autograd.function.InplaceFunction", "torch.autograd.function.NestedIOFunction")
NODE_MARKERS = frozenset({"grad_fn", "next_functions"})
_BASIC = (bool, int, float, complex, str, bytes, type(None), tuple, list, dict, set, frozenset)


# -- the names, from the installed torch (run in a child process that imports torch) ----------
def derive() -> dict:
    """``{"torch": version, "names": [{"name", "area", "spellings"}], "errors": [...]}`` from the installed torch."""
    import torch

    names: list[dict] = []
    by_object: dict[int, dict] = {}
    keep: list = []
    errors: list[str] = []

    def add(area: str, name: str, value, spelling: str) -> None:
        if not isinstance(value, _BASIC) and id(value) in by_object:
            entry = by_object[id(value)]
            if spelling not in entry["spellings"]:
                entry["spellings"].append(spelling)
            return
        entry = {"name": name, "area": area, "spellings": [spelling]}
        names.append(entry)
        if not isinstance(value, _BASIC):
            by_object[id(value)] = entry
            keep.append(value)

    for module_name in _all_list_modules():
        module = importlib.import_module(module_name)
        for attribute in getattr(module, "__all__", ()):
            if not hasattr(module, attribute):
                errors.append(f"{module_name}.__all__ names {attribute}, which the module lacks")
                continue
            add(module_name, f"{module_name}.{attribute}", getattr(module, attribute), f"{module_name}.{attribute}")
    for area, (owner_path, members) in EXPLICIT.items():
        owner = _resolve_path(owner_path)
        if owner is None:
            errors.append(f"explicit list {area}: torch has no {owner_path}")
            continue
        for member in members:
            if not hasattr(owner, member):
                errors.append(f"explicit list {area}: {owner_path} has no {member}")
                continue
            spelling = f"{owner_path}.{member}"
            name = f"{area}.{member}" if area in MEMBER_AREAS else spelling
            value = getattr(owner, member)
            add(area, name, value if area not in MEMBER_AREAS else object(), spelling)
    for attribute in dir(torch):  # the same objects re-exported at the top (torch.no_grad, torch.vmap)
        value = getattr(torch, attribute, None)
        if not attribute.startswith("_") and not isinstance(value, _BASIC) and id(value) in by_object:
            entry = by_object[id(value)]
            if f"torch.{attribute}" not in entry["spellings"]:
                entry["spellings"].append(f"torch.{attribute}")
    for module_name in ALIAS_MODULES:  # and in the modules a script imports them from
        module = importlib.import_module(module_name)
        for attribute in getattr(module, "__all__", ()):
            value = getattr(module, attribute, None)
            if not isinstance(value, _BASIC) and id(value) in by_object:
                by_object[id(value)]["spellings"].append(f"{module_name}.{attribute}")
    return {"torch": torch.__version__, "names": names, "errors": errors}


def _all_list_modules() -> list[str]:
    """``ALL_LISTS``, with the public submodules of torch.autograd that have an ``__all__`` after torch.autograd."""
    package = importlib.import_module(AUTOGRAD_PACKAGE)
    submodules = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{AUTOGRAD_PACKAGE}.{info.name}")
        except Exception:  # noqa: BLE001 - a submodule that needs an optional dependency is not surface here
            continue
        if hasattr(module, "__all__"):
            submodules.append(module.__name__)
    first, *rest = ALL_LISTS
    return [first, *submodules, *rest]


def _resolve_path(path: str):
    """The object a dotted path names: the longest importable module, then attributes; None where none."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            value = getattr(value, part, None)
            if value is None:
                return None
        return value
    return None


class DeriveError(Exception):
    """The child that reads the installed torch failed (no torch, or it crashed)."""


def derived(python: str | None = None, timeout: float = 300.0) -> dict:
    """``derive()`` run in a child process (this process never imports torch); for this interpreter's torch,
    kept in the disk cache (``conformance.cache``) under the torch installed and this module's source."""
    path = None if python else cache.path_of("surface", _installed_torch_key(), cache.directory())
    found = cache.read(path)
    if found is None:
        found = _derived_in_child(python, timeout)
        cache.write(path, found)
    return found


def _installed_torch_key() -> str | None:
    """A key for the torch this interpreter would import (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec("torch")
        version = importlib.metadata.version("torch")
        origin = Path(spec.origin)
        return cache.digest(sys.executable, str(origin), version, str(origin.stat().st_mtime_ns),
                            Path(__file__).read_bytes())
    except (AttributeError, TypeError, OSError, ValueError, importlib.metadata.PackageNotFoundError):
        return None


def _derived_in_child(python: str | None, timeout: float) -> dict:
    try:
        done = subprocess.run([python or sys.executable, "-m", __name__], capture_output=True, text=True,
                              timeout=timeout, cwd=str(Path(__file__).resolve().parent.parent))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DeriveError(f"reading the installed torch failed: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise DeriveError(f"reading the installed torch failed: {last[:300]}")
    return json.loads(done.stdout)


# -- exclusions ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exclusion:
    patterns: tuple[str, ...]
    reason: str

    def matches(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.patterns)


def load_exclusions(path: Path = EXCLUSIONS_FILE) -> list[Exclusion]:
    """The ``[[excluded]]`` entries (``names``: patterns, ``reason``), every field checked."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(data) - {"excluded"}
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    found = []
    for number, entry in enumerate(data.get("excluded", []), start=1):
        names, reason = entry.get("names"), entry.get("reason")
        if set(entry) != {"names", "reason"} or not isinstance(reason, str) or not reason.strip() \
                or not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"{path.name}: entry {number} needs exactly names (a list of patterns) and a reason")
        found.append(Exclusion(tuple(names), reason.strip()))
    return found


# -- which names a case uses, from its source -------------------------------------------------
def sources_of(case) -> list[str]:
    """The scenario's source and that of the catalog helpers it calls by name (transitively)."""
    sources, seen, todo = [], set(), [case.scenario]
    while todo:
        function = todo.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        source = case.source if function is case.scenario else _source(function)
        if source is None:
            continue
        sources.append(source)
        module_globals = getattr(function, "__globals__", {})
        for called in _called_names(source):
            helper = module_globals.get(called)
            if inspect.isfunction(helper) and (helper.__module__ or "").startswith("conformance."):
                todo.append(helper)
    return sources


@functools.lru_cache(maxsize=4096)
def _nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of the source, breadth first (a node before its children)."""
    return tuple(ast.walk(ast.parse(source)))


def _called_names(source: str) -> set[str]:
    return {node.func.id for node in _nodes(source) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


@functools.cache
def _source(function) -> str | None:
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return None


@functools.lru_cache(maxsize=4096)
def names_used(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """(dotted torch paths, ``Owner.member`` names) that a scenario's source uses."""
    nodes = _nodes(source)
    aliases = _aliases(nodes)
    paths: set[str] = set()
    members: set[str] = set()

    def path_of(node: ast.AST) -> str | None:
        return _chain(node, aliases)

    function_classes = _function_classes(nodes, path_of)
    ctx_names = set()
    node_valued = _node_valued(nodes) if any(marker in source for marker in NODE_MARKERS) else set()
    for cls in function_classes.values():
        for item in cls.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                members.add(f"Function.{item.name}")
                if item.args.args:
                    ctx_names.add(item.args.args[0].arg)
            elif isinstance(item, ast.Assign):
                members.update(f"Function.{t.id}" for t in item.targets if isinstance(t, ast.Name))
    for node in nodes:
        path = path_of(node) if isinstance(node, ast.Name | ast.Attribute) else None
        if path is not None:
            paths.add(path)
            continue
        if not isinstance(node, ast.Attribute):
            continue
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id in function_classes:
            members.add(f"Function.{node.attr}")
        elif isinstance(receiver, ast.Name) and receiver.id in ctx_names:
            members.add(f"FunctionCtx.{node.attr}")
        elif id(receiver) in node_valued:
            members.add(f"Node.{node.attr}")
        else:
            members.update({f"Tensor.{node.attr}", f"Module.{node.attr}"})
    return frozenset(paths), frozenset(members)


def _aliases(nodes: tuple[ast.AST, ...]) -> dict[str, str]:
    """Name -> torch path: ``torch`` (a scenario's parameter) and the names assigned attribute chains of it."""
    aliases = {"torch": "torch"}
    for node in nodes:
        if isinstance(node, ast.FunctionDef) and len(node.args.args) >= 2 and node.args.args[1].arg == "rec":
            aliases[node.args.args[0].arg] = "torch"
    assignments = [(node.targets[0].id, node.value) for node in nodes if isinstance(node, ast.Assign)
                   and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                   and isinstance(node.value, ast.Name | ast.Attribute)]
    changed = True
    while changed:
        changed = False
        for name, value in assignments:
            chain = _chain(value, aliases)
            if chain is not None and aliases.get(name) != chain:
                aliases[name] = chain
                changed = True
    return aliases


def _chain(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _function_classes(nodes: tuple[ast.AST, ...], path_of) -> dict[str, ast.ClassDef]:
    """The classes of the source that derive (directly or through one another) from a torch Function class."""
    candidates = [node for node in nodes if isinstance(node, ast.ClassDef)]
    classes: dict[str, ast.ClassDef] = {}
    changed = True
    while changed:
        changed = False
        for node in candidates:
            if node.name not in classes and any(
                    path_of(base) in FUNCTION_BASES or isinstance(base, ast.Name) and base.id in classes
                    for base in node.bases):
                classes[node.name] = node
                changed = True
    return classes


def _node_valued(nodes: tuple[ast.AST, ...]) -> set[int]:
    """The ids of the expressions that hold a node: through grad_fn or next_functions, or a name bound
    (assigned, or looped over) from such an expression."""
    bindings = []
    for node in nodes:
        if isinstance(node, ast.Assign):
            bindings.append((node.value, node.targets))
        elif isinstance(node, ast.For | ast.comprehension):
            bindings.append((node.iter, [node.target]))
    names: set[str] = set()
    while True:
        marked: set[int] = set()
        for node in reversed(nodes):  # children before their parents
            if isinstance(node, ast.Attribute) and node.attr in NODE_MARKERS or isinstance(node, ast.Name) \
                    and node.id in names or any(id(child) in marked for child in ast.iter_child_nodes(node)):
                marked.add(id(node))
        bound = {leaf.id for value, targets in bindings if id(value) in marked
                 for target in targets for leaf in ast.walk(target) if isinstance(leaf, ast.Name)}
        if bound <= names:
            return marked
        names |= bound


def usage(names: list[dict], cases: Iterable) -> dict[str, list[str]]:
    """Documented name -> ids of the cases whose scenario uses it."""
    by_spelling: dict[str, str] = {}
    for entry in names:
        for spelling in entry["spellings"]:
            by_spelling[spelling] = entry["name"]
    used: dict[str, list[str]] = {entry["name"]: [] for entry in names}
    for case in cases:
        found: set[str] = set()
        for source in sources_of(case):
            paths, members = names_used(source)
            found.update(by_spelling[p] for p in paths if p in by_spelling)
            found.update(m for m in members if m in used)
        for name in found:
            used[name].append(case.id)
    return used


# -- the survey ------------------------------------------------------------------------------
@dataclass
class Survey:
    """Every documented name with the cases that use it or the reason it is left out."""

    torch_version: str
    names: list[dict]
    used: dict[str, list[str]]
    excluded: dict[str, str]
    errors: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        return [e["name"] for e in self.names if not self.used[e["name"]] and e["name"] not in self.excluded]

    def areas(self) -> list[dict]:
        """Per area, in torch's order: names, used, excluded, missing."""
        rows: dict[str, dict] = {}
        missing = set(self.missing)
        for entry in self.names:
            row = rows.setdefault(entry["area"], {"area": entry["area"], "names": 0, "used": 0, "excluded": 0,
                                                  "missing": 0})
            row["names"] += 1
            name = entry["name"]
            row["used" if self.used[name] else "missing" if name in missing else "excluded"] += 1
        return list(rows.values())

    def as_dict(self) -> dict:
        return {"torch": self.torch_version, "areas": self.areas(), "missing": self.missing, "errors": self.errors,
                "names": [{"name": e["name"], "area": e["area"], "cases": self.used[e["name"]],
                           "excluded": self.excluded.get(e["name"]) if not self.used[e["name"]] else None}
                          for e in self.names]}


def survey(found: dict, cases: Iterable, exclusions: list[Exclusion] | None = None) -> Survey:
    """The survey of ``found`` (what ``derived()`` returned) over ``cases``."""
    exclusions = load_exclusions() if exclusions is None else exclusions
    names = found["names"]
    errors = list(found.get("errors", []))
    excluded: dict[str, str] = {}
    for exclusion in exclusions:
        matched = [e["name"] for e in names if exclusion.matches(e["name"])]
        if not matched:
            errors.append(f"{EXCLUSIONS_FILE.name}: {', '.join(exclusion.patterns)} matches no documented name")
        for name in matched:
            excluded.setdefault(name, exclusion.reason)
    used = usage(names, cases)
    errors += [f"{EXCLUSIONS_FILE.name} excludes {name}, which {', '.join(used[name][:3])} use(s)"
               for name in excluded if used[name]]
    return Survey(found.get("torch", "?"), names, used, excluded, errors)


def render_text(result: dict) -> list[str]:
    """The survey for the terminal (and Markdown): a table per area, the missing names, and what the
    implementation lacks where the survey was asked for one."""
    areas = result["areas"]
    total = {key: sum(row[key] for row in areas) for key in ("names", "used", "excluded", "missing")}
    lines = [f"Documented autograd surface of torch {result['torch']}: {total['names']} names, {total['used']} used "
             f"by cases, {total['excluded']} excluded on purpose, {total['missing']} missing", "",
             "| area | names | used | excluded | missing |", "|:--|--:|--:|--:|--:|"]
    lines += [f"| `{row['area']}` | {row['names']} | {row['used']} | {row['excluded']} | {row['missing']} |"
              for row in areas]
    if result["missing"]:
        lines += ["", "Missing (neither a case nor a reasoned exclusion):"]
        lines += [f"* `{name}`" for name in result["missing"]]
    if "implementation" in result:
        impl = result["implementation"]
        lines += ["", f"{impl['name']} lacks {len(impl['lacks'])} of the {impl['in_scope']} names in scope"
                  + (":" if impl["lacks"] else "")]
        lines += [f"* `{name}`" for name in impl["lacks"]]
    for error in result["errors"]:
        lines.append(f"error: {error}")
    return lines


# -- what an implementation lacks (run in a child process that imports it) ----------------------
def lacking(namespace, names: list[dict]) -> list[str]:
    """The names none of whose spellings the implementation's namespace has (torch spelled as its namespace)."""
    return [entry["name"] for entry in names if not any(_has(namespace, s) for s in entry["spellings"])]


def _has(namespace, spelling: str) -> bool:
    value = namespace
    for part in spelling.split(".")[1:]:
        try:
            value = getattr(value, part)
            continue
        except Exception:  # noqa: BLE001 - a missing name, however the implementation says it
            pass
        try:  # a submodule not imported yet
            value = importlib.import_module(f"{value.__name__}.{part}") if inspect.ismodule(value) else None
        except Exception:  # noqa: BLE001
            value = None
        if value is None:
            return False
    return True


def implementation_lacks(impl: str, names: list[dict], python: str | None = None, timeout: float = 300.0) -> list[str]:
    """``lacking()`` for ``--impl impl``, in a child process (this process never imports the implementation)."""
    try:
        done = subprocess.run([python or sys.executable, "-m", __name__, "--impl", impl], input=json.dumps(names),
                              capture_output=True, text=True, timeout=timeout,
                              cwd=str(Path(__file__).resolve().parent.parent))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DeriveError(f"reading {impl} failed: {exc}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise DeriveError(last[:300])
    return json.loads(done.stdout)


def _main(argv: list[str]) -> int:
    if argv[:1] == ["--impl"] and len(argv) == 2:
        from .implementations import UnknownImplementation, resolve

        try:
            namespace = resolve(argv[1]).namespace
        except UnknownImplementation as exc:
            print(exc, file=sys.stderr)
            return 2
        json.dump(lacking(namespace, json.load(sys.stdin)), sys.stdout)
        return 0
    json.dump(derive(), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
