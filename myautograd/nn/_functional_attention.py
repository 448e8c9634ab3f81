"""Attention as functions: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

Both compute as torch does on the CPU, so that graphs carry torch's nodes. ``scaled_dot_product_attention`` of
4-D inputs without dropout is torch's flash kernel (one ``ScaledDotProductFlashAttentionForCpuBackward0`` node,
``myautograd._ops.attention``); otherwise it is torch's math fallback, composed of matmul, ``_safe_softmax`` and
dropout. With ``enable_gqa``, each key and value head serves a group of query heads (repeated before the kernel,
which torch's does inside).
``multi_head_attention_forward`` projects query, key and value (one packed ``linear`` split into three, or one
weight each), appends the optional key/value bias and zero attention, folds the padding mask into the attention
mask, then either forms the attention weights itself (``baddbmm``/``bmm``, softmax, ``bmm``: when the weights are
returned) or hands the heads to ``scaled_dot_product_attention``, and projects the result out.
"""

from __future__ import annotations

import math
import warnings

from .. import _dtype
from .._ops import attention as _attention
from .._ops import linalg as _linalg
from .._ops import nn_ops as _nn
from .._ops import padding as _padding
from .._ops import reduction as _reduction
from .._ops.creation import zeros, zeros_like
from .._ops.shape import cat
from .._tensor import Tensor, make_tensor


# -- scaled dot-product attention --------------------------------------------------------------------------
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = (_shared_heads(x, query.shape[-3]) for x in (key, value))
    uses_flash = (query.dim() == key.dim() == value.dim() == 4 and dropout_p == 0.0
                  and not (attn_mask is not None and attn_mask.requires_grad))
    if uses_flash:
        return _attention.flash_attention(query, key, value, attn_mask, is_causal, scale)
    return _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)


def _shared_heads(x: Tensor, heads: int) -> Tensor:
    """Grouped-query attention: each of the key's (or value's) heads repeated for its group of query heads."""
    groups, remainder = divmod(heads, x.shape[-3])
    if remainder:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")  # sic, torch's
    shape = tuple(x.shape)
    expanded = x.unsqueeze(-3).expand(*shape[:-2], groups, *shape[-2:])
    return expanded.reshape(*shape[:-3], heads, *shape[-2:])


def _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    """torch's math fallback: query and key each scaled by the square root of ``scale``, the mask added, a softmax
    that gives zeros where every key is masked (``_safe_softmax``), dropout, then the product with the value."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    root = math.sqrt(scale)
    if is_causal or (attn_mask is not None and not attn_mask.is_floating_point()):
        attn_mask = make_tensor(_attention.additive_mask(attn_mask, is_causal, query.shape[-2], key.shape[-2],
                                                         query._data))
    scores = _linalg.matmul(query * root, key.transpose(-2, -1) * root)
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _attention.safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = _nn.dropout(weights, dropout_p)
    return _linalg.matmul(weights, value)


# -- the masks ---------------------------------------------------------------------------------------------
def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """A boolean mask as an additive one (0 where False, -inf where True) in ``target_type``; a float mask as
    it is. Warns, as torch, when the mask's dtype differs from the other mask's."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if not is_float and mask.dtype is not _dtype.bool_:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", UserWarning, stacklevel=3)
    if is_float:
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def _none_or_dtype(input: Tensor | None):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """torch's checks of the inputs' ranks (and messages); True for a batched (3-D) query."""
    batched = query.dim() == 3
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             "query tensor")
    kind, rank = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {rank}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D but "
                             f"found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return batched


