"""The operator table's cases: each variant rendered (``render.rendered``), compiled and made a ``Case``.

Rendering the table and finding the features its 231 scenarios use is most of the time a process
takes to load the catalog (about 6 of 8 seconds), and every command, every worker of a run and
every test process loads it. ``build_all`` therefore keeps what rendering gives (each scenario's
source, compiled code, title, tags and features) in the disk cache (``conformance.cache``), and
renders only what the cache lacks. Its key is a fingerprint of everything rendering reads: the
sources of this package (the table, the renderer), of ``features.py`` and ``case.py``, the Python
version (compiled code is version-specific) and NumPy's (its generator draws the inputs). The cases of
torch's op_db (``conformance/catalog/opinfo.py``) are kept the same way, under a kind of their own
whose key adds the data they are read from.
"""

from __future__ import annotations

import linecache
import marshal
import sys
from dataclasses import astuple
from pathlib import Path

import numpy as np

from .. import cache, docs
from ..case import ALL_DEVICES, Case
from . import OPTIONAL_FEATURES
from .batching import differing
from .render import Rendered, case_id, function_name, rendered, source_file
from .spec import Operator, Variant
from .tolerances import EPSILON, REDUCED
from .values import drawn, random_floats

_PACKAGE = Path(__file__).resolve().parents[1]


def fingerprint(*also: Path) -> str:
    """A digest of every source rendering reads (and of the files ``also``), and of the Python and NumPy versions."""
    paths = sorted([*(_PACKAGE / "operators").rglob("*.py"), _PACKAGE / "features.py", _PACKAGE / "case.py", *also])
    return cache.digest(sys.version, str(marshal.version), np.__version__,
                        *(part for path in paths for part in (path.relative_to(_PACKAGE).as_posix(), path.read_bytes())))


def build(operator: Operator, variant: Variant, rendering: Rendered | None = None, code=None) -> Case:
    """The case of one variant: ``rendering`` (rendered now when not given) compiled, or its ``code``."""
    rendering = rendering or rendered(operator, variant)
    tolerance = variant.tolerance or operator.tolerance
    filename = source_file(operator, variant)
    namespace = {"__name__": operator.module, "random_floats": random_floats, "drawn": drawn, "differing": differing,
                 "TOLERANCE": {dtype: tolerance.in_dtype(dtype) for dtype in EPSILON}, "REDUCED": REDUCED,
                 "WIDE": "float64"}
    exec(code or compile(rendering.source, filename, "exec"), namespace)  # noqa: S102 (our own generated source)
    linecache.cache[filename] = (len(rendering.source), None, rendering.source.splitlines(True), filename)
    return Case(
        id=rendering.id,
        title=rendering.title,
        doc=docs.docstring(operator.doc),
        scenario=namespace[function_name(operator, variant)],
        devices=ALL_DEVICES,
        dtypes=variant.dtypes or operator.dtypes,
        tags=rendering.tags,
        features=rendering.features,
        optional_features=tuple(name for name in OPTIONAL_FEATURES if name in rendering.features),
        dtype_features=operator.dtype_features,
        tolerances=tolerance.per_dtype(),
        source=rendering.source,
    )


def build_all(operators: list[Operator], directory: Path | None = None, kind: str = "operators",
              sources: tuple[Path, ...] = ()) -> list[Case]:
    """Every variant's case, in table order, from the cache (in ``directory``, ``cache.directory()`` when not
    given) where it holds them; the cache is written again when it lacked some. ``kind`` names the cache's
    file, whose key also covers the files ``sources`` (where ``operators`` were read from)."""
    path = cache.path_of(kind, fingerprint(*sources), cache.directory() if directory is None else directory)
    stored = cache.read(path) or {}
    cases, fresh = [], {}
    for operator in operators:
        for variant in operator.variants:
            entry = stored.get(case_id(operator, variant))
            if entry is None:
                rendering = rendered(operator, variant)
                code = compile(rendering.source, source_file(operator, variant), "exec")
                entry = fresh[rendering.id] = (astuple(rendering), marshal.dumps(code))
            cases.append(build(operator, variant, Rendered(*entry[0]), marshal.loads(entry[1])))
    if fresh:
        cache.write(path, {**stored, **fresh})
    return cases
