"""Mutants of the products and linear algebra ops implemented for torch's op_db (``opinfo.addbmm``,
``opinfo.addr``, ``opinfo.linalg.matrix_norm``...): each caught by its opinfo item (``tests/test_opdb_linalg.py``)."""

from __future__ import annotations

import math

from myautograd._autograd.formulas import NODES

from ._registry import formula, mutant, replace


@mutant("formulas", "addbmm's batch1 gradient without alpha (the sum's gradient left unscaled)")
def addbmm_batch1_gradient_unscaled():
    formula("AddbmmBackward0", "batch1", lambda grad, batch2, alpha, F: F.bmm(
        F.expand(F.unsqueeze(grad, 0), (batch2.shape[0],) + tuple(grad.shape)), F.conj(F.transpose(batch2, 1, 2))))


@mutant("forward mode", "addr's tangent leaves out beta times the input's tangent")
def addr_tangent_without_beta():
    rule = NODES["AddrBackward0"].forward_rule

    def without_beta(tangents, values, F):
        return rule(tangents, {**values, "beta": 1}, F)

    NODES["AddrBackward0"].forward_rule = without_beta



@mutant("reductions and broadcasting", "linalg.matrix_norm's infinity norms without the swap of rows and columns "
                                       "(the largest column sum, the 1-norm, for inf)")
def matrix_norm_inf_as_one_norm():
    import myautograd.linalg

    def make(original):
        def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
            unswapped = math.copysign(1, ord) if isinstance(ord, float) and math.isinf(ord) else ord
            return original(A, unswapped, dim, keepdim, dtype=dtype)

        return matrix_norm

    replace(myautograd.linalg, "matrix_norm", make)
