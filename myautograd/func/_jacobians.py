"""Jacobians built on ``vjp`` and ``vmap``, as torch.func builds them: ``jacrev``.

``jacrev(f)(x)`` pulls back every basis vector of the output space in one batched pass: under ``vmap``
over the rows of an identity matrix, ``vjp`` of ``f`` takes one row as its cotangent, so row ``i`` of
the result is the gradient of output element ``i``. (Here ``f`` runs under that ``vmap`` too, with its
inputs expanded to the batch, so that the backward pass is one pass of the batched graph.)
"""

from __future__ import annotations

from .._ops.registry import FUNCTIONS


def basis_rows(leaves: list) -> tuple[list, list[int], int]:
    """The rows of an identity matrix over all elements of ``leaves``, split per leaf and shaped like it
    (a leading dimension of the total count): the basis vectors a Jacobian pushes forward or pulls
    back. Also each leaf's element count and the total."""
    sizes = [leaf.numel() for leaf in leaves]
    total = sum(sizes)
    rows, start = [], 0
    for leaf, size in zip(leaves, sizes, strict=True):
        eye = FUNCTIONS["eye"](total, dtype=leaf.dtype, device=leaf.device)
        rows.append(eye[:, start:start + size].reshape(total, *leaf.shape))
        start += size
    return rows, sizes, total


def _numbers(argnums, count: int) -> tuple:
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not numbers:
        raise RuntimeError("jacrev(func, argnums=()): argnums must be non-empty")
    for number in numbers:
        if not isinstance(number, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -count <= number < count:
            raise RuntimeError(f"Got argnum={number}, but only {count} positional inputs")
    return tuple(n % count for n in numbers)


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False):
    """``f(*args) -> the Jacobian of f's outputs w.r.t. args[argnums]``: for each output, tensors of shape
    ``output.shape + input.shape`` in the structure of the inputs (and of ``argnums``)."""
    from . import _flatten, _unflatten, vjp  # noqa: PLC0415 - the package imports this module
    from ._vmap import as_dispatcher, vmap  # noqa: PLC0415

    func = as_dispatcher(func)

    def wrapper(*args):
        numbers = _numbers(argnums, len(args))

        def at_argnums(*primals):
            full = list(args)
            for number, primal in zip(numbers, primals, strict=True):
                full[number] = primal
            return func(*full)

        primals = tuple(args[n] for n in numbers)
        first = vjp(at_argnums, *primals, has_aux=has_aux)
        value, aux = first[0], (first[2] if has_aux else None)
        outputs, output_spec = _flatten(value)
        rows, sizes, total = basis_rows(outputs)

        def pull(*cotangents):
            result = vjp(at_argnums, *primals, has_aux=has_aux)
            return result[1](_unflatten(list(cotangents), output_spec))

        if total:
            pulled = vmap(pull, chunk_size=chunk_size)(*rows)
        else:  # every output is empty: the products of an empty batch, as torch's vmap over no rows gives them
            products = first[1](_unflatten([FUNCTIONS["zeros_like"](o) for o in outputs], output_spec))
            pulled = [_unflatten([None if g is None else g.unsqueeze(0)[:0] for g in _flatten(tree)[0]],
                                 _flatten(tree)[1]) for tree in products]
        per_input = []
        for index, primal in enumerate(primals):
            leaves, spec = _flatten(primal)
            grads = _flatten(pulled[index])[0] if pulled is not None else [None] * len(leaves)
            per_input.append((leaves, spec, grads))
        jacobians, start = [], 0
        for output, size in zip(outputs, sizes, strict=True):
            blocks = []
            for leaves, spec, grads in per_input:
                parts = []
                for leaf, grad in zip(leaves, grads, strict=True):
                    if grad is None:
                        parts.append(FUNCTIONS["zeros"](*output.shape, *leaf.shape, dtype=leaf.dtype,
                                                        device=leaf.device))
                    else:
                        parts.append(grad[start:start + size].reshape(*output.shape, *leaf.shape))
                blocks.append(_unflatten(parts, spec))
            jacobians.append(blocks[0] if isinstance(argnums, int) else tuple(blocks))
            start += size
        jacobian = _unflatten(jacobians, output_spec)
        return (jacobian, aux) if has_aux else jacobian

    return wrapper
