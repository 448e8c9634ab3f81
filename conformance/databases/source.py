"""Encoded database values (``encode``) as Python source for a generated scenario.

The scenario names the namespace under test ``torch`` and has ``dtype`` (the float dtype its item
runs with) in scope; ``device=rec.device`` places every tensor. Floats are written with ``repr``,
which reads back to the same double.
"""

from __future__ import annotations

from typing import Any

from ..operators.values import literal


def number(value: Any) -> str:
    if isinstance(value, dict):  # {"float": "nan" | "inf" | "-inf"}
        return f"float({value['float']!r})"
    return literal(value)


def values_source(values: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(values_source(item) for item in values) + "]"
    return number(values)


def dtype_source(name: str) -> str:
    return "dtype" if name == "float" else f"torch.{name}"


def tensor_source(value: dict, requires_grad: bool | None = None) -> str:
    wants_grad = value["requires_grad"] if requires_grad is None else requires_grad
    grad = ", requires_grad=True" if wants_grad and value["dtype"] == "float" else ""
    text = f"torch.tensor({values_source(value['tensor'])}, dtype={dtype_source(value['dtype'])}, device=rec.device{grad})"
    if value["shape"] and 0 in value["shape"]:  # an empty tensor keeps its shape
        text = f"{text}.reshape({tuple(value['shape'])!r})"
    return text


def source_of(value: Any) -> str:
    """Source that rebuilds an encoded value on the namespace ``torch``."""
    if isinstance(value, list):
        return "[" + ", ".join(source_of(item) for item in value) + "]"
    if not isinstance(value, dict):
        return repr(value)
    if "float" in value:
        return number(value)
    if "tuple" in value:
        items = [source_of(item) for item in value["tuple"]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if "dict" in value:
        return "{" + ", ".join(f"{source_of(k)}: {source_of(v)}" for k, v in value["dict"]) + "}"
    if "tensor" in value:
        return tensor_source(value)
    if "dtype" in value:
        return dtype_source(value["dtype"])
    if "device" in value:
        return "rec.device"
    if "function" in value:
        return value["function"]
    raise ValueError(f"not an encoded value: {value!r}")


def tensors_in(value: Any) -> bool:
    """Whether an encoded value holds a tensor."""
    if isinstance(value, list):
        return any(tensors_in(item) for item in value)
    if isinstance(value, dict):
        if "tensor" in value:
            return True
        return any(tensors_in(item) for key, item in value.items() if key in ("tuple", "dict"))
    return False
