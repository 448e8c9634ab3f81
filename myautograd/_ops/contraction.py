"""Tensor contractions: ``einsum`` and ``tensordot``, composed of views and matrix products as torch
composes them, so their graphs end in torch's nodes and differentiate to any order.

``einsum`` takes the diagonals of repeated subscripts, lines every operand up on torch's order of
subscripts (the output's first, then the summed ones; missing ones unsqueezed at the end, then one
permute, as torch's ``einsum`` in aten/src/ATen/native/Linear.cpp), then sums a
single operand, or multiplies operands pairwise, through ``bmm`` where subscripts are summed
(``sumproduct_pair``), else elementwise. ``tensordot`` is one ``mm`` between the two operands
reshaped to matrices (one ``dot`` where both keep a single element; a contracted dimension of size
one in either is summed first). ``_trilinear`` (bilinear's product) is one op of its own, as torch's.
"""

from __future__ import annotations

import numpy as np

from .._autograd.formula_math import ArrayMath
from .._autograd.record import recorded
from .common import normalize_dim
from .derivatives import NODES
from .linalg import bmm, dot, mm
from .registry import export

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse(equation: str, operands) -> tuple[list[list[str]], list[str]]:
    """Each operand's subscripts and the output's, an ellipsis spelled out as labels of its own."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(terms) else
                           "einsum(): fewer operands were provided than specified in the equation")
    ellipsis_dims = 0
    for term, operand in zip(terms, operands):
        if "..." in term:
            ellipsis_dims = max(ellipsis_dims, operand.dim() - (len(term) - 3))
    spare = [c for c in _LETTERS if c not in equation][:ellipsis_dims]
    subscripts = []
    for term, operand in zip(terms, operands):
        if "..." in term:
            own = operand.dim() - (len(term) - 3)
            head, _, tail = term.partition("...")
            subscripts.append(list(head) + spare[ellipsis_dims - own:] + list(tail))
        else:
            subscripts.append(list(term))
    if arrow:
        head, dots, tail = output.partition("...")
        out = list(head) + (spare if dots else []) + list(tail)
    else:  # implicit output: the ellipsis, then the subscripts seen once, in alphabetical order
        counts: dict[str, int] = {}
        for labels in subscripts:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        out = spare + sorted(label for label, n in counts.items() if n == 1 and label not in spare)
    return subscripts, out


def _check_sizes(subscripts, operands) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for number, (labels, operand) in enumerate(zip(subscripts, operands)):
        for label, size in zip(labels, operand.shape):
            seen = sizes.get(label)
            if seen is not None and size != seen and size != 1 and seen != 1:
                raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {number} which does not "
                                   f"broadcast with previously seen size {seen}")
            if seen is None or seen == 1:
                sizes[label] = size
    return sizes


def _aligned(operand, labels: list[str], order: list[str]):
    """``operand`` lined up on ``order`` as torch's einsum does it: a repeated subscript's diagonal
    put back where the subscript first appears, missing subscripts unsqueezed at the end, then one
    permute (so a gradient ends with the permute's backward, then the unsqueezes')."""
    position: dict[str, int] = {}
    dim = 0
    for label in labels:
        if label in position:
            operand = operand.diagonal(0, position[label], dim).movedim(-1, position[label])
        else:
            position[label] = dim
            dim += 1
    permutation = []
    for label in order:
        if label not in position:
            operand = operand.unsqueeze(dim)
            position[label] = dim
            dim += 1
        permutation.append(position[label])
    return operand.permute(*permutation)


def _sumproduct_pair(left, right, summed: list[int]):
    """``(left * right).sum(summed, keepdim=True)`` for operands of the same number of dims, through bmm."""
    if not summed:
        return left * right
    ndim = left.dim()
    batch = [d for d in range(ndim) if d not in summed and left.shape[d] != 1 and right.shape[d] != 1]
    only_left = [d for d in range(ndim) if d not in summed and d not in batch and right.shape[d] == 1]
    only_right = [d for d in range(ndim) if d not in summed and d not in batch and d not in only_left]
    sizes = [left.shape[d] if right.shape[d] == 1 else right.shape[d] for d in range(ndim)]  # broadcast: 0 with 1 is 0

    def size_of(dims):
        return int(np.prod([sizes[d] for d in dims])) if dims else 1

    left = left.expand(*[sizes[d] if d in summed or d in batch else left.shape[d] for d in range(ndim)])
    right = right.expand(*[sizes[d] if d in summed or d in batch else right.shape[d] for d in range(ndim)])
    left = left.permute(*batch, *only_left, *summed, *only_right).reshape(
        size_of(batch), size_of(only_left), size_of(summed))
    right = right.permute(*batch, *summed, *only_right, *only_left).reshape(
        size_of(batch), size_of(summed), size_of(only_right))
    product = bmm(left, right)
    order = batch + only_left + only_right
    product = product.view(*[sizes[d] for d in order])
    inverse = [order.index(d) for d in range(ndim) if d in order]
    product = product.permute(*inverse)
    for d in summed:
        product = product.unsqueeze(d)
    return product


@export(method=False)
def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subscripts, output = _parse(equation, operands)
    _check_sizes(subscripts, operands)
    seen = [label for labels in subscripts for label in labels]
    # torch's order of the summed subscripts: an ellipsis (its labels are not in the equation) first,
    # then the letters, capitals first
    summed_labels = sorted({label for label in seen if label not in output},
                           key=lambda label: (0, _LETTERS.index(label)) if label not in equation else (1, label))
    order = output + summed_labels
    aligned = [_aligned(operand, labels, order) for operand, labels in zip(operands, subscripts)]
    summed = list(range(len(output), len(order)))
    if len(aligned) == 1:
        result = aligned[0]
        return result.sum(tuple(summed)) if summed else result
    result = aligned[0]
    for position, operand in enumerate(aligned[1:], start=1):
        # a subscript can be summed once no later operand has it
        later = set().union(*(set(labels) for labels in subscripts[position + 1:]))
        now = [d for d in summed if order[d] not in later and (result.shape[d] != 1 or operand.shape[d] != 1)]
        result = _sumproduct_pair(result, operand, now)
    shape = [result.shape[d] for d in range(len(output))]
    if summed:
        return result.view(*shape)
    return result


@export(method=False, name="_trilinear")
def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """``torch._trilinear`` (what ``bilinear`` computes with): TrilinearBackward0, whose gradients are
    trilinear products again. ``unroll_dim`` only orders torch's loop; it is checked, then unused."""
    total = i1.dim() + len(expand1)
    if not 0 <= unroll_dim < total:
        raise RuntimeError(f"unroll_dim must be in [0,{total - 1}]")
    attrs = {"expand1": tuple(expand1), "expand2": tuple(expand2), "expand3": tuple(expand3),
             "sumdim": tuple(sumdim)}
    out = ArrayMath.trilinear(i1._data, i2._data, i3._data, *attrs.values())
    return recorded(NODES["TrilinearBackward0"], out, (i1, i2, i3), attrs)


