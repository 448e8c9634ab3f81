"""The pooling layers over 1, 2 and 3 dims: ``MaxPool``, ``AvgPool``, ``AdaptiveAvgPool``,
``AdaptiveMaxPool``, ``LPPool``, ``MaxUnpool`` and ``FractionalMaxPool`` (2d and 3d). No parameters (a fractional
one keeps its random samples as a buffer), torch's arguments and ``repr``; each calls the function of
``nn.functional`` for its number of dims."""

from __future__ import annotations

from .. import functional as F
from .module import Module


def _tuple(value, ndim: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * ndim


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return self._function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    _function = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _function = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _function = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(stride if stride is not None else kernel_size, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._function(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _function = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    _function = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return self._function(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _function = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _function = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _function = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return self._function(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _function = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _function = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _function = staticmethod(F.adaptive_max_pool3d)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return self._function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    _function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    _function = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    _function = staticmethod(F.lp_pool3d)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling: ``output_size`` or ``output_ratio`` (in (0, 1)), the random samples
    that place its windows kept as the buffer ``_random_samples`` (None: drawn at each forward)."""

    _ndim = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        ndim = self._ndim
        self.kernel_size = _tuple(kernel_size, ndim)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, ndim) if output_size is not None else None
        self.output_ratio = _tuple(output_ratio, ndim) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{ndim}d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return self._function(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                              _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _ndim = 2
    _function = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _ndim = 3
    _function = staticmethod(F.fractional_max_pool3d)


class _MaxUnpoolNd(Module):
    """The inverse placement of a max pooling: its output put back at its indices, zeros elsewhere."""

    _ndim = 0

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        ndim = self._ndim
        self.kernel_size = _tuple(kernel_size, ndim)
        self.stride = _tuple(stride if stride is not None else kernel_size, ndim)
        self.padding = _tuple(padding, ndim)

    def forward(self, input, indices, output_size=None):
        return self._function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _ndim = 1
    _function = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    _ndim = 2
    _function = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    _ndim = 3
    _function = staticmethod(F.max_unpool3d)


__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d"]
