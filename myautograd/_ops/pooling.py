"""Pooling over 1, 2 or 3 spatial dims, with torch's nodes: max pooling with indices, average
pooling, adaptive average and adaptive max pooling, fractional max pooling.

Each is written once over the number of spatial dims. torch records the 2d and 3d forms as nodes of
their own (``MaxPool3DWithIndicesBackward0``, ``AvgPool3DBackward0``...); its 1d forms are the 2d ones
on ``input.unsqueeze(-2)``, squeezed back (``_squeezed``), and so are they here.

The max poolings differ only in where their windows lie (strided with padding, adaptive, or drawn at
random per plane): each gives, per spatial dim, the input positions of its windows' elements, and
``_window_max`` takes the first maximum of each window (NaN counts as a maximum, as in torch) and its
index in the flattened spatial dims, which the backward scatters the gradient to.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _backend, _dtype
from .._autograd.formula_math import BACKWARD_KERNELS, ArrayMath, window_view
from .._autograd.record import recorded
from .._tensor import Tensor, make_tensor
from . import formula_helpers_nn as HN
from . import pool_checks as C
from . import window_math as W
from .convolution import _tuple
from .derivatives import NODES

for _n in (2, 3):
    BACKWARD_KERNELS[f"max_pool{_n}d_backward"] = (
        lambda grad, x, indices, spatial=_n: HN.max_pool_backward(ArrayMath, grad, x, indices, spatial))
BACKWARD_KERNELS["avg_pool_backward"] = lambda grad, x, **attrs: W.avg_pool_backward(ArrayMath, grad, sizes=x.shape,
                                                                                     **attrs)
BACKWARD_KERNELS["adaptive_avg_backward"] = (
    lambda grad, x, matrices: W.adaptive_avg_backward(ArrayMath, grad, matrices))


def _squeezed(out):
    """The result of a 2d pooling over ``input.unsqueeze(-2)`` (and its indices) back to 1d."""
    if isinstance(out, tuple):
        return tuple(o.squeeze(-2) for o in out)
    return out.squeeze(-2)


def _batched_data(input: Tensor, ndim: int):
    """The input's array with a batch dim, and whether it had none."""
    unbatched = input.dim() == ndim + 1
    return (input._data[None] if unbatched else input._data), unbatched


# -- max pooling over windows given by their positions ---------------------------------------------------
def _flat_positions(positions, sizes) -> np.ndarray:
    """Per spatial dim d, ``positions[d]`` (leading dims, windows_d, kernel_d) in the input: the
    flattened spatial index of every window element, (leading dims, *windows, kernel elements)."""
    ndim = len(positions)
    total = 0
    for d, pos in enumerate(positions):
        shape = [1] * (2 * ndim)
        shape[d], shape[ndim + d] = pos.shape[-2], pos.shape[-1]
        total = total + pos.reshape(pos.shape[:-2] + tuple(shape)) * math.prod(sizes[d + 1:])
    return total.reshape(total.shape[:-ndim] + (math.prod(total.shape[-ndim:]),))


def _window_max(windows, flat):
    """The first maximum of each window (last axis of ``windows``) and its flat index (``flat``)."""
    if windows.shape[-1] == 0:  # an output size of 0: no windows
        return np.empty_like(windows, shape=windows.shape[:-1]), np.empty_like(windows, np.int64, shape=windows.shape[:-1])
    choice = np.argmax(windows, axis=-1)[..., None]
    values = np.take_along_axis(windows, choice, axis=-1)[..., 0]
    flat = _backend.host_value(np.broadcast_to(flat, windows.shape), windows, np.int64)
    return values, np.take_along_axis(flat, choice, axis=-1)[..., 0]


def _gathered(data, flat):
    """The window elements (N, C, *windows, kernel elements) of ``data`` (N, C, *sizes) at ``flat``
    (the same for every plane, or (N, C, ...) of their own)."""
    full = data.shape[:2] + flat.shape[-(data.ndim - 1):]
    index = _backend.host_value(np.broadcast_to(flat, full).reshape(full[:2] + (math.prod(full[2:]),)), data, np.int64)
    planes = data.reshape(data.shape[:2] + (math.prod(data.shape[2:]),))
    return np.take_along_axis(planes, index, axis=2).reshape(full)


