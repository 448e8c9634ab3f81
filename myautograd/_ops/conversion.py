"""Casts and device moves: ``to``, ``type``, ``float()``/``double()``/..., ``cpu()``, ``cuda()``.

A cast that changes nothing returns the tensor itself (still a leaf); a real cast or move is
recorded as ``ToCopyBackward0``, as torch does.
"""

from __future__ import annotations

from .. import _backend, _dtype, _memory_format
from .._autograd.record import record, records
from .._device import as_device, device
from .._tensor import Tensor, make_tensor
from .common import cast, to_dtype
from .derivatives import NODES
from .registry import method


def _convert(self: Tensor, dtype: _dtype.dtype | None, dev: device | None, copy: bool = False,
             memory_format: _memory_format.memory_format | None = None) -> Tensor:
    """torch's ``to``: the tensor itself where nothing changes, else a copy (``ToCopyBackward0``)."""
    data = self._data
    target_dtype = dtype or self.dtype
    target_device = dev or self.device
    if (target_dtype is self.dtype and target_device == self.device and not copy
            and _memory_format.is_laid_out(data, memory_format)):
        return self
    moved = _backend.to_device(data, target_device) if target_device != self.device else data
    out = cast(_memory_format.arrange(moved, memory_format), target_dtype.np, copy=False)
    if records(self) and target_dtype.category >= _dtype.FLOATING:
        return record(NODES["ToCopyBackward0"], out, (self,), {"self_device": self.device})
    return make_tensor(out)


def _parse_to_args(args, kwargs):
    """``to``'s three signatures: (device, dtype, non_blocking, copy), (dtype, non_blocking, copy) and
    (tensor, non_blocking, copy); the memory format by keyword."""
    dtype, dev = kwargs.get("dtype"), kwargs.get("device")
    flags = list(args)
    if flags and isinstance(flags[0], Tensor):
        dtype, dev = flags[0].dtype, flags[0].device
        flags.pop(0)
    elif flags and isinstance(flags[0], (str, device, int)) and not isinstance(flags[0], bool):
        dev = flags.pop(0)
        if flags and isinstance(flags[0], (_dtype.dtype, type)):
            dtype = flags.pop(0)
    elif flags and isinstance(flags[0], (_dtype.dtype, type)):
        dtype = flags.pop(0)
    copy = flags[1] if len(flags) > 1 else kwargs.get("copy", False)
    return to_dtype(dtype), (as_device(dev) if dev is not None else None), copy


@method
def to(self, *args, **kwargs):
    dtype, dev, copy = _parse_to_args(args, kwargs)
    if dev is not None and dev.type == "cuda" and dev.index is None:
        dev = device("cuda", 0)
    return _convert(self, dtype, dev, copy, kwargs.get("memory_format"))


_LEGACY_TYPES = {
    "torch.FloatTensor": _dtype.float32, "torch.DoubleTensor": _dtype.float64, "torch.HalfTensor": _dtype.float16,
    "torch.BFloat16Tensor": _dtype.bfloat16,
    "torch.LongTensor": _dtype.int64, "torch.IntTensor": _dtype.int32, "torch.ShortTensor": _dtype.int16,
    "torch.CharTensor": _dtype.int8, "torch.ByteTensor": _dtype.uint8, "torch.BoolTensor": _dtype.bool_,
}


@method(name="type")
def type_(self, dtype=None, non_blocking=False):
    if dtype is None:
        return self.dtype.legacy_type_name(self.device.type)
    if isinstance(dtype, str):
        cuda = dtype.startswith("torch.cuda.")
        target = _LEGACY_TYPES[dtype.replace("torch.cuda.", "torch.")]
        return _convert(self, target, device("cuda", 0) if cuda else None)
    return _convert(self, to_dtype(dtype), None)


@method
def type_as(self, other):
    return _convert(self, other.dtype, other.device)


def _cast_method(name: str, target: _dtype.dtype) -> None:
    def cast(self, memory_format=_memory_format.preserve_format):
        return _convert(self, target, None, memory_format=memory_format)

    cast.__name__ = name
    method(cast, name=name)


for _name, _target in {"float": _dtype.float32, "double": _dtype.float64, "half": _dtype.float16,
                       "bfloat16": _dtype.bfloat16, "long": _dtype.int64, "int": _dtype.int32, "short": _dtype.int16,
                       "char": _dtype.int8, "byte": _dtype.uint8, "bool": _dtype.bool_, "cfloat": _dtype.complex64,
                       "cdouble": _dtype.complex128}.items():
    _cast_method(_name, _target)


@method
def cpu(self, memory_format=None):
    return _convert(self, None, device("cpu"))


@method
def cuda(self, device_index=None, non_blocking=False, memory_format=None):
    index = device_index.index if isinstance(device_index, device) else device_index
    return _convert(self, None, device("cuda", index or 0))
