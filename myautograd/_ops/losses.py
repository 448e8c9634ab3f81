"""The loss functions of ``torch.nn.functional``, computed and recorded as torch's are.

Where torch has a loss kernel (``mse_loss``, ``smooth_l1_loss``, ``huber_loss``, ``nll_loss``,
``binary_cross_entropy``...) the loss is one op with torch's node, its value computed by the
kernel's formula; where torch composes (``l1_loss``, ``kl_div``, ``cross_entropy`` with
probabilities or label smoothing) the same composition of tensor ops is used, so the graph ends in
the same node. The formulas are in ``derivatives.py``. ``reduction`` is checked here, with torch's
error; ``nn.functional`` reads the user's legacy ``size_average``/``reduce``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _backend
from .._autograd.formula_math import BACKWARD_KERNELS, STEPWISE_KERNELS, ArrayMath
from .._autograd.record import recorded
from .._summation import sum_array
from .._tensor import Tensor, make_tensor
from . import formula_helpers_nn as HN
from .common import broadcast_shapes, refuse_requires_grad
from .derivatives import NODES
from .formula_helpers_nn import nll_backward, nll_selection
from .reduction import log_softmax
from .special import div_by_number, mul_by_number, xlogy
from .views import expand

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
EPSILON = np.float32(1e-12)  # torch's clamp of (1 - p) p in the BCE gradient: a float constant, also for doubles


def reduction_code(reduction: str) -> int:
    """torch's code for a reduction: 0 none, 1 mean, 2 sum."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def reduced(values, code: int):
    """A loss kernel's elementwise values reduced as torch's ``apply_loss_reduction``."""
    if code == 1:
        total = sum_array(values)
        return _backend.as_array(total / values.dtype.type(values.size) if values.size else
                                 total * values.dtype.type("nan"), dtype=values.dtype)
    if code == 2:
        return _backend.as_array(sum_array(values), dtype=values.dtype)
    return values


def reduce_tensor(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def size_warning(input: Tensor, target: Tensor) -> None:
    if input.shape != target.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=4)


def broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.broadcast_tensors(input, target)``: expanded views where a shape differs."""
    shape = broadcast_shapes(input._data.shape, target._data.shape)
    return (input if input.shape == shape else expand(input, shape),
            target if target.shape == shape else expand(target, shape))


# -- regression -------------------------------------------------------------------------------------------
def mse_loss(input, target, reduction="mean"):
    code = reduction_code(reduction)
    size_warning(input, target)
    input, target = broadcast_pair(input, target)
    difference = input._data - target._data
    return recorded(NODES["MseLossBackward0"], reduced(difference * difference, code), (input, target),
                    {"reduction": code})


def l1_loss(input, target, reduction="mean"):
    reduction_code(reduction)
    size_warning(input, target)
    input, target = broadcast_pair(input, target)
    return reduce_tensor((input - target).abs(), reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    code = reduction_code(reduction)
    size_warning(input, target)
    input, target = broadcast_pair(input, target)
    if beta == 0.0:
        return reduce_tensor((input - target).abs(), reduction)
    x = input._data
    z = np.abs(x - target._data)
    values = np.where(z < beta, x.dtype.type(0.5) * z * z / x.dtype.type(beta), z - x.dtype.type(0.5 * beta))
    return recorded(NODES["SmoothL1LossBackward0"], reduced(values, code), (input, target),
                    {"reduction": code, "beta": beta})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """torch's huber_loss; with ``weight``, its Python path: the elementwise losses times the weight (of the
    input's size), then reduced, the mean an unweighted one (unlike mse_loss's and l1_loss's)."""
    size_warning(input, target)
    input, target = broadcast_pair(input, target)
    if weight is not None and weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    code = 0 if weight is not None else reduction_code(reduction)
    if not delta > 0:  # NaN too, as torch's check reads
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x = input._data
    z = np.abs(x - target._data)
    half = x.dtype.type(0.5)
    values = np.where(z < delta, half * z * z, x.dtype.type(delta) * (z - half * x.dtype.type(delta)))
    losses = recorded(NODES["HuberLossBackward0"], reduced(values, code), (input, target),
                      {"reduction": code, "delta": delta})
    if weight is None:
        return losses
    if reduction not in REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return reduce_tensor(losses * weight, reduction)


# -- negative log likelihood and cross entropy -------------------------------------------------------------
def check_class_targets(target: Tensor) -> None:
    if target.dtype.scalar_type_name not in ("Long", "Byte"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_type_name}")


def _nll_kernel(node: str, input: Tensor, target: Tensor, weight, ignore_index: int, code: int) -> Tensor:
    refuse_requires_grad("nll_loss_forward" if node == "NllLossBackward0" else "nll_loss2d_forward", weight=weight)
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
        total = _backend.as_array(weights.astype(data.dtype).sum(), dtype=data.dtype)
    if code == 1:
        out = _backend.as_array(losses.sum() / total, dtype=data.dtype)
    elif code == 2:
        out = _backend.as_array(losses.sum(), dtype=data.dtype)
    else:
        out = losses
    return recorded(NODES[node], out, (input,),
                    {"target": target, "weight": weight, "reduction": code, "ignore_index": ignore_index,
                     "total_weight": make_tensor(total)})


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """torch's ``nll_loss_nd``: NllLossBackward0 for 1-D and 2-D inputs, NllLoss2DBackward0 above, with
    the dims after the class dim folded into one as torch folds them."""
    code = reduction_code(reduction)
    check_class_targets(target)
    ndim = input.dim()
    if ndim != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    if ndim <= 2:
        return _nll_kernel("NllLossBackward0", input, target, weight, ignore_index, code)
    if ndim == 4:
        return _nll_kernel("NllLoss2DBackward0", input, target, weight, ignore_index, code)
    n, c = input.shape[0], input.shape[1]
    out_size = (n, *input.shape[2:])
    folded = input.contiguous().view(n, c, 1, -1) if input.numel() else input.view(n, c, 0, 0)
    folded_target = target.contiguous().view(n, 1, -1) if target.numel() else target.view(n, 0, 0)
    out = _nll_kernel("NllLoss2DBackward0", folded, folded_target, weight, ignore_index, code)
    return out if code else out.view(*out_size)


