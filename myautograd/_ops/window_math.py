"""Convolution and pooling written once over ``F``: their forward values (on arrays) and their
gradients (on arrays in a plain backward, on tensors under ``create_graph``, so that they
differentiate again).

Everything rests on two primitives of ``F``: ``im2col`` (the sliding windows of a padded input,
(N, C, *kernel, *windows)) and its adjoint ``col2im`` (window elements added back in place). A
convolution is an ``einsum`` of the windows with the weight, per group; its input gradient is
the weight's ``einsum`` with the output gradient, summed back by ``col2im``; a transposed
convolution is the same pair the other way round. ``convolution_backward`` makes each gradient one
recorded op under create_graph (torch's ``ConvolutionBackwardBackward0``) and
``double_backward_grad_output`` is that op's derivative in the incoming gradient.
"""

from __future__ import annotations

import numpy as np

_KERNEL = "pqr"  # einsum letters of up to three kernel dims
_WINDOW = "uvw"  # ... and of the windows


def pads(padding: tuple) -> tuple:
    """``padding`` per spatial dim as ``F.constant_pad``'s (before, after) list, last dim first."""
    out: list[int] = []
    for size in reversed(padding):
        out += [size, size]
    return tuple(out)


def _letters(ndim: int) -> tuple[str, str]:
    return _KERNEL[:ndim], _WINDOW[:ndim]


def _windows(F, x, kernel, stride, padding, dilation):
    """The windows (N, C, *kernel, *windows) of ``x`` zero-padded by ``padding``."""
    padded = F.constant_pad(x, pads(padding)) if any(padding) else x
    return F.im2col(padded, kernel, stride, dilation)