def _recorded_max(node: str, input: Tensor, values, indices, unbatched: bool, return_indices: bool):
    if unbatched:
        values, indices = values[0], indices[0]
    index_tensor = make_tensor(_backend.as_array(indices))
    out = recorded(NODES[node], values, (input,), {"indices": index_tensor})
    return (out, index_tensor) if return_indices else out


def max_pool(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
             return_indices=False, *, ndim: int):
    """max_pool2d/3d: MaxPool{n}DWithIndicesBackward0, the indices flat in each plane."""
    kernel, stride, padding, dilation = C.pool_arguments(f"max_pool{ndim}d", ndim, kernel_size, stride, padding,
                                                         dilation)
    C.check_pool_dims(input, ndim)
    counts = C.pooled_sizes(input.shape[-ndim:], kernel, stride, padding, dilation, ceil_mode)
    C.check_pool_shape(input.shape, kernel, stride, padding, dilation, counts,
                       where="max_pool3d_with_indices_out_cpu_template(): ")
    data, unbatched = _batched_data(input, ndim)
    sizes = data.shape[2:]
    pad = W.pool_padding(sizes, kernel, stride, padding, dilation, counts)
    before = tuple(pad[2 * (ndim - 1 - d)] for d in range(ndim))
    after = tuple(pad[2 * (ndim - 1 - d) + 1] for d in range(ndim))
    lowest = -np.inf if _dtype.kind(data.dtype) == "f" else np.iinfo(data.dtype).min
    padded = np.pad(data, [(0, 0), (0, 0)] + list(zip(before, after)), constant_values=lowest)
    windows = window_view(padded, kernel, stride, dilation)[(Ellipsis,) + tuple(slice(c) for c in counts)]
    windows = np.moveaxis(windows.reshape(data.shape[:2] + (math.prod(kernel),) + counts), 2, -1)
    positions = [np.arange(c)[:, None] * s + np.arange(k)[None, :] * d - b
                 for c, s, k, d, b in zip(counts, stride, kernel, dilation, before)]
    values, indices = _window_max(windows, _flat_positions(positions, sizes))
    return _recorded_max(f"MaxPool{ndim}DWithIndicesBackward0", input, values, indices, unbatched, return_indices)


def adaptive_windows(size: int, out: int) -> np.ndarray:
    """The input positions (out, longest window) of adaptive pooling's windows [floor(i n / o),
    ceil((i + 1) n / o)), a shorter window filled up with its last position (which never wins)."""
    starts, ends = W.adaptive_bounds(size, out)
    longest = int((ends - starts).max()) if out else 0
    return np.minimum(starts[:, None] + np.arange(longest)[None, :], ends[:, None] - 1)


def adaptive_max_pool(input: Tensor, output_size, return_indices=False, *, ndim: int):
    """adaptive_max_pool2d/3d: AdaptiveMaxPool{n}DBackward0."""
    out_sizes = C.check_adaptive_max(input, _tuple(output_size, ndim), ndim)
    data, unbatched = _batched_data(input, ndim)
    sizes = data.shape[2:]
    flat = _flat_positions([adaptive_windows(n, o) for n, o in zip(sizes, out_sizes)], sizes)
    values, indices = _window_max(_gathered(data, flat), flat)
    return _recorded_max(f"AdaptiveMaxPool{ndim}DBackward0", input, values, indices, unbatched, return_indices)


