"""Mutants of the pooling layers: caught by the module_db cases (``moduleinfo``)."""

from __future__ import annotations

from myautograd._ops import pooling

from ._registry import mutant, replace


@mutant("losses and layers", "average pooling ignores count_include_pad: a window's padding never counts in its divisor")
def avg_pool_count_include_pad_ignored():
    def make(original):
        def avg_pool(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                     divisor_override=None, *, ndim):
            return original(input, kernel_size, stride, padding, ceil_mode, False, divisor_override, ndim=ndim)

        return avg_pool

    replace(pooling, "avg_pool", make)


@mutant("losses and layers", "fractional max pooling reads its random samples in reverse: sample 0 places the "
                             "windows along the first spatial dim instead of the last")
def fractional_samples_reversed():
    def make(original):
        def fractional_max_pool(input, kernel_size, output_size, samples, return_indices=False, *, ndim):
            return original(input, kernel_size, output_size, samples.flip(-1), return_indices, ndim=ndim)

        return fractional_max_pool

    replace(pooling, "fractional_max_pool", make)
