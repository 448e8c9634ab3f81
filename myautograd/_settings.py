"""Process-wide defaults, as torch's: ``set_default_device``/``get_default_device`` and the
deprecated ``set_default_tensor_type`` (``set_default_dtype`` lives with the dtypes).

The default device is read by every factory called without ``device=`` (``_ops.creation.finish``);
the default dtype by every factory without ``dtype=`` and by Python floats in arithmetic.
"""

from __future__ import annotations

import warnings

from . import _backend, _dtype
from ._device import _default_device, as_device, set_default_device

TENSOR_TYPE_WARNING = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                       "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
_warned = [False]


def get_default_device():
    """The device factories use when given none; asking for CUDA without it fails as in torch."""
    chosen = _default_device[0]
    if chosen is None:
        return as_device("cpu")
    if chosen.type == "cuda":
        _backend.array_module(chosen)  # torch's "Torch not compiled with CUDA enabled"
        return as_device(f"cuda:{chosen.index or 0}")
    return chosen


def set_default_tensor_type(t) -> None:
    """Set the default dtype (and, for ``torch.cuda.*Tensor``, the default device) from a legacy
    tensor type, given as the type (``torch.DoubleTensor``) or its name (``"torch.DoubleTensor"``)."""
    import myautograd

    if isinstance(t, str):
        t = _dotted(myautograd, t)
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(TENSOR_TYPE_WARNING, UserWarning, stacklevel=2)
    target = getattr(t, "dtype", None)
    if not isinstance(target, _dtype.dtype) or not callable(t):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not target.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if getattr(t, "is_cuda", False):
        t()  # torch's "type torch.cuda.FloatTensor not available" without CUDA
        set_default_device("cuda")
    _dtype.set_default_dtype(target)


def _dotted(package, name: str):
    """``"torch.cuda.FloatTensor"`` looked up from ``package`` (standing for ``torch``)."""
    first, *rest = name.split(".")
    found, path = package, first
    for part in rest:
        if not hasattr(found, part):
            raise AttributeError(f"module '{path}' has no attribute '{part}'")
        found, path = getattr(found, part), f"{path}.{part}"
    return found


__all__ = ["get_default_device", "set_default_device", "set_default_tensor_type"]
