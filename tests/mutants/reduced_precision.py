"""Mutants of float16 and bfloat16: a bfloat16 result computed in float32 and never rounded back, and a
float16 reduction accumulated in float16 where torch accumulates in float32.

The catalog kills them once its operator table runs in float16 and bfloat16 (another branch of issue 22);
until then tests/test_myautograd_reduced_precision.py does (see tests/mutants/README.md)."""

from __future__ import annotations

import numpy as np

from myautograd import _reduced
from myautograd._ops import reduction

from ._registry import mutant, replace


@mutant("precision", "a bfloat16 result computed in float32 and not rounded: the op returns float32")
def bfloat16_not_rounded():
    def make(original):
        def round_to(value, dtype):
            return value if dtype.name == "bfloat16" else original(value, dtype)

        return round_to

    replace(_reduced, "round_to", make)


@mutant("precision", "a float16 sum, mean, product or scan accumulated in float16, not float32")
def float16_accumulated_in_float16():
    def make(original):
        def accumulator(result_dtype):
            return result_dtype if result_dtype == np.float16 else original(result_dtype)

        return accumulator

    replace(reduction, "_accumulator", make)
