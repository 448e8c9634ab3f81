"""Evenly spaced values: ``arange``, ``linspace`` and ``logspace``, rounded as torch's kernels round them.

torch computes each element of ``linspace`` with one fused multiply-add in the output's type, so
each is rounded once: ``start + i * step`` for the first half and ``end - (steps - 1 - i) * step``
for the second (integer types: in double precision, then truncated). ``arange`` here is
``start + i * step`` in double precision rounded once, then cast; torch's vectorised arange kernel
adds the step to a base already cast to the output type, so that its float32 values can differ
from these by an ulp, in a pattern that depends on the CPU's vector width. NumPy has
no fused multiply-add: ``fused_math.fused`` computes ``a * b + c`` rounded once.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .common import to_dtype
from .creation import finish
from .fused_math import fused
from .registry import function


def _as_number(value):
    return value.item() if isinstance(value, Tensor) else value


@function
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    if end is None:
        start, end = 0, start
    start, end, step = (_as_number(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtype.get_default_dtype() if any(isinstance(v, float) for v in (start, end, step)) else _dtype.int64
    target = to_dtype(dtype)
    count = max(0, math.ceil((end - start) / step))
    if target.category >= _dtype.FLOATING:
        data = fused(np.arange(count, dtype=np.float64), step, start, np.float64).astype(target.np)
    else:
        data = np.arange(start, end, step, dtype=target.np)
    return finish(data, None, device, requires_grad)


def linspace_values(start, end, steps: int, np_dtype) -> np.ndarray:
    if steps == 0:
        return np.zeros((0,), dtype=np_dtype)
    if steps == 1:
        return np.full((1,), start, dtype=np_dtype)
    if np.dtype(np_dtype).kind == "c":
        return _complex_linspace_values(complex(start), complex(end), steps, np_dtype)
    floating = _dtype.kind(np.dtype(np_dtype)) == "f"
    work = np.dtype(np_dtype).type if floating else np.float64
    if not floating:  # the ends are converted to the integer type first; the step is a double
        start, end = int(start), int(end)
    first, last = np.asarray(start).astype(work), np.asarray(end).astype(work)
    step = (last - first) / work(steps - 1)
    positions = np.arange(steps, dtype=np.float64)
    halfway = steps // 2
    if np.dtype(np_dtype) in _dtype.REDUCED_FLOATS:  # torch's reduced-precision kernel rounds each product and sum
        low = first + step * positions.astype(work)
        high = last - step * (steps - 1 - positions).astype(work)
    else:
        low = fused(positions, step, first, work)
        high = fused(steps - 1 - positions, -np.float64(step), last, work)
    values = np.where(positions < halfway, low, high)
    return values.astype(np_dtype) if floating else np.trunc(values).astype(np_dtype)


def _complex_linspace_values(start: complex, end: complex, steps: int, np_dtype) -> np.ndarray:
    """torch's complex kernel: ``start + step * i`` for the first half, ``end - step * (steps - 1 - i)`` for
    the second, in complex arithmetic of the output's type (no fused multiply-add; an index's imaginary
    part is zero, so each part is one product and one sum)."""
    complex_type = np.dtype(np_dtype).type
    first, last = complex_type(start), complex_type(end)
    step = (last - first) / complex_type(steps - 1)
    positions = np.arange(steps).astype(np_dtype)
    low = first + step * positions
    high = last - step * (complex_type(steps - 1) - positions)
    return np.where(np.arange(steps) < steps // 2, low, high).astype(np_dtype)


@function
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    return finish(linspace_values(_as_number(start), _as_number(end), steps, target.np), None, device,
                  requires_grad)


@function
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    return finish(np.logspace(start, end, steps, base=base).astype(target.np), None, device, requires_grad)
