"""Turn what a scenario observes into plain JSON data, the same way on every implementation.

This is the contract between the suite and an implementation (``docs/writing-an-adapter.md``
explains it for adapter authors). Encoding (JSON-safe, so observations can cross process
boundaries and land in reports):

* ``None``, ``bool``, ``str`` stay as they are; ints too, up to ``bounds.INT_BITS_LIMIT`` bits
  (larger ones become ``{"t": "bigint", "bits", "sha256"}``); finite floats too.
* Non-finite floats become ``{"t": "float", "v": "nan" | "inf" | "-inf"}``; complex numbers
  ``{"t": "complex", "re": ..., "im": ...}``.
* A tensor (an instance of ``namespace.Tensor``) becomes ``{"t": "tensor", "dtype": repr(t.dtype),
  "shape": list(t.shape), "device": str(t.device), "values": t.tolist(), "requires_grad",
  "is_leaf", "grad_fn": t.grad_fn.name(), "retains_grad", "grad"?, "version"?}``. ``grad`` is
  read where reading it cannot warn (leaves, tensors that retain grad, and tensors of an engine
  without ``is_leaf``); ``version``
  (``t._version``) only when the scenario asks.
* A graph node (an instance of ``namespace.autograd.graph.Node``, or anything with
  ``next_functions`` and a ``name()`` method) becomes ``{"t": "node", "name": node.name()}``.
* Tuples, lists, dicts, ``namespace.Size``, dtypes (``type(namespace.float32)``), devices
  (``namespace.device``), types and NumPy arrays have their own tags; anything else becomes
  ``{"t": "object", "type": ..., "repr": ...}``.

Reading an attribute that the implementation's API lacks gives ``{"t": "unsupported", "name":
"Tensor.retains_grad"}`` (see ``surface``); a read that raises anything else gives ``{"t":
"error", "type", "message"}``: an error is an observation too. Every text is cut to
``bounds.TEXT_LIMIT``, values to ``bounds.VALUES_LIMIT`` elements and ``bounds.DEPTH_LIMIT``
levels, with ``{"t": "cut", "why": ...}`` in place of what was left out. Warnings raised while
the snapshot itself reads attributes are not part of the observation (the recorder discards
them): only what the scenario does is observed.
"""

from __future__ import annotations

import hashlib
import math
import traceback
from typing import Any

from .bounds import DEPTH_LIMIT, INT_BITS_LIMIT, TEXT_LIMIT, VALUES_LIMIT, cut_text, safe_repr, safe_str
from .surface import Surface

UNSUPPORTED = "unsupported"


class Cut(Exception):
    """A value went past one of the bounds; ``why`` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def cut(why: str) -> dict:
    return {"t": "cut", "why": why}


# -- scalars -----------------------------------------------------------------------------------
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


def encode_int(value: int) -> Any:
    value = int(value)
    bits = value.bit_length()
    if bits <= INT_BITS_LIMIT:
        return value
    digest = hashlib.sha256(value.to_bytes((bits + 8) // 8, "little", signed=True)).hexdigest()
    return {"t": "bigint", "bits": bits, "sha256": digest}


def encode_scalar(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return cut_text(value)
    if isinstance(value, int):
        return encode_int(value)
    if isinstance(value, float):
        return encode_float(value)
    if isinstance(value, complex):
        return {"t": "complex", "re": encode_float(value.real), "im": encode_float(value.imag)}
    return encode_float(float(value))


class _Budget:
    """Counts the elements encoded for one tensor's values."""

    def __init__(self, limit: int = VALUES_LIMIT) -> None:
        self.left = limit

    def take(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise Cut(f"more than {VALUES_LIMIT} elements")


def encode_values(values: Any, depth: int = 0, budget: _Budget | None = None) -> Any:
    """Encode the nested lists that ``tolist()`` returns (bounded in size and depth)."""
    budget = budget or _Budget()
    if depth > DEPTH_LIMIT:
        raise Cut(f"nested deeper than {DEPTH_LIMIT} levels")
    if isinstance(values, (list, tuple)):
        return [encode_values(v, depth + 1, budget) for v in values]
    budget.take()
    if isinstance(values, (bool, int, float, complex)) or values is None:
        return encode_scalar(values)
    return {"t": "object", "type": qualified_type_name(type(values)), "repr": safe_repr(values, 200)}


def bounded_values(values: Any) -> Any:
    try:
        return encode_values(values)
    except Cut as exc:
        return cut(exc.why)


# -- exceptions --------------------------------------------------------------------------------
TRACEBACK_FRAMES = 40       # the innermost frames of a traceback that are kept
TRACEBACK_LIMIT = 8_000     # characters of a traceback
_HARNESS_FRAMES = ("conformance/recorder.py", "conformance/gradtrace.py", "contextlib.py")


def exception_info(exc: BaseException, missing: dict | None = None, with_traceback: bool = False) -> dict:
    info = {"type": qualified_type_name(type(exc)), "message": safe_str(exc)}
    if missing is not None:
        info["missing"] = missing
    if with_traceback:
        text = traceback_text(exc)
        if text:
            info["traceback"] = text
    return info


def traceback_text(exc: BaseException) -> str:
    """Where ``exc`` was raised, innermost frame last, as Python prints it, without the frames of
    the harness that ran the scenario; bounded (``TRACEBACK_FRAMES``, ``TRACEBACK_LIMIT``). File
    names under the suite's root read relative to it (``case.shown_path``). Empty when the
    traceback cannot be read (an implementation may tamper with it)."""
    from .case import shown_path

    try:
        frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
                  if not frame.filename.replace("\\", "/").endswith(_HARNESS_FRAMES)]
        lines = []
        if len(frames) > TRACEBACK_FRAMES:
            lines.append(f"  ... {len(frames) - TRACEBACK_FRAMES} outer frames left out")
            frames = frames[-TRACEBACK_FRAMES:]
        for frame in frames:
            lines.append(f'  File "{shown_path(frame.filename)}", line {frame.lineno}, in {frame.name}')
            if frame.line:
                lines.append(f"    {frame.line.strip()}")
        return cut_text("\n".join(lines), TRACEBACK_LIMIT)
    except Exception:  # noqa: BLE001 - a traceback (or frame) the implementation made unreadable
        return ""


