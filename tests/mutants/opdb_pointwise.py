"""Mutants of the pointwise math and special functions (``myautograd/_ops/pointwise_math.py``,
``special_math.py``, ``derivatives_pointwise.py``, ``_autograd/special_functions.py``), which only the samples of
torch's op_db reach (``opinfo.logit.default``, ``opinfo.logaddexp2.default``, ``opinfo.special.i1.default``,
``opinfo.special.log_ndtr.default``, ``opinfo.ldexp.default``): ``tests/test_opdb_pointwise.py`` asserts each
is killed by its opinfo item."""

from __future__ import annotations

import numpy as np

from myautograd._autograd import special_functions

from ._registry import formula, mutant, op, replace


@mutant("formulas", "logit's forward ignores eps: the input is not clamped to [eps, 1 - eps] before log(x / (1 - x))")
def logit_eps_ignored():
    op("logit", lambda original: lambda input, eps=None: original(input))


@mutant("formulas", "logaddexp2's gradient copied from logaddexp's: 1 / (1 + e ** (other - self)), not 2 ** (...)")
def logaddexp2_gradient_in_base_e():
    formula("Logaddexp2Backward0", "self", lambda grad, self, other, F: grad / (1 + F.exp(other - self)))


@mutant("formulas", "i1's gradient without its guard at 0: I0(x) - I1(x) / x, NaN at x = 0 where torch's is 1/2")
def i1_gradient_unguarded_at_zero():
    formula("SpecialI1Backward0", "self", lambda grad, self, result, F: grad * (F.i0(self) - result * F.reciprocal(self)))


@mutant("precision", "erfcx takes e^(x^2) of the rounded square: a relative error up to 1e-14 near x = 6")
def erfcx_square_rounded():
    replace(special_functions, "_exp_of_square", lambda original: lambda v: np.exp(v * v))


@mutant("formulas", "ldexp's gradient in its exponent misses the factor log 2: grad * self * 2 ** other")
def ldexp_gradient_without_log_2():
    formula("LdexpBackward0", "other", lambda grad, self, other, F: grad * self * F.exp2(other))
