"""``torch.save`` / ``torch.load``: tensors, state dicts, optimizer states and whole modules, to a
path or a file object, with torch's options (``map_location``, ``weights_only``) and errors.

The format is myautograd's own (torch cannot read it, and it cannot read torch's)::

    MAGIC | pickle length (8 bytes) | pickle | storage count (8 bytes) | each storage (.npy)

The pickle holds the object with every tensor (and dtype, device, Size) replaced by a reference: which storage (a flat
array), the offset, shape and strides into it, the dtype, the device it was on and whether it
requires grad (and is a Parameter). Tensors that are views of one array share one storage, so
they still share memory after loading, as torch's do; gradients and graph history are not saved
(a loaded tensor is a leaf), as in torch.

``weights_only=True`` (torch's default since 2.6) loads only tensors, containers and plain values;
any other class must be allowed with ``add_safe_globals``/``safe_globals``, and the error says
so in torch's words. Class names in messages are torch's (``torch.nn.modules.linear.Linear``).
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import struct

import numpy as np

from . import _backend, _dtype
from ._device import as_device, device
from ._size import Size
from ._tensor import Tensor, make_tensor
from .nn.parameter import Parameter

MAGIC = b"MYAUTOGRAD-SAVE\n\x01"
_LENGTH = struct.Struct("<Q")
PROTOCOL = 4
_ALLOWED = {("collections", "OrderedDict"), ("collections", "Counter"), ("builtins", "complex"),
            ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "bytearray")}
_user_safe: list = []

WEIGHTS_ONLY_FAILED = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those steps "
    "only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default value of "
    "the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` "
    "set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended "
    "steps in the following error message.\n\tWeightsUnpickler error: {}\n\nCheck the documentation of torch.load "
    "to learn more about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html."
)
UNSUPPORTED_GLOBAL = ("Unsupported global: GLOBAL {0} was not an allowed global by default. Please use "
                      "`torch.serialization.add_safe_globals([{0}])` or the `torch.serialization.safe_globals([{0}])` "
                      "context manager to allowlist this global if you trust this class/function.")
NOT_SEEKABLE = ("'{}' object has no attribute 'seek'. You can only torch.load from a file that is seekable. Please "
                "pre-load the data into a buffer like io.BytesIO and try to load from it instead.")
CUDA_UNAVAILABLE = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
                    "are running on a CPU-only machine, please use torch.load with "
                    "map_location=torch.device('cpu') to map your storages to the CPU.")


# -- allow-listing ---------------------------------------------------------------------------------------------
def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes or functions (or ``(object, "module.name")`` pairs) in weights-only loads."""
    _user_safe.extend(safe_globals)


def get_safe_globals() -> list:
    return list(_user_safe)


def clear_safe_globals() -> None:
    _user_safe.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list):
    """Allow these globals within the ``with`` block only."""
    before = list(_user_safe)
    _user_safe.extend(safe_globals)
    try:
        yield
    finally:
        _user_safe[:] = before


def _torch_name(module: str, name: str) -> str:
    """A global as torch's messages name it (builtins bare, this package as ``torch``)."""
    if module == "myautograd" or module.startswith("myautograd."):
        module = "torch" + module[len("myautograd"):]
    return name if module == "builtins" else f"{module}.{name}"


