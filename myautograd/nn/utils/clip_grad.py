"""``myautograd.nn.utils.clip_grad``: gradient clipping, as ``torch.nn.utils.clip_grad``.

The total norm is the norm of the gradients' norms, taken group by group of device and dtype in
the order they first appear and stacked (so float32 and float64 norms give a float64 total), as
torch computes it; the gradients are scaled by ``min(max_norm / (total + 1e-6), 1)`` or clamped,
in place. ``foreach`` picks torch's implementation, not a result: both devices myautograd has
support it, so it changes nothing here.
"""

from __future__ import annotations

import types
import warnings

from ..._grad_mode import no_grad
from ..._ops.creation import tensor
from ..._ops.shape import stack
from ..._tensor import Tensor

NONFINITE = ("The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be clipped. "
             "To disable this error and scale the gradients by the non-finite norm anyway, set "
             "`error_if_nonfinite=False`")
EMPTY_GENERATOR = "`parameters` is an empty generator, no gradient clipping will occur."
DEPRECATED = "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`."


def _grouped(tensors: list[Tensor]) -> list[list[Tensor]]:
    """The tensors grouped by device and dtype, the groups in the order they first appear."""
    groups: dict[tuple, list[Tensor]] = {}
    for each in tensors:
        groups.setdefault((str(each.device), each.dtype), []).append(each)
    return list(groups.values())


def _gradients(parameters) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of the tensors' norms, as if they were one vector (0 for none)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        device = tensors[0].device
        norms = [each.norm(norm_type) for group in _grouped(tensors) for each in group]
        total = stack([each.to(device) for each in norms]).norm(norm_type)
    if error_if_nonfinite and (total.isnan() | total.isinf()).item():
        raise RuntimeError(NONFINITE.format(norm_type))
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale the gradients by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    grads = _gradients(parameters)
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        factor = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for group in _grouped(grads):
            scale = factor.to(group[0].device)
            for grad in group:
                grad.mul_(scale)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients together so that their total norm is at most ``max_norm``; returns
    the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if generator and not parameters:
            warnings.warn(EMPTY_GENERATOR, UserWarning, stacklevel=2)
    total = get_total_norm(_gradients(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated: ``clip_grad_norm_``."""
    warnings.warn(DEPRECATED, FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for grad in _gradients(parameters):
            grad.clamp_(min=-clip_value, max=clip_value)


__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]
