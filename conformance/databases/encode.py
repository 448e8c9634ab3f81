"""Values of torch's sample databases written as JSON data, on the reference side.

``encode`` turns what a database entry holds (numbers, strings, tuples, dicts, tensors, dtypes,
devices, functions of ``torch.nn.functional``) into plain JSON; ``Unrenderable`` says why a value
cannot be (a lambda, a module instance, ...), and the sample that holds it becomes a reported skip.

Tagged forms (every other value is a JSON scalar or a list)::

    {"tuple": [...]}     {"dict": [[key, value], ...]}     {"function": "torch.nn.functional.gelu"}
    {"tensor": nested values, "dtype": "float"|"int64"|"bool"|..., "shape": [...], "requires_grad": bool}
    {"dtype": "float"|"int64"|...}     {"device": true}

A floating tensor or dtype is written as ``"float"``: the scenario gives it the dtype its item runs
with (float32 or float64), so one rendering (taken in float64) serves both.
"""

from __future__ import annotations

import math
from typing import Any


class Unrenderable(ValueError):
    """A value the catalog cannot rebuild on the implementation side."""


def dtype_name(dtype: Any) -> str:
    return "float" if dtype.is_floating_point else str(dtype).removeprefix("torch.")


def _scalar(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def encode(value: Any) -> Any:
    import torch

    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"float": _scalar(value)} if not math.isfinite(value) else value
    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided or value.is_complex() or value.dtype in (torch.float16, torch.bfloat16):
            raise Unrenderable(f"a {value.dtype} tensor of layout {value.layout}")
        data = value.detach().to("cpu")
        values = data.tolist()
        if data.is_floating_point():
            values = _finite(values)
        return {"tensor": values, "dtype": dtype_name(value.dtype), "shape": list(value.shape),
                "requires_grad": bool(value.requires_grad)}
    if isinstance(value, torch.dtype):
        return {"dtype": dtype_name(value)}
    if isinstance(value, torch.device):
        return {"device": True}
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {"dict": [[encode(key), encode(item)] for key, item in value.items()]}
    module = getattr(value, "__module__", "") or ""
    name = getattr(value, "__name__", "")
    if callable(value) and module.startswith("torch") and name and not name.startswith("<"):
        for home in ("torch.nn.functional", "torch"):
            owner = torch.nn.functional if home == "torch.nn.functional" else torch
            if getattr(owner, name, None) is value:
                return {"function": f"{home}.{name}"}
    raise Unrenderable(f"a {type(value).__name__} value ({name or type(value).__qualname__})")


def _finite(values: Any) -> Any:
    if isinstance(values, list):
        return [_finite(item) for item in values]
    return values if math.isfinite(values) else {"float": _scalar(values)}
