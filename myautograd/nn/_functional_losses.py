"""The margin, embedding and likelihood losses of ``myautograd.nn.functional`` (imported there):
each reads the deprecated ``size_average``/``reduce`` pair as torch does, with its warning, then hands
over to the engine's ops (``myautograd._ops.margin_losses``, ``likelihood_losses``)."""

from __future__ import annotations

from .._ops import likelihood_losses as _likelihood
from .._ops import margin_losses as _margin
from .._tensor import Tensor
from . import functional as _functional  # at call time: functional imports this module


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.margin_ranking_loss(input1, input2, target, margin, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.hinge_embedding_loss(input, target, margin, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.cosine_embedding_loss(input1, input2, target, margin, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.soft_margin_loss(input, target, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.multilabel_soft_margin_loss(input, target, weight, reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.multi_margin_loss(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _margin.multilabel_margin_loss(input, target, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _functional._reduction_of(reduction, size_average, reduce)
    return _likelihood.poisson_nll_loss(input, target, log_input, full, eps, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    return _likelihood.gaussian_nll_loss(input, target, var, full, eps, reduction)


__all__ = ["gaussian_nll_loss", "poisson_nll_loss",
           "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "multi_margin_loss",
           "multilabel_margin_loss", "multilabel_soft_margin_loss", "soft_margin_loss"]
