"""Padding modules, each ``F.pad`` with one mode and ``padding`` as torch keeps it (one number for
every side, or a tuple of (before, after) pairs from the last dim backwards): ``ConstantPad*d``
(and ``ZeroPad*d``, with 0), ``ReflectionPad*d``, ``ReplicationPad*d``, ``CircularPad*d`` (which
checks the input's rank first, as torch's does). torch's ``repr``."""

from __future__ import annotations

from collections.abc import Iterable

from .. import functional as F
from .module import Module


def _sides(padding, count: int) -> tuple:
    """``padding`` for ``count`` sides: a sequence as given, one number repeated (torch's ``_ntuple``)."""
    if isinstance(padding, Iterable) and not isinstance(padding, str):
        return tuple(padding)
    return (padding,) * count


class _PadNd(Module):
    __constants__ = ["padding"]
    mode = "constant"
    _sides_count = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _sides(padding, self._sides_count)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        ranks = (self._sides_count // 2 + 1, self._sides_count // 2 + 2)
        if input.dim() not in ranks:
            raise ValueError(f"expected {ranks[0]}D or {ranks[1]}D input (got {input.dim()}D input)")
        return super().forward(input)


class ConstantPad1d(_ConstantPadNd):
    _sides_count = 2


class ConstantPad2d(_ConstantPadNd):
    _sides_count = 4


class ConstantPad3d(_ConstantPadNd):
    _sides_count = 6


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    _sides_count = 2


class ReflectionPad2d(_ReflectionPadNd):
    _sides_count = 4


class ReflectionPad3d(_ReflectionPadNd):
    _sides_count = 6


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    _sides_count = 2


class ReplicationPad2d(_ReplicationPadNd):
    _sides_count = 4


class ReplicationPad3d(_ReplicationPadNd):
    _sides_count = 6


class CircularPad1d(_CircularPadNd):
    _sides_count = 2


class CircularPad2d(_CircularPadNd):
    _sides_count = 4


class CircularPad3d(_CircularPadNd):
    _sides_count = 6


__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
