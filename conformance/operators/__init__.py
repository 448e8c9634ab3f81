"""The operator catalog: one declarative entry per operator, checked value by value against torch.

The table is split by family into the modules listed in ``FAMILIES``; each holds a list
``OPERATORS`` of :func:`spec.op` entries: the operator's name, its docstring, a tolerance class
(``tolerances``) and its variants, each a list of samples (``S``) and invalid calls (``E``)
over tensor inputs (``F`` random, ``V`` explicit values, ``I`` int64, ``B`` bool).

``render`` turns every variant into a case ``op.<operator>.<variant>`` of the catalog, run in
float32, float64, complex64, complex128, float16 and bfloat16
(``spec.DTYPES``); ``conformance/catalog/operators.py`` registers them. Writing an entry:
see ``docs/writing-cases.md`` (section "Operators").
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from .spec import FORWARD_STEPS, RAISING_STEPS, VMAP_STEPS, Operator
from .tolerances import REDUCED

FAMILIES = (
    "pointwise", "unary", "activations", "comparison", "reductions", "linalg", "shape", "indexing",
    "creation", "nn_functional", "losses", "convolution", "normalization", "complex_ops", "fft",
)


def operators() -> list[Operator]:
    """Every entry of the table, family by family, each knowing the module that declares it."""
    found: list[Operator] = []
    seen: dict[str, str] = {}
    for family in FAMILIES:
        module = importlib.import_module(f"{__name__}.{family}")
        for entry in module.OPERATORS:
            if entry.name in seen:
                raise ValueError(f"operator {entry.name!r} is declared twice ({seen[entry.name]} and {family})")
            seen[entry.name] = family
            found.append(replace(entry, module=module.__name__))
    return found


CHECKS = ("forward", "grad", "gradgrad", "error", *FORWARD_STEPS, *VMAP_STEPS)

#: The features an operator case can do without (``Case.optional_features``; see ``render``): run
#: without ``autograd.grad``, it takes the first-order gradients through ``.backward()`` (the leaves'
#: ``.grad``); run without either, it leaves the second-order gradients and forward-over-reverse
#: out; run without ``forward-ad``, both forward-mode steps; without ``vmap`` or ``func-transforms``,
#: both vmap steps (without ``autograd.grad``, vmap-of-vjp too).
OPTIONAL_FEATURES = ("autograd.grad", "higher-order", "forward-ad", "func-transforms", "vmap")

#: The checks an operator item leaves out when run without the feature.
LEFT_OUT_WITHOUT = {
    "autograd.grad": ("gradgrad", "forward-over-reverse", "vmap-of-vjp"),
    "higher-order": ("gradgrad", "forward-over-reverse"),
    "forward-ad": FORWARD_STEPS,
    "func-transforms": VMAP_STEPS,
    "vmap": VMAP_STEPS,
}


#: The checks an operator item leaves out in a reduced dtype (float16, bfloat16; see ``spec``).
LEFT_OUT_IN_REDUCED = ("gradgrad", *FORWARD_STEPS, *VMAP_STEPS)


def checks_made(checks, without, dtype: str = "float32") -> tuple[str, ...]:
    """The ``checks`` (of ``CHECKS``) that an operator item run ``without`` those features, in ``dtype``, makes."""
    left_out = {check for feature in without for check in LEFT_OUT_WITHOUT.get(feature, ())}
    if dtype in REDUCED:
        left_out.update(LEFT_OUT_IN_REDUCED)
    return tuple(check for check in checks if check not in left_out)


def refused_in_dtype(case_id: str, dtype: str) -> str | None:
    """How torch refuses the operator case in ``dtype`` (``dtype_refusals``: the step and the exception), or None."""
    from .dtype_refusals import TORCH_REFUSES

    return TORCH_REFUSES.get(case_id, {}).get(dtype)


def through_backward(without) -> bool:
    """Whether an operator item run ``without`` those features takes its gradients through ``.backward()``."""
    return "autograd.grad" in without


def coverage(case) -> tuple[str, tuple[str, ...]] | None:
    """``(operator, checks)`` of an operator case, read from its tags (``op:<name>``,
    ``check:<kind>``); None for a behaviour case. With ``Case.dtypes``, the device of each
    result and ``refused_by_torch``, this is the data of the operator coverage table."""
    if "op" not in case.tags:
        return None
    operator = next(tag.split(":", 1)[1] for tag in case.tags if tag.startswith("op:"))
    return operator, tuple(check for check in CHECKS if f"check:{check}" in case.tags)


def refused_by_torch(tags) -> tuple[str, ...]:
    """The forward-mode and vmap checks (of ``RAISING_STEPS``) that torch refuses in every sample of an
    operator case, from its tags (``torch-refuses:<step>``): those checks compare torch's exception."""
    return tuple(step for step in RAISING_STEPS if f"torch-refuses:{step}" in tags)
