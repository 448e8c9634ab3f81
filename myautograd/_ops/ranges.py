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
from .signatures import match_signature


def _as_number(value):
    return value.item() if isinstance(value, Tensor) else value


def _bound_text(value) -> str:
    """A range's bound as torch's message prints it (C++'s default formatting of a double: ``1e+20``)."""
    return format(value, "g") if isinstance(value, float) else str(value)


@function
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    if end is None:
        start, end = 0, start
    start, end, step = (_as_number(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_bound_text(start)} -> {_bound_text(end)}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None and out is not None:
        dtype = out.dtype
    if dtype is None:
        dtype = _dtype.get_default_dtype() if any(isinstance(v, float) for v in (start, end, step)) else _dtype.int64
    target = to_dtype(dtype)
    if target.category < _dtype.FLOATING and int(step) == 0:  # an integer range steps by the step truncated
        raise ValueError("step must be nonzero")
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


_SPACE_KEYWORDS = ("*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                   "torch.device device = None, bool pin_memory = False, bool requires_grad = False")


def _space_signatures(extra: str) -> tuple[str, ...]:
    """torch's four signatures of linspace (``extra`` empty) or logspace (``extra``: its base)."""
    return tuple(f"{first} start, {second} end, int steps, {extra}{_SPACE_KEYWORDS}"
                 for first, second in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                                       ("Number", "Number")))


LINSPACE_SIGNATURES = _space_signatures("")
LOGSPACE_SIGNATURES = _space_signatures("float base = 10.0, ")


def _check_space(name: str, signatures: tuple[str, ...], start, end, steps) -> None:
    """torch's refusals of linspace's and logspace's arguments: the argument parser's, a tensor end
    of more than 0 dimensions (each tensor end named), a negative number of steps."""
    match_signature(name, signatures, (start, end, steps))
    shown = [f"{label} with {value.dim()} dimension(s)" for label, value in (("start", start), ("end", end))
             if isinstance(value, Tensor)]
    if any(isinstance(value, Tensor) and value.dim() != 0 for value in (start, end)):
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {' and '.join(shown)}.")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")


@function
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    _check_space("linspace", LINSPACE_SIGNATURES, start, end, steps)
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    return finish(linspace_values(_as_number(start), _as_number(end), steps, target.np), None, device,
                  requires_grad)


@function
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    _check_space("logspace", LOGSPACE_SIGNATURES, start, end, steps)
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    values = np.logspace(_as_number(start), _as_number(end), steps, base=base)
    return finish(values.astype(target.np), None, device, requires_grad)
