"""The normalizations of ``nn.functional`` that torch composes from other ops: ``instance_norm``,
``rms_norm`` and ``local_response_norm`` (``layer_norm``, ``batch_norm`` and ``group_norm`` are
kernels of their own, in ``myautograd._ops.normalization``).

Each follows torch's composition, so the nodes recorded are torch's:

* ``instance_norm`` is a batch norm of the input seen as one sample of ``batch * channels``
  channels (weight, bias and running statistics repeated per sample); the running statistics are
  then the mean over the samples of the repeated ones, copied back (``ViewBackward0`` on top);
* ``rms_norm`` is ``x * rsqrt(mean(x ** 2) + eps)`` over the normalized dims, in float32 for
  float16 and bfloat16, then times the weight (``MulBackward0``);
* ``local_response_norm`` divides the input by ``(k + alpha * average of the squares of the
  neighbouring channels) ** beta``, the average an average pooling over the padded channel dim
  (``DivBackward0``).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._ops import normalization as _norm
from .._ops import padding as _padding
from .._ops import pooling as _pooling
from .._tensor import Tensor


def _repeated(tensor: Tensor | None, times: int) -> Tensor | None:
    return None if tensor is None else tensor.repeat(times)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if use_input_stats:
        spatial = 1
        for n in input.shape[2:]:
            spatial *= n
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    batch, channels = input.shape[0], input.shape[1]
    mean_, var_ = _repeated(running_mean, batch), _repeated(running_var, batch)
    as_one_sample = input.contiguous().view(1, batch * channels, *input.shape[2:])
    out = _norm.batch_norm(as_one_sample, mean_, var_, _repeated(weight, batch), _repeated(bias, batch),
                           use_input_stats, momentum, eps)
    for stat, repeated in ((running_mean, mean_), (running_var, var_)):
        if stat is not None:
            stat.copy_(repeated.view(batch, channels).mean(0))
    return out.view(input.shape)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    _norm.check_normalized_shape(shape)
    if input.dim() < len(shape):
        raise ValueError(f"Input tensor must have at least {len(shape)} dimensions, but got {input.dim()}")
    if tuple(input.shape[input.dim() - len(shape):]) != shape:  # torch's message, without a comma after *
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    wide = _dtype.float32 if input.dtype.is_reduced_float else input.dtype
    if eps is None:
        eps = float(np.finfo(wide.np).eps)
    x = input.to(wide)
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    result = x.mul(x.pow(2).mean(dims, keepdim=True).add_(eps).rsqrt()).type_as(input)
    return result if weight is None else result.mul(weight)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    dim = input.dim()
    if dim < 3:
        # torch's message, with the spaces of its source's line continuation
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    # the squares averaged over `size` neighbouring channels, pooled as torch composes it: a 4-d view and a (size, 1)
    # window for a 3-d input, a 5-d view and a (size, 1, 1) window otherwise
    squares = input.mul(input)
    if dim == 3:
        padded = _padding.pad(squares.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        average = _pooling.avg_pool2d(padded, (size, 1), stride=1).squeeze(1)
    else:
        shape = tuple(input.shape)
        padded = _padding.pad(squares.view(shape[0], 1, shape[1], shape[2], -1),
                              (0, 0, 0, 0, size // 2, (size - 1) // 2))
        average = _pooling.avg_pool3d(padded, (size, 1, 1), stride=1).squeeze(1).view(shape)
    return input / average.mul(alpha).add(k).pow(beta)