@export
def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a = list(range(-dims, 0))
        dims_b = list(range(dims))
    else:
        first, second = dims
        dims_a = [first] if isinstance(first, int) else list(first)
        dims_b = [second] if isinstance(second, int) else list(second)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    given = list(zip(dims_a, dims_b))
    dims_a = [normalize_dim(d, a.dim()) for d in dims_a]
    dims_b = [normalize_dim(d, b.dim()) for d in dims_b]
    shape_a, shape_b = tuple(a.shape), tuple(b.shape)
    contracted = 1
    for (raw_a, raw_b), da, db in zip(given, dims_a, dims_b):
        if shape_b[db] == 1:  # a dimension of one broadcasts: the other operand is summed over it at once
            a = a.sum(da, keepdim=True, dtype=a.dtype)
        elif shape_a[da] == 1:
            b = b.sum(db, keepdim=True, dtype=b.dtype)
        elif shape_a[da] != shape_b[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {shape_a[da]} in dim "
                               f"{raw_a} and second has size {shape_b[db]} in dim {raw_b}")
        else:
            contracted *= shape_a[da]
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    rows, columns = int(np.prod([a.shape[d] for d in free_a])), int(np.prod([b.shape[d] for d in free_b]))
    left, right = a.permute(*free_a, *dims_a), b.permute(*dims_b, *free_b)
    if rows == 1 and columns == 1:  # torch takes one dot product of the flattened operands
        product = dot(left.flatten(), right.flatten())
    else:
        product = mm(left.reshape(rows, contracted), right.reshape(contracted, columns))
    return product.view(*[a.shape[d] for d in free_a], *[b.shape[d] for d in free_b])
