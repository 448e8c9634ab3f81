"""``torch.accelerator``: the current accelerator, which for myautograd is CUDA (through CuPy)
when a GPU is usable, and none otherwise."""

from __future__ import annotations

from .. import _backend
from .._device import device
from .._missing import missing_attribute as _missing_attribute

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return _backend.cuda_available()


def current_accelerator(check_available: bool = False) -> device | None:
    return device("cuda") if is_available() else None


def device_count() -> int:
    return _backend.cuda_device_count()


def current_device_index() -> int:
    if not is_available():
        raise RuntimeError(NO_ACCELERATOR)
    return int(_backend._cupy.cuda.runtime.getDevice())


current_device_idx = current_device_index


def synchronize(device=None) -> None:
    if not is_available():
        raise RuntimeError(NO_ACCELERATOR)
    _backend._cupy.cuda.Device().synchronize()


__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count", "is_available",
           "synchronize"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
