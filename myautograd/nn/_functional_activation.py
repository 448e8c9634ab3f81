"""The activations of ``nn.functional`` added with their modules: ``hardshrink``, ``softshrink``,
``threshold`` (and ``threshold_``), ``glu`` and ``prelu`` hand over to the engine's ops
(``myautograd._ops.activations``: torch's kernels and nodes); ``tanhshrink`` is torch's composition,
``x - tanh(x)``."""

from __future__ import annotations

from .._ops import activations as _act
from .._tensor import Tensor


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _act.hardshrink(input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _act.softshrink(input, lambd)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return _act.threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _act.threshold(input, threshold, value, True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    return _act.glu(input, dim)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    return _act.prelu(input, weight)
