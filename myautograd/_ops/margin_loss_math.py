"""The arithmetic of torch's multi-class margin loss kernels, on arrays: each row's loss and its
derivative in the row's scores. ``margin_losses`` computes the forward values with it, the
derivative table the gradients.

Rows are ``(rows, classes)`` arrays of scores. ``multi_margin``: one target class per row, the hinge
``max(0, margin - x[target] + x[j])`` (squared for ``p == 2``, times the target's weight) of every
other class ``j``. ``multilabel_margin``: each row's target classes are its labels up to the first
-1 (a repeated label counts again, as torch's loop counts it), and every (target, non-target) pair
adds ``max(0, 1 - x[target] + x[non-target])``. Both divide a row's sum by the number of classes.
"""

from __future__ import annotations

import numpy as np

from .formula_helpers import numel


def class_count(x) -> int:
    """The number of classes of a score array: its last dim; one for a 0-dim score, as torch's kernels count it."""
    return x.shape[-1] if x.ndim else 1


def as_rows(x):
    """Scores as ``(rows, classes)`` rows."""
    return x.reshape(-1, class_count(x))


# -- soft_margin_loss ---------------------------------------------------------------------------------------
def soft_margin_backward(grad, x, target, reduction: int):
    """torch's soft_margin_loss_backward kernel: ``-target sigmoid(-target x)`` times the gradient
    (over numel for a mean)."""
    target = target.astype(x.dtype, copy=False)
    z = np.exp(-target * x)
    values = -target * z / (1 + z) * grad
    return values / x.dtype.type(x.size) if reduction == 1 else values


def soft_margin_double_backward(F, grad, self, target, reduction: int):
    """soft_margin_loss_backward's derivative in the input: ``target^2 z / (1 + z)^2``, z = exp(-target x)."""
    target = F.constant(target, self)
    z = F.exp(-target * self)
    values = target * target * z / ((1 + z) * (1 + z)) * grad
    return F.div_number(values, numel(self.shape)) if reduction == 1 else values


# -- multi_margin_loss --------------------------------------------------------------------------------------
def _multi_margin_terms(x, targets, margin):
    """Each class's ``margin - x[target] + x[j]`` (with the target class itself left out)."""
    rows = np.arange(x.shape[0])
    margins = x.dtype.type(margin) - x[rows, targets][:, None] + x
    others = np.ones_like(x, dtype=bool)
    others[rows, targets] = False
    return rows, margins, others & (margins > 0)


def multi_margin_losses(x, targets, p: int, margin: float, weight):
    """Each row's loss: the hinges of the other classes summed, over the number of classes."""
    _, margins, active = _multi_margin_terms(x, targets, margin)
    hinges = np.where(active, margins if p == 1 else margins * margins, x.dtype.type(0))
    if weight is not None:
        hinges = hinges * weight.astype(x.dtype)[targets][:, None]
    return hinges.sum(axis=1) / x.dtype.type(x.shape[1])


def multi_margin_derivative(x, targets, p: int, margin: float, weight):
    """d(row loss)/d(row scores): each active hinge's slope at its class, minus their sum at the target."""
    rows, margins, active = _multi_margin_terms(x, targets, margin)
    slopes = np.where(active, x.dtype.type(1) if p == 1 else 2 * margins, x.dtype.type(0))
    if weight is not None:
        slopes = slopes * weight.astype(x.dtype)[targets][:, None]
    slopes[rows, targets] = x.dtype.type(0) - slopes.sum(axis=1)  # +0 where no hinge is active, as torch's loop leaves it
    return slopes / x.dtype.type(x.shape[1])


# -- multilabel_margin_loss ---------------------------------------------------------------------------------
def multilabel_targets(labels):
    """How often each class is counted as a target in each row (labels up to the first -1), and
    which classes are targets (torch's ``is_target``)."""
    rows = np.arange(labels.shape[0])
    before_end = np.cumprod(labels >= 0, axis=1)
    counts = np.zeros_like(labels)
    for k in range(labels.shape[1]):  # one label of each row at a time: no row repeats within a step
        counts[rows, labels[:, k]] += before_end[:, k]
    return counts, counts > 0


def _multilabel_active(x, is_target):
    """``[row, target, other]``: whether ``1 - x[target] + x[other]`` is positive, ``other`` not a target."""
    margins = 1 - x[:, :, None] + x[:, None, :]
    return margins, (margins > 0) & ~is_target[:, None, :]


def multilabel_margin_losses(x, counts, is_target):
    """Each row's loss: the hinges of every (target, non-target) pair summed, over the number of classes."""
    margins, active = _multilabel_active(x, is_target)
    per_target = np.where(active, margins, x.dtype.type(0)).sum(axis=2)
    return (counts.astype(x.dtype) * per_target).sum(axis=1) / x.dtype.type(x.shape[1])


def multilabel_margin_derivative(x, counts, is_target):
    """d(row loss)/d(row scores): -1 at a target and +1 at a non-target for each active pair."""
    _, active = _multilabel_active(x, is_target)
    weighted = active * counts.astype(x.dtype)[:, :, None]
    return (weighted.sum(axis=1) - weighted.sum(axis=2)) / x.dtype.type(x.shape[1])


def row_gradient(grad, x, derivative, reduction: int):
    """A row loss's input gradient: the derivative times the gradient of each row's loss (the
    incoming gradient, one per row without reduction; over the number of rows for a mean)."""
    derivative = derivative.reshape(x.shape)
    if reduction == 0 and x.ndim == 2:
        return grad[:, None] * derivative
    if reduction == 1:
        return grad * derivative / x.dtype.type(derivative.shape[0] if x.ndim == 2 else 1)
    return grad * derivative


def multi_margin_backward(grad, x, target, p: int, margin: float, weight, reduction: int, **_):
    """torch's multi_margin_loss_backward kernel."""
    rows = as_rows(x)
    return row_gradient(grad, x, multi_margin_derivative(rows, target.reshape(-1), p, margin, weight), reduction)


def multilabel_margin_backward(grad, x, target, is_target, reduction: int, **_):
    """torch's multilabel_margin_loss_backward kernel."""
    rows = as_rows(x)
    counts, _ = multilabel_targets(target.reshape(rows.shape))
    derivative = multilabel_margin_derivative(rows, counts, is_target.reshape(rows.shape) > 0)
    return row_gradient(grad, x, derivative, reduction)
