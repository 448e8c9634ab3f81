"""Neural-network ops behind ``myautograd.nn.functional`` that are neither activations, losses,
convolutions, pooling nor normalization: dropout, embedding, one_hot, bilinear, cosine_similarity
and normalize, each recording the node torch records.
"""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._autograd.record import recorded
from .._tensor import Tensor, make_tensor
from . import dispatch
from .aten import overload
from .common import broadcast_shapes
from .creation import default_generator, empty_like
from .derivatives import NODES
from .inplace import div_, set_values_without_grad
from .pointwise import mul
from .registry import function

EMPTY_LIKE, BERNOULLI_FLOAT = overload("empty_like.default"), overload("bernoulli_.float")
DIV_SCALAR, MUL_TENSOR = overload("div_.Scalar"), overload("mul.Tensor")


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    if _backend.is_cpu_array(input._data):
        # torch's CPU kernel, op by op (as a dispatch mode sees it): a noise tensor of 0 and 1 / (1 - p),
        # empty_like(input).bernoulli_(1 - p).div_(1 - p), then input * noise (MulBackward0)
        noise = dispatch.call(EMPTY_LIKE, empty_like, (input,))
        dispatch.call(BERNOULLI_FLOAT, lambda tensor, _: _keep_mask_(tensor, p), (noise, 1 - p))
        dispatch.call(DIV_SCALAR, div_, (noise, 1 - p))
        return dispatch.call(MUL_TENSOR, mul, (input, noise))
    # torch's fused CUDA kernel: NativeDropoutBackward0
    uniform = _backend.to_device(default_generator.rng.random(input._data.shape), input.device)
    keep = (uniform >= p).astype(input._data.dtype)
    scale = 1.0 / (1 - p)
    return recorded(NODES["NativeDropoutBackward0"], input._data * keep * scale, (input,),
                     {"mask": make_tensor(keep), "scale": scale})


def _keep_mask_(noise: Tensor, p: float) -> Tensor:
    """Fill ``noise`` with dropout's Bernoulli(1 - p) draws: 1 where a uniform draw is at least ``p``."""
    uniform = _backend.to_device(default_generator.rng.random(noise._data.shape), noise.device)
    return set_values_without_grad(noise, (uniform >= p).astype(noise._data.dtype))


@function(name="dropout")
def torch_dropout(input, p, train):
    """``torch.dropout(input, p, train)``."""
    return dropout(input, p, train)


# -- embedding and one_hot --------------------------------------------------------------------------------
EMBEDDING_INDEX_TYPES = ("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                         "Int; but got {} instead (while checking arguments for embedding)")


@function
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """``torch.embedding``: rows of ``weight`` picked by ``indices`` (EmbeddingBackward0)."""
    if indices.dtype.scalar_type_name not in ("Long", "Int"):
        raise RuntimeError(EMBEDDING_INDEX_TYPES.format(indices.dtype.message_type_name(indices.device.type)))
    data = weight._data
    positions = indices._data
    if positions.size and (positions.max() >= data.shape[0] or positions.min() < 0):
        raise IndexError("index out of range in self")
    out = data[positions]
    return recorded(NODES["EmbeddingBackward0"], out, (weight,),
                    {"indices": indices, "weight_sym_size_0": data.shape[0], "padding_idx": padding_idx,
                     "scale_grad_by_freq": scale_grad_by_freq})


@function
def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rows of ``weight`` looked up by ``indices`` whose norm exceeds ``max_norm`` scaled down to it, in
    place and without a gradient, as torch does before an embedding with ``max_norm``."""
    from .._grad_mode import no_grad

    data = weight._data
    rows = np.unique(_backend.to_numpy(indices._data).reshape(-1))
    values = data[rows]
    norms = (np.abs(values) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(data.dtype)
    updated = data.copy()
    updated[rows] = values * scale[:, None]
    with no_grad():
        from .inplace import set_values_without_grad

        set_values_without_grad(weight, updated)
    return weight


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype.scalar_type_name != "Long":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size:
        if data.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if data.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = _backend.host_value(np.arange(num_classes), data, np.int64)
    return make_tensor((data[..., None] == classes).astype(np.int64))


# -- bilinear, cosine similarity, normalize ------------------------------------------------------------------
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x1^T W_o x2 + b_o`` for every output o, as torch composes it: flattened batches, one
    trilinear product, reshaped back, then the bias."""
    from .contraction import trilinear

    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    if bias is not None and bias.shape[-1] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected "
                           f"{weight.shape[0]}")
    size = (*input1.shape[:-1], weight.shape[0])
    first = input1.reshape(-1, input1.shape[-1])
    second = input2.reshape(-1, input2.shape[-1])
    output = trilinear(first, weight, second, (1, 3), (0,), (1, 2), (2, 3), 1).reshape(size)
    return output + bias if bias is not None else output


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """torch's: each operand divided by its norm (clamped at ``eps`` without a gradient), then the
    dot product along ``dim``."""
    from .._grad_mode import no_grad
    from .reduction import vector_norm
    from .views import expand

    shape = broadcast_shapes(x1._data.shape, x2._data.shape)
    x1 = x1 if x1.shape == shape else expand(x1, shape)
    x2 = x2 if x2.shape == shape else expand(x2, shape)
    norm1 = vector_norm(x1, 2, dim, True).clone()
    norm2 = vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    second = x2 / norm2  # torch divides the second operand first: its node comes first in the graph's order
    return ((x1 / norm1) * second).sum(dim)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denominator
