"""Normalization written once over ``F``: layer, batch and group norm values (on arrays) and their
gradients (on arrays, or on tensors under ``create_graph`` so that they differentiate again); and
the gradient terms of ``cdist``'s p-norm distances.

Each normalizes over some dims with the biased variance, ``(x - mean) / sqrt(var + eps)``, then
scales and shifts per element (layer norm) or per channel (batch and group norm). The gradients
recompute the mean and the deviation from the saved input, so that their own derivatives in the
input are the true second derivatives.

Layer and batch norm compute each gradient as one op, as torch does: ``*_norm_grads`` on arrays,
recorded under ``create_graph`` as torch's ``NativeLayerNormBackwardBackward0`` /
``NativeBatchNormBackwardBackward0`` on (grad_output, input, weight), ``which`` saying which
gradient (0 input, 1 weight, 2 bias). Their derivatives, ``*_norm_double_backward``, are those of
the composite gradients, worked out by hand: the second derivatives that differentiating the
composite gives. Group norm's gradients stay composites, as torch's are under ``create_graph``: they
read the mean and rstd the forward returned as its second and third outputs (saved outputs, so that
the derivatives through them come back to the same node, whose input gradient takes their gradients).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .._autograd.formula_math import ArrayMath, one_kernel
from .fused_math import fused


def _count(shape, dims) -> int:
    count = 1
    for d in dims:
        count *= shape[d]
    return count


def _moments(F, x, dims: tuple, eps: float):
    """The mean over ``dims``, the deviation from it, and rstd = 1 / sqrt(biased variance + eps) (kept dims)."""
    count = _count(tuple(x.shape), dims)
    mean = F.sum(x, dims, True) / count
    centered = x - mean
    return mean, centered, 1 / F.sqrt(F.sum(centered * centered, dims, True) / count + eps)


def normalized(F, x, dims: tuple, eps: float):
    """(x - mean) * rstd over ``dims``, and rstd (kept dims)."""
    _, centered, rstd = _moments(F, x, dims, eps)
    return centered * rstd, rstd


def fused_normalized(x, dims: tuple, eps: float):
    """(x - mean) * rstd as torch's CPU layer norm backward computes it for the weight's gradient, on a NumPy
    array: ``rstd * x + (-rstd * mean)``, one fused multiply-add. Where a row is constant it is the rounding error
    of ``rstd * x``, not 0 (a row of one element)."""
    mean, _, rstd = _moments(ArrayMath, x, dims, eps)
    return fused(rstd, x, -(rstd * mean), x.dtype)


def _input_grad(F, g, xhat, rstd, dims: tuple):
    """The input gradient of a normalization, from the gradient of the normalized values ``g``."""
    count = _count(tuple(xhat.shape), dims)
    mean_g = F.sum(g, dims, True) / count
    mean_gx = F.sum(g * xhat, dims, True) / count
    return rstd * (g - mean_g - xhat * mean_gx)


def _channel_view(F, t, ndim: int):
    """A per-channel vector shaped (1, C, 1, ...) to broadcast over an ``ndim``-dim input."""
    return F.reshape(t, (1, -1) + (1,) * (ndim - 2))


class Frame(NamedTuple):
    """What a layer's gradients read of its input: the normalized values ``xhat`` and ``rstd`` over
    ``dims`` (from the input's statistics when ``batch_stats``, else from given constant ones; None for
    the bias's gradient, which needs neither), the dims its weight's gradient sums over, and ``view``,
    ``(F, t)``: a weight-shaped ``t`` broadcast over the input."""

    xhat: object
    rstd: object
    dims: tuple
    weight_dims: tuple
    view: Callable
    batch_stats: bool


def _summed(F, t, dims: tuple):
    """``t`` summed over ``dims``, or a copy of it where there are none."""
    return F.sum(t, dims) if dims else t * 1


def _grad(F, grad, weight, which: int, f: Frame):
    """Gradient ``which`` (0 input, 1 weight, 2 bias) of a layer, from ``grad`` (the output's)."""
    if which == 2:
        return _summed(F, grad, f.weight_dims)
    if which == 1:
        return _summed(F, grad * f.xhat, f.weight_dims)
    g = grad * f.view(F, weight) if weight is not None else grad
    return _input_grad(F, g, f.xhat, f.rstd, f.dims) if f.batch_stats else g * f.rstd


def _double_backward(F, grad, grad_output, weight, which: int, wrt: int, f: Frame, shape: tuple):
    """The derivative of gradient ``which`` in ``wrt`` (0 grad_output, 1 input, 2 weight), applied to
    ``grad`` (the gradient of gradient ``which``); None where it does not depend on ``wrt``, as torch's."""
    if which == 2:  # grad_output summed
        return F.expand(f.view(F, grad), shape) if wrt == 0 else None
    if which == 1:  # grad_output * xhat summed
        if wrt == 2:
            return None
        spread = f.view(F, grad)
        if wrt == 0:
            return spread * f.xhat
        through = spread * grad_output  # the derivative in xhat
        return _input_grad(F, through, f.xhat, f.rstd, f.dims) if f.batch_stats else through * f.rstd
    scale = f.view(F, weight) if weight is not None else None
    if not f.batch_stats:  # grad_output * weight * rstd, rstd constant
        if wrt == 1:
            return None
        if wrt == 2:
            return _summed(F, grad_output * grad * f.rstd, f.weight_dims)
        return grad * scale * f.rstd if scale is not None else grad * f.rstd
    # rstd * P(g), g = grad_output * weight, P(g) = g - mean(g) - xhat * mean(g * xhat): P is self-adjoint
    adjoint = _input_grad(F, grad, f.xhat, f.rstd, f.dims)
    if wrt == 0:
        return adjoint * scale if scale is not None else adjoint
    if wrt == 2:
        return _summed(F, grad_output * adjoint, f.weight_dims)
    g = grad_output * scale if scale is not None else grad_output
    count = _count(shape, f.dims)
    # through xhat (rstd held), then through rstd: d rstd / dx = -rstd^2 xhat / count, centered
    through = -f.rstd * (grad * (F.sum(g * f.xhat, f.dims, True) / count)
                         + g * (F.sum(grad * f.xhat, f.dims, True) / count))
    first = _input_grad(F, g, f.xhat, f.rstd, f.dims)
    return (_input_grad(F, through, f.xhat, f.rstd, f.dims)
            - f.rstd * f.xhat * (F.sum(grad * first, f.dims, True) / count))


def _same(F, t):
    return t


# -- layer norm ---------------------------------------------------------------------------------------------
def layer_norm(F, x, weight, bias, count: int, eps: float):
    """The last ``count`` dims normalized, scaled by ``weight`` and shifted by ``bias`` (either None)."""
    dims = tuple(range(x.ndim - count, x.ndim))
    xhat, _ = normalized(F, x, dims, eps)
    out = xhat * weight if weight is not None else xhat
    return out + bias if bias is not None else out


def _layer_frame(F, x, count: int, eps: float, which: int) -> Frame:
    dims = tuple(range(x.ndim - count, x.ndim))
    xhat, rstd = normalized(F, x, dims, eps) if which != 2 else (None, None)
    return Frame(xhat, rstd, dims, tuple(range(x.ndim - count)), _same, True)


def layer_norm_backward(F, grad, x, weight, count: int, eps: float, which: int):
    """Gradient ``which`` as one op (NativeLayerNormBackwardBackward0 under create_graph)."""
    return F.backward_op("NativeLayerNormBackwardBackward0", grad, x, weight, which=which, normalized_count=count,
                         eps=eps)


def layer_norm_grads(F, grad, x, weight, count: int, eps: float, which: int):
    frame = _layer_frame(F, x, count, eps, which)
    if which == 1 and isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64):  # as the CPU kernel
        frame = frame._replace(xhat=fused_normalized(x, frame.dims, eps))
    return _grad(F, grad, weight, which, frame)


def layer_norm_double_backward(F, grad, grad_output, x, weight, count: int, eps: float, which: int, wrt: int):
    frame = _layer_frame(F, x, count, eps, which)
    return _double_backward(F, grad, grad_output, weight, which, wrt, frame, tuple(x.shape))


# -- batch norm ---------------------------------------------------------------------------------------------
def batch_dims(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


def batch_norm(F, x, weight, bias, mean, var, training: bool, eps: float):
    """Normalized per channel by the batch's statistics (training) or by the given ones."""
    if training:
        xhat, _ = normalized(F, x, batch_dims(x.ndim), eps)
    else:
        xhat = (x - _channel_view(F, mean, x.ndim)) / F.sqrt(_channel_view(F, var, x.ndim) + eps)
    out = xhat * _channel_view(F, weight, x.ndim) if weight is not None else xhat
    return out + _channel_view(F, bias, x.ndim) if bias is not None else out


def _batch_frame(F, x, running_mean, running_var, training: bool, eps: float, which: int) -> Frame:
    dims = batch_dims(x.ndim)
    ndim = x.ndim
    if which == 2:
        xhat = rstd = None
    elif training:
        xhat, rstd = normalized(F, x, dims, eps)
    else:
        rstd = 1 / F.sqrt(_channel_view(F, running_var, ndim) + eps)
        xhat = (x - _channel_view(F, running_mean, ndim)) * rstd
    return Frame(xhat, rstd, dims, dims, lambda F, t: _channel_view(F, t, ndim), training)


def batch_norm_backward(F, grad, x, weight, running_mean, running_var, training: bool, eps: float, which: int):
    """Gradient ``which`` as one op (NativeBatchNormBackwardBackward0 under create_graph)."""
    return F.backward_op("NativeBatchNormBackwardBackward0", grad, x, weight, which=which, running_mean=running_mean,
                         running_var=running_var, training=training, eps=eps)


def batch_norm_grads(F, grad, x, weight, running_mean, running_var, training: bool, eps: float, which: int):
    return _grad(F, grad, weight, which, _batch_frame(F, x, running_mean, running_var, training, eps, which))


def batch_norm_double_backward(F, grad, grad_output, x, weight, running_mean, running_var, training: bool,
                               eps: float, which: int, wrt: int):
    frame = _batch_frame(F, x, running_mean, running_var, training, eps, which)
    return _double_backward(F, grad, grad_output, weight, which, wrt, frame, tuple(x.shape))


# -- group norm ---------------------------------------------------------------------------------------------
def _grouped(F, x, groups: int):
    """``x`` viewed as (N, groups, the rest): the rest's size counted, as -1 cannot be inferred when N is 0."""
    shape = tuple(x.shape)
    return F.reshape(x, (shape[0], groups, _count(shape, range(1, len(shape))) // groups))


def group_norm(F, x, weight, bias, groups: int, eps: float):
    """The output, and the mean and reciprocal standard deviation of each group, shaped (N, groups):
    the three outputs of torch's ``native_group_norm``."""
    grouped = _grouped(F, x, groups)
    xhat, rstd = normalized(F, grouped, (2,), eps)
    mean = F.sum(grouped, (2,)) / _count(tuple(grouped.shape), (2,))
    out = F.reshape(xhat, tuple(x.shape))
    out = out * _channel_view(F, weight, x.ndim) if weight is not None else out
    out = out + _channel_view(F, bias, x.ndim) if bias is not None else out
    return out, mean, F.reshape(rstd, tuple(mean.shape))


def group_norm_channel_sum(F, t, groups: int):
    """``t`` (shaped as the input) summed per channel as torch's group norm backward does: in the layout
    (N, groups, channels per group, the rest), then viewed as (C,). The bias's gradient, of ``grad``."""
    shape = tuple(t.shape)
    layout = (shape[0], groups, shape[1] // groups, _count(shape, range(2, len(shape))))
    return F.reshape(F.sum(F.reshape(t, layout), (0, 3)), (shape[1],))


def group_norm_backward(F, grads, x, weight, mean, rstd, groups: int, which: int):
    """Gradient ``which`` (0 input, 1 weight, 2 bias) of group norm, from the gradients of its three
    outputs (``grads``: the output's, the mean's, rstd's; None where one got none), reading the mean and
    rstd it saved, as torch does. The mean's and rstd's gradients reach only the input; a weight or bias
    gradient without the output's is None, as torch's."""
    if F is ArrayMath:  # a plain backward in float16 or bfloat16: one torch kernel, in float32 rounded once
        return one_kernel(group_norm_backward)(tuple(grads), x, weight, mean, rstd, groups, which)
    grad, grad_mean, grad_rstd = (tuple(grads) + (None, None))[:3]
    if which == 2:
        return None if grad is None else group_norm_channel_sum(F, grad, groups)
    grouped = _grouped(F, x, groups)
    mean_k, rstd_k = F.unsqueeze(mean, 2), F.unsqueeze(rstd, 2)
    xhat = (grouped - mean_k) * rstd_k
    if which == 1:
        return None if grad is None else group_norm_channel_sum(F, grad * F.reshape(xhat, tuple(x.shape)), groups)
    count = _count(tuple(grouped.shape), (2,))
    total = None
    if grad is not None:
        g = grad * _channel_view(F, weight, x.ndim) if weight is not None else grad
        total = _input_grad(F, _grouped(F, g, groups), xhat, rstd_k, (2,))
    if grad_mean is not None:  # d mean / dx = 1 / count
        part = F.expand(F.unsqueeze(grad_mean, 2), tuple(grouped.shape)) / count
        total = part if total is None else total + part
    if grad_rstd is not None:  # d rstd / dx = -rstd^3 (x - mean) / count
        part = F.unsqueeze(grad_rstd, 2) * (rstd_k * rstd_k * rstd_k) * (grouped - mean_k) * (-1.0 / count)
        total = part if total is None else total + part
    return None if total is None else F.reshape(total, tuple(x.shape))


def cdist_terms(F, grad, x1, x2, result, p):
    """cdist's gradient terms, one per pair of rows (..., n, m, d): d|x1_i - x2_j|_p / dx1_i times the grad."""
    difference = F.unsqueeze(x1, -2) - F.unsqueeze(x2, -3)
    if p == 0:
        return difference * 0
    if p == 1:
        return F.unsqueeze(grad, -1) * F.sgn(difference)
    if p == 2:
        return F.unsqueeze(F.where(result == 0, 0, grad / result), -1) * difference
    if p == math.inf:  # the whole grad to each element at the largest magnitude, ties included, as torch's kernel
        return F.unsqueeze(grad, -1) * F.sgn(difference) * (F.abs(difference) == F.unsqueeze(result, -1))
    scale = F.where(result == 0, 0, grad / F.pow(result, p - 1))
    return F.unsqueeze(scale, -1) * F.sgn(difference) * F.pow(difference * F.sgn(difference), p - 1)
