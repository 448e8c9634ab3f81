"""Mutants of the products and linear algebra ops implemented for torch's op_db (``opinfo.addbmm``,
``opinfo.addmv``, ``opinfo.addr``...): each caught by its opinfo item (``tests/test_opdb_linalg.py``)."""

from __future__ import annotations

from myautograd._autograd.formulas import NODES

from ._registry import formula, mutant


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

