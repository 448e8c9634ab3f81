"""The margin and embedding losses of ``torch.nn.functional``, computed and recorded as torch's are.

torch composes ``margin_ranking_loss``, ``hinge_embedding_loss``, ``cosine_embedding_loss`` (ATen
functions built from tensor ops) and ``multilabel_soft_margin_loss`` (Python) from tensor ops: the same
composition is used here, so the graph holds the same nodes. A number torch's C++ code adds or
subtracts is recorded as ``AddBackward1``/``SubBackward1``; a number it subtracts a tensor from is
first made a tensor of the input's shape (``SubBackward0``), as C++'s ``Scalar - Tensor`` does.

``soft_margin_loss``, ``multi_margin_loss`` and ``multilabel_margin_loss`` are kernels of their own,
one op each with torch's node; their values here, their gradients in ``derivatives.py`` with the
kernels of ``margin_loss_math``. The checks torch's kernels make come first, with torch's messages.
"""

from __future__ import annotations

import numpy as np

from .._autograd.formula_math import BACKWARD_KERNELS
from .._autograd.record import recorded
from .._tensor import Tensor, make_tensor
from . import margin_loss_math as M
from .activations import logsigmoid
from .common import broadcast_shapes, refuse_requires_grad
from .creation import full_like, zeros_like
from .derivatives import NODES
from .losses import reduce_tensor, reduced, reduction_code
from .special import add_number, sub_number
from .ternary import where

BACKWARD_KERNELS["SoftMarginLossBackwardBackward0"] = M.soft_margin_backward
BACKWARD_KERNELS["multi_margin_loss_backward"] = M.multi_margin_backward
BACKWARD_KERNELS["multilabel_margin_loss_backward"] = M.multilabel_margin_backward
EPSILON = 1e-12  # torch's cosine_embedding_loss: added to each squared magnitude


# -- composed from tensor ops -------------------------------------------------------------------------------
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: str = "mean") -> Tensor:
    """``max(0, -target (input1 - input2) + margin)``."""
    reduction_code(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    losses = add_number(-target * (input1 - input2), margin).clamp_min(0)
    return reduce_tensor(losses, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: str = "mean") -> Tensor:
    """``input`` where the target is 1, ``max(0, margin - input)`` where it is -1."""
    reduction_code(reduction)
    zeros = zeros_like(input)
    margin_part = where(target != 1, (full_like(input, margin) - input).clamp_min(0), zeros)
    input_part = where(target != -1, input, zeros)
    return reduce_tensor(margin_part + input_part, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: str = "mean") -> Tensor:
    """``1 - cos(input1, input2)`` where the target is 1, ``max(0, cos - margin)`` where it is -1."""
    reduction_code(reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = 2 if dim == 1 else 1
    if input1.dim() != expected or input2.dim() != expected:
        raise RuntimeError(f"{dim}D target tensor expects {expected}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    products = (input1 * input2).sum(dim)
    squared1 = add_number((input1 * input1).sum(dim), EPSILON)
    squared2 = add_number((input2 * input2).sum(dim), EPSILON)
    cosine = products / (squared1 * squared2).sqrt()
    zeros = zeros_like(cosine)
    similar = where(target == 1, full_like(cosine, 1) - cosine, zeros)
    dissimilar = where(target == -1, sub_number(cosine, margin).clamp_min(0), zeros)
    return reduce_tensor(similar + dissimilar, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                reduction: str = "mean") -> Tensor:
    """The binary logistic loss of each class, averaged over the classes (the last dim)."""
    losses = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        losses = losses * weight
    class_dim = input.dim() - 1
    losses = losses.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return reduce_tensor(losses, reduction)


# -- kernels of their own -----------------------------------------------------------------------------------
def soft_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target input))``: SoftMarginLossBackward0."""
    code = reduction_code(reduction)
    refuse_requires_grad("soft_margin_loss", target=target)
    x, y = input._data, target._data.astype(input._data.dtype, copy=False)  # torch multiplies in place
    shape = broadcast_shapes(x.shape, y.shape)
    if shape != x.shape:
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast shape {list(shape)}")
    values = np.log1p(np.exp(-x * y)).astype(x.dtype, copy=False)
    return recorded(NODES["SoftMarginLossBackward0"], reduced(values, code), (input,),
                    {"target": target, "reduction": code})


def _check_class_input(input: Tensor) -> None:
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0) or (input.dim() < 2 and input.numel() == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss: MultiMarginLossBackward0."""
    code = reduction_code(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_class_input(input)
    classes = M.class_count(input._data)
    rows = input.shape[0] if input.dim() == 2 else 1
    if target.dim() > 1 or target.numel() != rows:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{rows}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_type_name} but found "
                           f"{weight.dtype.scalar_type_name}")
    refuse_requires_grad("multi_margin_loss", weight=weight)
    classes_of = target._data.reshape(-1)
    if classes_of.size and (classes_of.min() < 0 or classes_of.max() >= classes):
        raise RuntimeError("target out of range")
    x = input._data
    losses = M.multi_margin_losses(x.reshape(rows, classes), classes_of, p, margin,
                                   None if weight is None else weight._data)
    if input.dim() < 2:
        losses = losses.reshape(())
    return recorded(NODES["MultiMarginLossBackward0"], reduced(losses.astype(x.dtype, copy=False), code), (input,),
                    {"target": target, "p": p, "margin": margin, "weight": weight, "reduction": code})


def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss (each row's target classes listed first, ended by -1):
    MultilabelMarginLossBackward0, which saves which classes are targets (``is_target``)."""
    code = reduction_code(reduction)
    _check_class_input(input)
    if target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    classes = M.class_count(input._data)
    labels = target._data.reshape(-1, classes)
    if labels.size and (labels.min() < -1 or labels.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    x = input._data
    counts, is_target = M.multilabel_targets(labels)
    losses = M.multilabel_margin_losses(x.reshape(-1, classes), counts, is_target)
    if input.dim() < 2:
        losses = losses.reshape(())
    return recorded(NODES["MultilabelMarginLossBackward0"], reduced(losses.astype(x.dtype, copy=False), code),
                    (input,), {"target": target, "reduction": code,
                               "is_target": make_tensor(is_target.reshape(x.shape).astype(x.dtype))})
