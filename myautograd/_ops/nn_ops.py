"""Neural-network ops behind ``myautograd.nn.functional``: activations, dropout and losses.

Each records the node torch records (``MseLossBackward0``, ``NllLossBackward0`` after
``LogSoftmaxBackward0`` for cross-entropy, ...), with the formulas in ``derivatives.py``.
These take a checked ``reduction`` ("none", "mean" or "sum"); ``nn.functional`` is the one layer
that reads the user's arguments (deprecated ``size_average``/``reduce``, probability targets,
label smoothing, weights) and calls them.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _backend
from .._autograd.record import recorded
from .._tensor import Tensor, make_tensor
from .creation import default_generator
from .derivatives import NODES
from .formula_helpers import nll_selection
from .reduction import log_softmax

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def reduction_code(reduction: str) -> int:
    """torch's code for a reduction: 0 none, 1 mean, 2 sum."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def check_class_targets(target: Tensor) -> None:
    if target.dtype.scalar_type_name not in ("Long", "Byte"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_type_name}")


def _reduce(values, code: int):
    if code == 1:
        return _backend.as_array(values.mean(), dtype=values.dtype)
    if code == 2:
        return _backend.as_array(values.sum(), dtype=values.dtype)
    return values


def _size_warning(input: Tensor, target: Tensor, name: str) -> None:
    if input.shape != target.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=3)


def mse_loss(input, target, reduction="mean"):
    _size_warning(input, target, "mse_loss")
    code = reduction_code(reduction)
    a, b = np.broadcast_arrays(input._data, target._data)
    if a.shape != input._data.shape:
        return ((input - target) ** 2).mean() if code == 1 else ((input - target) ** 2).sum() if code == 2 \
            else (input - target) ** 2
    diff = a - b
    return recorded(NODES["MseLossBackward0"], _reduce(diff * diff, code), (input, target), {"reduction": code})


def l1_loss(input, target, reduction="mean"):
    _size_warning(input, target, "l1_loss")
    code = reduction_code(reduction)
    difference = input - target
    absolute = difference.abs()
    return absolute.mean() if code == 1 else absolute.sum() if code == 2 else absolute


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    code = reduction_code(reduction)
    check_class_targets(target)
    data = input._data
    key, safe, weights = nll_selection(data.shape, target._data, ignore_index,
                                       None if weight is None else weight._data)
    classes = data.shape[1 if data.ndim >= 2 else 0]
    if safe.size and (safe.min() < 0 or safe.max() >= classes):
        bad = int(safe[(safe < 0) | (safe >= classes)].reshape(-1)[0])
        raise IndexError(f"Target {bad} is out of bounds.")
    picked = data[key]
    if weights is None:
        losses = -picked
        total = _backend.host_value(picked.size, data, data.dtype)
    else:
        losses = -picked * weights.astype(data.dtype)
        total = _backend.as_array(weights.sum(), dtype=data.dtype)
    if code == 1:
        out = _backend.as_array(losses.sum() / total, dtype=data.dtype)
    elif code == 2:
        out = _backend.as_array(losses.sum(), dtype=data.dtype)
    else:
        out = losses
    return recorded(NODES["NllLossBackward0"], out, (input,),
                     {"target": target, "weight": weight, "reduction": code, "ignore_index": ignore_index,
                      "total_weight": make_tensor(total)})


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Cross-entropy against class indices: ``nll_loss(log_softmax(input))``, as torch composes it."""
    return nll_loss(log_softmax(input, 1 if input.dim() >= 2 else 0), target, weight, ignore_index, reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    code = reduction_code(reduction)
    if input.shape != target.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    x, y = input._data, target._data
    log_x = np.maximum(np.log(x), -100)
    log_1mx = np.maximum(np.log1p(-x), -100)
    losses = -(y * log_x + (1 - y) * log_1mx)
    if weight is not None:
        losses = losses * weight._data
    return recorded(NODES["BinaryCrossEntropyBackward0"], _reduce(losses.astype(x.dtype), code), (input, target),
                     {"weight": weight, "reduction": code})


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    code = reduction_code(reduction)
    x, y = input._data, target._data
    softplus_neg = np.logaddexp(0, -x)
    if pos_weight is None:
        losses = (1 - y) * x + softplus_neg
    else:
        factor = 1 + (pos_weight._data - 1) * y
        losses = (1 - y) * x + factor * softplus_neg
    if weight is not None:
        losses = losses * weight._data
    return recorded(NODES["BinaryCrossEntropyWithLogitsBackward0"], _reduce(losses.astype(x.dtype), code), (input, target),
                     {"weight": weight, "pos_weight": pos_weight, "reduction": code})


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    uniform = _backend.to_device(default_generator.rng.random(input._data.shape), input.device)
    keep = (uniform >= p).astype(input._data.dtype)
    scale = 1.0 / (1 - p)
    if _backend.is_cpu_array(input._data):
        # torch's CPU kernel: the input times a noise tensor of 0 and 1 / (1 - p), MulBackward0
        return input * make_tensor(keep * np.asarray(scale, dtype=keep.dtype))
    # torch's fused CUDA kernel: NativeDropoutBackward0
    return recorded(NODES["NativeDropoutBackward0"], input._data * keep * scale, (input,),
                     {"mask": make_tensor(keep), "scale": scale})
