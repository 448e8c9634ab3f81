"""Operator table: matrix and tensor products.

matmul is sampled at every rank combination (1-D and 2-D operands, batched, broadcast batches),
each with its own node name; every product also on transposed operands (the missing-transpose
bug in a backward formula shows there) and with the errors of mismatched shapes and dtypes.
Products sum over the inner dimension, hence the SUMMED class.
"""

from __future__ import annotations

from .spec import E, I, R, S, V, op
from .tolerances import SUMMED

NAN = float("nan")

_MISMATCH = [
    E("torch.mm(a, b)", "inner sizes differ", a=R(2, 3), b=R(2, 3)),
    E("torch.mm(a, i)", "an int64 operand", a=R(2, 2), i=I([[1, 2], [3, 4]])),
]

OPERATORS = [
    op("matmul", "torch.matmul", SUMMED,
       vector=[
           S("torch.matmul(a, b)", "1-D @ 1-D: a dot product", a=R(4), b=R(4)),
           S("a @ b", "2-D @ 1-D: matrix-vector", a=R(3, 4), b=R(4)),
           S("a @ b", "1-D @ 2-D: vector-matrix", a=R(3), b=R(3, 4)),
           S("a @ b", "1-D @ 3-D: the vector is broadcast over the batch", a=R(3), b=R(2, 3, 4)),
           S("a @ b", "3-D @ 1-D", a=R(2, 3, 4), b=R(4)),
           E("a @ b", "0-dim operand", a=R(), b=R(3)),
           E("a @ b", "1-D sizes differ", a=R(3), b=R(4)),
       ],
       matrix=[
           S("torch.matmul(a, b)", "2-D @ 2-D", a=R(3, 4), b=R(4, 2)),
           S("a @ b", "transposed operands", a=R(3, 4, layout="transposed"), b=R(4, 2, layout="transposed")),
           S("a.matmul(b)", "method form, a strided operand", a=R(2, 3, layout="strided"), b=R(3, 2)),
           S("a @ b", "an empty inner dimension: zeros", a=R(2, 0), b=R(0, 3)),
           E("a @ b", "inner sizes differ", a=R(2, 3), b=R(2, 3)),
       ],
       batched=[
           S("a @ b", "3-D @ 3-D", a=R(2, 3, 4), b=R(2, 4, 2)),
           S("a @ b", "3-D @ 2-D: the matrix is broadcast over the batch", a=R(2, 3, 4), b=R(4, 2)),
           S("a @ b", "2-D @ 3-D", a=R(3, 4), b=R(2, 4, 2)),
           S("a @ b", "broadcast batch dimensions, 4-D @ 3-D", a=R(2, 1, 2, 3), b=R(3, 3, 2)),
           S("a @ b", "transposed batches", a=R(2, 3, 4, layout="transposed"), b=R(2, 4, 3)),
           E("a @ b", "batch sizes that do not broadcast", a=R(2, 2, 3), b=R(3, 3, 2)),
       ]),
    op("mm", "torch.mm", SUMMED,
       default=[
           S("torch.mm(a, b)", "2-D @ 2-D", a=R(3, 4), b=R(4, 2)),
           S("a.mm(b)", "transposed first operand", a=R(3, 4, layout="transposed"), b=R(4, 2)),
           S("torch.mm(a, b)", "transposed second operand", a=R(2, 3), b=R(3, 4, layout="transposed")),
           S("torch.mm(a, b)", "1x1 matrices", a=R(1, 1), b=R(1, 1)),
           *_MISMATCH,
           E("torch.mm(a, b)", "a 1-D operand", a=R(3), b=R(3, 2)),
       ]),
    op("bmm", "torch.bmm", SUMMED,
       default=[
           S("torch.bmm(a, b)", "batches of matrices", a=R(2, 3, 4), b=R(2, 4, 2)),
           S("a.bmm(b)", "transposed batches", a=R(2, 3, 4, layout="transposed"), b=R(2, 4, 3)),
           E("torch.bmm(a, b)", "batch sizes differ", a=R(2, 3, 4), b=R(3, 4, 2)),
           E("torch.bmm(a, b)", "a 2-D operand", a=R(3, 4), b=R(4, 2)),
       ]),
    op("mv", "torch.mv", SUMMED,
       default=[
           S("torch.mv(a, v)", "matrix-vector", a=R(3, 4), v=R(4)),
           S("a.mv(v)", "transposed matrix", a=R(3, 4, layout="transposed"), v=R(4)),
           E("torch.mv(a, v)", "sizes differ", a=R(3, 4), v=R(3)),
       ]),
    op("dot", "torch.dot", SUMMED,
       default=[
           S("torch.dot(a, b)", "vectors", a=R(5), b=R(5)),
           S("a.dot(b)", "strided vectors", a=R(4, layout="strided"), b=R(4)),
           S("torch.dot(a, b)", "empty vectors: zero", a=R(0), b=R(0)),
           E("torch.dot(a, b)", "sizes differ", a=R(3), b=R(2)),
           E("torch.dot(a, b)", "2-D operands", a=R(2, 2), b=R(2, 2)),
       ]),
    op("outer", "torch.outer", SUMMED,
       default=[
           S("torch.outer(a, b)", "vectors", a=R(3), b=R(4)),
           S("a.outer(b)", "a strided vector", a=R(3, layout="strided"), b=R(2)),
           S("torch.ger(a, b)", "the alias ger", a=R(2), b=R(2)),
       ]),
    op("addmm", "torch.addmm", SUMMED, gradgrad=("a", "b"),
       default=[
           S("torch.addmm(c, a, b)", "beta 1, alpha 1", c=R(3, 2), a=R(3, 4), b=R(4, 2)),
           S("torch.addmm(c, a, b, beta=0.5, alpha=2.0)", "beta 0.5, alpha 2", c=R(3, 2), a=R(3, 4), b=R(4, 2)),
           S("c.addmm(a, b)", "a broadcast bias row, transposed matrix", c=R(2), a=R(3, 4, layout="transposed"),
             b=R(4, 2)),
           S("torch.addmm(c, a, b, beta=0)", "beta 0: the bias is ignored, NaN included",
             c=V([[NAN, 1.0], [2.0, 3.0], [4.0, NAN]]), a=R(3, 4), b=R(4, 2),
             no_vmap="torch 2.13's vmap of addmm with beta=0 propagates the bias's NaN, which addmm alone ignores"),
           E("torch.addmm(c, a, b)", "a bias that does not broadcast", c=R(3), a=R(2, 4), b=R(4, 2)),
       ]),
    op("einsum", "torch.einsum", SUMMED,
       default=[
           S("torch.einsum('ij,jk->ik', a, b)", "a matrix product", a=R(3, 4), b=R(4, 2)),
           S("torch.einsum('bij,bjk->bik', a, b)", "a batched product", a=R(2, 3, 4), b=R(2, 4, 2)),
           S("torch.einsum('ii->i', a)", "a diagonal", a=R(3, 3), gradgrad=False),
           S("torch.einsum('ij->', a)", "a full sum", a=R(3, 4), gradgrad=False),
           S("torch.einsum('i,j->ij', a, b)", "an outer product", a=R(3), b=R(2)),
           S("torch.einsum('ij,ij->i', a, b)", "row-wise dot products, transposed operand",
             a=R(3, 4, layout="transposed"), b=R(3, 4)),
           S("torch.einsum('...ij->...ji', a)", "an ellipsis", a=R(2, 3, 4), gradgrad=False),
           E("torch.einsum('ij,jk->ik', a, b)", "sizes that do not match", a=R(3, 4), b=R(3, 2)),
       ]),
    op("tensordot", "torch.tensordot", SUMMED,
       default=[
           S("torch.tensordot(a, b, dims=1)", "dims=1", a=R(2, 3, 4), b=R(4, 2)),
           S("torch.tensordot(a, b, dims=2)", "dims=2", a=R(2, 3, 4), b=R(3, 4, 2)),
           S("torch.tensordot(a, b, dims=([1, 0], [0, 1]))", "explicit dims", a=R(3, 2, 2), b=R(2, 3)),
           S("torch.tensordot(a, b, dims=0)", "dims=0: an outer product", a=R(2), b=R(3)),
           E("torch.tensordot(a, b, dims=1)", "contracted sizes differ", a=R(2, 3), b=R(4, 2)),
       ]),
]
