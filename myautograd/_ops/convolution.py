"""Convolutions (``conv1d/2d/3d``, ``conv_transpose1d/2d/3d``), with torch's checks, messages and
nodes (pooling is in ``pooling.py``).

A convolution is one op, ``ConvolutionBackward0``, whose values and gradients come from
``window_math`` (windows and einsum). Each gradient is a kernel of its own, recorded under
``create_graph`` as torch's ``ConvolutionBackwardBackward0``; ``im2col``/``col2im`` are ops of their
own so that what ``window_math`` computes on tensors (that node's derivative in the incoming
gradient: a convolution) differentiates again. ``padding='same'``
follows torch: symmetric padding where it can, the input padded by one more element on the
right first where the total padding is odd.
"""

from __future__ import annotations

import warnings

from .._autograd.formula_math import BACKWARD_KERNELS, ArrayMath, one_kernel
from .._autograd.record import recorded
from .._tensor import Tensor
from . import window_math as W
from .derivatives import NODES
from .registry import function


def _tuple(value, ndim: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * ndim


def _sizes(shape) -> str:
    return ", ".join(str(n) for n in shape)


# -- im2col / col2im, the primitives the gradients are built from -------------------------------------------
def im2col(x: Tensor, kernel, stride, dilation) -> Tensor:
    out = ArrayMath.im2col(x._data, kernel, stride, dilation)
    return recorded(NODES["Im2ColBackward0"], out, (x,), {"kernel_size": tuple(kernel), "stride": tuple(stride),
                                                          "dilation": tuple(dilation),
                                                          "self_sym_sizes": x._data.shape})


def col2im(cols: Tensor, sizes, kernel, stride, dilation) -> Tensor:
    out = ArrayMath.col2im(cols._data, tuple(sizes), kernel, stride, dilation)
    return recorded(NODES["Col2ImBackward0"], out, (cols,), {"kernel_size": tuple(kernel), "stride": tuple(stride),
                                                             "dilation": tuple(dilation)})


BACKWARD_KERNELS["ConvolutionBackwardBackward0"] = (
    lambda grad, input, weight, output_mask, **attrs:
    W.convolution_grads(ArrayMath, grad, input, weight, output_mask, **attrs)[output_mask.index(True)])


# -- convolution --------------------------------------------------------------------------------------------
def _check_conv(input: Tensor, weight: Tensor, ndim: int, stride, padding, dilation, groups, transposed,
                output_padding) -> None:
    data, w = input._data, weight._data
    for name, values in (("groups", (groups,)), ("padding", padding), ("stride", stride), ("dilation", dilation)):
        if any(v < 0 if name == "padding" else v <= 0 for v in values):
            raise RuntimeError(f"{'negative' if name == 'padding' else 'non-positive'} {name} is not supported")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size [{_sizes(w.shape)}] instead")
    if transposed:
        if data.shape[1] != w.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size [{_sizes(w.shape)}], expected "
                               f"input[{_sizes(data.shape)}] to have {w.shape[0]} channels, but got {data.shape[1]} "
                               "channels instead")
        for op, s, d in zip(output_padding, stride, dilation):
            if op >= s and op >= d:
                names = "height width depth".split()[:ndim] if ndim > 1 else ["width"]
                parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
                parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
                parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
                raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                                   + " ".join(parts))
        return
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_sizes(w.shape)}] instead")
    if data.shape[1] != w.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size [{_sizes(w.shape)}], expected "
                           f"input[{_sizes(data.shape)}] to have {w.shape[1] * groups} channels, but got "
                           f"{data.shape[1]} channels instead")
    padded = [n + 2 * p for n, p in zip(data.shape[2:], padding)]
    effective = [d * (k - 1) + 1 for k, d in zip(w.shape[2:], dilation)]
    if any(e > n for e, n in zip(effective, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, effective))}). Kernel size can't be greater than actual input size")


