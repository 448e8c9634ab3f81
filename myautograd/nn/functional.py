"""``myautograd.nn.functional``: activations, dropout, ``linear`` and the losses, as functions.

Most functions hand over to the engine's ops (``myautograd._ops.nn_ops`` and friends), which
record torch's nodes. A few parts are composed here from tensor ops, following torch's formulas:
the in-place variants the engine lacks (the result is copied back into the input), the weights of
``mse_loss``/``l1_loss``, cross-entropy with probability targets, and label smoothing.
"""

from __future__ import annotations

import warnings

from .._missing import missing_attribute as _missing_attribute
from .._ops import activations as _act
from .._ops import convolution as _conv
from .._ops import linalg as _linalg
from .._ops import losses as _losses
from .._ops import nn_ops as _nn
from .._ops import normalization as _norm
from .._ops import padding as _padding
from .._ops import reduction as _reduction
from .._tensor import Tensor
from ._functional_activation import glu, hardshrink, prelu, softshrink, tanhshrink, threshold, threshold_  # noqa: F401
from ._functional_attention import (  # noqa: F401 - attention, as torch.nn.functional has it
    _canonical_mask,
    _none_or_dtype,
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from ._functional_losses import *  # noqa: F403 - the margin, embedding and likelihood losses
from ._functional_norm import instance_norm, local_response_norm, rms_norm  # noqa: F401
from ._functional_pooling import *  # noqa: F403 - the pooling functions, in a module of their own


# -- reductions -------------------------------------------------------------------------------------------
def _legacy_reduction(size_average, reduce, stacklevel: int = 3) -> str:
    """The reduction the deprecated ``size_average``/``reduce`` pair asks for, with torch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.",
                  UserWarning, stacklevel=stacklevel)
    return result


def _reduction_of(reduction: str, size_average, reduce) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce, stacklevel=4)
    return reduction


def _check_reduction(reduction: str) -> None:
    _losses.reduction_code(reduction)


# -- linear and activations -------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return _linalg.linear(input, weight, bias)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _reduction.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _reduction.log_softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return _reduction.softmax(-input, dim, dtype)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _act.leaky_relu(input, negative_slope, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _act.leaky_relu(input, negative_slope, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.relu6(input, inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _act.elu(input, alpha, inplace=inplace)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _act.elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.selu(input, inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _act.celu(input, alpha, inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return _act.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.silu(input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.mish(input, inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: F811 - torch names it so
    return _act.softplus(input, beta, threshold)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def logsigmoid(input: Tensor) -> Tensor:
    return _act.logsigmoid(input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:  # torch checks in nn.functional.hardtanh, not in hardtanh_
        raise ValueError("min_val cannot be greater than max_val")
    return _act.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _act.hardtanh(input, min_val, max_val, True)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.hardsigmoid(input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _act.hardswish(input, inplace)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return _nn.bilinear(input1, input2, weight, bias)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    return _nn.cosine_similarity(x1, x2, dim, eps)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    return _nn.normalize(input, p, dim, eps)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _nn.embedding_renorm_(weight, input, max_norm, norm_type)
    return _nn.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    return _nn.one_hot(tensor, num_classes)


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    return _padding.pad(input, pad, mode, value)


# -- convolution and pooling ----------------------------------------------------------------------------------
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    return _conv.conv(input, weight, bias, stride, padding, dilation, groups, ndim=1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    return _conv.conv(input, weight, bias, stride, padding, dilation, groups, ndim=2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    return _conv.conv(input, weight, bias, stride, padding, dilation, groups, ndim=3)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    return _conv.conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, ndim=1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    return _conv.conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, ndim=2)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    return _conv.conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, ndim=3)


# -- normalization ---------------------------------------------------------------------------------------------
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def _verify_batch_size(size) -> None:
    """torch's check that each channel of ``size`` (batch, channels, the rest) normalizes more than one value;
    ``size`` is shown as given (an input's ``torch.Size``, or the list group_norm builds)."""
    values = size[0]
    for n in size[2:]:
        values *= n
    if values == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if training:
        _verify_batch_size(input.shape)
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    size = list(input.shape)
    _verify_batch_size([size[0] * size[1] // num_groups, num_groups] + size[2:])
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if inplace and training and p > 0:
        return input.copy_(_nn.dropout(input.clone(), p, training))
    return _nn.dropout(input, p, training)


# -- losses -----------------------------------------------------------------------------------------------
def _weighted(losses: Tensor, weight: Tensor | None, input: Tensor, reduction: str) -> Tensor:
    """``mse_loss``/``l1_loss`` with ``weight``: elementwise product; the mean is weighted."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    losses = losses * weight
    if reduction == "mean":
        return losses.sum() / weight.sum()
    return _losses.reduce_tensor(losses, reduction)


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    if weight is None:
        return _losses.mse_loss(input, target, reduction=reduction)
    _check_reduction(reduction)
    return _weighted((input - target) ** 2, weight, input, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    if weight is None:
        return _losses.l1_loss(input, target, reduction=reduction)
    _check_reduction(reduction)
    return _weighted((input - target).abs(), weight, input, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    return _losses.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    return _losses.huber_loss(input, target, reduction, delta, weight)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    return _losses.nll_loss(input, target, weight, ignore_index=ignore_index, reduction=reduction)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    return _losses.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    return _losses.binary_cross_entropy(input, target, weight, reduction=reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    return _losses.binary_cross_entropy_with_logits(input, target, weight, reduction=reduction, pos_weight=pos_weight)


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    reduction = _reduction_of(reduction, size_average, reduce)
    return _losses.kl_div(input, target, reduction, log_target)


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
