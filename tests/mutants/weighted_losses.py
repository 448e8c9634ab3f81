"""Mutants of the regression losses' elementwise ``weight=`` (mse_loss, l1_loss, huber_loss): caught by the
weighted samples of the operator table (``op.huber_loss.default``, ``op.mse_loss.default``: their vmap steps)."""

from __future__ import annotations

from myautograd._ops import losses
from myautograd.func import _batching_rules_nn

from ._registry import mutant, replace


@mutant("losses and layers", "huber_loss ignores weight= (the unweighted loss, silently)")
def huber_weight_ignored():
    def make(original):
        def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
            return original(input, target, reduction, delta)

        return huber_loss

    replace(losses, "huber_loss", make)


@mutant("function transforms", "under vmap, a weighted mse_loss or l1_loss mean divides by the element count, not "
                               "by the weights' sum")
def weighted_mean_under_vmap_by_count():
    replace(_batching_rules_nn, "WEIGHTED_MEAN_LOSSES", lambda original: ())
