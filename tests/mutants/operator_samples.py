"""Mutants that the hand-written operator table misses and the samples of torch's op_db catch
(``opinfo.*``, ``conformance/catalog/opinfo.py``)."""

from __future__ import annotations

from myautograd._ops import convolution

from ._registry import mutant, op, replace


@mutant("losses and layers", "padding='same' ignores the dilation: pads k - 1 in all where torch pads dilation * (k - 1)")
def conv_same_padding_ignores_dilation():
    def make(original):
        def same_padding(input, weight, ndim, stride, dilation):
            return original(input, weight, ndim, stride, (1,) * ndim)

        return same_padding

    replace(convolution, "_same_padding", make)


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
