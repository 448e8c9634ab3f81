"""``torch.nn.functional.pad``: constant, reflect, replicate and circular padding, as torch does each.

``pad`` lists (before, after) pairs from the last dim backwards. Constant padding is one op
(``ConstantPadNdBackward0``; negative pads crop). Reflect and replicate gather every output
element from a source element, per padded dim (``ReflectionPad1DBackward0``, ...), and their
gradients add up where several outputs share a source. Circular padding is torch's composition:
a new tensor written through slices (``CopySlices``).
"""

from __future__ import annotations

import numpy as np

from .._autograd.formula_math import BACKWARD_KERNELS, ArrayMath
from .._autograd.record import recorded
from .._tensor import Tensor
from .derivatives import NODES

_NON_CONSTANT_DIMS = {2: (2, 3), 4: (3, 4), 6: (4, 5)}  # pad length -> the input ranks torch accepts


def _pairs(pad) -> list[tuple[int, int]]:
    """(before, after) per padded dim, from the last dim backwards."""
    return [(int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(len(pad) // 2)]


def _check_length(pad, ndim: int) -> None:
    if len(pad) > 2 * ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {ndim}")


def _check_non_constant(pad, ndim: int) -> None:
    """Reflect, replicate and circular padding pad the last 1, 2 or 3 dims of an input with or without its batch dim."""
    _check_length(pad, ndim)
    if ndim not in _NON_CONSTANT_DIMS.get(len(pad), ()):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def constant_pad(input: Tensor, pad, value) -> Tensor:
    data = input._data
    pairs = _pairs(pad)
    _check_length(pad, data.ndim)
    widths = [(0, 0)] * data.ndim
    crop = [slice(None)] * data.ndim
    for i, (before, after) in enumerate(pairs):
        dim = data.ndim - 1 - i
        widths[dim] = (max(before, 0), max(after, 0))
        crop[dim] = slice(max(-before, 0), data.shape[dim] - max(-after, 0))
    cropped = data[tuple(crop)]
    out = np.pad(cropped, widths, constant_values=data.dtype.type(value))
    return recorded(NODES["ConstantPadNdBackward0"], out, (input,), {"pad": tuple(pad)})


def _source(position: np.ndarray, size: int, mode: str) -> np.ndarray:
    if mode == "replicate":
        return np.clip(position, 0, size - 1)
    position = np.abs(position)  # reflect: -1 -> 1, and past the end back from size - 1
    return np.where(position >= size, 2 * (size - 1) - position, position)


def gather_pad(input: Tensor, pad, mode: str) -> Tensor:
    data = input._data
    pairs = _pairs(pad)
    if mode == "reflect":
        for i, (before, after) in enumerate(pairs):
            dim = data.ndim - 1 - i
            if before >= data.shape[dim] or after >= data.shape[dim]:
                raise RuntimeError(f"Argument #{len(pad) + 2}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
                                   f"{list(data.shape)}")
    padded = len(pairs)
    key: list = [slice(None)] * (data.ndim - padded)
    for i in range(padded):
        dim = data.ndim - padded + i
        before, after = pairs[padded - 1 - i]
        positions = _source(np.arange(-before, data.shape[dim] + after), data.shape[dim], mode)
        key.append(positions.reshape((-1,) + (1,) * (padded - 1 - i)))
    key = tuple(key)
    out = data[key]
    node = f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{padded}DBackward0"
    return recorded(NODES[node], out, (input,), {"key": key})


def _gather_pad_backward(grad, x, key):
    """Each output's gradient added at the element it was copied from."""
    return ArrayMath.index_put_zeros(x.shape, grad, key, grad, True)


BACKWARD_KERNELS["gather_pad_backward"] = _gather_pad_backward


def circular_pad(input: Tensor, pad) -> Tensor:
    """torch's ``_pad_circular``: the input copied into the middle of a new tensor, then each side
    copied from the opposite end, dim by dim."""
    from .creation import empty

    pairs = _pairs(pad)
    ndim = input.dim()
    shape = list(input.shape)
    for i, (before, after) in enumerate(pairs):
        shape[ndim - 1 - i] += before + after
    out = empty(*shape, dtype=input.dtype, device=input.device)
    out_slice, in_slice = out, input
    for i, (before, after) in enumerate(pairs):
        dim = ndim - 1 - i
        out_slice = out_slice.narrow(dim, max(before, 0), shape[dim] - max(before, 0) - max(after, 0))
        in_slice = in_slice.narrow(dim, max(-before, 0), input.shape[dim] - max(-before, 0) - max(-after, 0))
    out_slice.copy_(in_slice)
    for i, (before, after) in enumerate(pairs):
        dim = ndim - 1 - i
        if before > 0:
            out.narrow(dim, 0, before).copy_(out.narrow(dim, shape[dim] - before - max(after, 0), before))
        if after > 0:
            out.narrow(dim, shape[dim] - after, after).copy_(out.narrow(dim, max(before, 0), after))
    return out


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "constant":
        return constant_pad(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode in ("reflect", "replicate", "circular"):
        _check_non_constant(pad, input.dim())
    if mode in ("reflect", "replicate"):
        return gather_pad(input, pad, mode)
    if mode == "circular":
        return circular_pad(input, pad)
    raise NotImplementedError(f"Unrecognised padding mode {mode}")
