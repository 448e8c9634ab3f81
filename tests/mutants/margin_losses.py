"""Mutants of the margin losses (``myautograd/_ops/margin_losses.py`` and ``margin_loss_math.py``) and of
``ctc_loss``: caught by their module_db cases (``moduleinfo.MarginRankingLoss``, ``MultiMarginLoss``,
``MultiLabelMarginLoss``, ``CTCLoss``)."""

from __future__ import annotations

from myautograd._ops import ctc_loss, margin_loss_math, margin_losses

from ._registry import mutant, replace


@mutant("losses and layers", "margin_ranking_loss with the sign of the target flipped: max(0, y (x1 - x2) + margin)")
def margin_ranking_target_sign_flipped():
    def make(original):
        def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
            return original(input1, input2, -target, margin, reduction)

        return margin_ranking_loss

    replace(margin_losses, "margin_ranking_loss", make)


@mutant("losses and layers", "multi_margin_loss's gradient without the target class's weight")
def multi_margin_gradient_unweighted():
    def make(original):
        def multi_margin_derivative(x, targets, p, margin, weight):
            return original(x, targets, p, margin, None)

        return multi_margin_derivative

    replace(margin_loss_math, "multi_margin_derivative", make)


@mutant("losses and layers", "multilabel_margin_loss counts a repeated target label once (torch counts each)")
def multilabel_repeated_labels_counted_once():
    def make(original):
        def multilabel_targets(labels):
            counts, is_target = original(labels)
            return is_target.astype(counts.dtype), is_target

        return multilabel_targets

    replace(margin_loss_math, "multilabel_targets", make)


@mutant("losses and layers", "ctc_loss lets a path skip the blank between two equal labels (merging them)")
def ctc_repeated_labels_skip_the_blank():
    def make(original):
        def extended(labels, blank):
            positions, skip = original(labels, blank)
            skip[3::2] = True
            return positions, skip

        return extended

    replace(ctc_loss, "_extended", make)
