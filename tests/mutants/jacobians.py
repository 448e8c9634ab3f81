"""Mutants of Jacobians of non-square functions: a Jacobian laid out with its input dimensions first."""

from __future__ import annotations

import functools

from myautograd import func
from myautograd.func import _forward

from ._registry import mutant, replace


def _rows_as_jacobian(block, leaf):
    """``block`` (shape ``output.shape + leaf.shape``) as it comes out when the pushed tangents, one row per element
    of ``leaf``, are reshaped into it without moving the row dimension last: the transpose of its matrix,
    read in the block's shape (the same block where the output or the input has one element)."""
    inputs = leaf.numel()
    outputs = block.numel() // max(inputs, 1)
    return block.reshape(outputs, inputs).T.reshape(block.shape)


@mutant("function transforms", "jacfwd reshapes its tangents (one row per input element) into the Jacobian without "
        "moving the rows last: a non-square Jacobian comes out transposed, in the right shape")
def jacfwd_rows_not_moved():
    def make(original):
        @functools.wraps(original)
        def broken(function, argnums=0, has_aux=False, **kwargs):
            jacobian = original(function, argnums, has_aux, **kwargs)

            @functools.wraps(jacobian)
            def laid_out(*args):
                result = jacobian(*args)
                value, aux = result if has_aux else (result, None)
                numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
                leaves = [args[n] for n in numbers]

                def per_output(blocks):
                    if isinstance(argnums, int):
                        return _rows_as_jacobian(blocks, leaves[0])
                    return tuple(_rows_as_jacobian(b, leaf) for b, leaf in zip(blocks, leaves, strict=True))

                value = tuple(per_output(v) for v in value) if isinstance(value, tuple) else per_output(value)
                return (value, aux) if has_aux else value
            return laid_out
        return broken

    replace(func, "jacfwd", make)
    replace(_forward, "jacfwd", lambda original: func.jacfwd)
