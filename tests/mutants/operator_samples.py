"""Mutants that the hand-written operator table misses and the samples of torch's op_db catch
(``opinfo.*``, ``conformance/catalog/opinfo.py``)."""

from __future__ import annotations

from myautograd._ops import convolution, formula_helpers, pool_checks

from ._registry import mutant, replace


@mutant("losses and layers", "padding='same' ignores the dilation: pads k - 1 in all where torch pads dilation * (k - 1)")
def conv_same_padding_ignores_dilation():
    def make(original):
        def same_padding(input, weight, ndim, stride, dilation):
            return original(input, weight, ndim, stride, (1,) * ndim)

        return same_padding

    replace(convolution, "_same_padding", make)


@mutant("forward mode", "max_unpool's tangent adds the tangents of repeated indices where the forward keeps the last "
                        "element placed there (the forward rule taken from max pooling's backward, which adds)")
def max_unpool_tangent_sums_repeats():
    def make(original):
        def max_pool_backward(F, grad, self, indices, spatial, accumulate=True):
            return original(F, grad, self, indices, spatial, True)

        return max_pool_backward

    replace(formula_helpers, "max_pool_backward", make)


@mutant("losses and layers", "pooling takes a negative padding for none where torch refuses it ('pad must be "
                             "non-negative'): the output size is computed with the padding clamped at 0")
def pool_negative_padding_clamped():
    def make(original):
        def pooled_sizes(sizes, kernel, stride, padding, dilation, ceil_mode):
            return original(sizes, kernel, stride, tuple(max(p, 0) for p in padding), dilation, ceil_mode)

        return pooled_sizes

    replace(pool_checks, "pooled_sizes", make)
