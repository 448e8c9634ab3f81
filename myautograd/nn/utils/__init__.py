"""``myautograd.nn.utils``: gradient clipping (``clip_grad.py``), under torch's names."""

from ..._missing import missing_attribute as _missing_attribute
from . import clip_grad
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm

__all__ = ["clip_grad", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
