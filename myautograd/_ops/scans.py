"""Cumulative ops beyond cumsum/cumprod: cummax, cummin and logcumsumexp.

``cummax``/``cummin`` give the running extreme along ``dim`` and where it was taken: a later element
equal to it takes its place (the index moves on at ties), and NaN, once met, stays, its index moving on
to each later NaN, as torch's CPU kernel does (``CummaxBackward0``/``CumminBackward0``: the gradients
added back at those indices). ``logcumsumexp`` is the running ``log(sum(exp(x)))``
(``LogcumsumexpBackward0``).
"""

from __future__ import annotations

import numpy as np

from .. import return_types
from .._autograd.formula_math import ArrayMath
from .._autograd.record import record, records
from .._tensor import make_tensor
from .common import check_tensor, normalize_dim
from .derivatives import NODES
from .registry import export


def _running_extreme(data, axis: int, takes_over):
    """The running extreme of ``data`` along ``axis`` and the index it was taken at; ``takes_over(x, best)``
    says where an element replaces the extreme so far (NaN always does)."""
    lines = np.moveaxis(data, axis, 0)
    values, indices = lines.copy(), np.zeros_like(lines, dtype=np.int64)
    for i in range(1, lines.shape[0]):
        taken = takes_over(lines[i], values[i - 1])
        if data.dtype.kind in "fc":
            taken = taken | np.isnan(lines[i])
        values[i] = np.where(taken, lines[i], values[i - 1])
        indices[i] = np.where(taken, i, indices[i - 1])
    return np.moveaxis(values, 0, axis), np.moveaxis(indices, 0, axis)


def _cumulative_extreme(name: str, takes_over, node: str):
    def op(input, dim, *, out=None):
        check_tensor(input, name)
        data = input._data
        axis = normalize_dim(dim, data.ndim)
        if data.ndim == 0:
            values, index = data.copy(), np.zeros_like(data, dtype=np.int64)
        else:
            values, index = _running_extreme(data, axis, takes_over)
        indices = make_tensor(index)
        if records(input):
            value_tensor = record(NODES[node], values, (input,), {"dim": axis, "indices": indices})
        else:
            value_tensor = make_tensor(values)
        return getattr(return_types, name)(value_tensor, indices)

    op.__name__ = name
    return export(op)


cummax = _cumulative_extreme("cummax", np.greater_equal, "CummaxBackward0")
cummin = _cumulative_extreme("cummin", np.less_equal, "CumminBackward0")


@export
def logcumsumexp(input, dim):
    check_tensor(input, "logcumsumexp")
    data = input._data
    axis = normalize_dim(dim, data.ndim)
    out = ArrayMath.logcumsumexp(data, axis)  # the formulas' kernel (float16 and bfloat16 in float32)
    if records(input):
        return record(NODES["LogcumsumexpBackward0"], out, (input,), {"dim": axis})
    return make_tensor(out)
