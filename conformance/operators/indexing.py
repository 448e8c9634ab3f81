"""Operator table: advanced indexing (reading and writing), gather/scatter, masks, take.

Indices are explicit int64 or bool literals, with repeated indices where the gradient must
accumulate (at most twice per element, so that the sums stay exact). Writing is checked on a
clone (a non-leaf): the written value's gradient and the clone's node name (CopySlices,
IndexPutBackward0).
"""

from __future__ import annotations

from .spec import B, E, I, R, S, V, op, variant
from .tolerances import EXACT, SUMMED

OPERATORS = [
    op("getitem", "torch.Tensor.__getitem__", EXACT, gradgrad=False,
       default=[
           S("x[idx]", "an int64 index tensor with a repeated index", x=R(3, 4), idx=I([0, 2, 0])),
           S("x[[2, 0]]", "a Python list", x=R(3, 4)),
           S("x[range(0, 3, 2)]", "a range", x=R(3, 2)),
           S("x[idx]", "a 2-D index tensor", x=R(4), idx=I([[0, 1], [3, 3]])),
           S("x[[0, 1, 1], [1, 2, 2]]", "pairs of indices, one pair twice", x=R(3, 4)),
           S("x[:, [2, 0]]", "a slice, then a list", x=R(3, 4, layout="transposed")),
           S("x[idx, 1:]", "an index tensor, then a slice", x=R(3, 4), idx=I([2, 1])),
           S("x[-1, idx]", "a negative integer and an index tensor", x=R(3, 4), idx=I([-1, 0])),
           E("x[idx]", "an index out of range", x=R(3), idx=I([0, 5])),
           E("x[idx]", "a float index tensor", x=R(3), idx=V([0.0, 1.0])),
       ],
       mask=[
           S("x[mask]", "a 2-D mask selects elements", x=R(2, 3), mask=B([[True, False, True], [False, False, True]])),
           S("x[mask]", "a 1-D mask selects rows", x=R(3, 2), mask=B([True, False, True])),
           S("x[x > 0]", "a mask computed from the tensor (vmap: a shape that depends on the values)", x=R(5),
             torch_raises=("vmap", "vmap-of-vjp")),
           S("x[mask]", "an all-false mask", x=R(3), mask=B([False, False, False])),
           E("x[mask]", "a mask of the wrong shape", x=R(3, 4), mask=B([True, False])),
       ]),
    op("setitem", "torch.Tensor.__setitem__", EXACT, gradgrad=False,
       default=[
           S("out = x.clone()\nout[0] = v", "a row from a tensor", x=R(3, 4), v=R(4)),
           S("out = x.clone()\nout[1] = 2.5", "a row from a Python number", x=R(3, 4)),
           S("out = x.clone()\nout[:, 1:3] = v", "a slice from a tensor", x=R(3, 4), v=R(3, 2)),
           S("out = x.clone()\nout[[0, 2]] = v", "rows by a list", x=R(3, 4), v=R(2, 4)),
           S("out = x.clone()\nout[idx] = v", "elements by an index tensor", x=R(5), idx=I([4, 1]), v=R(2)),
           S("out = x.clone()\nout[mask] = 0.0", "a mask and a number", x=R(2, 3),
             mask=B([[True, False, True], [False, True, False]])),
           S("out = x.clone()\nout[mask] = v", "a mask and a tensor", x=R(4), mask=B([False, True, True, False]),
             v=R(2)),
           S("out = x.clone()\nout[idx] += v", "an augmented assignment through an index", x=R(4), idx=I([3, 0]),
             v=R(2)),
           S("out = x.clone()\nout[range(0, 4, 2)] = v", "rows by a range", x=R(4, 2), v=R(2, 2)),
           E("x[0] = 1.0", "a leaf that requires grad", requires_grad=True, x=R(3)),
           E("out = x.clone()\nout[[0, 1]] = v", "a value of the wrong shape", x=R(3, 4), v=R(3)),
       ]),
    op("index_select", "torch.index_select", EXACT, gradgrad=False,
       default=[
           S("x.index_select(0, idx)", "rows, one repeated", x=R(3, 4), idx=I([2, 0, 2])),
           S("torch.index_select(x, 1, idx)", "columns, transposed", x=R(3, 4, layout="transposed"), idx=I([3, 1])),
           S("x.index_select(-1, idx)", "a negative dim of a 3-D tensor", x=R(2, 2, 3), idx=I([0])),
           S("x.index_select(0, idx)", "an empty index", x=R(3), idx=I([])),
           E("x.index_select(0, idx)", "an index out of range", x=R(3), idx=I([3])),
           E("x.index_select(0, idx)", "a 2-D index", x=R(3), idx=I([[0]])),
       ]),
    op("gather", "torch.gather", EXACT, gradgrad=False,
       default=[
           S("torch.gather(x, 1, idx)", "along dim 1, one index repeated", x=R(3, 4), idx=I([[0, 3], [1, 1], [2, 0]])),
           S("x.gather(0, idx)", "along dim 0", x=R(3, 2), idx=I([[2, 0], [1, 2]])),
           S("x.gather(-1, idx)", "a negative dim, transposed", x=R(3, 4, layout="transposed"), idx=I([[3], [0], [2]])),
           E("x.gather(1, idx)", "an index out of range", x=R(2, 3), idx=I([[0], [5]])),
           E("x.gather(1, idx)", "an index of another rank", x=R(2, 3), idx=I([0, 1])),
       ]),
    op("scatter", "torch.scatter", EXACT, gradgrad=False,
       default=[
           S("x.scatter(1, idx, src)", "a tensor source, distinct indices per row", x=R(2, 4),
             idx=I([[0, 3], [2, 1]]), src=R(2, 2)),
           S("torch.scatter(x, 0, idx, src)", "along dim 0", x=R(3, 2), idx=I([[2, 0]]), src=R(1, 2)),
           S("x.scatter(1, idx, 2.5)", "a Python number", x=R(2, 3), idx=I([[1], [0]])),
           S("x.clone().scatter_(1, idx, src)", "in-place on a non-leaf", x=R(2, 3), idx=I([[2], [0]]), src=R(2, 1)),
           E("x.scatter(1, idx, src)", "an index out of range", x=R(2, 3), idx=I([[3], [0]]), src=R(2, 1)),
       ]),
    op("scatter_add", "torch.scatter_add", SUMMED, gradgrad=False,
       default=[
           S("x.scatter_add(1, idx, src)", "repeated indices add up", x=R(2, 4), idx=I([[0, 0, 3], [1, 2, 1]]),
             src=R(2, 3)),
           S("torch.scatter_add(x, 0, idx, src)", "along dim 0", x=R(3, 2), idx=I([[2, 0], [2, 2]]), src=R(2, 2)),
           S("x.clone().scatter_add_(1, idx, src)", "in-place on a non-leaf", x=R(2, 3), idx=I([[1, 1], [0, 2]]),
             src=R(2, 2)),
           E("x.scatter_add(1, idx, src)", "an index of another rank", x=R(2, 3), idx=I([0, 1]), src=R(2)),
       ]),
    op("masked_fill", "torch.Tensor.masked_fill", EXACT, gradgrad=False,
       default=[
           S("x.masked_fill(mask, 0.0)", "a number", x=R(2, 3), mask=B([[True, False, True], [False, False, True]])),
           S("x.masked_fill(mask, -1.5)", "a broadcast mask, transposed", x=R(2, 3, layout="transposed"),
             mask=B([False, True, True])),
           S("x.clone().masked_fill_(mask, 2.0)", "in-place on a non-leaf", x=R(4), mask=B([True, False, False, True])),
           S("torch.masked_fill(x, mask, float('-inf'))", "-inf, as attention masks do", x=R(3),
             mask=B([False, True, False])),
           E("x.masked_fill(mask, 0.0)", "a float mask", x=R(3), mask=V([1.0, 0.0, 1.0])),
       ],
       tensor_value=variant(
           S("x.masked_fill(mask, v)", "a 0-dim tensor value that requires grad: its gradient sums the filled places",
             x=R(2, 3), mask=B([[True, False, True], [False, True, True]]), v=R()),
           E("x.masked_fill(mask, v)", "a value with dimensions", x=R(3), mask=B([True, False, True]), v=R(3)),
           tolerance=SUMMED)),
    op("masked_select", "torch.masked_select", EXACT, gradgrad=False,
       default=[
           S("x.masked_select(mask)", "a mask of the same shape", x=R(2, 3),
             mask=B([[True, False, True], [False, False, True]])),
           S("torch.masked_select(x, mask)", "a broadcast mask", x=R(2, 3), mask=B([True, False, True])),
           E("x.masked_select(mask)", "a mask that does not broadcast", x=R(2, 3), mask=B([True, False])),
       ]),
    op("take", "torch.take", EXACT, gradgrad=False,
       default=[
           S("torch.take(x, idx)", "flat indices, one repeated", x=R(3, 4), idx=I([0, 11, 5, 0])),
           S("x.take(idx)", "negative indices, a 2-D index, transposed", x=R(3, 4, layout="transposed"),
             idx=I([[-1, 2], [4, -12]])),
           E("torch.take(x, idx)", "an index out of range", x=R(3, 4), idx=I([12])),
       ]),
]
