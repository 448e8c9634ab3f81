"""Cases ``opinfo.<name>.<variant>``: the samples of torch's ``op_db``, rendered as data.

Each entry of ``conformance/databases/op_db.json`` (see ``conformance.databases.render_operators``)
becomes one :class:`~conformance.operators.spec.Operator` of the table with one variant, the entry's
``variant_test_name`` (``default`` where it has none), so its case is ``opinfo.<name>.<variant>``
(``opinfo.nn.functional.conv2d.default``, ``opinfo.max.reduction_with_dim``): selectable as a whole
(``-k opinfo``) and per operator (``-k opinfo.<name>``). The case holds every sample of the entry,
then its invalid calls: one case per entry keeps a run to one forked child per entry and dtype, and a
failure names its sample by number and call in the step label. ``conformance.operators.render``
writes the scenario as for the hand-written table: the inputs from their values (the float tensors
in the item's dtype, other dtypes as they are, non-contiguous ones strided), the value, the gradients
where torch has them (``supports_autograd``), second order (``supports_gradgrad``), forward mode
(``supports_forward_ad``) and forward-over-reverse (``supports_fwgrad_bwgrad``); the invalid calls'
exception type and message. The samples are not run under vmap (the hand-written table checks vmap).
The cases run on the CPU (the device the samples and dtypes were read for), in those of float32 and
float64 that torch supports for the entry.

Only this module's standard library and NumPy code runs when the catalog is built: the
implementation's side never imports torch. A file that is missing, of another format or unreadable
leaves the topic empty with the reason; an entry whose data does not make an operator is skipped with
the reason. The rendered scenarios are kept in the disk cache (``operators.cases.build_all``, keyed
by the data file and this module too), so a process pays the rendering once.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import docs
from ..case import REGISTRY, Case, Doc, Registry
from ..databases import FILES
from ..databases.render_operators import FORMAT
from ..operators.cases import build_all
from ..operators.render import case_id
from ..operators.spec import Input, Operator, Raises, Sample, Variant
from ..operators.tolerances import COMPOSITE

PREFIX = "opinfo"
DTYPES = ("float32", "float64")
#: Where an entry's function has no docstring of its own (``torch.clamp_min``, ``Tensor.__radd__``).
UNDOCUMENTED = "torch.html"
NO_VMAP = "a sample of torch's op_db: vmap is checked by the hand-written operator table"
TAGS = ("database", "op_db")


@dataclass
class Database:
    """What ``op_db.json`` holds, read: the operators and the entries left out, with their reasons."""

    torch: str = "unknown"
    operators: list[Operator] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # {"name", "variant", "reason"}


def read(path: Path = FILES["op_db"]) -> Database:
    """The database in ``path``; empty, with the reason as its one skip, where it cannot be read."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Database(skipped=[{"name": "*", "variant": "*", "reason": f"cannot read {Path(path).name}: {exc}"}])
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        return Database(skipped=[{"name": "*", "variant": "*",
                                  "reason": f"{Path(path).name} is of format {found!r}, not {FORMAT}: render it again"}])
    database = Database(torch=str(data.get("torch", "unknown")), skipped=list(data.get("skipped", [])))
    seen = set()
    for entry in data.get("entries", []):
        try:
            operator = operator_of(entry)
            key = case_id(operator, operator.variants[0])
            if key in seen:
                raise ValueError("a second entry of that name and variant")
            seen.add(key)
        except (KeyError, TypeError, ValueError) as exc:
            known = entry if isinstance(entry, dict) else {}
            database.skipped.append({"name": str(known.get("name", "?")), "variant": str(known.get("variant", "?")),
                                     "reason": f"its data does not make an operator: {type(exc).__name__}: {exc}"})
            continue
        database.operators.append(operator)
    return database


@functools.cache
def loaded() -> Database:
    """The package's ``op_db.json``, read once per process."""
    return read(FILES["op_db"])


def input_of(data: dict) -> Input:
    strided = not data["contiguous"] and data["values"] is not None and data["shape"]
    return Input(shape=tuple(data["shape"]), values=data["values"], kind=data["kind"],
                 layout="strided" if strided else "contiguous", grad=bool(data["grad"]))


def operator_of(entry: dict) -> Operator:
    samples = [Sample(sample["call"], {name: input_of(inp) for name, inp in sample["inputs"].items()},
                      sample.get("note", ""), sample["outputs"], bool(sample["grad"]))
               for sample in entry["samples"]]
    errors = [Raises(error["call"], {name: input_of(inp) for name, inp in error["inputs"].items()},
                     f"torch's tests expect {error['type']} matching {error['pattern']!r}")
              for error in entry["errors"]]
    dtypes = tuple(entry["dtypes"])
    if not dtypes or not set(dtypes) <= set(DTYPES):
        raise ValueError(f"dtypes {entry['dtypes']!r}")
    left_out = tuple(step for step, flag in (("forward-mode", "supports_forward_ad"),
                                              ("forward-over-reverse", "supports_fwgrad_bwgrad")) if not entry[flag])
    return Operator(name=entry["name"], doc=entry["doc"], tolerance=COMPOSITE,
                    variants=(Variant(entry["variant"], tuple(samples + errors), dtypes=dtypes),),
                    gradgrad=bool(entry["supports_gradgrad"]), differentiable=bool(entry["supports_autograd"]),
                    module=__name__, no_vmap=NO_VMAP, dtypes=DTYPES, left_out=left_out, prefix=PREFIX)


def cases(database: Database, directory: Path | None = None) -> list[Case]:
    """One case per operator of the database, on the CPU, from the disk cache where it holds them."""
    built = []
    rendered = build_all(database.operators, directory, kind=PREFIX, sources=(FILES["op_db"], Path(__file__)))
    for operator, case in zip(database.operators, rendered):
        doc = case.doc if operator.doc else Doc(f"{docs.DOCS_ROOT}/{UNDOCUMENTED}",
                                                 f"torch (op_db's entry {operator.name}: no docstring of its own)")
        built.append(replace(case, doc=doc, devices=("cpu",), tags=(*case.tags, *TAGS)))
    return built


def case_ids() -> tuple[str, ...]:
    """The ids ``register`` gives its cases, read off the data without building them."""
    return tuple(case_id(operator, operator.variants[0]) for operator in loaded().operators)


def register(registry: Registry = REGISTRY) -> None:
    for built in cases(loaded()):
        registry.add(built)