@function
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch.convolution: ConvolutionBackward0 on input, weight and bias."""
    ndim = weight._data.ndim - 2
    stride, padding, dilation = _tuple(stride, ndim), _tuple(padding, ndim), _tuple(dilation, ndim)
    output_padding = _tuple(output_padding, ndim)
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({input.dtype.c_name}) and bias type ({bias.dtype.c_name}) should be the same")
    _check_conv(input, weight, ndim, stride, padding, dilation, groups, transposed, output_padding)
    if input._data.dtype.kind == "c":
        return _complex_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    x, w = input._data, weight._data.astype(input._data.dtype, copy=False)
    if transposed:
        out = one_kernel(W.conv_transpose)(x, w, stride, padding, dilation, groups, output_padding)
    else:
        out = one_kernel(W.conv)(x, w, stride, padding, dilation, groups)
    if bias is not None:
        out = out + bias._data.reshape((-1,) + (1,) * ndim)
    out = out.astype(x.dtype, copy=False)
    return recorded(NODES["ConvolutionBackward0"], out, (input, weight, bias),
                    {"stride": stride, "padding": padding, "dilation": dilation, "transposed": transposed,
                     "output_padding": output_padding, "groups": groups})


def _complex_convolution(input, weight, bias, *settings):
    """A complex convolution as torch composes it, from three real ones (Gauss's trick, one product
    fewer than four): with a = conv(xr, wr, br), b = conv(xi, wi), c = conv(xr + xi, wr + wi, br + bi),
    the result is a - b + i (c - a - b), recorded op by op (its node: AddBackward0)."""
    from .special import mul_by_number  # noqa: PLC0415 - the elementwise layer imports the convolutions
    from .views import select, view_as_real  # noqa: PLC0415

    def parts(tensor):
        pair = view_as_real(tensor)
        return select(pair, -1, 0), select(pair, -1, 1)

    (x_real, x_imag), (w_real, w_imag) = parts(input), parts(weight)
    if bias is None:
        a = convolution(x_real, w_real, None, *settings)
        c = convolution(x_real + x_imag, w_real + w_imag, None, *settings)
    else:
        b_real, b_imag = parts(bias)
        a = convolution(x_real, w_real, b_real, *settings)
        c = convolution(x_real + x_imag, w_real + w_imag, b_real + b_imag, *settings)
    b = convolution(x_imag, w_imag, None, *settings)
    return a - b + mul_by_number(c - a - b, 1j)


#: The warnings torch gives once per process, and whether they were given.
_WARNED = {"same_padding": False}


def _same_padding(input: Tensor, weight: Tensor, ndim: int, stride, dilation):
    """torch's padding='same': (the input, padded on the right where the total is odd; the padding)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, extra = [], []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        left.append(total // 2)
        extra.append(total - 2 * (total // 2))
    if any(extra):
        from .padding import constant_pad

        if not _WARNED["same_padding"]:  # torch warns once per process
            _WARNED["same_padding"] = True
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", UserWarning, stacklevel=4)

        pad: list[int] = []
        for e in reversed(extra):
            pad += [0, e]
        input = constant_pad(input, pad, 0.0)
    return input, tuple(left)


def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, ndim: int):
    """conv1d/conv2d/conv3d: batched or not, numeric or 'valid'/'same' padding."""
    stride, dilation = _tuple(stride, ndim), _tuple(dilation, ndim)
    unbatched = input.dim() == ndim + 1
    if unbatched:
        input = input.unsqueeze(0)
    if padding == "valid":
        padding = 0
    if padding == "same":
        input, padding = _same_padding(input, weight, ndim, stride, dilation)
    out = convolution(input, weight, bias, stride, padding, dilation, False, 0, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                   ndim: int):
    unbatched = input.dim() == ndim + 1
    if unbatched:
        input = input.unsqueeze(0)
    out = convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out.squeeze(0) if unbatched else out
