"""An item (a case on a device, in a dtype) and the typed record of its result.

The record is what every report is built from; runner, pytest plugin and reports share it. Its
dictionary form (``ItemRecord.as_dict``) is what ``results.json`` holds per item::

    {"id", "topic", "title", "device", "dtype", "doc", "tags", "features", "source", "location",
     "without", "outcome", "levels", "detail", "duration", "reference", "implementation", "diff",
     "compared"?, "expected"?, "divergence"?}

``compared`` (items both sides ran to the end) counts what the judge compared: steps, and per
aspect the checks made, values and gradients element by element (``compare.Comparison.compared``).

``without`` lists the features the item ran without (``Item.without``: the implementation's profile
lacks them and the case can do without them); empty for an item that ran whole or did not run.

``levels`` holds the outcome at each level (``semantics``, ``api``, ``drop-in``, see ``levels``);
``outcome`` is the outcome at the level that decides the run, after expectations turned it into
``xfail`` / ``xpass`` where one applies (see ``expectations``); ``divergence``, for an item whose
gradients differ, where they first diverge in the graph (see ``locate``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from .case import Case
from .features import of_dtype
from .levels import LEVELS


@dataclass(frozen=True)
class Item:
    """A case on a device in a dtype. ``without``: features the scenario is asked to leave out
    (``rec.has(feature)`` is False on both sides; a case whose checks degrade, such as the operator
    cases' gradients through ``.backward()`` where ``autograd.grad`` is lacking). ``trace``: both sides
    also record the gradients flowing through every graph node (``conformance.gradtrace``)."""

    case: Case
    device: str
    dtype: str
    without: tuple[str, ...] = ()
    trace: bool = False

    @property
    def request_key(self) -> tuple:
        """What tells this item's requests apart in the pool (the same item may run again traced)."""
        return (*self.key, self.without, self.trace)

    @property
    def options(self) -> dict:
        """What a side needs besides the case, device and dtype to run this item (sent in its request)."""
        return {"without": list(self.without), "trace": self.trace}

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.case.id, self.device, self.dtype)

    @property
    def features(self) -> tuple[str, ...]:
        """The features this item needs: its case's, and those of its dtype (``features.of_dtype``)."""
        extra = [name for name in of_dtype(self.dtype, self.case.dtype_features) if name not in self.case.features]
        return (*self.case.features, *extra)

    @property
    def label(self) -> str:
        """``case[device]``, or ``case[device,dtype]`` for a case that runs in several dtypes."""
        return label_of(self.case.id, self.device, self.dtype, len(self.case.dtypes) > 1)


def label_of(case_id: str, device: str, dtype: str, several_dtypes: bool) -> str:
    return f"{case_id}[{device},{dtype}]" if several_dtypes else f"{case_id}[{device}]"


def items_of(cases: Iterable[Case], devices: Iterable[str]) -> list[Item]:
    """Every item of ``cases`` on ``devices`` (in catalog order, then device, then dtype)."""
    devices = tuple(devices)
    return [Item(case, device, dtype) for case in cases for device in devices if case.runs_on(device)
            for dtype in case.dtypes]


@dataclass
class ItemRecord:
    id: str
    topic: str
    title: str
    device: str
    dtype: str
    several_dtypes: bool
    doc: dict
    tags: list[str]
    features: list[str]
    source: str | None
    location: str
    without: list[str] = field(default_factory=list)
    outcome: str = "error"
    levels: dict[str, str] = field(default_factory=dict)
    detail: str = ""
    duration: float = 0.0
    reference: dict | None = None
    implementation: dict | None = None
    diff: list[dict] = field(default_factory=list)
    compared: dict | None = None
    expected: dict | None = None
    divergence: dict | None = None

    @classmethod
    def of(cls, item: Item) -> ItemRecord:
        case = item.case
        try:
            source = case.source
        except (OSError, TypeError):  # no source file (e.g. a case defined interactively)
            source = None
        return cls(id=case.id, topic=case.topic, title=case.title, device=item.device, dtype=item.dtype,
                   several_dtypes=len(case.dtypes) > 1, doc={"url": case.doc.url, "section": case.doc.section},
                   tags=list(case.tags), features=list(item.features), source=source, location=case.location,
                   without=list(item.without))

    @property
    def label(self) -> str:
        return label_of(self.id, self.device, self.dtype, self.several_dtypes)

    def finished(self, outcome: str, detail: str = "", **fields: Any) -> ItemRecord:
        """This record with an outcome, the outcome at each level (by default the same at every
        level: a skip, a crash...) and the fields given."""
        self.outcome = outcome
        self.levels = fields.pop("levels", None) or {level: outcome for level in LEVELS}
        self.detail = detail
        for name, value in fields.items():
            setattr(self, name, value)
        return self

    def as_dict(self) -> dict:
        data = asdict(self)
        for optional in ("expected", "compared", "divergence"):
            if data[optional] is None:
                del data[optional]
        return data
