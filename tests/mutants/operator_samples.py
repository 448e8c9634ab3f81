"""Mutants that the hand-written operator table misses and the samples of torch's op_db catch
(``opinfo.*``, ``conformance/catalog/opinfo.py``): an empty dim (softmax's), a row of one element (layer norm's)."""

from __future__ import annotations

import numpy as np

from myautograd._ops import convolution, norm_math, reduction

from ._registry import mutant, replace


@mutant("losses and layers", "padding='same' ignores the dilation: pads k - 1 in all where torch pads dilation * (k - 1)")
def conv_same_padding_ignores_dilation():
    def make(original):
        def same_padding(input, weight, ndim, stride, dilation):
            return original(input, weight, ndim, stride, (1,) * ndim)

        return same_padding

    replace(convolution, "_same_padding", make)


@mutant("reductions and broadcasting", "softmax's maximum taken with NumPy's max, which raises over an empty dim")
def softmax_peak_of_an_empty_dim_raises():
    replace(reduction, "_peak_along", lambda original: lambda data, axis: np.max(data, axis=axis, keepdims=True))


@mutant("precision",
        "layer_norm's weight gradient normalizes as (x - mean) * rstd, not as torch's fused rstd * x - rstd * mean")
def layer_norm_weight_gradient_unfused():
    replace(norm_math, "fused_normalized",
            lambda original: lambda x, dims, eps: norm_math.normalized(norm_math.ArrayMath, x, dims, eps)[0])
