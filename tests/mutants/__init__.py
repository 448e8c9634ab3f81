"""Deliberately broken myautograd: one realistic bug each, to measure what the catalog catches.

Each mutant (``formulas``, ``engine``, ``numerics``, ``transforms``, ``forward_mode``, ``complex_numbers``,
``module_hooks``, ``checkpointing``, ``graph_utilities``, ...) is a small function that patches one piece of
myautograd in the running process; the source tree is never edited. A mutant is an implementation the harness can run:
``python -m conformance run --impl tests.mutants:sin_sign`` (reading the attribute applies the patch, in the
side worker only, and gives myautograd).
``python -m tests.mutants`` runs the whole CPU catalog against every mutant and reports the kill
rate (a mutant is killed when some item does not pass); ``tox -e mutants`` does the same.
``README.md`` lists the survivors and why each is left.
"""

from __future__ import annotations

from . import (  # noqa: F401 - imported for their registrations
    anomaly_modes,
    attention,
    checkpointing,
    complex_numbers,
    engine,
    formulas,
    forward_mode,
    graph_utilities,
    jacobians,
    margin_losses,
    module_hooks,
    nn_activation_norm,
    numerics,
    opdb_conv,
    opdb_linalg,
    opdb_pointwise,
    opdb_reduce,
    operator_samples,
    optimizer_options,
    pooling,
    printing,
    promotion,
    reduced_precision,
    saved_tensor_hooks,
    summation_order,
    transforms,
    weighted_losses,
)
from ._registry import AREAS, MUTANTS, apply


def __getattr__(name: str):
    if name.startswith("__") or name not in MUTANTS:
        raise AttributeError(name)
    apply(name)
    import myautograd

    return myautograd


__all__ = ["AREAS", "MUTANTS", "apply"]
