"""Reductions that leave NaN out: nansum (``NansumBackward0``) and nanmean, which torch composes as
nansum divided by the count of the elements that are not NaN (``DivBackward0``)."""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._autograd.record import record, records
from .._tensor import make_tensor
from .common import check_tensor, read_as
from .derivatives import NODES
from .reduction import _dims_arg, _saved_dims, _sum_dtype, _summed, sum
from .registry import export


@export
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    check_tensor(input, "nansum")
    data = input._data
    axes = _dims_arg(dim, data.ndim)
    values = read_as(data, _sum_dtype(data, dtype))
    if values.dtype.kind in "fc":
        values = np.where(np.isnan(values), values.dtype.type(0), values)
    out = _backend.as_array(_summed(values, axes, keepdim), dtype=values.dtype)
    if records(input):
        return record(NODES["NansumBackward0"], out, (input,),
                      {"dim": None if axes is None else _saved_dims(dim), "keepdim": keepdim})
    return make_tensor(out)


@export
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    check_tensor(input, "nanmean")
    if not input.is_floating_point() and not input.is_complex():
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype.scalar_type_name}")
    counted = sum(input.isnan().logical_not(), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype).div(counted)
