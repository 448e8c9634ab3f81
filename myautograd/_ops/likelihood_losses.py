"""The negative log-likelihood losses of distributions, ``poisson_nll_loss`` and ``gaussian_nll_loss``,
composed from tensor ops as torch composes them (``poisson_nll_loss`` is an ATen function of tensor
ops, ``gaussian_nll_loss`` Python), so the graph holds the same nodes; the checks come first, with
torch's messages."""

from __future__ import annotations

import math

from .._grad_mode import no_grad
from .._tensor import Tensor
from .creation import ones_like
from .losses import reduce_tensor
from .special import add_number


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, eps: float = 1e-8,
                     reduction: str = "mean") -> Tensor:
    """``exp(input) - target input`` (``log_input``) or ``input - target log(input + eps)``, plus
    Stirling's approximation of ``log(target!)`` where the target exceeds 1 (``full``)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        losses = input.exp() - target * input
    else:
        losses = input - target * add_number(input, eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        losses = losses + stirling.masked_fill(target <= 1, 0)
    return reduce_tensor(losses, reduction)


def _homoscedastic(input: Tensor, var: Tensor) -> Tensor:
    """``var`` shaped to broadcast against ``input``: one dim short gets a last dim of 1; otherwise
    exactly one dim may differ."""
    if var.shape == input.shape:
        return var
    if input.shape[:-1] == var.shape:
        return var.unsqueeze(-1)
    if input.dim() == var.dim() and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """``(log(var) + (input - target)^2 / var) / 2`` (plus ``log(2 pi) / 2`` when ``full``), the
    variance clamped at ``eps`` without that clamp being recorded."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = _homoscedastic(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    losses = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return reduce_tensor(losses, reduction)
