"""Seeded values of the operator catalog, and how they are written into scenario source.

Inputs are drawn once, when the catalog is built, from a NumPy generator seeded with the CRC-32
of the case id, and written into the scenario as literals with three decimals, so the source
shows exactly what runs on both sides and a failure reproduces anywhere. The vectors that
multiply the Jacobians (``grad_outputs``) depend on the shape an operation returns, so the
scenario draws them with :func:`random_floats` from a seed written in its source.
"""

from __future__ import annotations

import math
import zlib
from typing import Any

import numpy as np


def case_seed(case_id: str) -> int:
    """The stable seed of a case: CRC-32 of its id (never Python's salted ``hash``)."""
    return zlib.crc32(case_id.encode("utf-8"))


def tidy(value: float) -> float:
    """Three decimals, and never exactly zero (zero is a convention point, chosen explicitly)."""
    value = round(float(value), 3)
    return value if value != 0 else 0.125


def draw(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float) -> list:
    """Nested lists of the given shape with values in ``[low, high]``."""
    flat = [min(max(tidy(v), low), high) for v in rng.uniform(low, high, math.prod(shape))]
    return nest(flat, shape)


def draw_ints(rng: np.random.Generator, shape: tuple[int, ...], low: int, high: int) -> list:
    return nest([int(v) for v in rng.integers(low, high, math.prod(shape))], shape)


def nest(flat: list, shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = math.prod(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def literal(values: Any) -> str:
    """Python source for nested lists of numbers (non-finite floats as ``float('nan')``)."""
    if isinstance(values, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in values) + "]"
    if isinstance(values, bool) or isinstance(values, int):
        return repr(values)
    value = float(values)
    if math.isnan(value):
        return "float('nan')"
    if math.isinf(value):
        return "float('inf')" if value > 0 else "-float('inf')"
    return repr(value)


def random_floats(shape: Any, seed: int, like: Any = None) -> list:
    """A flat list of ``prod(shape)`` values in [-1, 1], three decimals, from ``seed``; complex numbers
    (the same real parts, then imaginary parts drawn alike) where the tensor ``like`` is complex.

    Called by scenarios for grad_outputs: ``torch.tensor(random_floats(out.shape, seed=7, like=out), ...)
    .reshape(out.shape)``. Only the shape and whether ``like`` is complex come from the implementation;
    the values do not.
    """
    count = math.prod(int(size) for size in shape)
    rng = np.random.default_rng(seed)
    real = [tidy(v) for v in rng.uniform(-1.0, 1.0, count)]
    if not _holds_complex(like):
        return real
    return [complex(r, tidy(i)) for r, i in zip(real, rng.uniform(-1.0, 1.0, count))]


def _holds_complex(tensor: Any) -> bool:
    is_complex = getattr(tensor, "is_complex", None)
    return bool(is_complex()) if callable(is_complex) else False


def drawn(real: Any, imaginary: Any, dtype: str) -> Any:
    """The values of a random input in the dtype an item runs in (its name): the ``real`` values (nested
    lists), or, in a complex dtype, complex numbers of those real parts and the ``imaginary`` ones."""
    if not dtype.startswith("complex"):
        return real
    if isinstance(real, list):
        return [drawn(r, i, dtype) for r, i in zip(real, imaginary)]
    return complex(real, imaginary)


def imaginary_parts(rng: np.random.Generator, shape: tuple[int, ...], low: float, high: float) -> list:
    """The imaginary parts of a random input drawn in ``[low, high]``: uniform in ``[-w, w]`` for ``w`` half
    the width of the range (never zero), so an input kept positive (the domain of log, sqrt) stays off the
    negative real axis where those functions' branch cuts lie."""
    width = (high - low) / 2 or 1.0
    return nest([tidy(v) for v in rng.uniform(-width, width, math.prod(shape))], shape)