def fractional_intervals(samples, size: int, out: int, kernel: int) -> np.ndarray:
    """torch's window starts of fractional max pooling (per plane, (..., out)), computed in the
    samples' floating dtype as torch does: int((i + u) a) - int(u a) with a = (n - k) / (o - 1), the
    last window ending at the input's end."""
    dtype = samples.dtype
    starts = np.zeros(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        alpha = dtype.type(size - kernel) / dtype.type(out - 1)
        steps = (np.arange(out, dtype=dtype) + samples[..., None]) * alpha
        starts = steps.astype(np.int64) - (samples * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - kernel
    return starts


def fractional_max_pool(input: Tensor, kernel_size, output_size, samples: Tensor, return_indices=False, *,
                        ndim: int):
    """fractional_max_pool2d/3d with its random samples (N, C, ndim): FractionalMaxPool{n}DBackward0.
    Sample 0 places the windows along the last spatial dim, the next ones along the dims before it in
    turn (torch's order)."""
    kernel, out_sizes = _tuple(kernel_size, ndim), _tuple(output_size, ndim)
    data, unbatched = _batched_data(input, ndim)
    sizes = data.shape[2:]
    where = "fractional_max_pool2d()" if ndim == 2 else "fractional_max_pool3d_out()"
    for name, n, k, o in zip(("time", "height", "width")[-ndim:], sizes, kernel, out_sizes):
        if o + k - 1 > n:
            raise RuntimeError(f"{where}: pool {name} {k} too large relative to input {name} {n}")
    drawn = _backend.to_numpy(samples._data)[:data.shape[0]].astype(data.dtype, copy=False)  # a row per batch element
    order = [ndim - 1] + list(range(ndim - 1)) if ndim == 2 else list(range(ndim))
    positions = []
    for d, (n, k, o) in enumerate(zip(sizes, kernel, out_sizes)):
        starts = fractional_intervals(drawn[..., order.index(d)], n, o, k)
        positions.append(starts[..., None] + np.arange(k))
    flat = _flat_positions(positions, sizes)
    values, indices = _window_max(_gathered(data, flat), flat)
    return _recorded_max(f"FractionalMaxPool{ndim}DBackward0", input, values, indices, unbatched, return_indices)


# -- average pooling -------------------------------------------------------------------------------------
def avg_pool(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None, *, ndim: int):
    """avg_pool2d/3d: AvgPool{n}DBackward0."""
    kernel, stride, padding, ones = C.pool_arguments(f"avg_pool{ndim}d", ndim, kernel_size, stride, padding,
                                                     either=ndim == 2)
    if ndim == 3:
        C.check_pool_dims(input, ndim)
    C.check_divisor(divisor_override)
    input.size(-ndim - 1)  # avg_pool2d reads the planes first: an input of 2 dims is refused there
    sizes = input._data.shape[-ndim:]
    counts = C.pooled_sizes(sizes, kernel, stride, padding, ones, ceil_mode)
    C.check_pool_shape(input.shape, kernel, stride, padding, ones, counts, where="avg_pool3d(): ",
                       input_size_check=ndim == 3)
    divisors = W.avg_divisors(sizes, kernel, stride, padding, counts, count_include_pad, divisor_override)
    attrs = {"kernel_size": kernel, "stride": stride, "counts": counts,
             "pad": W.pool_padding(sizes, kernel, stride, padding, (1,) * ndim, counts), "divisors": divisors}
    out = W.avg_pool(ArrayMath, input._data, **attrs)
    return recorded(NODES[f"AvgPool{ndim}DBackward0"], out, (input,), attrs)


def adaptive_avg_pool(input: Tensor, output_size, *, ndim: int):
    """adaptive_avg_pool2d/3d: AdaptiveAvgPool{n}DBackward0; a global average is torch's mean."""
    out_sizes = C.check_adaptive_avg_output(_tuple(output_size, ndim), ndim)
    if out_sizes == (1,) * ndim:
        return input.mean(tuple(range(-ndim, 0)), keepdim=True)
    C.check_adaptive_avg_input(input, ndim)
    sizes = input._data.shape[-ndim:]
    matrices = tuple(W.adaptive_matrix(n, o) for n, o in zip(sizes, out_sizes))
    out = W.adaptive_avg(ArrayMath, input._data, matrices)
    return recorded(NODES[f"AdaptiveAvgPool{ndim}DBackward0"], out, (input,), {"matrices": matrices})


# -- by number of spatial dims (torch's names; the 1d ones are the 2d ones on unsqueeze(-2)) --------------
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, ndim=2)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, ndim=3)


