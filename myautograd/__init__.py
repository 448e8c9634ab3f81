"""myautograd: an autograd engine on NumPy (CuPy for CUDA) with PyTorch's API and behaviour.

Scripts written for ``torch.autograd`` run unchanged with ``import myautograd as torch``; to
also serve ``import torch.nn as nn`` and friends, run them with ``python -m myautograd
script.py`` or call ``myautograd.install_as_torch()`` first. myautograd never imports torch.

Layout: ``_tensor`` (the Tensor), ``_autograd`` (graph, engine, formula nodes), ``_ops`` (every
operation; all derivative formulas are in ``_ops/derivatives.py``), ``autograd``, ``nn``,
``optim`` and ``cuda`` (the public packages, mirroring torch's).
"""

from __future__ import annotations

import builtins as _builtins
import sys as _sys

import numpy as _np

from . import _dtype
from ._backend import cuda_available as _cuda_available
from ._device import device, set_default_device
from ._dtype import can_cast, dtype, get_default_dtype, promote_types, set_default_dtype
from ._grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ._memory_format import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from ._ops import FUNCTIONS as _FUNCTIONS
from ._ops.creation import Generator, default_generator
from ._printing import get_printoptions, set_printoptions
from ._size import Size
from ._tensor import Tensor

_np.seterr(all="ignore")  # torch computes inf/nan silently; NumPy would warn

globals().update(_FUNCTIONS)

from . import (  # noqa: E402 - they use the ops above
    accelerator,
    autograd,
    backends,
    cuda,
    fft,
    func,
    linalg,
    nn,
    ops,
    optim,
    return_types,
    serialization,
    special,
    utils,
)
from ._missing import missing_attribute as _missing_attribute
from ._settings import get_default_device, set_default_tensor_type  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402
from .func import vmap  # noqa: E402
from .serialization import load, save  # noqa: E402

__version__ = "0.1.0"
__conformance_module__ = "myautograd"

float32 = float = _dtype.float32  # noqa: A001 - torch's names
float64 = double = _dtype.float64
float16 = half = _dtype.float16
bfloat16 = _dtype.bfloat16
finfo = _dtype.finfo
complex64 = cfloat = _dtype.complex64
complex128 = cdouble = _dtype.complex128
int64 = long = _dtype.int64
int32 = int = _dtype.int32  # noqa: A001
int16 = short = _dtype.int16
int8 = _dtype.int8
uint8 = _dtype.uint8
bool = _dtype.bool_  # noqa: A001

class _LegacyType:
    """``torch.FloatTensor([1., 2.])`` or ``torch.FloatTensor(2, 3)``; prints as torch's type."""

    is_cuda = False

    def __init__(self, dtype: _dtype.dtype) -> None:
        self.dtype = dtype  # read by set_default_tensor_type
        self.__name__ = self.__qualname__ = dtype.legacy_type_name().split(".")[-1]

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not isinstance(args[0], (_builtins.int, Size)):
            return _FUNCTIONS["tensor"](args[0], dtype=self.dtype, **kwargs)
        return _FUNCTIONS["zeros"](*args, dtype=self.dtype, **kwargs)

    def __repr__(self) -> str:
        return f"<class 'torch.{self.__name__}'>"


FloatTensor = _LegacyType(float32)
DoubleTensor = _LegacyType(float64)
HalfTensor = _LegacyType(float16)
BFloat16Tensor = _LegacyType(bfloat16)
LongTensor = _LegacyType(int64)
IntTensor = _LegacyType(int32)
BoolTensor = _LegacyType(bool)
ByteTensor = _LegacyType(uint8)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_complex(input) -> bool:
    return input.is_complex()


def numel(input) -> int:
    return input.numel()


def result_type(tensor1, tensor2) -> dtype:
    return _dtype.result_type(tensor1, tensor2)


def set_num_threads(count) -> None:
    """NumPy's BLAS thread count is set by environment variables; kept for API compatibility."""


def get_num_threads() -> int:
    return 1


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Every operation of myautograd is deterministic."""


def compile(model=None, **kwargs):  # noqa: A001 - torch's name
    """No compiler: returns the model unchanged."""
    return model if model is not None else (lambda fn: fn)


def install_as_torch() -> None:
    """Make ``import torch`` (and ``torch.nn``, ``torch.optim``, ...) give myautograd's modules."""
    prefix = __name__ + "."
    modules = {name: module for name, module in list(_sys.modules.items())
               if name == __name__ or name.startswith(prefix)}
    for name, module in modules.items():
        _sys.modules["torch" + name[len(__name__):]] = module


__all__ = sorted(name for name in globals() if not name.startswith("_"))


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
