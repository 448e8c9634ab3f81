"""Mutants of the pointwise math of ``myautograd/_ops/pointwise_math.py`` and ``derivatives_pointwise.py``, which
only the samples of torch's op_db reach (``opinfo.logit.default``, ``opinfo.logaddexp2.default``):
``tests/test_opdb_pointwise.py`` asserts each is killed by its opinfo item."""

from __future__ import annotations

from ._registry import formula, mutant, op


@mutant("formulas", "logit's forward ignores eps: the input is not clamped to [eps, 1 - eps] before log(x / (1 - x))")
def logit_eps_ignored():
    op("logit", lambda original: lambda input, eps=None: original(input))


@mutant("formulas", "logaddexp2's gradient copied from logaddexp's: 1 / (1 + e ** (other - self)), not 2 ** (...)")
def logaddexp2_gradient_in_base_e():
    formula("Logaddexp2Backward0", "self", lambda grad, self, other, F: grad / (1 + F.exp(other - self)))
