"""Mutants that the hand-written operator table misses and the samples of torch's op_db catch
(``opinfo.*``, ``conformance/catalog/opinfo.py``): convolution's dilated 'same' padding, repeated unpooling indices,
a negative pooling padding, an empty dim (softmax's), a row of one element (layer norm's), a tensor bound of
clamp_min, invalid calls the argument parser refuses, negative indices of take_along_dim, tensordot's contracted
dimensions of size one."""

from __future__ import annotations

import numpy as np

from myautograd._ops import convolution, formula_helpers_nn, indexing, norm_math, pool_checks, reduction, signatures

from ._registry import formula, mutant, op, replace


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

    replace(formula_helpers_nn, "max_pool_backward", make)


@mutant("losses and layers", "pooling takes a negative padding for none where torch refuses it ('pad must be "
                             "non-negative'): the output size is computed with the padding clamped at 0")
def pool_negative_padding_clamped():
    def make(original):
        def pooled_sizes(sizes, kernel, stride, padding, dilation, ceil_mode):
            return original(sizes, kernel, stride, tuple(max(p, 0) for p in padding), dilation, ceil_mode)

        return pooled_sizes

    replace(pool_checks, "pooled_sizes", make)


@mutant("reductions and broadcasting", "softmax's maximum taken with NumPy's max, which raises over an empty dim")
def softmax_peak_of_an_empty_dim_raises():
    replace(reduction, "_peak_along", lambda original: lambda data, axis: np.max(data, axis=axis, keepdims=True))


@mutant("precision",
        "layer_norm's weight gradient normalizes as (x - mean) * rstd, not as torch's fused rstd * x - rstd * mean")
def layer_norm_weight_gradient_unfused():
    replace(norm_math, "fused_normalized",
            lambda original: lambda x, dims, eps: norm_math.normalized(norm_math.ArrayMath, x, dims, eps)[0])


@mutant("invalid calls", "the argument parser's reasons mark an argument by whether the op would take it (a number "
                         "fits a Number part) where torch marks it by its type's name: (int, !int!) for (!int!, !int!)")
def parser_reasons_marked_by_fit():
    def make(original):
        def marked(part, value):
            declared = part.partition(" = ")[0].rpartition(" ")[0]
            fits = part != "*" and signatures._fits(declared, value)
            return type(value).__name__ if fits else f"!{type(value).__name__}!"

        return marked

    replace(signatures, "_marked", make)


@mutant("formulas", "clamp_min with a tensor bound passes the bound the gradient where the input passed through "
                    "(the input's mask copied), not where the bound clamped it")
def clamp_min_bound_gradient_mask_copied():
    formula("ClampMinBackward1", "min", lambda grad, self, min, F: F.where(self >= min, grad, 0))


@mutant("indexing", "take_along_dim takes negative indices as they are, not counted from the end of the dim")
def take_along_dim_negative_indices_kept():
    replace(indexing, "_counted_from_the_end", lambda original: lambda indices, size: indices)


@mutant("reductions and broadcasting", "tensordot requires the contracted sizes to be equal: a dimension of size one "
                                       "is refused where torch sums the other operand over it")
def tensordot_refuses_broadcast_dims():
    def make(original):
        def tensordot(a, b, dims=2, out=None):
            if not isinstance(dims, int):
                for da, db in zip(*(([d] if isinstance(d, int) else list(d)) for d in dims)):
                    if a.shape[da] != b.shape[db]:
                        raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} "
                                           f"in dim {da} and second has size {b.shape[db]} in dim {db}")
            return original(a, b, dims, out)

        return tensordot

    op("tensordot", make, method=False)
