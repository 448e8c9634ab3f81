"""``F`` on arrays: the math namespace derivative formulas use in a plain backward.

A formula is written once over ``F`` and Python operators (see ``formulas.py``). In a plain
backward (``create_graph=False``) ``F`` is ``ArrayMath``: NumPy (or CuPy) arrays, nothing
recorded, no tensor objects created. Under ``create_graph=True`` it is ``TensorMath``
(``myautograd/_ops/tensor_math.py``), with the same names on tensors, so that the backward is
itself recorded. Only primitives live here; composite backward helpers are written once, over
``F``, in ``derivatives.py``.
"""

from __future__ import annotations

import numpy as np

from .. import _backend


def _reduced_axes(shape: tuple, target: tuple) -> tuple[tuple[int, ...], tuple[int, ...]]:
    lead = len(shape) - len(target)
    kept = tuple(i for i, size in enumerate(target) if size == 1 and shape[lead + i] != 1)
    return tuple(range(lead)), kept


def _zeros(shape, like):
    shape = tuple(int(n) for n in shape)
    if type(like) is np.ndarray:
        return np.zeros(shape, dtype=like.dtype)
    return np.zeros_like(like, shape=shape)


class ArrayMath:
    """Formula primitives on arrays."""

    # -- shapes -------------------------------------------------------------------------------
    @staticmethod
    def sum_to(x, shape):
        """Sum ``x`` down to ``shape``: undo broadcasting."""
        shape = tuple(shape)
        if x.shape == shape:
            return x
        lead, kept = _reduced_axes(x.shape, shape)
        if lead:
            x = x.sum(axis=lead)
        if kept:
            x = x.sum(axis=kept, keepdims=True)
        return x.reshape(shape)

    @staticmethod
    def expand(x, shape):
        return _backend.broadcast_to(x, tuple(shape))

    @staticmethod
    def reshape(x, shape):
        return x.reshape(tuple(shape))

    @staticmethod
    def unsqueeze(x, dim):
        return np.expand_dims(x, dim)

    @staticmethod
    def unsqueeze_dims(x, dims, ndim):
        """Re-insert the reduced ``dims`` of an ``ndim``-dimensional input."""
        return np.expand_dims(x, tuple(d % ndim for d in dims)) if ndim else x

    @staticmethod
    def squeeze_dim(x, dim):
        return x.squeeze(axis=dim) if x.ndim and x.shape[dim] == 1 else x

    @staticmethod
    def transpose(x, dim0, dim1):
        return x.swapaxes(dim0, dim1)

    @staticmethod
    def t(x):
        return x.T if x.ndim == 2 else x

    @staticmethod
    def mT(x):  # noqa: N802 - mirrors Tensor.mT
        return x.swapaxes(-1, -2)  # the method: np.swapaxes is a Python wrapper around it

    @staticmethod
    def permute(x, dims):
        return x.transpose(dims)

    @staticmethod
    def flip(x, dims):
        return np.flip(x, axis=tuple(dims))

    @staticmethod
    def narrow(x, dim, start, length):
        key = [slice(None)] * x.ndim
        key[dim] = slice(start, start + length)
        return x[tuple(key)]

    @staticmethod
    def select(x, dim, index):
        return np.take(x, index, axis=dim)

    @staticmethod
    def cat(xs, dim):
        return np.concatenate(xs, axis=dim)

    @staticmethod
    def stack(xs, dim):
        return np.stack(xs, axis=dim)

    @staticmethod
    def tril(x, diagonal):
        return np.tril(x, diagonal)

    @staticmethod
    def triu(x, diagonal):
        return np.triu(x, diagonal)

    # -- creation and data ----------------------------------------------------------------------
    @staticmethod
    def zeros(shape, like):
        return _zeros(shape, like)

    @staticmethod
    def zeros_like(x):
        return np.zeros_like(x)

    @staticmethod
    def index_put_zeros(shape, like, key, values, accumulate):
        """Zeros of ``shape`` with ``values`` written (or added, with repeats) at ``key``."""
        out = _zeros(shape, like)
        if accumulate:
            _backend.scatter_add(out, key, values)
        else:
            out[key] = values
        return out

    @staticmethod
    def index(x, key):
        return x[key]

    @staticmethod
    def tanh_backward(grad, output):
        return grad * (1 - output * output)

    @staticmethod
    def sigmoid_backward(grad, output):
        return grad * (1 - output) * output

    @staticmethod
    def masked_backward(node_name, grad, forward_input, mask, scale):
        return np.where(mask, grad, grad * scale if scale else 0)

    @staticmethod
    def array(x):
        return x

    @staticmethod
    def item(x):
        return x.item() if hasattr(x, "item") else x

    @staticmethod
    def mask_at(like, key):
        """A boolean array shaped like ``like``, on its device, True at ``key``."""
        mask = np.zeros_like(like, dtype=bool)
        mask[key] = True
        return mask

    @staticmethod
    def constant(values, like):
        """Host values (a mask, weights) as an array on ``like``'s device."""
        values = np.asarray(values)
        values = values if values.dtype == np.bool_ else values.astype(like.dtype)
        return values if type(like) is np.ndarray else _backend.to_device(values, _backend.device_of(like))

    # -- math --------------------------------------------------------------------------------------
    @staticmethod
    def where(condition, a, b):
        return np.where(condition, a, b)

    @staticmethod
    def sum(x, dims=None, keepdim=False):
        return x.sum(axis=dims, keepdims=keepdim)

    @staticmethod
    def prod(x):
        return x.prod()

    @staticmethod
    def cumsum(x, dim):
        return np.cumsum(x, axis=dim)

    @staticmethod
    def matmul(a, b):
        return np.matmul(a, b)

    @staticmethod
    def to_device(x, device):
        return _backend.to_device(x, device)

    @staticmethod
    def outer(a, b):
        return np.multiply.outer(a, b)

    @staticmethod
    def conj(x):
        if x.__class__ is float or x.__class__ is int:
            return x
        return x.conj() if x.dtype.kind == "c" else x

    @staticmethod
    def real(x):
        return x.real

    @staticmethod
    def imag(x):
        return x.imag

    @staticmethod
    def view_as_real(x):
        return np.stack([x.real, x.imag], axis=-1)

    @staticmethod
    def view_as_complex(x):
        return x[..., 0] + 1j * x[..., 1]

    @staticmethod
    def sgn(x):
        if np.iscomplexobj(x):
            magnitude = np.abs(x)
            return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude))
        return np.sign(x)

    @staticmethod
    def pow(x, exponent):
        return np.power(x, exponent)

    @staticmethod
    def clamp_min(x, low):
        return np.maximum(x, low)

    @staticmethod
    def isfinite(x):
        return np.isfinite(x)

    @staticmethod
    def erf(x):
        return _backend.erf(x)

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sinh = staticmethod(np.sinh)
    cosh = staticmethod(np.cosh)
    tanh = staticmethod(np.tanh)
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)
