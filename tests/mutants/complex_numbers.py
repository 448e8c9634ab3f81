"""Mutants of complex numbers: a product's gradient without the conjugate of the other factor, and
gradients stored into a complex leaf's ``.grad`` without their imaginary part. Real numbers never
see either: only complex items of the catalog (or ``tests/test_myautograd_complex.py``) kill them."""

from __future__ import annotations

import numpy as np

from myautograd._autograd import accumulate as accumulation
from myautograd._autograd import engine

from ._registry import formula, mutant, replace


@mutant("complex numbers", "mul's gradient in self is grad * other, without the conjugate (the real-number formula)")
def mul_missing_conjugate():
    formula("MulBackward0", "self", lambda grad, other: grad * other, holomorphic=False)


@mutant("complex numbers", "a complex gradient accumulated into .grad keeps only its real part")
def gradient_imaginary_dropped():
    def make(original):
        def accumulate(node, grad, mode, owned):
            if not mode.create_graph and np.iscomplexobj(grad):
                grad, owned = grad.real.astype(grad.dtype), True
            return original(node, grad, mode, owned)

        return accumulate

    replace(engine, "accumulate", make)
    replace(accumulation, "accumulate", make)
