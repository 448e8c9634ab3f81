"""The margin, embedding, likelihood and CTC losses against torch where the module_db samples do not
reach: torch's errors and messages, the legacy reduction arguments' warnings, and ctc_loss's edge
cases (an impossible alignment, ``zero_infinity``, unbatched input, concatenated targets, an empty
target, a sequence of no steps).

Every comparison builds the same thing on both sides (``tests/support/nn_compare.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd as mt
import myautograd.nn as mnn
from tests.support.nn_compare import both, close, outcome

ERRORS = [
    lambda t, nn: nn.functional.margin_ranking_loss(t.ones(2, 3), t.ones(2, 3), t.ones(2)),
    lambda t, nn: nn.MarginRankingLoss(reduction="bogus")(t.ones(2), t.ones(2), t.ones(2)),
    lambda t, nn: nn.functional.cosine_embedding_loss(t.ones(2, 3), t.ones(2, 3), t.ones(2, 1)),
    lambda t, nn: nn.functional.cosine_embedding_loss(t.ones(2, 3), t.ones(2, 3), t.ones(())),
    lambda t, nn: nn.functional.cosine_embedding_loss(t.ones(3), t.ones(3), t.ones(2)),
    lambda t, nn: nn.functional.soft_margin_loss(t.ones(2, 3, requires_grad=True), t.ones(2, 3, requires_grad=True)),
    lambda t, nn: nn.functional.soft_margin_loss(t.ones(5, 4), t.ones(5)),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3), t.tensor([0, 3])),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3), t.tensor([0])),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3), t.tensor([0, 1]), p=3),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3), t.tensor([0, 1]), weight=t.ones(2)),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3), t.tensor([0, 1]), weight=t.ones(3, dtype=t.float64)),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3), t.tensor([0, 1]), weight=t.ones(3, requires_grad=True)),
    lambda t, nn: nn.MultiMarginLoss(weight=t.ones(2, 3)),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 3, 4), t.tensor([0, 1])),
    lambda t, nn: nn.functional.multi_margin_loss(t.ones(2, 0), t.tensor([0, 1])),
    lambda t, nn: nn.functional.multilabel_margin_loss(t.ones(0), t.ones(0, dtype=t.int64)),
    lambda t, nn: nn.functional.multilabel_margin_loss(t.ones(2, 3), t.tensor([0, 1])),
    lambda t, nn: nn.functional.multilabel_margin_loss(t.ones(2, 3), t.tensor([[0, 3, -1], [1, -1, 0]])),
    lambda t, nn: nn.functional.multilabel_soft_margin_loss(t.ones(2, 3), t.ones(2, 3), reduction="bogus"),
    lambda t, nn: nn.functional.poisson_nll_loss(t.ones(2), t.ones(2), reduction="bogus"),
    lambda t, nn: nn.functional.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), -t.ones(2, 3)),
    lambda t, nn: nn.functional.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), -1.0),
    lambda t, nn: nn.functional.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), t.ones(3, 2)),
    lambda t, nn: nn.functional.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), t.ones(2, 3), reduction="bogus"),
    lambda t, nn: nn.LinearCrossEntropyLoss(3, 4, weight=t.ones(3)),
    lambda t, nn: nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5),
    lambda t, nn: nn.LinearCrossEntropyLoss(3, 4)(t.ones(2, 5), t.tensor([0, 1])),
    lambda t, nn: nn.LinearCrossEntropyLoss(3, 4, out_features=(2,))(t.ones(3), t.tensor([0, 1])),
    lambda t, nn: nn.LinearCrossEntropyLoss(3, 4, ignore_index=1)(t.ones(2, 3), t.ones(2, 4)),
]


@pytest.mark.parametrize("make", ERRORS, ids=range(len(ERRORS)))
def test_errors_are_torchs(make):
    theirs = outcome(make, torch, torch.nn)
    assert theirs is not None
    assert outcome(make, mt, mnn) == theirs


def test_legacy_reduction_arguments_warn_as_torchs():
    def run(torch, nn, optim):
        x, y = torch.tensor([0.5, -1.0, 2.0]), torch.tensor([1.0, -1.0, -1.0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = [nn.functional.margin_ranking_loss(x, -x, y, size_average=False).item(),
                      nn.functional.hinge_embedding_loss(x, y, reduce=False).sum().item(),
                      nn.functional.soft_margin_loss(x, y, size_average=True, reduce=True).item(),
                      nn.functional.poisson_nll_loss(x, y.abs(), size_average=False).item(),
                      nn.SoftMarginLoss(reduce=False).reduction, nn.MultiMarginLoss(size_average=False).reduction]
        return values, [str(w.message) for w in caught]

    theirs, ours = both(run)
    assert ours[0][:4] == pytest.approx(theirs[0][:4]) and ours[0][4:] == theirs[0][4:]
    assert ours[1] == theirs[1]


LOG_PROBS = np.random.default_rng(5).normal(size=(6, 2, 5))
CTC_CALLS = {
    "impossible alignment (inf, NaN gradient)": lambda t, lp: t.nn.functional.ctc_loss(
        lp, t.tensor([[1, 2, 2], [3, 4, 0]]), [2, 5], [3, 2], reduction="none"),
    "zero_infinity": lambda t, lp: t.nn.functional.ctc_loss(
        lp, t.tensor([[1, 2, 2], [3, 4, 0]]), [2, 5], [3, 2], reduction="sum", zero_infinity=True),
    "unbatched": lambda t, lp: t.nn.functional.ctc_loss(lp[:, 0], t.tensor([1, 2, 2]), [6], [3], reduction="none"),
    "empty target": lambda t, lp: t.nn.functional.ctc_loss(
        lp, t.tensor([[1, 2, 2], [3, 4, 0]]), [6, 5], [0, 2], reduction="none"),
    "no steps": lambda t, lp: t.nn.functional.ctc_loss(
        lp, t.tensor([[1, 2, 2], [3, 4, 0]]), [0, 5], [0, 2], reduction="none"),
    "concatenated targets, tensor lengths": lambda t, lp: t.nn.functional.ctc_loss(
        lp, t.tensor([1, 2, 2, 3, 1], dtype=t.int32), t.tensor([6, 4]), t.tensor([3, 2]), blank=4),
    "blank out of range": lambda t, lp: t.nn.functional.ctc_loss(lp, t.tensor([[1, 2]]), [6, 5], [2, 1], blank=5),
    "input length too long": lambda t, lp: t.nn.functional.ctc_loss(lp, t.tensor([[1, 2], [3, 0]]), [7, 5], [2, 1]),
    "target length too long": lambda t, lp: t.nn.functional.ctc_loss(lp, t.tensor([[1, 2], [3, 0]]), [6, 5], [3, 1]),
    "concatenated targets too short": lambda t, lp: t.nn.functional.ctc_loss(lp, t.tensor([1, 2]), [6, 5], [2, 1]),
    "lengths not of the batch size": lambda t, lp: t.nn.functional.ctc_loss(lp, t.tensor([[1], [2]]), [6, 5, 1], [1, 1]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CTC_CALLS))
def test_ctc_loss_edge_cases(name, dtype):
    def run(t, nn, optim):
        lp = t.tensor(LOG_PROBS, dtype=getattr(t, dtype)).log_softmax(2).detach().requires_grad_()
        result = outcome(lambda: CTC_CALLS[name](t, lp))
        if result is not None:
            return result
        loss = CTC_CALLS[name](t, lp)
        loss.sum().backward()
        return loss, lp.grad

    theirs, ours = both(run)
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(mine.tolist()), np.asarray(reference.tolist()), rtol=1e-5, atol=1e-6)


def test_ctc_gradient_cannot_be_differentiated_as_in_torch():
    def run(t, nn, optim):
        lp = t.tensor(LOG_PROBS).log_softmax(2).detach().requires_grad_()
        loss = t.nn.functional.ctc_loss(lp, t.tensor([[1, 2, 2], [3, 4, 0]]), [6, 5], [3, 2])
        grad, = t.autograd.grad(loss, lp, create_graph=True)
        return grad, grad.grad_fn.name(), outcome(lambda: grad.sum().backward())

    (t_grad, *theirs), (m_grad, *ours) = both(run)
    close(m_grad, t_grad)
    assert ours == theirs


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_class_losses_of_a_0_dim_score_count_one_class(reduction):
    """A 0-dim score is one class: the hinges of no other class add up to 0, with a +0 gradient (torch's loop
    subtracts nothing from the target's), and a target other than 0 is out of range."""
    def run(t, nn, optim):
        x = t.tensor(-3.75, requires_grad=True)
        losses = [nn.functional.multi_margin_loss(x, t.tensor(0), reduction=reduction),
                  nn.functional.multi_margin_loss(x, t.tensor(0), p=2, weight=t.tensor([2.0]), reduction=reduction),
                  nn.functional.multilabel_margin_loss(x, t.tensor(0), reduction=reduction),
                  nn.functional.multilabel_margin_loss(x, t.tensor(-1), reduction=reduction)]
        grads = [t.autograd.grad(loss, [x], t.tensor(0.7))[0] for loss in losses]
        refused = [outcome(lambda: nn.functional.multi_margin_loss(x, t.tensor(1))),
                   outcome(lambda: nn.functional.multilabel_margin_loss(x, t.tensor(1)))]
        return [(tuple(v.shape), v.tolist(), str(v.tolist())) for v in losses + grads], refused

    theirs, ours = both(run)
    assert ours == theirs
