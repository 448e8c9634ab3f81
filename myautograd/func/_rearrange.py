"""``rearrange``: einops' pattern language for transposing, merging and splitting dimensions.

``"a (h w) c -> a h w c"`` names each dimension on the left (a parenthesised group is one dimension
made of several), and on the right the order and grouping wanted. The tensor is reshaped to one
dimension per name, permuted into the right side's order, and reshaped to the right side's groups.
"""

from __future__ import annotations

import math


def _groups(side: str) -> list[list[str]]:
    groups, current = [], None
    for token in side.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if current is not None:
                raise ValueError(f"Nested parentheses in the pattern side: {side!r}")
            current = []
        elif token == ")":
            if current is None:
                raise ValueError(f"Unbalanced parentheses in the pattern side: {side!r}")
            groups.append(current)
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append([token])
    if current is not None:
        raise ValueError(f"Unbalanced parentheses in the pattern side: {side!r}")
    return groups


def rearrange(tensor, pattern: str, **axes_lengths):
    """``tensor`` rearranged as ``pattern`` says; ``axes_lengths`` gives the sizes a split cannot infer."""
    left_text, arrow, right_text = pattern.partition("->")
    if not arrow:
        raise ValueError(f"Pattern must contain '->': {pattern!r}")
    left, right = _groups(left_text), _groups(right_text)
    if len(left) != tensor.dim():
        raise ValueError(f"Wrong shape: expected {len(left)} dims. Received {tensor.dim()}-dim tensor.")
    sizes = dict(axes_lengths)
    for group, size in zip(left, tensor.shape, strict=True):
        unknown = [name for name in group if name not in sizes]
        known = math.prod(sizes[name] for name in group if name in sizes)
        if len(unknown) > 1:
            raise ValueError(f"Could not infer sizes for {set(unknown)}")
        if unknown:
            sizes[unknown[0]] = size // known
        elif known != size:
            raise ValueError(f"Shape mismatch, {size} != {known}")
    names = [name for group in left for name in group]
    order = [name for group in right for name in group]
    if sorted(names) != sorted(order):
        raise ValueError(f"Identifiers only on one side of expression (should be on both): "
                         f"{set(names) ^ set(order)}")
    spread = tensor.reshape(*[sizes[name] for name in names]) if names else tensor
    moved = spread.permute(*[names.index(name) for name in order]) if names else spread
    return moved.reshape(*[math.prod(sizes[name] for name in group) for group in right])
