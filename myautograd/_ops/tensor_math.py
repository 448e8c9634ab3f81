"""``F`` on tensors: the math namespace derivative formulas use under ``create_graph=True``.

The same names as ``ArrayMath`` (``myautograd/_autograd/array_math.py``), computed with
myautograd's own operations, so the backward pass is recorded and can be differentiated again.
Importing this module installs it as the engine's tensor-mode namespace.
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _backend
from .._autograd.array_math import BACKWARD_KERNELS, ArrayMath
from .._autograd.modes import TensorMode
from .._autograd.record import recorded
from .._tensor import Tensor, make_tensor
from .derivatives import NODES
from .indexing import index_put_into_zeros
from .inplace import copy_into_new
from .pointwise import masked_backward, smooth_backward
from .shape import cat, stack
from .ternary import where


class TensorMath:
    """Formula primitives on tensors, recorded by myautograd's own operations."""

    recording = True

    @staticmethod
    def to_device(x, device):
        return x.to(device)

    @staticmethod
    def copy_into_new(grad, empty_array):
        """A fresh tensor holding ``grad``'s values, recorded as ``CopyBackwards``."""
        return copy_into_new(grad, empty_array)

    @staticmethod
    def sum_to(x, shape):
        if tuple(x.shape) == tuple(shape):
            return x
        return x.sum() if not tuple(shape) else x.sum_to_size(*tuple(shape))  # to 0-dim: a full sum, as torch

    @staticmethod
    def expand(x, shape):
        return x.expand(*tuple(shape))

    @staticmethod
    def reshape(x, shape):
        return x.reshape(tuple(shape))

    @staticmethod
    def unsqueeze(x, dim):
        return x.unsqueeze(dim)

    @staticmethod
    def unsqueeze_dims(x, dims, ndim):
        for d in sorted(d % ndim for d in dims) if ndim else ():
            x = x.unsqueeze(d)
        return x

    @staticmethod
    def squeeze_dim(x, dim):
        return x.squeeze(dim)

    @staticmethod
    def transpose(x, dim0, dim1):
        return x.transpose(dim0, dim1)

    @staticmethod
    def t(x):
        return x.t()

    @staticmethod
    def mT(x):  # noqa: N802
        return x.transpose(-1, -2)

    @staticmethod
    def permute(x, dims):
        return x.permute(*dims)

    @staticmethod
    def flip(x, dims):
        return x.flip(tuple(dims))

    @staticmethod
    def narrow(x, dim, start, length):
        return x.narrow(dim, start, length)

    @staticmethod
    def select(x, dim, index):
        return x.select(dim, index)

    @staticmethod
    def roll(x, shifts, dims):
        return x.roll(shifts, dims if dims else None)

    @staticmethod
    def diagonal(x, offset, dim1, dim2):
        return x.diagonal(offset, dim1, dim2)

    @staticmethod
    def im2col(x, kernel, stride, dilation):
        from .convolution import im2col

        return im2col(x, kernel, stride, dilation)

    @staticmethod
    def col2im(cols, sizes, kernel, stride, dilation):
        from .convolution import col2im

        return col2im(cols, sizes, kernel, stride, dilation)

    @staticmethod
    def einsum(equation, *operands):
        from .contraction import einsum

        return einsum(equation, *operands)

    @staticmethod
    def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
        from .contraction import trilinear

        return trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim)

    @staticmethod
    def constant_pad(x, pad):
        from .padding import constant_pad

        return constant_pad(x, pad, 0.0)

    @staticmethod
    def cat(xs, dim):
        return cat(list(xs), dim)

    @staticmethod
    def stack(xs, dim):
        return stack(list(xs), dim)

    @staticmethod
    def tril(x, diagonal):
        return x.tril(diagonal)

    @staticmethod
    def triu(x, diagonal):
        return x.triu(diagonal)

    @staticmethod
    def zeros(shape, like):
        return like.new_zeros(tuple(int(n) for n in shape))

    @staticmethod
    def zeros_like(x):
        return x.new_zeros(tuple(x.shape))

    @staticmethod
    def ones(shape, like):
        return like.new_ones(tuple(int(n) for n in shape))

    @staticmethod
    def index_put_zeros(shape, like, key, values, accumulate, node="IndexPutBackward0"):
        return index_put_into_zeros(tuple(shape), like, key, values, accumulate, node)

    @staticmethod
    def gather(x, dim, index):
        return x.gather(dim, make_tensor(index))

    @staticmethod
    def scatter_zeros(x, dim, index):
        return x.scatter(dim, make_tensor(index), 0.0)

    @staticmethod
    def index(x, key):
        """``x[key]`` for a key saved as arrays (on the device): index arrays become tensors."""
        if isinstance(key, tuple):
            key = tuple(make_tensor(k) if hasattr(k, "shape") and hasattr(k, "dtype") else k for k in key)
        return x[key]

    @staticmethod
    def tanh_backward(grad, output):
        return smooth_backward("TanhBackwardBackward0", ArrayMath.tanh_backward, grad, output)

    @staticmethod
    def sigmoid_backward(grad, output):
        return smooth_backward("SigmoidBackwardBackward0", ArrayMath.sigmoid_backward, grad, output)

    @staticmethod
    def masked_backward(node_name, grad, forward_input, mask, scale):
        return masked_backward(node_name, grad, forward_input, mask, scale)

    @staticmethod
    def backward_op(node_name, grad, *forward_inputs, kernel=None, **attrs):
        """The kernel on the tensors' arrays, recorded as ``node_name`` (on grad and the forward
        inputs), whose derivatives are in the table."""
        arrays = {k: v._data if isinstance(v, Tensor) else v for k, v in attrs.items()}
        inputs = (None if x is None else x._data for x in forward_inputs)
        out = BACKWARD_KERNELS[kernel or node_name](grad._data, *inputs, **arrays)
        return recorded(NODES[node_name], out, (grad, *forward_inputs), attrs)

    @staticmethod
    def array(x):
        return x._data if hasattr(x, "_data") else x

    @staticmethod
    def item(x):
        return x.item() if hasattr(x, "item") else x

    @staticmethod
    def mask_at(like, key):
        return make_tensor(ArrayMath.mask_at(like._data, key))

    @staticmethod
    def constant(values, like):
        values = _backend.host_value(values, like._data)
        return make_tensor(values if values.dtype == np.bool_ else values.astype(like._data.dtype))

    @staticmethod
    def where(condition, a, b):
        return where(condition, a, b)

    @staticmethod
    def masked_fill(x, mask, value):
        return x.masked_fill(mask, value)

    @staticmethod
    def reciprocal(x):
        return x.reciprocal()

    @staticmethod
    def sum(x, dims=None, keepdim=False):
        return x.sum() if dims is None else x.sum(tuple(dims), keepdim=keepdim)

    @staticmethod
    def prod(x, dim=None, keepdim=False):
        return x.prod() if dim is None else x.prod(dim, keepdim=keepdim)

    @staticmethod
    def cumprod(x, dim):
        return x.cumprod(dim)

    @staticmethod
    def cumsum(x, dim):
        return x.cumsum(dim)

    @staticmethod
    def matmul(a, b):
        return a.matmul(b)

    @staticmethod
    def outer(a, b):
        return a.reshape(tuple(a.shape) + (1,) * b.dim()) * b

    @staticmethod
    def bmm(a, b):
        return a.bmm(b)

    @staticmethod
    def conj(x):
        return x.conj() if isinstance(x, Tensor) and x._data.dtype.kind == "c" else x

    @staticmethod
    def real(x):
        return x.real

    @staticmethod
    def imag(x):
        return x.imag

    @staticmethod
    def view_as_real(x):
        return x.view_as_real()

    @staticmethod
    def view_as_complex(x):
        return x.view_as_complex()

    @staticmethod
    def sgn(x):
        return x.sgn()

    @staticmethod
    def pow(x, exponent):
        return x.pow(exponent)

    @staticmethod
    def div_number(x, number):
        from .special import div_by_number

        return div_by_number(x, number)

    @staticmethod
    def mul_number(x, number):
        from .special import mul_by_number

        return mul_by_number(x, number)

    @staticmethod
    def rsqrt(x):
        return x.rsqrt()

    @staticmethod
    def div_rounded(x, y, rounding_mode):
        return x.div(y, rounding_mode=rounding_mode)

    @staticmethod
    def clamp_min(x, low):
        return x.clamp_min(low)

    @staticmethod
    def isfinite(x):
        return x.isfinite()

    @staticmethod
    def isnan(x):
        return x.isnan()

    @staticmethod
    def sigmoid(x):
        return x.sigmoid()

    @staticmethod
    def log_sigmoid(x):
        from .activations import logsigmoid

        return logsigmoid(x)

    @staticmethod
    def xlogy(x, y):
        return x.xlogy(y)

    @staticmethod
    def erf(x):
        return x.erf()

    # Elementwise functions: the tensor method of the same name.
    exp, log, log1p, sin, cos, sinh, cosh, tanh, sqrt, abs = (
        staticmethod(operator.methodcaller(name)) for name in
        ("exp", "log", "log1p", "sin", "cos", "sinh", "cosh", "tanh", "sqrt", "abs"))


TensorMode.F = TensorMath