# -- saving ----------------------------------------------------------------------------------------------------
def _root(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class _Pickler(pickle.Pickler):
    """Pickles ``obj`` with tensors, dtypes and devices as references; collects the storages."""

    def __init__(self, file) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self.storages: list[np.ndarray] = []
        self._storage_of: dict[int, int] = {}
        self._tensor_ids: dict[int, int] = {}  # a tensor saved twice comes back as one object

    def persistent_id(self, obj):
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, _dtype.dtype):
            return ("dtype", obj.name)
        if isinstance(obj, device):
            return ("device", str(obj))
        if isinstance(obj, Size):
            return ("size", tuple(obj))
        return None

    def _tensor(self, tensor: Tensor) -> tuple:
        data = tensor._data
        location = str(tensor.device) if tensor.device.type == "cpu" else f"cuda:{tensor.device.index or 0}"
        if _backend.is_cpu_array(data):
            root = _root(data)
            shared = root.dtype == data.dtype and root.flags.c_contiguous
        else:
            data, shared = _backend.to_numpy(data), False
        if not shared:
            root = np.ascontiguousarray(data)
        key = id(root)
        if key not in self._storage_of:
            self._storage_of[key] = len(self.storages)
            self.storages.append(root)
        itemsize = data.dtype.itemsize or 1
        offset = (data.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // itemsize
        strides = tuple(s // itemsize for s in data.strides) if shared else tuple(
            s // itemsize for s in root.strides)
        kind = "parameter" if isinstance(tensor, Parameter) else "tensor"
        number = self._tensor_ids.setdefault(id(tensor), len(self._tensor_ids))
        return (kind, number, self._storage_of[key], int(offset), tuple(data.shape), strides, location,
                bool(tensor.requires_grad))


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Write ``obj`` to ``f`` (a path, or a file object with ``write``)."""
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {os.path.dirname(os.fspath(f))} does not exist.")
        with open(f, "wb") as handle:
            _write(obj, handle)
        return
    if not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    _write(obj, f)


def _write(obj, handle) -> None:
    buffer = io.BytesIO()
    pickler = _Pickler(buffer)
    pickler.dump(obj)
    payload = buffer.getvalue()
    handle.write(MAGIC + _LENGTH.pack(len(payload)) + payload + _LENGTH.pack(len(pickler.storages)))
    for storage in pickler.storages:
        np.save(handle, storage.reshape(-1), allow_pickle=False)


# -- loading ---------------------------------------------------------------------------------------------------
def _restore_location(location: str, map_location):
    """Where a tensor saved on ``location`` goes, by torch's rules for ``map_location``."""
    if map_location is None:
        return location
    if isinstance(map_location, dict):
        return map_location.get(location, location)
    if isinstance(map_location, (str, device)):
        return str(map_location)
    return map_location  # a callable: decided per tensor


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storages: list[np.ndarray], map_location, weights_only: bool) -> None:
        super().__init__(file)
        self.storages = storages
        self.map_location = map_location
        self.weights_only = weights_only
        self.tensors: dict[int, Tensor] = {}

    def find_class(self, module: str, name: str):
        if not self.weights_only or (module, name) in _ALLOWED or self._user_allowed(module, name):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(WEIGHTS_ONLY_FAILED.format(
            UNSUPPORTED_GLOBAL.format(_torch_name(module, name))))

    @staticmethod
    def _user_allowed(module: str, name: str) -> bool:
        for entry in _user_safe:
            if isinstance(entry, tuple):
                if entry[1] == f"{module}.{name}":
                    return True
            elif getattr(entry, "__module__", None) == module and getattr(entry, "__qualname__", None) == name:
                return True
        return False

    def persistent_load(self, pid):
        kind = pid[0]
        if kind == "dtype":
            return _dtype.BY_NAME[pid[1]]
        if kind == "device":
            return as_device(pid[1])
        if kind == "size":
            return Size(pid[1])
        _, number, index, offset, shape, strides, location, requires_grad = pid
        if number not in self.tensors:
            self.tensors[number] = self._tensor(kind, index, offset, shape, strides, location, requires_grad)
        return self.tensors[number]

    def _tensor(self, kind, index, offset, shape, strides, location, requires_grad) -> Tensor:
        storage = self.storages[index]
        itemsize = storage.dtype.itemsize or 1
        data = np.lib.stride_tricks.as_strided(storage[offset:], shape=shape,
                                               strides=tuple(s * itemsize for s in strides))
        target = _restore_location(location, self.map_location)
        if callable(target):
            chosen = target(make_tensor(data), location)
            target = chosen.device if isinstance(chosen, Tensor) else location
        target = as_device(target)
        if target.type == "cuda":
            if not _backend.cuda_available():
                raise RuntimeError(CUDA_UNAVAILABLE)
            data = _backend.to_device(np.ascontiguousarray(data), target)
        tensor = make_tensor(data, requires_grad=requires_grad and kind == "tensor")
        return Parameter(tensor, requires_grad=requires_grad) if kind == "parameter" else tensor


def _read_exact(handle, count: int) -> bytes:
    data = handle.read(count)
    if len(data) != count:
        raise EOFError("")
    return data


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Read back what ``save`` wrote (tensors on their devices, or as ``map_location`` says)."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            return _read(handle, map_location, weights_only)
    if not hasattr(f, "seek"):
        raise AttributeError(NOT_SEEKABLE.format(type(f).__name__))
    return _read(f, map_location, weights_only)


def _read(handle, map_location, weights_only: bool):
    head = handle.read(len(MAGIC))
    if not head:
        raise EOFError("")
    if head != MAGIC:
        raise pickle.UnpicklingError("not a file written by myautograd's torch.save (files written by torch itself "
                                     "cannot be read)")
    (length,) = _LENGTH.unpack(_read_exact(handle, _LENGTH.size))
    payload = _read_exact(handle, length)
    (count,) = _LENGTH.unpack(_read_exact(handle, _LENGTH.size))
    storages = []
    for _ in range(count):
        storage = np.load(handle, allow_pickle=False)
        storages.append(storage if storage.flags.writeable else storage.copy())
    return _Unpickler(io.BytesIO(payload), storages, map_location, weights_only).load()


__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]
