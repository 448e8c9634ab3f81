"""The behaviour catalog: one module per topic, each holding small ``@case`` scenarios.

Adding a module here adds a topic; ``load()`` imports every module of this package but the topics
rendered from PyTorch's own test databases (``DATABASE_TOPICS``: a few thousand items, whose run
takes many minutes), which ``load_with_databases()`` adds (``--registry conformance.catalog:load_with_databases``,
``tox -e databases``).
"""

from __future__ import annotations

import importlib
import pkgutil

from ..case import REGISTRY, Registry

#: Topics rendered from torch's module_db, optim_db and op_db (``conformance/databases``), run on request.
DATABASE_TOPICS = ("moduleinfo", "optiminfo", "opinfo")


_REGISTERED: set[str] = set()


def load(databases: bool = False) -> Registry:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in DATABASE_TOPICS:
            continue
        importlib.import_module(f"{__name__}.{info.name}")
    if databases:
        for name in DATABASE_TOPICS:
            if name not in _REGISTERED:  # their modules register when asked, not when imported
                importlib.import_module(f"{__name__}.{name}").register(REGISTRY)
                _REGISTERED.add(name)
    return REGISTRY


def database_case_ids() -> tuple[str, ...]:
    """The ids of the database topics' cases (read off their data: the cases are not built)."""
    return tuple(case_id for name in DATABASE_TOPICS for case_id in importlib.import_module(f"{__name__}.{name}").case_ids())


def load_with_databases() -> Registry:
    """The catalog with the topics of torch's test databases."""
    return load(databases=True)
