"""Operator table: torch.nn.functional layers other than losses, convolutions and normalization.

linear, bilinear, dropout (only where it is deterministic: p=0, p=1, eval), cosine_similarity,
normalize, embedding (with repeated indices and padding_idx), one_hot and pad (every mode).
"""

from __future__ import annotations

from .spec import E, I, R, S, V, op, variant
from .tolerances import COMPOSITE, EXACT, SUMMED

OPERATORS = [
    op("linear", "torch.nn.functional.linear", SUMMED, gradgrad=("x", "w"),
       default=[
           S("F.linear(x, w, b)", "a batch of rows", x=R(2, 3), w=R(4, 3), b=R(4)),
           S("F.linear(x, w)", "no bias", x=R(2, 3), w=R(4, 3)),
           S("F.linear(x, w, b)", "a 1-D input", x=R(3), w=R(2, 3), b=R(2)),
           S("F.linear(x, w, b)", "a 3-D input, transposed weight", x=R(2, 2, 3), w=R(4, 3, layout="transposed"),
             b=R(4)),
           E("F.linear(x, w)", "sizes that do not match", x=R(2, 3), w=R(4, 2)),
       ]),
    op("bilinear", "torch.nn.functional.bilinear", SUMMED, gradgrad=("x1", "x2", "w"),
       default=[
           S("F.bilinear(x1, x2, w, b)", "a batch", x1=R(2, 3), x2=R(2, 4), w=R(5, 3, 4), b=R(5)),
           S("F.bilinear(x1, x2, w)", "no bias", x1=R(3, 2), x2=R(3, 2), w=R(2, 2, 2)),
           E("F.bilinear(x1, x2, w)", "a weight that does not match", x1=R(2, 3), x2=R(2, 4), w=R(5, 4, 4)),
       ]),
    op("dropout", "torch.nn.functional.dropout", EXACT, gradgrad=False,
       default=[
           S("F.dropout(x, p=0.0)", "p=0 in training: every element kept", x=R(3, 4)),
           S("F.dropout(x, p=0.5, training=False)", "not training: the input itself", x=R(3, 4)),
           S("F.dropout(x, p=1.0)", "p=1: every element dropped", x=R(2, 3)),
           S("torch.nn.Dropout(0.5).eval()(x)", "the module in eval mode", x=R(4)),
           S("torch.dropout(x, 0.0, True)", "torch.dropout", x=R(4)),
           E("F.dropout(x, p=1.5)", "p above 1", x=R(3)),
       ]),
    op("cosine_similarity", "torch.nn.functional.cosine_similarity", COMPOSITE,
       default=[
           S("F.cosine_similarity(a, b)", "rows (dim 1)", a=R(3, 4), b=R(3, 4)),
           S("F.cosine_similarity(a, b, dim=0)", "columns, transposed", a=R(3, 4, layout="transposed"), b=R(3, 4)),
           S("F.cosine_similarity(a, b)", "broadcast", a=R(2, 3), b=R(1, 3)),
           S("F.cosine_similarity(a, b, dim=0)", "a zero vector: eps keeps it finite", a=V([0.0, 0.0, 0.0]),
             b=R(3), gradgrad=False),
           E("F.cosine_similarity(a, b)", "shapes that do not broadcast", a=R(2, 3), b=R(2, 4)),
       ]),
    op("normalize", "torch.nn.functional.normalize", COMPOSITE,
       default=[
           S("F.normalize(x)", "rows to unit 2-norm", x=R(3, 4)),
           S("F.normalize(x, p=1, dim=0)", "columns to unit 1-norm", x=R(3, 4), gradgrad=False),
           S("F.normalize(x, dim=-1)", "a transposed 3-D input", x=R(2, 3, 4, layout="transposed")),
           S("F.normalize(x)", "a zero row: divided by eps", x=V([[0.0, 0.0], [3.0, 4.0]]), gradgrad=False),
       ]),
    op("embedding", "torch.nn.functional.embedding", EXACT, gradgrad=False,
       default=[
           S("F.embedding(idx, w)", "a repeated index accumulates", idx=I([1, 3, 1]), w=R(4, 3)),
           S("F.embedding(idx, w)", "2-D indices", idx=I([[0, 2], [2, 1]]), w=R(3, 2)),
           S("F.embedding(idx, w, padding_idx=0)", "padding_idx: no gradient for that row", idx=I([0, 2, 0, 1]),
             w=R(3, 2)),
           S("torch.nn.functional.embedding(idx, w)", "a 0-dim index", idx=I(2), w=R(3, 2)),
           E("F.embedding(idx, w)", "an index out of range", idx=I([3]), w=R(3, 2)),
           E("F.embedding(idx, w)", "float indices", idx=V([0.0]), w=R(3, 2)),
       ]),
    op("one_hot", "torch.nn.functional.one_hot", EXACT, differentiable=False,
       default=[
           S("F.one_hot(idx)", "the number of classes inferred (vmap: from the values, refused)", idx=I([0, 2, 1]),
             torch_raises=("vmap",)),
           S("F.one_hot(idx, num_classes=5)", "five classes, 2-D indices", idx=I([[0, 4], [3, 3]])),
           S("F.one_hot(idx, 3)", "empty", idx=I([])),
           E("F.one_hot(idx)", "a negative class", idx=I([0, -1])),
           E("F.one_hot(idx, num_classes=2)", "a class at or above num_classes", idx=I([0, 2])),
           E("F.one_hot(x)", "a float tensor", x=R(2)),
       ]),
    op("pad", "torch.nn.functional.pad", EXACT, gradgrad=False,
       constant=[
           S("F.pad(x, (1, 2))", "the last dim, zeros", x=R(2, 3)),
           S("F.pad(x, (1, 1, 2, 0), value=1.5)", "two dims, a fill value", x=R(2, 3)),
           S("F.pad(x, (-1, 1))", "a negative pad crops", x=R(2, 3, layout="transposed")),
           S("F.pad(x, (0, 0, 0, 0, 1, 1))", "a third dim", x=R(1, 2, 2)),
           E("F.pad(x, (1, 2, 3))", "an odd number of pads", x=R(2, 3)),
       ],
       modes=variant(
           S("F.pad(x, (1, 2), mode='reflect')", "reflect", x=R(2, 4)),
           S("F.pad(x, (2, 1), mode='replicate')", "replicate: edge gradients add up", x=R(2, 4)),
           S("F.pad(x, (1, 1), mode='circular')", "circular", x=R(1, 2, 3)),
           S("F.pad(x, (1, 1, 1, 1), mode='reflect')", "reflect in two dims", x=R(1, 3, 3)),
           E("F.pad(x, (4, 4), mode='reflect')", "a reflection wider than the input", x=R(2, 4)),
           tolerance=SUMMED),
       ),
]
