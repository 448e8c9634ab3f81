"""The operator catalog: cases ``op.<operator>.<variant>`` generated from ``conformance/operators``.

Each variant of each entry of the operator table becomes one case, run in float32 and float64,
that checks forward values, node names, first- and second-order gradients and the errors of
invalid calls against torch (see ``conformance.operators.render``).
"""

from __future__ import annotations

from ..case import REGISTRY, Registry
from ..operators import operators
from ..operators.cases import build_all


def register(registry: Registry = REGISTRY) -> None:
    for case in build_all(operators()):
        registry.add(case)


register()
