"""Normalization written once over ``F``: layer, batch and group norm values (on arrays) and their
gradients (on arrays, or on tensors under ``create_graph`` so that they differentiate again).

Each normalizes over some dims with the biased variance, ``(x - mean) / sqrt(var + eps)``, then
scales and shifts per element (layer norm) or per channel (batch and group norm). The gradients
recompute the mean and the deviation from the saved input, so that their own derivatives in the
input are the true second derivatives.
"""

from __future__ import annotations


def _count(shape, dims) -> int:
    count = 1
    for d in dims:
        count *= shape[d]
    return count


def normalized(F, x, dims: tuple, eps: float):
    """(x - mean) * rstd over ``dims``, and rstd (kept dims)."""
    count = _count(tuple(x.shape), dims)
    mean = F.sum(x, dims, True) / count
    centered = x - mean
    rstd = 1 / F.sqrt(F.sum(centered * centered, dims, True) / count + eps)
    return centered * rstd, rstd


def _input_grad(F, g, xhat, rstd, dims: tuple):
    """The input gradient of a normalization, from the gradient of the normalized values ``g``."""
    count = _count(tuple(xhat.shape), dims)
    mean_g = F.sum(g, dims, True) / count
    mean_gx = F.sum(g * xhat, dims, True) / count
    return rstd * (g - mean_g - xhat * mean_gx)


def _channel_view(F, t, ndim: int):
    """A per-channel vector shaped (1, C, 1, ...) to broadcast over an ``ndim``-dim input."""
    return F.reshape(t, (1, -1) + (1,) * (ndim - 2))


# -- layer norm ---------------------------------------------------------------------------------------------
def layer_norm(F, x, weight, bias, count: int, eps: float):
    """The last ``count`` dims normalized, scaled by ``weight`` and shifted by ``bias`` (either None)."""
    dims = tuple(range(x.ndim - count, x.ndim))
    xhat, _ = normalized(F, x, dims, eps)
    out = xhat * weight if weight is not None else xhat
    return out + bias if bias is not None else out


def layer_norm_grads(F, grad, x, weight, count: int, eps: float, which: int):
    dims = tuple(range(x.ndim - count, x.ndim))
    lead = tuple(range(x.ndim - count))
    xhat, rstd = normalized(F, x, dims, eps)
    if which == 0:
        return _input_grad(F, grad * weight if weight is not None else grad, xhat, rstd, dims)
    if which == 1:
        return F.sum(grad * xhat, lead) if lead else grad * xhat
    return F.sum(grad, lead) if lead else grad * 1


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


def batch_norm_grads(F, grad, x, weight, running_mean, running_var, training: bool, eps: float, which: int):
    dims = batch_dims(x.ndim)
    if which == 2:
        return F.sum(grad, dims)
    if training:
        xhat, rstd = normalized(F, x, dims, eps)
    else:
        rstd = 1 / F.sqrt(_channel_view(F, running_var, x.ndim) + eps)
        xhat = (x - _channel_view(F, running_mean, x.ndim)) * rstd
    if which == 1:
        return F.sum(grad * xhat, dims)
    if training:
        g = grad * _channel_view(F, weight, x.ndim) if weight is not None else grad
        return _input_grad(F, g, xhat, rstd, dims)
    if weight is not None:
        return grad * _channel_view(F, weight, x.ndim) * rstd
    scale = F.array(rstd)  # constant: the gradient is linear in grad alone, recorded on the input too
    return F.linear_op("NativeBatchNormBackwardBackward0", grad, (x, None),
                       lambda M, g: g * M.constant(scale, g), lambda M, v: v * M.constant(scale, v))


# -- group norm ---------------------------------------------------------------------------------------------
def _grouped(F, x, groups: int):
    shape = tuple(x.shape)
    return F.reshape(x, (shape[0], groups, -1))


def group_norm(F, x, weight, bias, groups: int, eps: float):
    xhat, _ = normalized(F, _grouped(F, x, groups), (2,), eps)
    out = F.reshape(xhat, tuple(x.shape))
    out = out * _channel_view(F, weight, x.ndim) if weight is not None else out
    return out + _channel_view(F, bias, x.ndim) if bias is not None else out


def group_norm_grads(F, grad, x, weight, groups: int, eps: float, which: int):
    dims = batch_dims(x.ndim)
    if which == 2:
        return F.sum(grad, dims)
    xhat, rstd = normalized(F, _grouped(F, x, groups), (2,), eps)
    if which == 1:
        return F.sum(grad * F.reshape(xhat, tuple(x.shape)), dims)
    g = grad * _channel_view(F, weight, x.ndim) if weight is not None else grad
    return F.reshape(_input_grad(F, _grouped(F, g, groups), xhat, rstd, (2,)), tuple(x.shape))
