"""Operator table: creating tensors from Python numbers, lists and NumPy arrays, ranges, and casts.

Creation is exact: a Python float becomes the nearest value of the dtype (0.1 in float64 is
0.1000000000000000055..., never a float32 value widened), so these compare with no tolerance.
Only linspace and decimal arange steps compute their values, and get the ROUNDED class.
"""

from __future__ import annotations

from .spec import E, R, S, op, variant
from .tolerances import EXACT, ROUNDED

#: Why creation from Python numbers is not run under vmap.
NO_INPUT = "made from Python numbers: no tensor input to batch"

OPERATORS = [
    op("tensor", "torch.tensor", EXACT,
       no_vmap=NO_INPUT,
       default=[
           S("torch.tensor([0.1, 0.2, 0.3], dtype=dtype, device=rec.device)", "decimal fractions, rounded once"),
           S("torch.tensor([[1.5, -2.25], [1e-8, 3.0]], dtype=dtype, device=rec.device)", "nested lists"),
           S("torch.tensor(0.1, dtype=dtype, device=rec.device)", "a Python float: 0-dim"),
           S("torch.tensor([1e-40, -1e-45, 1e-310], dtype=dtype, device=rec.device)",
             "values below the normal range of float32 (subnormal or zero there)"),
           S("torch.tensor([3.5e38, 1e39, -1e300], dtype=dtype, device=rec.device)",
             "values above the range of float32 (infinite there)"),
           S("torch.tensor([1, 2, 3], device=rec.device)", "Python ints: int64"),
           S("torch.tensor([True, False], device=rec.device)", "Python bools: bool"),
           S("torch.tensor([1, 2.5], device=rec.device)", "ints and floats: the default dtype"),
           S("torch.tensor([0.1, 0.2], dtype=dtype, device=rec.device, requires_grad=True)", "a leaf that requires grad"),
           S("torch.tensor([], dtype=dtype, device=rec.device)", "empty"),
           E("torch.tensor([[1.0, 2.0], [3.0]], device=rec.device)", "ragged nested lists"),
           E("torch.tensor([1, 2], device=rec.device, requires_grad=True)", "int64 cannot require grad"),
       ],
       numpy=[
           S("import numpy\nout = torch.tensor(numpy.array([0.1, 0.2, 1e-40]), dtype=dtype, device=rec.device)",
             "a float64 NumPy array, converted to the dtype"),
           S("import numpy\nout = torch.tensor(numpy.array([0.1, 0.2], dtype=numpy.float32), device=rec.device)",
             "a float32 NumPy array keeps float32"),
           S("import numpy\nout = torch.from_numpy(numpy.array([[0.1, 0.7], [1.3, 2.9]])).to(rec.device)",
             "from_numpy keeps float64 (its tensor is on the CPU, then on the item's device)"),
       ]),
    op("full", "torch.full", EXACT,
       no_vmap=NO_INPUT,
       default=[
           S("torch.full((2, 3), 0.1, dtype=dtype, device=rec.device)", "a decimal fill value"),
           S("torch.full((2,), 7, device=rec.device)", "an int fill value: int64"),
           S("torch.full((), -2.5, dtype=dtype, device=rec.device, requires_grad=True)", "0-dim leaf"),
           S("torch.full((0, 2), 1.0, dtype=dtype, device=rec.device)", "empty"),
       ]),
    op("linspace", "torch.linspace", ROUNDED,
       no_vmap=NO_INPUT,
       default=[
           S("torch.linspace(0, 1, 5, dtype=dtype, device=rec.device)", "five points on [0, 1]"),
           S("torch.linspace(-1, 1, 7, dtype=dtype, device=rec.device)", "an odd number of points around 0"),
           S("torch.linspace(0.1, 0.9, 9, dtype=dtype, device=rec.device)", "decimal ends"),
           S("torch.linspace(2, -2, 4, dtype=dtype, device=rec.device)", "decreasing"),
           S("torch.linspace(3, 5, 1, dtype=dtype, device=rec.device)", "one point: the start"),
           S("torch.linspace(0, 1, 0, dtype=dtype, device=rec.device)", "no points"),
           S("torch.linspace(0, 1, 3, dtype=dtype, device=rec.device, requires_grad=True)", "a leaf that requires grad"),
           E("torch.linspace(0, 1, -1, device=rec.device)", "a negative number of steps"),
       ]),
    op("arange", "torch.arange", EXACT,
       no_vmap=NO_INPUT,
       default=[
           S("torch.arange(5, device=rec.device)", "an int end: int64"),
           S("torch.arange(0, 1, 0.25, dtype=dtype, device=rec.device)", "a step that is a power of two"),
           S("torch.arange(1, 2.5, 0.5, device=rec.device)", "float arguments: the default dtype"),
           S("torch.arange(-3, 3, 2, dtype=dtype, device=rec.device)", "negative start"),
           S("torch.arange(3, 0, -1, dtype=dtype, device=rec.device)", "a negative step"),
           S("torch.arange(0, dtype=dtype, device=rec.device)", "empty"),
           E("torch.arange(0, 1, 0, device=rec.device)", "step 0"),
           E("torch.arange(1, 0, 1, device=rec.device)", "a step of the wrong sign"),
       ],
       decimal_step=variant(
           S("torch.arange(0, 1, 0.1, dtype=dtype, device=rec.device)", "a decimal step: ten values"),
           S("torch.arange(0.5, 2.0, 0.3, dtype=dtype, device=rec.device)", "a decimal start and step"),
           tolerance=ROUNDED)),
    op("to", "torch.Tensor.to", EXACT, gradgrad=False,
       default=[
           S("x.to(torch.float64)", "to float64: the gradient comes back in the input's dtype", x=R(2, 3)),
           S("x.to(torch.float32)", "to float32 (float64 values are rounded once)",
             x=R(2, 3, layout="transposed")),
           S("x.double()", "double()", x=R(3)),
           S("x.float()", "float()", x=R(3)),
           S("x.to(torch.int64)", "to int64: truncation, no gradient", x=R(5, low=-3.0, high=3.0), grad=False),
           S("x.to(torch.bool)", "to bool", x=R(3), grad=False),
           S("x.to(y)", "to another tensor's dtype", x=R(3), y=R(2, grad=False)),
           S("x.to(rec.device)", "to its own device: the tensor itself", x=R(3)),
           S("x.to(x.dtype)", "to its own dtype: the tensor itself", x=R(3)),
           S("x.to(torch.float64, copy=True)", "copy=True always copies", x=R(3)),
       ]),
]