def _grouped(F, t, groups: int):
    """(N, C, ...) as (N, groups, C / groups, ...)."""
    shape = tuple(t.shape)
    return F.reshape(t, (shape[0], groups, shape[1] // groups) + shape[2:])


def _ungrouped(F, t):
    shape = tuple(t.shape)
    return F.reshape(t, (shape[0], shape[1] * shape[2]) + shape[3:])


def _weight_grouped(F, w, groups: int):
    shape = tuple(w.shape)
    return F.reshape(w, (groups, shape[0] // groups) + shape[1:])


def _spread(F, cols, sizes, kernel, stride, padding, dilation):
    """``col2im`` onto the padded sizes, then the padding cropped off."""
    padded = tuple(n + 2 * p for n, p in zip(sizes, padding))
    summed = F.col2im(cols, padded, kernel, stride, dilation)
    return F.constant_pad(summed, tuple(-p for p in pads(padding))) if any(padding) else summed


def conv(F, x, w, stride, padding, dilation, groups):
    """A convolution (cross-correlation) of x (N, C, *S) with w (O, C / groups, *K)."""
    ndim = x.ndim - 2
    k, o = _letters(ndim)
    kernel = tuple(w.shape[2:])
    cols = _grouped(F, _windows(F, x, kernel, stride, padding, dilation), groups)
    out = F.einsum(f"goc{k},ngc{k}{o}->ngo{o}", _weight_grouped(F, w, groups), cols)
    return _ungrouped(F, out)


def conv_input_grad(F, grad, w, sizes, stride, padding, dilation, groups):
    ndim = len(sizes)
    k, o = _letters(ndim)
    kernel = tuple(w.shape[2:])
    cols = F.einsum(f"goc{k},ngo{o}->ngc{k}{o}", _weight_grouped(F, w, groups), _grouped(F, grad, groups))
    return _spread(F, _ungrouped(F, cols), sizes, kernel, stride, padding, dilation)


def conv_weight_grad(F, grad, x, kernel, stride, padding, dilation, groups):
    ndim = x.ndim - 2
    k, o = _letters(ndim)
    cols = _grouped(F, _windows(F, x, kernel, stride, padding, dilation), groups)
    out = F.einsum(f"ngo{o},ngc{k}{o}->goc{k}", _grouped(F, grad, groups), cols)
    shape = tuple(out.shape)
    return F.reshape(out, (shape[0] * shape[1],) + shape[2:])


def transposed_size(sizes, kernel, stride, padding, dilation, output_padding) -> tuple:
    return tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for n, k, s, p, d, op in zip(sizes, kernel, stride, padding, dilation, output_padding))


def _narrowed(F, cols, counts, ndim):
    """The first ``counts`` windows of each spatial dim (a transposed convolution's input sizes)."""
    for i, count in enumerate(counts):
        dim = 2 + ndim + i
        if cols.shape[dim] != count:
            cols = F.narrow(cols, dim, 0, count)
    return cols


def conv_transpose(F, x, w, stride, padding, dilation, groups, output_padding):
    """A transposed convolution of x (N, Cin, *S) with w (Cin, Cout / groups, *K)."""
    ndim = x.ndim - 2
    k, o = _letters(ndim)
    kernel = tuple(w.shape[2:])
    sizes = transposed_size(tuple(x.shape[2:]), kernel, stride, padding, dilation, output_padding)
    cols = F.einsum(f"gic{k},ngi{o}->ngc{k}{o}", _weight_grouped(F, w, groups), _grouped(F, x, groups))
    return _spread(F, _ungrouped(F, cols), sizes, kernel, stride, padding, dilation)


def conv_transpose_input_grad(F, grad, w, sizes, stride, padding, dilation, groups):
    ndim = len(sizes)
    k, o = _letters(ndim)
    kernel = tuple(w.shape[2:])
    cols = _narrowed(F, _windows(F, grad, kernel, stride, padding, dilation), sizes, ndim)
    out = F.einsum(f"gic{k},ngc{k}{o}->ngi{o}", _weight_grouped(F, w, groups), _grouped(F, cols, groups))
    return _ungrouped(F, out)


def conv_transpose_weight_grad(F, grad, x, kernel, stride, padding, dilation, groups):
    ndim = x.ndim - 2
    k, o = _letters(ndim)
    cols = _narrowed(F, _windows(F, grad, kernel, stride, padding, dilation), tuple(x.shape[2:]), ndim)
    out = F.einsum(f"ngi{o},ngc{k}{o}->gic{k}", _grouped(F, x, groups), _grouped(F, cols, groups))
    shape = tuple(out.shape)
    return F.reshape(out, (shape[0] * shape[1],) + shape[2:])


def convolution_grads(F, grad, input, weight, needs, stride, padding, dilation, transposed, output_padding, groups):
    """The gradients of input, weight and bias that ``needs`` asks for (None for the others)."""
    sizes = tuple(input.shape[2:])
    kernel = tuple(weight.shape[2:])
    grads = [None, None, None]
    if needs[0]:
        grads[0] = (conv_transpose_input_grad if transposed else conv_input_grad)(
            F, grad, weight, sizes, stride, padding, dilation, groups)
    if needs[1]:
        grads[1] = (conv_transpose_weight_grad if transposed else conv_weight_grad)(
            F, grad, input, kernel, stride, padding, dilation, groups)
    if needs[2]:
        grads[2] = F.sum(grad, (0,) + tuple(range(2, grad.ndim)))
    return grads


def convolution(F, x, w, stride, padding, dilation, transposed, output_padding, groups):
    """The convolution of x with w, plain or transposed, without a bias."""
    if transposed:
        return conv_transpose(F, x, w, stride, padding, dilation, groups, output_padding)
    return conv(F, x, w, stride, padding, dilation, groups)


def convolution_backward(F, grad, input, weight, index, stride, padding, dilation, transposed, output_padding,
                         groups):
    """The gradient of the input (``index`` 0), the weight (1) or the bias (2): on arrays the kernel
    (``convolution_grads``), under create_graph one ConvolutionBackwardBackward0 on (grad, input,
    weight), as torch's ``convolution_backward``."""
    return F.backward_op("ConvolutionBackwardBackward0", grad, input, weight, output_mask=(index == 0, index == 1,
                         index == 2), stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                         output_padding=output_padding, groups=groups)


def double_backward_grad_output(F, grad, grad_output, input, weight, output_mask, stride, padding, dilation,
                                transposed, output_padding, groups):
    """The derivative of the gradient ``output_mask`` picks in ``grad_output``, applied to ``grad``: the
    convolution of ``grad`` with the weight (an input gradient's), of the input with ``grad`` (a weight
    gradient's), or ``grad`` spread over the output (a bias gradient's)."""
    if output_mask[0]:
        return convolution(F, grad, weight, stride, padding, dilation, transposed, output_padding, groups)
    if output_mask[1]:
        return convolution(F, input, grad, stride, padding, dilation, transposed, output_padding, groups)
    shape = tuple(grad_output.shape)
    return F.expand(F.reshape(grad, (1, shape[1]) + (1,) * (len(shape) - 2)), shape)


# -- pooling ------------------------------------------------------------------------------------------------
def pooled_size(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    """torch's pooling output size: a last window that would start in the right padding is dropped."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    count = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (count - 1) * stride >= size + padding:
        count -= 1
    return count


def pool_padding(sizes, kernel, stride, padding, dilation, counts) -> tuple:
    """The (before, after) padding per spatial dim that makes room for every window, ceil_mode's
    partial ones included (``F.constant_pad`` order)."""
    out: list[int] = []
    for n, k, s, p, d, c in reversed(list(zip(sizes, kernel, stride, padding, dilation, counts))):
        needed = (c - 1) * s + d * (k - 1) + 1
        out += [p, max(p, needed - n - p)]
    return tuple(out)


def avg_divisors(sizes, kernel, stride, padding, counts, count_include_pad: bool, divisor_override):
    """torch's divisor of each window of avg_pool: the window clipped to the padded input, or to
    the input itself without count_include_pad, or the override (shape: the windows)."""
    if divisor_override:
        return np.full(counts, float(divisor_override))
    per_dim = []
    for n, k, s, p, c in zip(sizes, kernel, stride, padding, counts):
        start = np.arange(c) * s - p
        end = np.minimum(start + k, n + p)
        full = end - start
        inside = np.minimum(end, n) - np.maximum(start, 0)
        per_dim.append(full if count_include_pad else inside)
    divisor = per_dim[0].astype(float)
    for extra in per_dim[1:]:
        divisor = np.multiply.outer(divisor, extra)
    return divisor


def adaptive_bounds(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """Where adaptive pooling's windows start and end: window i is [floor(i n / o), ceil((i + 1) n / o))."""
    starts = np.arange(out) * size // out
    ends = -(-(np.arange(1, out + 1) * size) // out)
    return starts, ends


def adaptive_matrix(size: int, out: int) -> np.ndarray:
    """The (out, size) averaging matrix of adaptive pooling: row i averages window i."""
    matrix = np.zeros((out, size))
    for i, (start, end) in enumerate(zip(*adaptive_bounds(size, out))):
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _batched(F, x, ndim: int):
    """An unbatched (C, *sizes) input as (1, C, *sizes)."""
    return F.unsqueeze(x, 0) if x.ndim == ndim + 1 else x


def _windows_of_pool(F, x, kernel, stride, counts, pad):
    ndim = len(kernel)
    cols = F.im2col(F.constant_pad(_batched(F, x, ndim), pad), kernel, stride, (1,) * ndim)
    return _narrowed(F, cols, counts, ndim)


def avg_pool(F, x, kernel_size, stride, counts, pad, divisors):
    """Window sums divided by torch's divisors."""
    ndim = len(kernel_size)
    sums = F.sum(_windows_of_pool(F, x, kernel_size, stride, counts, pad), tuple(range(2, 2 + ndim)))
    out = sums / F.constant(divisors, sums)
    return F.squeeze_dim(out, 0) if x.ndim == ndim + 1 else out


def avg_pool_backward(F, grad, kernel_size, stride, counts, pad, divisors, sizes):
    ndim = len(kernel_size)
    g = _batched(F, grad, ndim) / F.constant(divisors, grad)
    shape = tuple(g.shape)
    cols = F.expand(F.reshape(g, shape[:2] + (1,) * ndim + shape[2:]), shape[:2] + tuple(kernel_size) + shape[2:])
    padded = tuple(n + pad[2 * (ndim - 1 - d)] + pad[2 * (ndim - 1 - d) + 1] for d, n in enumerate(sizes[-ndim:]))
    summed = F.col2im(cols, padded, kernel_size, stride, (1,) * ndim)
    out = F.constant_pad(summed, tuple(-p for p in pad))
    return F.squeeze_dim(out, 0) if len(sizes) == ndim + 1 else out


def _adaptive_spec(ndim: int, backward: bool) -> str:
    """einsum of adaptive average pooling: one (out, in) matrix per spatial dim, then the input (or
    the output gradient, ``backward``)."""
    inner, outer = "abc"[:ndim], "xyz"[:ndim]
    source, target = (outer, inner) if backward else (inner, outer)
    return ",".join(o + i for o, i in zip(outer, inner)) + f",...{source}->...{target}"


def adaptive_avg(F, x, matrices):
    return F.einsum(_adaptive_spec(len(matrices), False), *(F.constant(m, x) for m in matrices), x)


def adaptive_avg_backward(F, grad, matrices):
    return F.einsum(_adaptive_spec(len(matrices), True), *(F.constant(m, grad) for m in matrices), grad)