def qualified_type_name(cls: type) -> str:
    try:
        module = cls.__module__
        qualname = cls.__qualname__
        if not isinstance(module, str) or not isinstance(qualname, str):
            raise TypeError
    except BaseException:  # noqa: BLE001 - a class of the implementation with odd attributes
        return cut_text(safe_repr(cls), 200)
    return cut_text(qualname if module in ("builtins", "") else f"{module}.{qualname}", 400)


# -- the snapshot ------------------------------------------------------------------------------
class Snapshotter:
    """Encodes values observed on one namespace (torch or the implementation under test)."""

    def __init__(self, namespace: Any, surface: Surface | None = None) -> None:
        self.ns = namespace
        self.surface = surface or Surface(namespace)
        self.tensor_type = _type_attribute(namespace, "Tensor")
        graph = _quiet(lambda: namespace.autograd.graph)
        self.node_type = _type_attribute(graph, "Node")
        dtype_example = _quiet(lambda: namespace.float32)
        self.dtype_type = type(dtype_example) if dtype_example is not None else None
        if self.dtype_type in (int, float, str, bool, type(None), type):
            self.dtype_type = None
        self.size_type = _type_attribute(namespace, "Size")
        if self.size_type in (tuple, list):
            self.size_type = None
        self.device_type = _type_attribute(namespace, "device")

    def encode(self, value: Any, version: bool = False, depth: int = 0) -> Any:
        try:
            return self._encode(value, version, depth)
        except Cut as exc:
            return cut(exc.why)
        except RecursionError:
            return cut("nested too deeply to encode")

    # -- dispatch -------------------------------------------------------------------------
    def _encode(self, value: Any, version: bool, depth: int) -> Any:
        if depth > DEPTH_LIMIT:
            raise Cut(f"nested deeper than {DEPTH_LIMIT} levels")
        if value is None or isinstance(value, (bool, int, float, complex, str)):
            return encode_scalar(value)
        if self.is_tensor(value):
            return self.tensor(value, version)
        if self.is_node(value):
            return {"t": "node", "name": node_name(value)}
        if _is_instance(value, self.size_type):
            return {"t": "size", "items": [encode_int(v) for v in list(value)[:VALUES_LIMIT]]}
        if _is_instance(value, self.dtype_type):
            return {"t": "dtype", "repr": safe_repr(value, 400)}
        if _is_instance(value, self.device_type):
            return {"t": "device", "repr": safe_repr(value, 400)}
        if isinstance(value, tuple):
            return {"t": "tuple", "items": [self._encode(v, version, depth + 1) for v in value[:VALUES_LIMIT]]}
        if isinstance(value, list):
            return [self._encode(v, version, depth + 1) for v in value[:VALUES_LIMIT]]
        if isinstance(value, dict):
            return {"t": "dict", "items": [[self._encode(k, False, depth + 1), self._encode(v, version, depth + 1)]
                                           for k, v in list(value.items())[:VALUES_LIMIT]]}
        if isinstance(value, type):
            return {"t": "type", "name": qualified_type_name(value)}
        if isinstance(value, BaseException):
            return {"t": "exception", **exception_info(value)}
        if type(value).__module__ == "numpy":
            return self.numpy_value(value)
        return {"t": "object", "type": qualified_type_name(type(value)), "repr": safe_repr(value)}

    def is_tensor(self, value: Any) -> bool:
        if self.tensor_type is not None:
            return _is_instance(value, self.tensor_type)
        return _has(value, "requires_grad") and _has(value, "shape")

    def is_node(self, value: Any) -> bool:
        if _is_instance(value, self.node_type):
            return True
        return _has(value, "next_functions") and callable(_quiet(lambda: value.name))

    # -- tensors --------------------------------------------------------------------------
    def tensor(self, t: Any, version: bool) -> dict:
        snap: dict[str, Any] = {"t": "tensor"}
        snap["dtype"] = self.read(t, "dtype", lambda v: safe_repr(v, 400))
        snap["shape"] = self.read(t, "shape", lambda v: [encode_int(n) for n in list(v)[:DEPTH_LIMIT]])
        snap["device"] = self.read(t, "device", lambda v: safe_str(v, 400))
        snap["values"] = self.read(_materialized(t), "tolist", lambda method: bounded_values(method()))
        snap["requires_grad"] = self.read(t, "requires_grad", bool)
        snap["is_leaf"] = self.read(t, "is_leaf", bool)
        snap["grad_fn"] = self.read(t, "grad_fn", lambda v: None if v is None else node_name(v))
        snap["retains_grad"] = self.read(t, "retains_grad", bool)
        # .grad of a non-leaf warns on torch; read it where the tensor is a leaf, retains its grad,
        # or cannot tell (an engine without is_leaf)
        if snap["is_leaf"] is not False or snap["retains_grad"] is True:
            snap["grad"] = self.read(t, "grad", lambda v: self._encode(v, False, 1))
        if version:
            snap["version"] = self.read(t, "_version", encode_int)
        return snap

    def read(self, owner: Any, attribute: str, convert) -> Any:
        """``convert(owner.<attribute>)``; a missing API name or a raised error is recorded."""
        try:
            value = getattr(owner, attribute)
        except AttributeError as exc:
            deeper = _deeper_frames(exc)
            missing = self.surface.missing_attribute(exc, owner, attribute, deeper)
            if missing is not None:
                return {"t": UNSUPPORTED, "name": missing["name"], "detail": safe_str(exc, 400)}
            return {"t": "error", **exception_info(exc)}
        except Cut:
            raise
        except Exception as exc:  # an error is an observation too (e.g. _version of inference tensors)
            return {"t": "error", **exception_info(exc)}
        try:
            return convert(value)
        except Cut as exc:
            return cut(exc.why)
        except RecursionError:
            return cut("nested too deeply to encode")
        except Exception as exc:
            return {"t": "error", **exception_info(exc)}

    def numpy_value(self, value: Any) -> dict:
        import numpy as np

        array = np.asarray(value)
        return {
            "t": "ndarray" if isinstance(value, np.ndarray) else "numpy_scalar",
            "dtype": str(array.dtype),
            "shape": list(array.shape),
            "values": bounded_values(array.tolist()) if array.size <= VALUES_LIMIT else cut(
                f"more than {VALUES_LIMIT} elements"),
        }


