"""``myautograd.nn.utils``: gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``), as
``torch.nn.utils``. The norm of all gradients is the norm of their norms, as torch computes it;
the gradients are scaled (or clamped) in place."""

from __future__ import annotations

from ..._grad_mode import no_grad
from ..._missing import missing_attribute as _missing_attribute
from ..._ops.creation import tensor
from ..._ops.shape import stack
from ..._tensor import Tensor

NONFINITE = ("The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be clipped. "
             "To disable this error and scale the gradients by the non-finite norm anyway, set "
             "`error_if_nonfinite=False`")


def _gradients(parameters) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    device = tensors[0].device
    total = stack([t.norm(norm_type).to(device) for t in tensors]).norm(norm_type)
    if error_if_nonfinite and (total.isnan() | total.isinf()).item():
        raise RuntimeError(NONFINITE.format(norm_type))
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    grads = _gradients(parameters)
    if not grads:
        return
    with no_grad():
        factor = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for grad in grads:
            grad.mul_(factor.to(grad.device))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients together so that their total norm is at most ``max_norm``; returns
    the total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    with no_grad():
        grads = _gradients(parameters)
        total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
        clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for grad in _gradients(parameters):
            grad.clamp_(min=-clip_value, max=clip_value)


__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