def _one_ints(op: str, **arguments) -> list:
    """The 1d ops' int[1] arguments as torch's parser reads them (an omitted stride is empty)."""
    return [() if value is None else C.one_int(op, name, value, empty_ok=name == "stride")
            for name, value in arguments.items()]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """torch's max_pool1d checks its arguments itself; with indices, it is the 2d op's."""
    if return_indices:
        kernel, stride, padding, dilation = _one_ints("max_pool1d", kernel_size=kernel_size, stride=stride,
                                                      padding=padding, dilation=dilation)
        C.check_dim_range(input, "max_pool1d")
    else:
        C.check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        kernel, stride, padding, dilation = (() if v is None else _tuple(v, 1)
                                             for v in (kernel_size, stride, padding, dilation))
    return _squeezed(max_pool2d(input.unsqueeze(-2), (1,) + kernel, (1,) + (stride or kernel), (0,) + padding,
                                (1,) + dilation, ceil_mode, return_indices))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    kernel, stride, padding = _one_ints("avg_pool1d", kernel_size=kernel_size, stride=stride, padding=padding)
    C.check_dim_range(input, "avg_pool1d")
    return _squeezed(avg_pool2d(input.unsqueeze(-2), (1,) + kernel, (1,) + (stride or kernel), (0,) + padding,
                                ceil_mode, count_include_pad))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, ndim=2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, ndim=3)


def adaptive_avg_pool1d(input, output_size):
    (size,) = _one_ints("adaptive_avg_pool1d", output_size=output_size)
    C.check_dim_range(input, "adaptive_avg_pool1d")
    return _squeezed(adaptive_avg_pool2d(input.unsqueeze(-2), (1,) + size))


def adaptive_avg_pool2d(input, output_size):
    return adaptive_avg_pool(input, output_size, ndim=2)


def adaptive_avg_pool3d(input, output_size):
    return adaptive_avg_pool(input, output_size, ndim=3)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    (size,) = _one_ints("adaptive_max_pool1d", output_size=output_size)
    C.check_dim_range(input, "adaptive_max_pool1d")
    C.check_adaptive_max_pool1d(input)
    return _squeezed(adaptive_max_pool2d(input.unsqueeze(-2), (1,) + size, return_indices))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool(input, output_size, return_indices, ndim=2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return adaptive_max_pool(input, output_size, return_indices, ndim=3)


# -- max unpooling: the inverse placement of max pooling's indices ----------------------------------------
def max_unpool(input: Tensor, indices: Tensor, output_size, *, ndim: int):
    """max_unpool2d/3d: each element put at its index in a zero plane of ``output_size`` (the last
    write wins where indices repeat, as torch's loop): MaxUnpool{n}DBackward0."""
    C.check_max_unpool(input, indices, ndim)
    data, unbatched = _batched_data(input, ndim)
    positions = indices._data[None] if unbatched else indices._data
    output_size = tuple(output_size)
    volume = math.prod(output_size)
    elements = math.prod(data.shape[2:])
    flat = positions.reshape(data.shape[:2] + (elements,))
    if flat.size and (flat.min() < 0 or flat.max() >= volume):
        bad = flat[(flat < 0) | (flat >= volume)][0]
        raise RuntimeError(f"Found an invalid max index: {int(bad)} (output volumes are of size "
                           f"{'x'.join(map(str, output_size))})")
    out = np.zeros_like(data, shape=data.shape[:2] + (volume,))
    np.put_along_axis(out, flat, data.reshape(data.shape[:2] + (elements,)), axis=2)
    out = out.reshape(data.shape[:2] + output_size)
    return recorded(NODES[f"MaxUnpool{ndim}DBackward0"], out[0] if unbatched else out, (input,),
                    {"indices": indices})


def max_unpool2d(input, indices, output_size):
    return max_unpool(input, indices, output_size, ndim=2)


def max_unpool3d(input, indices, output_size):
    return max_unpool(input, indices, output_size, ndim=3)
