"""Mutants that the hand-written operator table misses and the samples of torch's op_db catch
(``opinfo.*``, ``conformance/catalog/opinfo.py``)."""

from __future__ import annotations

from myautograd._ops import convolution, signatures

from ._registry import formula, mutant, replace


@mutant("losses and layers", "padding='same' ignores the dilation: pads k - 1 in all where torch pads dilation * (k - 1)")
def conv_same_padding_ignores_dilation():
    def make(original):
        def same_padding(input, weight, ndim, stride, dilation):
            return original(input, weight, ndim, stride, (1,) * ndim)

        return same_padding

    replace(convolution, "_same_padding", make)


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
