"""``myautograd.cuda``: whether CUDA is usable (through CuPy), and the legacy CUDA tensor types."""

from __future__ import annotations

from .. import _backend, _dtype
from .._missing import missing_attribute as _missing_attribute
from .._ops.creation import tensor, zeros


def is_available() -> bool:
    return _backend.cuda_available()


def device_count() -> int:
    return _backend.cuda_device_count()


def current_device() -> int:
    _require()
    return int(_backend._cupy.cuda.runtime.getDevice())


def synchronize(device=None) -> None:
    if is_available():
        _backend._cupy.cuda.Device().synchronize()


def manual_seed(seed: int) -> None:
    """CUDA random numbers come from the same generator as the CPU ones."""


manual_seed_all = manual_seed


def _require() -> None:
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")


class _LegacyCudaType:
    """``torch.cuda.FloatTensor``: a type name that constructs CUDA tensors."""

    is_cuda = True

    def __init__(self, name: str, dtype: _dtype.dtype) -> None:
        self.name = name
        self.dtype = dtype

    def __call__(self, *args):
        if not is_available():
            raise TypeError(f"type torch.cuda.{self.name} not available. Torch not compiled with CUDA enabled.")
        if len(args) == 1 and not isinstance(args[0], int):
            return tensor(args[0], dtype=self.dtype, device="cuda")
        return zeros(*args, dtype=self.dtype, device="cuda")

    def __repr__(self) -> str:
        return f"<class 'torch.cuda.{self.name}'>"


FloatTensor = _LegacyCudaType("FloatTensor", _dtype.float32)
DoubleTensor = _LegacyCudaType("DoubleTensor", _dtype.float64)
HalfTensor = _LegacyCudaType("HalfTensor", _dtype.float16)
LongTensor = _LegacyCudaType("LongTensor", _dtype.int64)
IntTensor = _LegacyCudaType("IntTensor", _dtype.int32)
BoolTensor = _LegacyCudaType("BoolTensor", _dtype.bool_)


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
