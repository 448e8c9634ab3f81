"""Operator table: layer_norm, batch_norm (training, with and without running statistics, and
eval) and group_norm.

batch_norm updates its running statistics in place; they are recorded after each call (the
running variance uses the unbiased estimate, the normalization the biased one).
"""

from __future__ import annotations

from .spec import E, R, S, V, op
from .tolerances import COMPOSITE

POSITIVE = {"low": 0.5, "high": 2.0, "grad": False}

OPERATORS = [
    op("layer_norm", "torch.nn.functional.layer_norm", COMPOSITE,
       default=[
           S("F.layer_norm(x, (4,))", "the last dim, no affine", x=R(3, 4)),
           S("F.layer_norm(x, (4,), w, b)", "weight and bias", x=R(3, 4), w=R(4), b=R(4)),
           S("F.layer_norm(x, (2, 3), eps=1e-3)", "the last two dims, eps", x=R(2, 2, 3)),
           S("F.layer_norm(x, (3,))", "a transposed input", x=R(2, 3, layout="transposed")),
           S("F.layer_norm(x, (3,))", "a constant row: only eps keeps it finite", x=V([[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]]),
             gradgrad=False),
           E("F.layer_norm(x, (3,))", "a normalized_shape that does not end the input's shape", x=R(2, 4)),
       ]),
    op("batch_norm", "torch.nn.functional.batch_norm", COMPOSITE,
       training=[
           S("F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)", "running statistics updated",
             x=R(4, 3), rm=R(3, grad=False), rv=R(3, **POSITIVE), w=R(3), b=R(3), also=("rm", "rv")),
           S("F.batch_norm(x, None, None, training=True)", "no running statistics, no affine", x=R(3, 2)),
           S("F.batch_norm(x, rm, rv, training=True)", "a (N, C, L) input", x=R(2, 3, 2), rm=R(3, grad=False),
             rv=R(3, **POSITIVE), also=("rm", "rv")),
           S("m = torch.nn.BatchNorm1d(3).to(device=rec.device, dtype=dtype)\nout = m(x)\nout = m(x * 2)",
             "the module: two batches, running statistics and the batch count",
             x=R(4, 3), also=("m.running_mean", "m.running_var", "m.num_batches_tracked"),
             torch_raises=("vmap", "vmap-of-vjp")),  # vmap: a batched update of the module's unbatched buffers
           E("F.batch_norm(x, None, None, training=True)", "one value per channel", x=R(1, 3)),
           E("F.batch_norm(x, rm, rv, training=True)", "running statistics of the wrong size", x=R(4, 3),
             rm=R(2), rv=R(2, **POSITIVE)),
           E("F.batch_norm(x, rm, rv, training=True)", "running statistics that require grad (found by the fuzzer)",
             requires_grad=True, x=R(4, 3), rm=R(3), rv=R(3, low=0.5, high=2.0)),
           E("F.batch_norm(x, rm, None, training=True)", "running_mean without running_var", x=R(4, 3), rm=R(3)),
       ],
       eval=[
           S("F.batch_norm(x, rm, rv, w, b)", "running statistics used, not updated", x=R(4, 3), rm=R(3, grad=False),
             rv=R(3, **POSITIVE), w=R(3), b=R(3), also=("rm", "rv")),
           S("F.batch_norm(x, rm, rv, eps=0.1)", "eps, a transposed input", x=R(3, 2, layout="transposed"),
             rm=R(2, grad=False), rv=R(2, **POSITIVE)),
           E("F.batch_norm(x, None, rv)", "no running_mean in evaluation mode", x=R(4, 3), rv=R(3, **POSITIVE)),
       ]),
    op("group_norm", "torch.nn.functional.group_norm", COMPOSITE, gradgrad=("x", "w"),
       default=[
           S("F.group_norm(x, 2)", "two groups", x=R(2, 4, 3)),
           S("F.group_norm(x, 2, w, b)", "weight and bias", x=R(2, 4, 3), w=R(4), b=R(4)),
           S("F.group_norm(x, 1)", "one group", x=R(1, 3, 2, 2)),
           S("F.group_norm(x, 3, eps=1e-3)", "one channel per group", x=R(2, 3, 2)),
           E("F.group_norm(x, 2)", "channels not divisible by the groups", x=R(2, 3, 2)),
       ]),
]
