"""Mutants that the hand-written operator table misses and the samples of torch's op_db catch
(``opinfo.*``, ``conformance/catalog/opinfo.py``)."""

from __future__ import annotations

from myautograd._ops import convolution, indexing

from ._registry import mutant, replace


@mutant("losses and layers", "padding='same' ignores the dilation: pads k - 1 in all where torch pads dilation * (k - 1)")
def conv_same_padding_ignores_dilation():
    def make(original):
        def same_padding(input, weight, ndim, stride, dilation):
            return original(input, weight, ndim, stride, (1,) * ndim)

        return same_padding

    replace(convolution, "_same_padding", make)


@mutant("indexing", "take_along_dim takes negative indices as they are, not counted from the end of the dim")
def take_along_dim_negative_indices_kept():
    replace(indexing, "_counted_from_the_end", lambda original: lambda indices, size: indices)