def node_name(node: Any) -> str:
    name = _quiet(lambda: node.name)
    if callable(name):
        return safe_str(name(), 400)
    return qualified_type_name(type(node)).rsplit(".", 1)[-1]


# -- helpers -----------------------------------------------------------------------------------
def _quiet(getter) -> Any:
    try:
        return getter()
    except BaseException:  # noqa: BLE001 - a namespace attribute of the implementation that raises
        return None


def _type_attribute(owner: Any, name: str) -> type | None:
    value = _quiet(lambda: getattr(owner, name)) if owner is not None else None
    return value if isinstance(value, type) else None


def _is_instance(value: Any, cls: type | None) -> bool:
    if cls is None:
        return False
    try:
        return isinstance(value, cls)
    except Exception:  # noqa: BLE001 - an __instancecheck__ of the implementation
        return False


def _has(value: Any, name: str) -> bool:
    try:
        return hasattr(value, name)
    except BaseException:  # noqa: BLE001
        return False


def _materialized(t: Any) -> Any:
    """``t``, or a clone of it when it is one of torch's efficient zero tensors (``_is_zerotensor()``):
    what some of torch's backward formulas return for a derivative that is zero (sgn's, so the second
    derivative of abs). It has no storage and refuses ``tolist()``; its values are zeros, and how an
    engine stores a zero gradient is no behaviour to compare."""
    check = getattr(t, "_is_zerotensor", None)
    try:
        return t.clone() if callable(check) and check() is True else t
    except Exception:  # an engine's odd method: read the tensor itself
        return t


def _deeper_frames(exc: BaseException) -> list[str]:
    """Names of the frames below the one that caught ``exc`` (the lookup machinery, if any)."""
    names = []
    tb = exc.__traceback__
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names


__all__ = ["Snapshotter", "TEXT_LIMIT", "decode_float", "encode_float", "exception_info", "node_name",
           "qualified_type_name"]
