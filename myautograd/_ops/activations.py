"""Activation functions of ``torch.nn.functional``, with torch's kernels and nodes.

Each computes as torch's CPU kernel does (``elu`` from ``expm1``, ``hardswish`` as
``x * clamp(x + 3, 0, 6) / 6``, ``logsigmoid`` as ``min(x, 0) - log1p(exp(-|x|))``) and records
the node torch records. The in-place spellings (``elu_``, ``leaky_relu_``, ``hardtanh_``,
``silu(inplace=True)``) write into the tensor and record the node on it, as torch's do.

Where an activation has kinks, its backward is a kernel of its own (``elu_backward``,
``hardswish_backward``): under ``create_graph`` it is recorded as torch's
``EluBackwardBackward0``, ``HardswishBackwardBackward0``..., whose derivatives (in the table) are
torch's conventions at the kinks, which differentiating a composite formula would not give.
"""

from __future__ import annotations

import math

import numpy as np

from .._autograd.formula_math import BACKWARD_KERNELS, ArrayMath
from .._autograd.record import recorded
from .._reduced import in_float32
from .._tensor import Tensor
from . import formula_helpers_nn as HN
from .common import normalize_dim, plain_number
from .derivatives import NODES
from .inplace import apply_inplace
from .pointwise import _erf

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _number(value, data):
    """A Python number as torch hands a Scalar to a kernel of ``data``'s floating type."""
    return data.dtype.type(value)


def _activation(node_name: str, out, input: Tensor, attrs: dict | None = None, inplace: bool = False) -> Tensor:
    if inplace:
        return apply_inplace(input, out, node_name, (input,), attrs)
    return recorded(NODES[node_name], out, (input,), attrs)


# -- elu, selu, celu -----------------------------------------------------------------------------------
def elu_values(x, alpha, scale, input_scale):
    negative = np.expm1(x * _number(input_scale, x)) * _number(alpha * scale, x)
    return np.where(x <= 0, negative, x * _number(scale, x))


def elu_backward_values(grad, x, alpha, scale, input_scale, is_result):
    """torch's ``elu_backward``; ``x`` is the input, or the output when ``is_result`` (elu_)."""
    negcoef, poscoef, negiptcoef = alpha * scale, scale, input_scale
    if is_result:
        negative = grad * _number(negiptcoef, x) * (x + _number(negcoef, x))
    else:
        negative = grad * _number(negiptcoef, x) * _number(negcoef, x) * np.exp(x * _number(negiptcoef, x))
    return np.where(x <= 0, negative, grad * _number(poscoef, x))


BACKWARD_KERNELS["EluBackwardBackward0"] = elu_backward_values


_elu_values = in_float32(elu_values)


def elu(input, alpha=1.0, scale=1.0, input_scale=1.0, inplace=False):
    out = _elu_values(input._data, alpha, scale, input_scale)
    attrs = {"alpha": alpha, "scale": scale, "input_scale": input_scale}
    return _activation("EluBackward1" if inplace else "EluBackward0", out, input, attrs, inplace)


def selu(input, inplace=False):
    return elu(input, SELU_ALPHA, SELU_SCALE, 1.0, inplace)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    out = _elu_values(input._data, alpha, 1.0, 1.0 / alpha)
    if inplace:
        return apply_inplace(input, out, "EluBackward1", (input,), {"alpha": alpha, "scale": 1.0,
                                                                   "input_scale": 1.0 / alpha})
    return recorded(NODES["CeluBackward0"], out, (input,), {"alpha": alpha})


# -- leaky_relu, hardtanh, relu6 ---------------------------------------------------------------------------
@in_float32
def _leaky_relu_values(x, negative_slope):
    return np.where(x > 0, x, x * _number(negative_slope, x))


def leaky_relu(input, negative_slope=0.01, inplace=False):
    negative_slope = plain_number(negative_slope)
    out = _leaky_relu_values(input._data, negative_slope)
    return _activation("LeakyReluBackward1" if inplace else "LeakyReluBackward0", out, input,
                       {"negative_slope": negative_slope}, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    x = input._data
    out = np.minimum(np.maximum(x, _number(min_val, x)), _number(max_val, x))
    return _activation("HardtanhBackward0", out, input, {"min_val": min_val, "max_val": max_val}, inplace)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


# -- hardsigmoid, hardswish --------------------------------------------------------------------------------
def hardsigmoid_values(x):
    return np.minimum(np.maximum(x + _number(3, x), _number(0, x)), _number(6, x)) / _number(6, x)


def hardsigmoid_backward_values(grad, x, **_):
    inside = (x > -3) & (x < 3)
    # torch's kernel multiplies by 1/6 rounded to float32, also for double tensors
    return np.where(inside, grad * _number(np.float32(1.0 / 6.0), x), _number(0, x))


def hardswish_values(x):
    return x * np.minimum(np.maximum(x + _number(3, x), _number(0, x)), _number(6, x)) / _number(6, x)


def hardswish_backward_values(grad, x):
    middle = grad * (x / _number(3, x) + _number(0.5, x))
    return np.where(x <= -3, _number(0, x), np.where(x < 3, middle, grad))


BACKWARD_KERNELS["hardsigmoid_backward"] = hardsigmoid_backward_values
BACKWARD_KERNELS["HardswishBackwardBackward0"] = hardswish_backward_values
BACKWARD_KERNELS["SoftplusBackwardBackward0"] = (
    lambda grad, x, beta, threshold: HN.softplus_backward(ArrayMath, grad, x, beta, threshold))
BACKWARD_KERNELS["LogSigmoidBackwardBackward0"] = lambda grad, x: HN.log_sigmoid_backward(ArrayMath, grad, x)
BACKWARD_KERNELS["SoftmaxBackwardDataBackward0"] = (
    lambda grad, output, dim: HN.softmax_backward_data(ArrayMath, grad, output, dim))
BACKWARD_KERNELS["LogSoftmaxBackwardDataBackward0"] = (
    lambda grad, output, dim: HN.log_softmax_backward_data(ArrayMath, grad, output, dim))
BACKWARD_KERNELS["GeluBackwardBackward0"] = (
    lambda grad, x, approximate: HN.gelu_backward(ArrayMath, grad, x, approximate))


def hardsigmoid(input, inplace=False):
    return _activation("HardsigmoidBackward0", hardsigmoid_values(input._data), input, None, inplace)


def hardswish(input, inplace=False):
    return _activation("HardswishBackward0", hardswish_values(input._data), input, None, inplace)


# -- smooth ones: silu, mish, softplus, gelu, logsigmoid ------------------------------------------------
def silu(input, inplace=False):
    out = in_float32(lambda x: x / (1 + np.exp(-x)))(input._data)
    return _activation("SiluBackward0", out, input, None, inplace)


def mish(input, inplace=False):
    out = in_float32(lambda x: x * np.tanh(np.log1p(np.exp(x))))(input._data)
    return _activation("MishBackward0", out, input, None, inplace)


@in_float32
def _softplus_values(x, beta, threshold):
    scaled = x * _number(beta, x)
    return np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / _number(beta, x))