def _class_weights(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(*shape)


def _probability_cross_entropy(input, target, weight, reduction: str, smoothing: float):
    class_dim = 1 if input.dim() >= 2 else 0
    classes = input.shape[class_dim]
    log_probs = log_softmax(input, class_dim)
    if smoothing > 0:
        target = mul_by_number(target, 1 - smoothing) + smoothing / classes  # C++ mul(Tensor, Scalar), as torch
    products = log_probs * target
    if weight is not None:
        products = products * _class_weights(weight, input.dim(), class_dim)
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    if input.numel() == 0:
        return -products.sum() * float("nan")
    return div_by_number(-products.sum(), input.numel() // classes)


def _smoothed_cross_entropy(input, target, weight, ignore_index: int, reduction: str, smoothing: float):
    class_dim = 1 if input.dim() >= 2 else 0
    classes = input.shape[class_dim]
    log_probs = log_softmax(input, class_dim)
    nll = nll_loss(log_probs, target, weight, ignore_index, reduction)
    ignored = target == ignore_index
    if weight is not None:
        uniform = -(log_probs * _class_weights(weight, input.dim(), class_dim)).sum(class_dim)
    else:
        uniform = -log_probs.sum(class_dim)
    uniform = uniform.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            uniform = uniform.sum() / weight.gather(0, target.masked_select(~ignored).flatten()).sum()
        else:
            uniform = uniform.sum() / (~ignored).sum()
    elif reduction == "sum":
        uniform = uniform.sum()
    return (1 - smoothing) * nll + uniform * (smoothing / classes)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    reduction_code(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.shape == target.shape:
        if not target.is_floating_point():
            raise RuntimeError("Expected floating point type for target with class probabilities, got "
                               f"{target.dtype.scalar_type_name}")
        return _probability_cross_entropy(input, target, weight, reduction, label_smoothing)
    check_class_targets(target)
    if label_smoothing > 0:
        return _smoothed_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)
    return nll_loss(log_softmax(input, 1 if input.dim() >= 2 else 0), target, weight, ignore_index, reduction)


# -- binary cross entropy ---------------------------------------------------------------------------------
def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    code = reduction_code(reduction)
    if input.shape != target.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    refuse_requires_grad("binary_cross_entropy", weight=weight)
    x, y = input._data, target._data
    if x.size and not bool(((x >= 0) & (x <= 1)).all()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    floor = x.dtype.type(-100)
    losses = (y - 1) * np.maximum(np.log1p(-x), floor) - y * np.maximum(np.log(x), floor)
    if weight is not None:
        losses = losses * weight._data
    return recorded(NODES["BinaryCrossEntropyBackward0"], reduced(losses.astype(x.dtype, copy=False), code),
                    (input, target), {"weight": weight, "reduction": code})


def bce_backward_values(grad, x, y, weight=None, reduction=1):
    """torch's binary_cross_entropy_backward kernel."""
    values = grad * (x - y) / np.maximum((1 - x) * x, x.dtype.type(EPSILON))
    if weight is not None:
        values = values * weight
    return values / x.dtype.type(x.size) if reduction == 1 else values


BACKWARD_KERNELS["BinaryCrossEntropyBackwardBackward0"] = bce_backward_values
STEPWISE_KERNELS.add("BinaryCrossEntropyBackwardBackward0")
BACKWARD_KERNELS["nll_loss_backward"] = lambda grad, x, **attrs: nll_backward(ArrayMath, grad, x, **attrs)


def log_sigmoid_values(x):
    return np.minimum(x, x.dtype.type(0)) - np.log1p(np.exp(-np.abs(x)))


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    code = reduction_code(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    refuse_requires_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    x, y = input._data, target._data
    log_sigmoid = log_sigmoid_values(x)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight._data - 1) * y + 1)
    losses = (1 - y) * x - log_sigmoid
    if weight is not None:
        losses = losses * weight._data
    return recorded(NODES["BinaryCrossEntropyWithLogitsBackward0"], reduced(losses.astype(x.dtype, copy=False), code),
                    (input, target), {"weight": weight, "pos_weight": pos_weight, "reduction": code})


# -- Kullback-Leibler -------------------------------------------------------------------------------------
KL_MEAN_WARNING = ("reduction: 'mean' divides the total loss by both the batch size and the support size."
                   "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                   "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def kl_div(input, target, reduction="mean", log_target=False):
    if reduction == "mean":
        warnings.warn(KL_MEAN_WARNING, UserWarning, stacklevel=3)
    inner = "sum" if reduction == "batchmean" else reduction
    reduction_code(inner)
    if log_target:
        values = target.exp() * (target - input)
    else:
        values = xlogy(target, target) - target * input
    out = reduce_tensor(values, inner)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


BACKWARD_KERNELS["MseLossBackwardBackward0"] = lambda grad, x, t, reduction: HN.mse_backward(grad, x, t, reduction)
BACKWARD_KERNELS["SmoothL1LossBackwardBackward0"] = (
    lambda grad, x, t, reduction, beta: HN.smooth_l1_backward(ArrayMath, grad, x, t, reduction, beta))
BACKWARD_KERNELS["HuberLossBackwardBackward0"] = (
    lambda grad, x, t, reduction, delta: HN.huber_backward(ArrayMath, grad, x, t, reduction, delta))
