"""Catalog cases: one small scenario per documented behaviour, with its metadata.

A case is a plain function written against a torch-like namespace. The same function runs on
the installed PyTorch (the reference) and on the implementation under test; the runner diffs
what the two runs record. Cases are registered with the ``@case`` decorator::

    @case("Reading .grad of a non-leaf warns and returns None", doc=docs.TENSOR_GRAD)
    def nonleaf_grad_warns(torch, rec):
        x = torch.tensor([1.0], requires_grad=True, device=rec.device)
        y = x * 2
        rec("y.grad", y.grad)

The id is ``<topic>.<function name>``; the topic is the name of the catalog module that defines
the case (``conformance/catalog/leaf.py`` gives topic ``leaf``), so nothing is written twice.
A case that reproduces an outside source says where it comes from in ``provenance`` (a seed
tutorial's snippet: ``provenance="seed 002, In [10]"``).

A case declares the features it uses (``features``, see ``features``); among them, those it can do
without (``optional_features``): where the implementation's profile lacks one, the case runs without
it (``rec.has(feature)`` is False, on both sides) instead of being ``n/a``.
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .features import check_names

ALL_DEVICES = ("cpu", "cuda")
SOURCE_ROOT = Path(__file__).resolve().parent.parent  # holds conformance/ (and tests/ in a checkout)


def shown_path(filename: str) -> str:
    """A file name as reports show it: relative to ``SOURCE_ROOT`` or to the working directory when
    it lies under one of them, as it is otherwise (``<generated ...>`` names included)."""
    if filename.startswith("<"):
        return filename
    path = Path(filename)
    for root in (SOURCE_ROOT, Path.cwd()):
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            continue
    return filename


@dataclass(frozen=True)
class Doc:
    """The documentation a case checks: a URL and the section (or docstring) it names."""

    url: str
    section: str

    def __str__(self) -> str:
        return f"{self.section} <{self.url}>"


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    doc: Doc
    scenario: Callable
    devices: tuple[str, ...] = ALL_DEVICES
    dtypes: tuple[str, ...] = ("float32",)
    tags: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    optional_features: tuple[str, ...] = ()
    dtype_features: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    tolerances: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    timeout: float | None = None
    provenance: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        if not self.source:  # read once, so later edits of the file cannot shift it
            object.__setattr__(self, "source", textwrap.dedent(inspect.getsource(self.scenario)))

    @property
    def topic(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def location(self) -> str:
        """``file:line`` of the scenario, the file relative to the directory that holds the
        ``conformance`` package (the repository root in a checkout), so reports name no machine's path."""
        code = self.scenario.__code__
        return f"{shown_path(code.co_filename)}:{code.co_firstlineno}"

    def runs_on(self, device: str) -> bool:
        return device in self.devices


class Registry:
    """Holds every registered case, in registration order; ids must be unique."""

    def __init__(self) -> None:
        self._cases: dict[str, Case] = {}

    def add(self, case: Case) -> Case:
        if case.id in self._cases:
            other = self._cases[case.id]
            raise ValueError(f"duplicate case id {case.id!r} ({case.location} and {other.location})")
        unknown = set(case.devices) - set(ALL_DEVICES)
        if unknown:
            raise ValueError(f"case {case.id!r} names unknown devices {sorted(unknown)}")
        undeclared = [name for name in case.optional_features if name not in case.features]
        if undeclared:
            raise ValueError(f"case {case.id!r} can do without features it does not declare: {', '.join(undeclared)}")
        self._cases[case.id] = case
        return case

    def __iter__(self):
        return iter(self._cases.values())

    def __len__(self) -> int:
        return len(self._cases)

    def __contains__(self, case_id: str) -> bool:
        return case_id in self._cases

    def get(self, case_id: str) -> Case:
        return self._cases[case_id]


REGISTRY = Registry()


def topic_of_module(module_name: str) -> str:
    return module_name.rsplit(".", 1)[-1]


def case(
    title: str,
    *,
    doc: Doc,
    devices: tuple[str, ...] = ALL_DEVICES,
    dtypes: tuple[str, ...] = ("float32",),
    tags: tuple[str, ...] = (),
    features: tuple[str, ...] = (),
    optional_features: tuple[str, ...] = (),
    tolerances: Mapping[str, tuple[float, float]] | None = None,
    timeout: float | None = None,
    provenance: str = "",
    registry: Registry = REGISTRY,
) -> Callable[[Callable], Callable]:
    """Register the decorated scenario as the case ``<module topic>.<function name>``."""

    def register(scenario: Callable) -> Callable:
        case_id = f"{topic_of_module(scenario.__module__)}.{scenario.__name__}"
        registry.add(
            Case(
                id=case_id,
                title=title,
                doc=doc,
                scenario=scenario,
                devices=tuple(devices),
                dtypes=tuple(dtypes),
                tags=tuple(tags),
                features=check_names(features, case_id),
                optional_features=check_names(optional_features, case_id),
                tolerances=dict(tolerances or {}),
                timeout=timeout,
                provenance=provenance,
            )
        )
        return scenario

    return register


def case_from_source(source: str, case_id: str, title: str, doc: Doc, function: str = "scenario",
                     namespace: Mapping | None = None, **fields) -> Case:
    """A case whose scenario is the function ``function`` defined by ``source`` (generated code:
    operator samples, fuzzed programs). The source is compiled under the file name
    ``<case id>`` and registered in ``linecache``, so ``Case.source`` is exactly what runs and
    tracebacks and the recorder's line numbers point into it."""
    filename = f"<{case_id}>"
    scope = {"__name__": f"conformance.generated.{case_id}", **(namespace or {})}
    exec(compile(source, filename, "exec"), scope)  # noqa: S102 - our own generated source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return Case(id=case_id, title=title, doc=doc, scenario=scope[function], source=source, **fields)