def softplus(input, beta=1.0, threshold=20.0):
    beta, threshold = plain_number(beta), plain_number(threshold)
    out = _softplus_values(input._data, beta, threshold)
    return _activation("SoftplusBackward0", out, input, {"beta": beta, "threshold": threshold})


@in_float32
def _gelu_values(x, approximate):
    if approximate == "tanh":
        inner = _number(math.sqrt(2 / math.pi), x) * (x + _number(0.044715, x) * x * x * x)
        return _number(0.5, x) * x * (1 + np.tanh(inner))
    return x * _number(0.5, x) * (1 + _erf(x * _number(math.sqrt(0.5), x)))


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    out = _gelu_values(input._data, approximate)
    return _activation("GeluBackward0", out, input, {"approximate": approximate})


def logsigmoid(input):
    out = in_float32(lambda x: np.minimum(x, _number(0, x)) - np.log1p(np.exp(-np.abs(x))))(input._data)
    return _activation("LogSigmoidBackward0", out, input)


# -- hardshrink, softshrink, threshold: zero (or a value) inside a band, recorded with torch's nodes ------------
def _inside_band(x, lambd):
    return (x >= _number(-lambd, x)) & (x <= _number(lambd, x))


def hardshrink(input, lambd=0.5):
    x = input._data
    out = np.where(_inside_band(x, lambd), _number(0, x), x)
    return _activation("HardshrinkBackward0", out, input, {"lambd": lambd})


def softshrink(input, lambd=0.5):
    x = input._data
    largest = np.finfo(x.dtype).max if x.dtype.kind == "f" else None
    if lambd < 0 or (largest is not None and lambd > largest):
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype {input.dtype.scalar_type_name}, "
                           f"but found {lambd:g}")
    shrunk = np.where(x > _number(lambd, x), x - _number(lambd, x), x + _number(lambd, x))
    out = np.where(_inside_band(x, lambd), x * _number(0, x), shrunk)
    return _activation("SoftshrinkBackward0", out, input, {"lambd": lambd})


def threshold(input, threshold, value, inplace=False):
    """``value`` where the input is at most ``threshold`` (in place: ``ThresholdBackward1``, on a copy of the input)."""
    x = input._data
    out = np.where(x <= _number(threshold, x), _number(value, x), x)
    node = "ThresholdBackward1" if inplace else "ThresholdBackward0"
    return _activation(node, out, input, {"threshold": threshold}, inplace)


# -- glu, prelu ------------------------------------------------------------------------------------------------
def prelu_backward_values(grad, self, weight, which: int):
    """prelu's backward kernel: the input's gradient (``which`` 0), ``grad`` where self > 0, else ``weight * grad``;
    the weight's (1), self-shaped, ``self * grad`` where self <= 0."""
    positive = self > 0
    if which == 0:
        return np.where(positive, grad, weight * grad)
    return np.where(positive, _number(0, grad), self * grad)


BACKWARD_KERNELS["GluBackwardBackward0"] = lambda grad, self, dim: HN.glu_backward(ArrayMath, grad, self, dim)
BACKWARD_KERNELS["PreluKernelBackwardBackward0"] = prelu_backward_values


def glu(input, dim=-1):
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = normalize_dim(dim, x.ndim)
    if x.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {x.shape[dim]}")
    first, second = HN.glu_halves(ArrayMath, x, dim)
    out = in_float32(lambda a, b: a / (1 + np.exp(-b)))(first, second)
    return recorded(NODES["GluBackward0"], out, (input,), {"dim": dim})


def prelu(input, weight):
    """torch's ``prelu``: the weight (one value, or one per channel, dim 1) reshaped to broadcast over
    the input, then ``_prelu_kernel``."""
    count = weight.numel()
    if count != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != count:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{count} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if input.dim() != weight.dim():
        weight = weight.reshape([count if i == 1 else 1 for i in range(input.dim())])
    x, w = input._data, weight._data
    out = np.where(x > 0, x, w * x)
    return recorded(NODES["PreluKernelBackward0"], out.astype(x.dtype, copy=False), (input, weight))
