"""The behaviour catalog: one module per topic, each holding small ``@case`` scenarios.

Adding a module here adds a topic; ``load()`` imports every module of this package.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..case import REGISTRY, Registry


def load() -> Registry:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return REGISTRY
