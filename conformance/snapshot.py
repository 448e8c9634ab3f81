"""Turn what a scenario observes into plain JSON data, the same way on every implementation.

Encoding (JSON-safe, so observations can cross process boundaries and land in reports):

* ``None``, ``bool``, ``int``, ``str`` stay as they are; finite floats too.
* Non-finite floats become ``{"t": "float", "v": "nan" | "inf" | "-inf"}``; complex numbers
  ``{"t": "complex", "re": ..., "im": ...}``.
* A tensor becomes ``{"t": "tensor", "dtype", "shape", "device", "values", "requires_grad",
  "is_leaf", "grad_fn", "retains_grad", "grad"?, "version"?}``. ``grad`` is recorded only where
  reading it cannot warn (leaves and tensors that retain grad); ``version`` only when asked.
* A graph node becomes ``{"t": "node", "name": node.name()}``.
* Tuples, lists, dicts, ``torch.Size``, dtypes, devices, types and NumPy arrays have their own
  tags; anything else becomes ``{"t": "object", "type": ..., "repr": ...}``.

Reading an attribute that the implementation lacks gives ``{"t": "unsupported", "name": ...}``;
an attribute read that raises gives ``{"t": "error", "type": ..., "message": ...}``. Warnings
raised while the snapshot itself reads attributes are not part of the observation (the recorder
discards them): only what the scenario does is observed.
"""

from __future__ import annotations

import math
import re
from typing import Any

UNSUPPORTED = "unsupported"


def encode_float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {"t": "float", "v": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def decode_float(value: Any) -> Any:
    if isinstance(value, dict) and value.get("t") == "float":
        return float(value["v"])
    if isinstance(value, dict) and value.get("t") == "complex":
        return complex(decode_float(value["re"]), decode_float(value["im"]))
    return value


def encode_scalar(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return encode_float(value)
    if isinstance(value, complex):
        return {"t": "complex", "re": encode_float(value.real), "im": encode_float(value.imag)}
    return encode_float(float(value))


def encode_values(values: Any) -> Any:
    """Encode the nested lists that ``tolist()`` returns."""
    if isinstance(values, (list, tuple)):
        return [encode_values(v) for v in values]
    return encode_scalar(values)


def exception_info(exc: BaseException) -> dict:
    info = {"type": qualified_type_name(type(exc)), "message": str(exc)}
    missing = unsupported_name(exc)
    if missing is not None:
        info["missing"] = missing
    return info


def qualified_type_name(cls: type) -> str:
    module = getattr(cls, "__module__", "")
    if module in ("builtins", ""):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def unsupported_name(exc: BaseException) -> str | None:
    """The API name an AttributeError / NotImplementedError says is missing, if it is one."""
    if isinstance(exc, AttributeError):
        name = getattr(exc, "name", None)
        if name:
            return name
        found = re.search(r"has no attribute '([^']+)'", str(exc))
        return found.group(1) if found else str(exc)
    if isinstance(exc, NotImplementedError):
        return str(exc) or "NotImplementedError"
    return None


class Snapshotter:
    """Encodes values observed on one namespace (torch or the implementation under test)."""

    def __init__(self, namespace: Any) -> None:
        self.ns = namespace
        self.tensor_type = getattr(namespace, "Tensor", None)
        graph = getattr(getattr(namespace, "autograd", None), "graph", None)
        self.node_type = getattr(graph, "Node", None)
        dtype_example = getattr(namespace, "float32", None)
        self.dtype_type = type(dtype_example) if dtype_example is not None else None
        self.size_type = getattr(namespace, "Size", None)
        device_ctor = getattr(namespace, "device", None)
        self.device_type = device_ctor if isinstance(device_ctor, type) else None

    # -- dispatch -------------------------------------------------------------------------
    def encode(self, value: Any, version: bool = False) -> Any:
        if value is None or isinstance(value, (bool, int, float, complex, str)):
            return encode_scalar(value)
        if self.is_tensor(value):
            return self.tensor(value, version)
        if self.is_node(value):
            return {"t": "node", "name": node_name(value)}
        if self.size_type is not None and isinstance(value, self.size_type):
            return {"t": "size", "items": [int(v) for v in value]}
        if self.dtype_type is not None and isinstance(value, self.dtype_type):
            return {"t": "dtype", "repr": repr(value)}
        if self.device_type is not None and isinstance(value, self.device_type):
            return {"t": "device", "repr": repr(value)}
        if isinstance(value, tuple):
            return {"t": "tuple", "items": [self.encode(v, version) for v in value]}
        if isinstance(value, list):
            return [self.encode(v, version) for v in value]
        if isinstance(value, dict):
            return {"t": "dict", "items": [[self.encode(k), self.encode(v, version)] for k, v in value.items()]}
        if isinstance(value, type):
            return {"t": "type", "name": qualified_type_name(value)}
        if isinstance(value, BaseException):
            return {"t": "exception", **exception_info(value)}
        if type(value).__module__ == "numpy":
            return self.numpy_value(value)
        return {"t": "object", "type": qualified_type_name(type(value)), "repr": repr(value)}

    def is_tensor(self, value: Any) -> bool:
        if self.tensor_type is not None:
            return isinstance(value, self.tensor_type)
        return hasattr(value, "requires_grad") and hasattr(value, "shape")

    def is_node(self, value: Any) -> bool:
        if self.node_type is not None and isinstance(value, self.node_type):
            return True
        return hasattr(value, "next_functions") and callable(getattr(value, "name", None))

    # -- tensors --------------------------------------------------------------------------
    def tensor(self, t: Any, version: bool) -> dict:
        snap: dict[str, Any] = {"t": "tensor"}
        snap["dtype"] = read(lambda: repr(t.dtype), "dtype")
        snap["shape"] = read(lambda: [int(n) for n in t.shape], "shape")
        snap["device"] = read(lambda: str(t.device), "device")
        snap["values"] = read(lambda: encode_values(t.tolist()), "tolist")
        snap["requires_grad"] = read(lambda: bool(t.requires_grad), "requires_grad")
        snap["is_leaf"] = read(lambda: bool(t.is_leaf), "is_leaf")
        snap["grad_fn"] = read(lambda: None if t.grad_fn is None else node_name(t.grad_fn), "grad_fn")
        snap["retains_grad"] = read(lambda: bool(t.retains_grad), "retains_grad")
        if snap["is_leaf"] is True or snap["retains_grad"] is True:
            snap["grad"] = read(lambda: self.encode(t.grad), "grad")
        if version:
            snap["version"] = read(lambda: int(t._version), "_version")
        return snap

    def numpy_value(self, value: Any) -> dict:
        import numpy as np

        array = np.asarray(value)
        return {
            "t": "ndarray" if isinstance(value, np.ndarray) else "numpy_scalar",
            "dtype": str(array.dtype),
            "shape": list(array.shape),
            "values": encode_values(array.tolist()),
        }


def node_name(node: Any) -> str:
    name = getattr(node, "name", None)
    if callable(name):
        return str(name())
    return type(node).__name__


def read(getter, attribute: str) -> Any:
    """Read one attribute for a snapshot, recording a missing API or a raised error."""
    try:
        return getter()
    except (AttributeError, NotImplementedError) as exc:
        return {"t": UNSUPPORTED, "name": attribute, "detail": str(exc)}
    except Exception as exc:  # an error is an observation too (e.g. _version of inference tensors)
        return {"t": "error", **exception_info(exc)}
