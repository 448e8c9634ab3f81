"""Mutants of attention: caught by module_db's samples of MultiheadAttention and the Transformer layers
(``moduleinfo``). (module_db's MultiheadAttention samples all have one dimension per head, where scaling the
scores by 1/sqrt(head_dim) changes nothing; the Transformer layers' have two.)"""

from __future__ import annotations

from myautograd.nn import _functional_attention, functional

from ._registry import mutant, replace


@mutant("losses and layers", "scaled_dot_product_attention's scores not scaled by 1/sqrt(head_dim) when no scale "
        "is given")
def attention_scores_unscaled():
    def make(original):
        def attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kwargs):
            return original(query, key, value, attn_mask, dropout_p, is_causal, 1.0 if scale is None else scale,
                            **kwargs)

        return attention

    replace(_functional_attention, "scaled_dot_product_attention", make)
    replace(functional, "scaled_dot_product_attention", make)


@mutant("losses and layers", "multi_head_attention_forward ignores key_padding_mask: padded keys are attended")
def key_padding_mask_ignored():
    def make(original):
        def forward(*args, **kwargs):
            return original(*args, **{**kwargs, "key_padding_mask": None})

        return forward

    replace(functional, "multi_head_attention_forward", make)