def _attention_mask_3d(attn_mask: Tensor, tgt_len: int, src_len: int, heads: int) -> Tensor:
    """The attention mask as (1 or batch * heads, tgt_len, src_len), with torch's errors."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


# -- the projections ---------------------------------------------------------------------------------------
def _split_rows(projection: Tensor, parts: int, embed_dim: int) -> list[Tensor]:
    """The ``parts`` blocks of the last dim of one packed projection, each made contiguous (torch's
    unflatten, unsqueeze, transpose, squeeze, contiguous)."""
    blocks = projection.unflatten(-1, (parts, embed_dim)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return [blocks[i] for i in range(parts)]


def _project_packed(query, key, value, weight, bias):
    """Query, key and value through the rows of one packed weight: one product for self-attention, two when
    key and value are one tensor, three otherwise."""
    embed_dim = query.shape[-1]
    if key is value and query is key:
        return _split_rows(_linalg.linear(query, weight, bias), 3, embed_dim)
    if key is value:
        w_q, w_kv = weight.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if bias is None else bias.split([embed_dim, embed_dim * 2])
        return [_linalg.linear(query, w_q, b_q), *_split_rows(_linalg.linear(key, w_kv, b_kv), 2, embed_dim)]
    weights = weight.chunk(3)
    biases = (None, None, None) if bias is None else bias.chunk(3)
    return [_linalg.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases)]


def _project_separate(query, key, value, weights, bias):
    """Query, key and value each through its own weight (``kdim``/``vdim`` differ from ``embed_dim``)."""
    names = ("query", "key", "value")
    biases = (None, None, None) if bias is None else bias.chunk(3)
    embed_dim = query.shape[-1]
    for name, x, w in zip(names, (query, key, value), weights):
        expected = (embed_dim, x.shape[-1])
        if tuple(w.shape) != expected:
            raise AssertionError(f"expecting {name} weights shape of {expected}, but got {w.shape}")
    for name, b in zip(names, biases):
        if b is not None and tuple(b.shape) != (embed_dim,):
            raise AssertionError(f"expecting {name} bias shape of {(embed_dim,)}, but got {b.shape}")
    return [_linalg.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases)]


def _heads(x: Tensor, static: Tensor | None, heads: int, head_dim: int, name: str) -> Tensor:
    """(length, batch, embed) as (batch * heads, length, head_dim), or the given ``static_k``/``static_v``."""
    if static is None:
        return x.view(x.shape[0], heads, head_dim).transpose(0, 1)
    if static.size(0) != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


# -- multi-head attention ----------------------------------------------------------------------------------
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the kernel applies the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")

    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        q, k, v = _project_separate(query, key, value, (q_proj_weight, k_proj_weight, v_proj_weight), in_proj_bias)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _project_packed(query, key, value, in_proj_weight, in_proj_bias)

    if attn_mask is not None:
        attn_mask = _attention_mask_3d(attn_mask, tgt_len, key.shape[0], bsz * num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else _padding.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else _padding.pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    heads = bsz * num_heads
    q = q.view(tgt_len, heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, heads, head_dim, "static_k")
    v = _heads(v, static_v, heads, head_dim, "static_v")
    if add_zero_attn:
        k = cat([k, zeros((heads, 1, head_dim), dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros((heads, 1, head_dim), dtype=v.dtype, device=v.device)], dim=1)
        attn_mask = None if attn_mask is None else _padding.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else _padding.pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        per_head = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(heads, 1, src_len)
        attn_mask = per_head if attn_mask is None else attn_mask + per_head
    if not training:
        dropout_p = 0.0

    if need_weights:
        return _attention_with_weights(q, k, v, attn_mask, is_causal, dropout_p, out_proj_weight, out_proj_bias,
                                       (tgt_len, bsz, embed_dim, num_heads), average_attn_weights, batched)
    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.size(0) == 1 and attn_mask.dim() == 3
                     else attn_mask.view(bsz, num_heads, -1, src_len))
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attended = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attended = attended.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = _linalg.linear(attended, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    return (output if batched else output.squeeze(1)), None


def _attention_with_weights(q, k, v, attn_mask, is_causal, dropout_p, out_proj_weight, out_proj_bias, sizes,
                            average_attn_weights, batched):
    """The attention weights formed here (they are returned): the query scaled by 1/sqrt(head_dim), the scores
    with the mask added (``baddbmm``), softmax, dropout, and the weighted values projected out."""
    tgt_len, bsz, embed_dim, num_heads = sizes
    q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
    if is_causal and attn_mask is None:
        raise AssertionError("FIXME: is_causal not implemented for need_weights")
    if attn_mask is not None:
        weights = _linalg.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = _linalg.bmm(q_scaled, k.transpose(-2, -1))
    weights = _reduction.softmax(weights, -1)
    if dropout_p > 0.0:
        weights = _nn.dropout(weights, dropout_p)
    attended = _linalg.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    output = _linalg.linear(attended, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    weights = weights.view(bsz, num_heads, tgt_len, weights.shape[-1])
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        return output.squeeze(1), weights.squeeze(0)
    return output, weights
