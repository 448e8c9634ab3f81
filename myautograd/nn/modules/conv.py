"""``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``: torch's constructor arguments, checks, parameter
shapes, initialisation (kaiming-uniform with ``a = sqrt(5)``, the bias uniform in ``+-1/sqrt(fan_in)``),
padding modes and ``repr``; a transposed one also takes ``output_size`` in its forward. The numbers
come from myautograd's generator, so they differ from torch's. The ``Lazy`` forms read
``in_channels`` off their first input, then become the plain class."""

from __future__ import annotations

import math

from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}  # sets, as torch's (their order is the process's)
VALID_PADDINGS = {"same", "valid"}


def _tuple(value, ndim: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * ndim


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]
    _ndim = 0
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        ndim = self._ndim
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                # a set, as torch's: its order follows the string hashes of the process
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {VALID_PADDINGS}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, ndim)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, ndim)
        self.stride = _tuple(stride, ndim)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, ndim)
        self.dilation = _tuple(dilation, ndim)
        self.transposed = self._transposed
        self.output_padding = (0,) * ndim
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_modes()
        channels = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty((*channels, *self.kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padding_for_modes(self) -> list[int]:
        """The (before, after) pads, last dim first, that a padding mode other than zeros applies."""
        pads: list[int] = [0, 0] * self._ndim
        for i, (k, d) in enumerate(reversed(list(zip(self.kernel_size, self.dilation)))):
            if self.padding == "same":
                total = d * (k - 1)
                pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
            elif self.padding != "valid":
                size = self.padding[self._ndim - 1 - i]
                pads[2 * i] = pads[2 * i + 1] = size
        return pads

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._function(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return self._function(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self._ndim:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self._ndim:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._ndim:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    _ndim = 1
    _function = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    _ndim = 2
    _function = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    _ndim = 3
    _function = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution: the weight (in, out / groups, *kernel), zeros padding only, and an
    ``output_padding`` that ``forward(input, output_size)`` may work out instead."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)
        self.output_padding = _tuple(output_padding, self._ndim)

    def _output_padding(self, input, output_size) -> tuple:
        """``output_padding``, or what makes the output ``output_size`` (torch's checks and messages)."""
        if output_size is None:
            return self.output_padding
        ndim = self._ndim
        leading = 2 if input.dim() == ndim + 2 else 1
        output_size = list(output_size)
        if len(output_size) == leading + ndim:
            output_size = output_size[leading:]
        if len(output_size) != ndim:
            raise ValueError(f"ConvTranspose{ndim}D: for {input.dim()}D input, output_size must have {ndim} or "
                             f"{leading + ndim} elements (got {len(output_size)})")
        smallest = [(input.size(d + leading) - 1) * s - 2 * p + dl * (k - 1) + 1
                    for d, (s, p, dl, k) in enumerate(zip(self.stride, self.padding, self.dilation, self.kernel_size))]
        largest = [low + s - 1 for low, s in zip(smallest, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {input.size()[2:]})")
        return tuple(size - low for size, low in zip(output_size, smallest))

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        return self._function(input, self.weight, self.bias, self.stride, self.padding,
                              self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _ndim = 1
    _function = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    _ndim = 2
    _function = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    _ndim = 3
    _function = staticmethod(F.conv_transpose3d)


class _LazyConvMixin:
    """A convolution built without ``in_channels``: empty parameters (which still follow ``.to()``) until
    the first forward reads the channels off its input, gives them their shapes and initial values,
    and turns the module into ``cls_to_become``, as torch's lazy modules do."""

    cls_to_become: type = _ConvNd

    def __init__(self, out_channels: int, kernel_size, *args, **kwargs) -> None:
        super().__init__(0, 0, kernel_size, *args, **kwargs)
        self.out_channels = out_channels

    def has_uninitialized_params(self) -> bool:
        return self.in_channels == 0

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        ndim = self._ndim
        if input.dim() not in (ndim + 1, ndim + 2):
            raise RuntimeError(f"Expected {ndim + 1}D (unbatched) or {ndim + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        self.in_channels = input.shape[1] if input.dim() == ndim + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        channels = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                    else (self.out_channels, self.in_channels // self.groups))
        self.weight = Parameter(empty((*channels, *self.kernel_size), dtype=self.weight.dtype,
                                      device=self.weight.device))
        if self.bias is not None:
            self.bias = Parameter(empty(self.out_channels, dtype=self.bias.dtype, device=self.bias.device))
        self.reset_parameters()

    def forward(self, input, *args, **kwargs):
        self.initialize_parameters(input)
        self.__class__ = self.cls_to_become
        return self.forward(input, *args, **kwargs)


class LazyConv1d(_LazyConvMixin, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvMixin, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvMixin, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
