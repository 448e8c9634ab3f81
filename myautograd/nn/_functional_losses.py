"""The margin, embedding and likelihood losses of ``myautograd.nn.functional`` (imported there):
each reads the deprecated ``size_average``/``reduce`` pair as torch does, with its warning, then hands
over to the engine's ops (``myautograd._ops.margin_losses``, ``likelihood_losses``)."""

from __future__ import annotations

import math

from .._ops import ctc_loss as _ctc
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


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None) -> Tensor:
    """Cross entropy of ``linear(input, linear_weight, linear_bias)``, the logits shaped
    ``(*batch, C, *out_features)`` by ``linear_weight``'s shape ``(C, *out_features, in_features)``:
    torch's reference path (``options=None``; torch's chunked options are not implemented)."""
    if options is not None:
        raise NotImplementedError("myautograd's linear_cross_entropy has no chunked path: pass options=None")
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if out_features:
        outputs = math.prod(out_features, start=classes)
        linear_weight = linear_weight.reshape((outputs, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(outputs)
    logits = _functional.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return _functional.cross_entropy(logits, target, weight=weight, reduction=reduction,
                                     ignore_index=-100 if ignore_index is None else ignore_index,
                                     label_smoothing=label_smoothing)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    return _ctc.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


__all__ = ["ctc_loss", "linear_cross_entropy", "gaussian_nll_loss", "poisson_nll_loss",
           "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "multi_margin_loss",
           "multilabel_margin_loss", "multilabel_soft_margin_loss", "soft_margin_loss"]
