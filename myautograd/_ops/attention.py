"""Scaled dot-product attention as torch's CPU flash kernel: one op, one node.

torch computes ``scaled_dot_product_attention`` of 4-D float inputs without dropout on the CPU with
``_scaled_dot_product_flash_attention_for_cpu``, recorded as ``ScaledDotProductFlashAttentionForCpuBackward0``
with edges to the query, key and value. ``flash_attention`` is that op: the scores ``query @ key^T * scale``,
the additive mask (a boolean one turned into 0 and -inf, the causal one top-left aligned), a softmax over the
keys (``formula_helpers_nn.attention_probabilities``, which the backward formulas use too; a query whose keys are
all masked attends to nothing), and the probabilities times the value. ``safe_softmax`` is torch's
``_safe_softmax``, the softmax of its math path. The other cases (a dropout, 3-D inputs) torch composes from matmul and
softmax, and so does ``myautograd.nn.functional``.
"""

from __future__ import annotations

import numpy as np

from .._autograd.formula_math import constant, one_kernel
from .._autograd.record import recorded
from .._tensor import Tensor
from . import formula_helpers_nn as HN
from .common import normalize_dim, to_dtype
from .derivatives import NODES
from .linalg import _product
from .registry import function


def additive_mask(attn_mask: Tensor | None, is_causal: bool, query_length: int, key_length: int, like):
    """The mask added to the scores (an array of ``like``'s dtype, or None): a boolean mask keeps its True
    places and puts -inf elsewhere, a float mask is added as it is, and ``is_causal`` (with or without a mask,
    as the flash kernel) hides from query i the keys after i."""
    bias = None
    if attn_mask is not None:
        mask = attn_mask._data
        bias = _kept(mask, like) if mask.dtype == np.bool_ else constant(mask, like)
    if is_causal:
        causal = _kept(np.tril(np.ones((query_length, key_length), dtype=bool)), like)
        bias = causal if bias is None else bias + causal
    return bias


def _kept(keep, like):
    """0 where ``keep`` (host or device booleans), -inf elsewhere, in ``like``'s dtype on its device."""
    return constant(np.where(keep, 0.0, -np.inf), like)


def flash_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool,
                    scale: float) -> Tensor:
    """torch's ``_scaled_dot_product_flash_attention_for_cpu`` (its output; the log-normaliser stays inside)."""
    q, k, v = query._data, key._data, value._data
    bias = additive_mask(attn_mask, is_causal, q.shape[-2], k.shape[-2], q)
    probabilities = one_kernel(HN.attention_probabilities)(q, k, scale, bias)
    out = _product(probabilities, v)
    return recorded(NODES["ScaledDotProductFlashAttentionForCpuBackward0"], out, (query, key, value),
                    {"bias": bias, "scale": scale})


@function(name="_safe_softmax")
def safe_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """torch's ``_safe_softmax`` (SafeSoftmaxBackward0): softmax, zeros where a slice is all -inf; the softmax of
    attention's math path."""
    if dtype is not None:
        input = input.to(to_dtype(dtype))
    out = one_kernel(HN.safe_softmax)(input._data, normalize_dim(dim, input._data.ndim))
    return recorded(NODES["SafeSoftmaxBackward0"], out, (input,), {"dim": dim})
