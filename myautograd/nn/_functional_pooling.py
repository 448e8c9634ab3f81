"""The pooling functions of ``myautograd.nn.functional``: max, average, adaptive average and
adaptive max pooling over 1, 2 or 3 dims (the ops of ``myautograd._ops.pooling``), power-average
pooling composed as torch composes it, and fractional max pooling with its random samples."""

from __future__ import annotations

import math

from .._ops import pooling as _pool
from .._ops.convolution import _tuple
from .._ops.creation import rand
from .._tensor import Tensor

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "fractional_max_pool2d", "fractional_max_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d",
           "max_pool2d", "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d"]


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _pool.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _pool.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    return _pool.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    return _pool.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    return _pool.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _with_input_sizes(output_size, input: Tensor):
    """torch's reading of an adaptive output size: an int as is; in a sequence, ``None`` keeps the
    input's size there (an input of too few dims refused first)."""
    if not isinstance(output_size, (list, tuple)):
        return output_size
    if input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    sizes = input.shape[-len(output_size):] if output_size else ()
    return [n if o is None else o for o, n in zip(output_size, sizes)]


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    return _pool.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    return _pool.adaptive_avg_pool2d(input, _with_input_sizes(output_size, input))


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    return _pool.adaptive_avg_pool3d(input, _with_input_sizes(output_size, input))


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    return _pool.adaptive_max_pool1d(input, output_size, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    return _pool.adaptive_max_pool2d(input, _with_input_sizes(output_size, input), return_indices)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    return _pool.adaptive_max_pool3d(input, _with_input_sizes(output_size, input), return_indices)


# -- power-average pooling: (sum of x^p over each window)^(1/p), from average pooling --------------------
def _lp_pool(avg_pool, input: Tensor, norm_type: float, kernel_size, stride, ceil_mode: bool, ndim: int) -> Tensor:
    """torch's composition: the average of x^p times the window's size, its sign kept on relu(|.|),
    to the power 1/p."""
    window_sum = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    kept = window_sum.sign() * window_sum.abs().relu()
    return kept.mul(math.prod(_tuple(kernel_size, ndim))).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool(avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool(avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool(avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode, 3)


# -- fractional max pooling -----------------------------------------------------------------------------
def _fractional(input: Tensor, kernel_size, output_size, output_ratio, return_indices: bool, samples, ndim: int):
    """The output size from ``output_ratio`` where not given, random samples drawn (N, C, ndim) where
    not given, as torch does, then the op."""
    name = f"fractional_max_pool{ndim}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if isinstance(output_ratio, (tuple, list)) and len(output_ratio) > ndim:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratios = _tuple(output_ratio, ndim)
        output_size = [int(n * r) for n, r in zip(input.shape[-ndim:], ratios)]
    if samples is None:
        batch = 1 if input.dim() == ndim + 1 else input.size(0)
        samples = rand(batch, input.size(-ndim - 1), ndim, dtype=input.dtype, device=input.device)
    return _pool.fractional_max_pool(input, kernel_size, output_size, samples, return_indices, ndim=ndim)


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


# -- max unpooling ------------------------------------------------------------------------------------------
def _unpooled_size(input: Tensor, kernel_size, stride, padding, output_size, ndim: int) -> list:
    """torch's output size of max unpooling: the pooled input's, or ``output_size`` checked against it."""
    kernel = _tuple(kernel_size, ndim)
    stride = kernel if stride is None else _tuple(stride, ndim)
    padding = _tuple(padding, ndim)
    default = [(input.size(-ndim + d) - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(ndim)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == ndim + 2:
        output_size = output_size[2:]
    if len(output_size) != ndim:
        raise ValueError(f"output_size should be a sequence containing {ndim} or {ndim + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(ndim):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
    return output_size


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """torch's: the 2d unpooling of ``unsqueeze(-1)``, squeezed back."""
    size = _unpooled_size(input, kernel_size, stride, padding, output_size, 1)
    return _pool.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _pool.max_unpool2d(input, indices, _unpooled_size(input, kernel_size, stride, padding, output_size, 2))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _pool.max_unpool3d(input, indices, _unpooled_size(input, kernel_size, stride, padding, output_size, 3))
