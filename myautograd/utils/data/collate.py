"""``default_collate`` (a list of samples into a batch) and ``default_convert`` (NumPy values
into tensors, without batching), with torch's type rules.

A batch of tensors is stacked along a new first dimension; NumPy arrays and scalars become
tensors first; Python floats make a float64 tensor, ints an int64 one (bools a bool one);
strings and bytes stay a list. Containers are collated field by field and keep their type:
mappings by key, named tuples by field, other sequences by position (plain tuples come back as
lists, as in torch).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence

import numpy as np

from ... import _dtype
from ..._ops.creation import as_tensor, tensor
from ..._ops.shape import stack
from ..._tensor import Tensor

_NOT_NUMERIC = re.compile(r"[SaUO]")  # NumPy dtype codes of strings and objects
COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _rebuild(template, values: dict | list):
    """A container like ``template`` holding ``values`` (a plain dict or list if that fails)."""
    try:
        if isinstance(template, MutableMapping):
            clone = copy.copy(template)
            clone.update(values)
            return clone
        if isinstance(template, MutableSequence):
            clone = copy.copy(template)
            for position, value in enumerate(values):
                clone[position] = value
            return clone
        return type(template)(values)
    except TypeError:
        return values


def default_convert(data):
    """NumPy arrays and scalars (at any depth of containers) as tensors; everything else unchanged."""
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _NOT_NUMERIC.search(data.dtype.str):
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(item) for item in data))
    if isinstance(data, tuple):
        return [default_convert(item) for item in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(item) for item in data])
    return data


def _collate_leaf(batch: list, first):
    """A batch of tensors, arrays, numbers or strings; ``None`` when ``first`` is none of those."""
    if isinstance(first, Tensor):
        return stack(batch, 0)
    if isinstance(first, np.ndarray):
        if _NOT_NUMERIC.search(first.dtype.str):
            raise TypeError(COLLATE_ERROR.format(first.dtype))
        return default_collate([as_tensor(item) for item in batch])
    if isinstance(first, (np.bool_, np.number, np.object_)):
        return as_tensor(np.asarray(batch))  # the scalars' NumPy type decides the dtype
    if isinstance(first, float):
        return tensor(batch, dtype=_dtype.float64)
    if isinstance(first, int):
        return tensor(batch)
    if isinstance(first, (str, bytes)):
        return batch
    return None


def default_collate(batch):
    """Samples into one batch, following the sample's structure (see the module docstring)."""
    first = batch[0]
    leaf = _collate_leaf(batch, first)
    if leaf is not None:
        return leaf
    if isinstance(first, Mapping):
        return _rebuild(first, {key: default_collate([sample[key] for sample in batch]) for key in first})
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(first, Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(column)) for column in zip(*batch)]
        return columns if isinstance(first, tuple) else _rebuild(first, columns)
    raise TypeError(COLLATE_ERROR.format(type(first)))


__all__ = ["default_collate", "default_convert"]
