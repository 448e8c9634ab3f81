"""``layer_norm``, ``batch_norm`` and ``group_norm``, with torch's checks, messages and nodes
(``NativeLayerNormBackward0``, ``NativeBatchNormBackward0``, ``NativeGroupNormBackward0``); the
values and gradients come from ``norm_math``, whose layer and batch norm gradients are registered
here as backward kernels (recorded under ``create_graph`` as torch's ``...BackwardBackward0`` nodes).
``batch_norm`` in training updates the running statistics in place, with the unbiased variance, as
torch does (in double precision, then cast; bfloat16 statistics with bfloat16 arithmetic). Each forward is
one torch kernel: in float16 and bfloat16 it computes in float32 and rounds once (``one_kernel``), except
batch_norm in training, whose kernel also rounds the statistics it saves (measured, below).
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype
from .._autograd.formula_math import BACKWARD_KERNELS, STEPWISE_KERNELS, ArrayMath, one_kernel
from .._autograd.record import record, recorded, records_any
from .._tensor import Tensor, make_tensor
from . import norm_math as N
from .common import refuse_requires_grad
from .derivatives import NODES
from .inplace import write_behind_autograd

BACKWARD_KERNELS["NativeLayerNormBackwardBackward0"] = (
    lambda grad, x, weight, which, normalized_count, eps:
    N.layer_norm_grads(ArrayMath, grad, x, weight, normalized_count, eps, which))


def _batch_norm_grads(grad, x, weight, which, running_mean, running_var, training, eps):
    """In training in float16 or bfloat16, as torch's CPU kernel rounds (below); otherwise computed in float32
    and rounded once."""
    if training and x.dtype in _dtype.REDUCED_FLOATS:
        return _reduced_training_grads(grad, x, weight, eps, which)
    return one_kernel(N.batch_norm_grads)(grad, x, weight, running_mean, running_var, training, eps, which)


BACKWARD_KERNELS["NativeBatchNormBackwardBackward0"] = _batch_norm_grads
STEPWISE_KERNELS.add("NativeBatchNormBackwardBackward0")  # it rounds as torch's kernel does itself


def _check_mixed_dtypes(input: Tensor, *parameters) -> None:
    """torch's CPU normalization kernels take parameters of another dtype than the input only in
    float32, beside a float16 or bfloat16 input (computed in float32), with these messages."""
    defined = [p for p in parameters if p is not None]
    if input.device.type != "cpu" or all(p.dtype is input.dtype for p in defined):
        return
    for p in defined[1:]:  # the parameters share one dtype
        if p.dtype is not defined[0].dtype:
            raise RuntimeError(f"expected scalar type {defined[0].dtype.scalar_type_name} but found "
                               f"{p.dtype.scalar_type_name}")
    if defined[0].dtype is not _dtype.float32:
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (_dtype.float16, _dtype.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def check_normalized_shape(shape: tuple) -> None:
    """torch's first check of layer_norm's and rms_norm's ``normalized_shape``: at least one dim."""
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(shape)}")


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    check_normalized_shape(shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    _check_mixed_dtypes(input, weight, bias)
    out = one_kernel(N.layer_norm)(input._data, None if weight is None else weight._data,
                                   None if bias is None else bias._data, len(shape), eps)
    return recorded(NODES["NativeLayerNormBackward0"], out.astype(input._data.dtype, copy=False),
                    (input, weight, bias), {"normalized_count": len(shape), "eps": eps})


def _check_running(name: str, stat, channels: int) -> None:
    if stat is not None and stat.numel() != channels:
        raise RuntimeError(f"{name} should contain {channels} elements not {stat.numel()}")


def batch_norm(input: Tensor, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if input.numel() == 0:
        return _batch_norm_of_nothing(input, weight, bias)
    data = input._data
    channels = data.shape[1] if data.ndim > 1 else 1
    refuse_requires_grad("native_batch_norm", running_mean=running_mean, running_var=running_var)
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not training:
        for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
            if stat is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    _check_running("running_mean", running_mean, channels)
    _check_running("running_var", running_var, channels)
    _check_mixed_dtypes(input, weight, bias, running_mean, running_var)
    use_batch = training
    if training and running_mean is not None:  # first, as torch's kernel: a weight that aliases them reads them updated
        _update_running(data, running_mean, running_var, momentum)
    if use_batch and data.dtype in _dtype.REDUCED_FLOATS:
        out = _reduced_training_output(data, None if weight is None else weight._data,
                                       None if bias is None else bias._data, eps)
    else:
        out = one_kernel(N.batch_norm)(data, None if weight is None else weight._data,
                                       None if bias is None else bias._data,
                                       None if running_mean is None else running_mean._data,
                                       None if running_var is None else running_var._data, use_batch, eps)
    # saved in training too (torch's node saves them whatever the mode): modifying them in place fails the backward
    attrs = {"running_mean": running_mean, "running_var": running_var, "training": use_batch, "eps": eps}
    return recorded(NODES["NativeBatchNormBackward0"], out.astype(data.dtype, copy=False), (input, weight, bias),
                    attrs)


def _batch_norm_of_nothing(input: Tensor, weight, bias) -> Tensor:
    """torch's batch_norm of an empty input, before any check: a clone (a new tensor in the graph), times the
    weight's first element, plus the bias's (so that they get gradients, zeros)."""
    out = input.clone()
    if weight is not None:
        out = out * weight.select(0, 0)
    if bias is not None:
        out = out + bias.select(0, 0)
    return out


def _update_running(data, running_mean: Tensor, running_var: Tensor, momentum: float) -> None:
    """running = (1 - momentum) running + momentum batch statistic, the variance unbiased; written as
    torch's kernel does, behind autograd (their versions do not change)."""
    dims = N.batch_dims(data.ndim)
    count = N._count(data.shape, dims)
    # the statistics in torch's accumulation type (float32 for float16 and bfloat16, else double), the update in double
    wide = data.astype(np.float32 if data.dtype in _dtype.REDUCED_FLOATS else np.float64)
    mean = wide.sum(axis=dims) / wide.dtype.type(count)
    var = ((wide - mean.reshape((1, -1) + (1,) * (data.ndim - 2))) ** 2).sum(axis=dims) / wide.dtype.type(max(count - 1, 1))
    if data.dtype == _dtype.bfloat16.np and running_mean._data.dtype == running_var._data.dtype == data.dtype:
        _update_running_bfloat16(wide, mean, count, running_mean, running_var, momentum)
        return
    mean, var = mean.astype(np.float64), var.astype(np.float64)
    if count == 1:
        var = var * np.nan
    new_mean = momentum * mean + (1 - momentum) * running_mean._data.astype(np.float64)
    write_behind_autograd(running_mean, _backend.as_array(new_mean).astype(running_mean._data.dtype))
    new_var = momentum * var + (1 - momentum) * running_var._data.astype(np.float64)  # after: they may be one tensor
    write_behind_autograd(running_var, _backend.as_array(new_var).astype(running_var._data.dtype))


# -- training in float16 and bfloat16, as torch's CPU kernel computes it (measured) ------------------------------
# The kernel saves the batch mean and 1/sqrt(var + eps) in the input's dtype and computes from those rounded
# values in float32: out = x * a + b as one fused multiply-add (a = invstd * weight, b = bias - mean * a), the input
# gradient as (g - mean(g) - (x - mean) * k, fused) * invstd * weight with k = sum((x - mean) g) invstd^2 / count.
# In bfloat16 the sum of squares and the variance are rounded to bfloat16 too. Measured against torch 2.13 on 150
# random inputs: every output equal; every gradient equal but one float16 input gradient (one element, one ulp).
def _reduced_statistics(x32, bfloat16: bool, eps: float):
    """The mean and 1/sqrt(var + eps) of each channel of ``x32`` (float32), rounded as torch saves them."""
    dims, dtype = N.batch_dims(x32.ndim), (_dtype.bfloat16 if bfloat16 else _dtype.float16).np
    count = N._count(x32.shape, dims)

    def rounded(value):
        return value.astype(dtype).astype(np.float32)

    mean = rounded(x32.sum(axis=dims) / np.float32(count))
    centred = x32 - _per_channel(mean, x32.ndim)
    square_sum = (centred * centred).sum(axis=dims)
    variance = rounded(rounded(square_sum) / np.float32(count)) if bfloat16 else square_sum / np.float32(count)
    return mean, rounded(np.float32(1) / np.sqrt(variance + np.float32(eps))), dims, count


def _per_channel(values, ndim: int):
    return values.reshape((1, -1) + (1,) * (ndim - 2))


def _fused(a, b, c):
    """a * b + c (float32 operands) rounded once to float32, as a fused multiply-add."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def _reduced_training_output(data, weight, bias, eps: float):
    x32 = _backend.as_array(data).astype(np.float32)
    mean, invstd, _, _ = _reduced_statistics(x32, data.dtype == _dtype.bfloat16.np, eps)
    scale = invstd * (weight.astype(np.float32) if weight is not None else np.float32(1))
    shift = (bias.astype(np.float32) if bias is not None else np.float32(0)) - mean * scale
    return _fused(x32, _per_channel(scale, x32.ndim), _per_channel(shift, x32.ndim)).astype(data.dtype)


def _reduced_training_grads(grad, x, weight, eps: float, which: int):
    """Gradient ``which`` (0 input, 1 weight, 2 bias) of batch_norm in training, for a float16/bfloat16 input."""
    x32, g32 = x.astype(np.float32), grad.astype(np.float32)
    mean, invstd, dims, count = _reduced_statistics(x32, x.dtype == _dtype.bfloat16.np, eps)
    if which == 2:
        return g32.sum(axis=dims).astype(grad.dtype)
    centred = x32 - _per_channel(mean, x32.ndim)
    dot = (centred * g32).sum(axis=dims)
    if which == 1:
        return (dot * invstd).astype(grad.dtype)
    k = dot * invstd * invstd / np.float32(count)
    less_mean = g32 - _per_channel(g32.sum(axis=dims) / np.float32(count), x32.ndim)
    step = _fused(-centred, _per_channel(k, x32.ndim), less_mean)
    scale = invstd * (weight.astype(np.float32) if weight is not None else np.float32(1))
    return (step * _per_channel(scale, x32.ndim)).astype(grad.dtype)


def _update_running_bfloat16(wide, mean, count: int, running_mean: Tensor, running_var: Tensor,
                             momentum: float) -> None:
    """The update of bfloat16 running statistics from a bfloat16 input, as torch's CPU kernel computes it: the
    batch mean and the sum of squares (about that bfloat16 mean) are stored in bfloat16, the momentum is cast to
    bfloat16, and each product and sum of two bfloat16 numbers rounds to bfloat16 (c10's BFloat16 arithmetic),
    the unbiased variance too (the sum divided by ``count - 1`` as a bfloat16); a bfloat16 times the float32
    variance stays float32. Measured: equal to torch's on 260 random inputs, where the float64 update of the
    other dtypes differs in one of ten."""
    bf16, f32 = running_mean._data.dtype, np.float32

    def rounded(value):
        return value.astype(bf16).astype(f32)

    dims = N.batch_dims(wide.ndim)
    mean = rounded(mean)
    centred = wide - mean.reshape((1, -1) + (1,) * (wide.ndim - 2))
    square_sum = rounded((centred * centred).sum(axis=dims))
    keep = rounded(np.asarray(momentum, dtype=f32))
    forget = rounded(f32(1) - keep)
    new_mean = rounded(keep * mean) + rounded(forget * running_mean._data.astype(f32))
    write_behind_autograd(running_mean, _backend.as_array(new_mean).astype(bf16))
    unbiased = rounded(square_sum / rounded(np.asarray(count - 1, dtype=f32))) if count > 1 else square_sum * np.nan
    new_var = keep * unbiased + rounded(forget * running_var._data.astype(f32))  # after: they may be one tensor
    write_behind_autograd(running_var, _backend.as_array(new_var).astype(bf16))


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    data = input._data
    if data.ndim < 2 or data.shape[1] % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(data.shape)} and num_groups={num_groups}")
    _check_mixed_dtypes(input, weight, bias)
    out, mean, rstd = one_kernel(N.group_norm)(data, None if weight is None else weight._data,
                                               None if bias is None else bias._data, num_groups, eps)
    outputs = tuple(a.astype(data.dtype, copy=False) for a in (out, mean, rstd))
    if records_any((input, weight, bias)):  # mean and rstd: outputs the node saves, not returned
        return record(NODES["NativeGroupNormBackward0"], outputs, (input, weight, bias), {"groups": num_groups},
                      outputs=3)[0]
    return make_tensor(outputs[0])
