"""Operator table: convolutions and pooling.

Convolutions are sampled with stride, padding (numbers, pairs, 'same'), dilation, groups and
without bias, on a transposed (non-contiguous) input too; pooling with overlapping windows,
padding, ceil_mode, and ties inside a max window (the gradient goes to the index returned).
"""

from __future__ import annotations

from .spec import E, R, S, V, op
from .tolerances import COMPOSITE, SUMMED

OPERATORS = [
    op("conv1d", "torch.nn.functional.conv1d", COMPOSITE,
       default=[
           S("F.conv1d(x, w, b)", "a batch, with bias", x=R(2, 3, 5), w=R(4, 3, 3), b=R(4)),
           S("F.conv1d(x, w, stride=2, padding=1)", "stride 2, padding 1", x=R(1, 2, 6), w=R(3, 2, 3)),
           S("F.conv1d(x, w, dilation=2)", "dilation 2", x=R(1, 2, 7), w=R(2, 2, 2)),
           S("F.conv1d(x, w, groups=2)", "two groups", x=R(1, 4, 5), w=R(4, 2, 2)),
           S("F.conv1d(x, w, padding='same')", "padding 'same'", x=R(1, 2, 5), w=R(2, 2, 3)),
           E("F.conv1d(x, w)", "a weight with other in-channels", x=R(1, 3, 5), w=R(2, 2, 3)),
       ]),
    op("conv2d", "torch.nn.functional.conv2d", COMPOSITE,
       default=[
           S("F.conv2d(x, w, b)", "with bias", x=R(2, 2, 4, 4), w=R(3, 2, 3, 3), b=R(3)),
           S("F.conv2d(x, w, stride=2, padding=(1, 2))", "stride 2, padding (1, 2)", x=R(1, 2, 5, 5), w=R(2, 2, 3, 3)),
           S("F.conv2d(x, w)", "a transposed input", x=R(1, 1, 4, 5, layout="transposed"), w=R(2, 1, 2, 2)),
           S("F.conv2d(x, w, stride=(2, 1))", "different strides per dim", x=R(1, 1, 5, 4), w=R(1, 1, 2, 2)),
           E("F.conv2d(x, w)", "a weight with other in-channels", x=R(1, 3, 5, 5), w=R(3, 2, 3, 3)),
           E("F.conv2d(x, w)", "a kernel larger than the input", x=R(1, 1, 2, 2), w=R(1, 1, 3, 3)),
       ],
       dilation_groups=[
           S("F.conv2d(x, w, dilation=2)", "dilation 2", x=R(1, 2, 5, 5), w=R(2, 2, 2, 2)),
           S("F.conv2d(x, w, b, groups=2)", "two groups", x=R(1, 4, 4, 4), w=R(4, 2, 2, 2), b=R(4)),
           S("F.conv2d(x, w, groups=3)", "depthwise", x=R(1, 3, 3, 3), w=R(3, 1, 2, 2)),
           S("F.conv2d(x, w, padding='same', dilation=(1, 2))", "padding 'same' with dilation", x=R(1, 1, 4, 5),
             w=R(2, 1, 3, 3)),
           E("F.conv2d(x, w, groups=2)", "channels not divisible by groups", x=R(1, 3, 4, 4), w=R(2, 1, 2, 2)),
           E("F.conv2d(x, w, stride=2, padding='same')", "padding 'same' with a stride", x=R(1, 1, 4, 4),
             w=R(1, 1, 3, 3)),
       ]),
    op("conv_transpose2d", "torch.nn.functional.conv_transpose2d", COMPOSITE,
       default=[
           S("F.conv_transpose2d(x, w, b)", "with bias", x=R(1, 2, 3, 3), w=R(2, 3, 2, 2), b=R(3)),
           S("F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)", "stride, padding, output_padding",
             x=R(1, 2, 3, 3), w=R(2, 1, 3, 3)),
           S("F.conv_transpose2d(x, w, groups=2)", "two groups", x=R(1, 4, 2, 2), w=R(4, 1, 2, 2)),
           S("F.conv_transpose2d(x, w, dilation=2)", "dilation 2", x=R(1, 1, 3, 3), w=R(1, 2, 2, 2)),
           E("F.conv_transpose2d(x, w, stride=2, output_padding=2)", "output_padding not below the stride",
             x=R(1, 1, 2, 2), w=R(1, 1, 2, 2)),
       ]),
    # Selections, but an element that is the maximum of several overlapping windows gets the sum
    # of their gradients: SUMMED.
    op("max_pool2d", "torch.nn.functional.max_pool2d", SUMMED,
       default=[
           S("F.max_pool2d(x, 2)", "2x2 windows", x=R(1, 2, 4, 4)),
           S("F.max_pool2d(x, 3, stride=1, padding=1)", "overlapping windows, padding", x=R(1, 1, 4, 4)),
           S("F.max_pool2d(x, 2, ceil_mode=True)", "ceil_mode: partial windows", x=R(1, 1, 5, 5)),
           S("F.max_pool2d(x, 2, dilation=2)", "dilation 2", x=R(1, 1, 5, 5)),
           S("F.max_pool2d(x, 2, return_indices=True)", "return_indices", x=R(1, 1, 4, 4), outputs="out[0]"),
           S("F.max_pool2d(x, 2)", "ties inside a window", x=V([[[[1.0, 1.0, 0.0, 2.0], [0.0, 1.0, 2.0, 2.0],
                                                                  [3.0, -1.0, 5.0, 5.0], [3.0, 3.0, 5.0, 5.0]]]])),
           S("F.max_pool2d(x, 2)", "a 3-D input (no batch dim)", x=R(2, 4, 4, layout="transposed")),
           E("F.max_pool2d(x, 2, padding=2)", "padding above half the kernel", x=R(1, 1, 4, 4)),
       ]),
    op("avg_pool2d", "torch.nn.functional.avg_pool2d", SUMMED, gradgrad=False,
       default=[
           S("F.avg_pool2d(x, 2)", "2x2 windows", x=R(1, 2, 4, 4)),
           S("F.avg_pool2d(x, 3, stride=1, padding=1)", "padding counted in the average", x=R(1, 1, 4, 4)),
           S("F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)", "padding not counted",
             x=R(1, 1, 4, 4)),
           S("F.avg_pool2d(x, 2, ceil_mode=True)", "ceil_mode", x=R(1, 1, 5, 5)),
           S("F.avg_pool2d(x, 2, divisor_override=3)", "divisor_override", x=R(1, 1, 4, 4)),
           E("F.avg_pool2d(x, 2, padding=2)", "padding above half the kernel", x=R(1, 1, 4, 4)),
       ]),
    op("adaptive_avg_pool2d", "torch.nn.functional.adaptive_avg_pool2d", SUMMED, gradgrad=False,
       default=[
           S("F.adaptive_avg_pool2d(x, (2, 2))", "windows that divide the input", x=R(1, 2, 4, 4)),
           S("F.adaptive_avg_pool2d(x, (3, 2))", "overlapping windows of different sizes", x=R(1, 1, 5, 4)),
           S("F.adaptive_avg_pool2d(x, 1)", "a global average, transposed", x=R(2, 3, 3, layout="transposed")),
           S("F.adaptive_avg_pool2d(x, (4, 4))", "an output larger than the input", x=R(1, 1, 2, 3)),
       ]),
]
