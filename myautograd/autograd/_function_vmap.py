"""A custom Function applied to batched values under ``torch.func.vmap``.

As in torch, such a Function must define ``setup_context`` (forward without ctx), and say how it batches:
either a ``vmap`` staticmethod, ``vmap(info, in_dims, *args) -> (output, out_dims)``, called with the
values of the innermost level unwrapped (the batch as dimension ``in_dims[i]``, None for an argument not
batched there), or ``generate_vmap_rule = True``, where forward itself runs on the batched values (its
operations are batched as any others).

Not done: ``generate_vmap_rule`` with inputs that require grad (grad of a vmapped Function): it raises
NotImplementedError saying so; the ``vmap`` staticmethod supports it, its ``apply`` on the unwrapped values
being an ordinary Function call.
"""

from __future__ import annotations

from typing import NamedTuple

from .._batched import LEVELS, RAW, BatchedTensor, union_of_levels
from .._grad_mode import STATE
from .._tensor import Tensor

FUNC_NOTES = "https://pytorch.org/docs/main/notes/extending.func.html"
SETUP_CONTEXT_REQUIRED = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it must override "
    f"the setup_context staticmethod. For more details, please see {FUNC_NOTES}"
)


class VmapInfo(NamedTuple):
    """What a Function's ``vmap`` staticmethod gets first: the batch size and the randomness mode."""
    batch_size: int
    randomness: str


def is_batched_call(inputs: tuple) -> bool:
    return any(isinstance(a, BatchedTensor) for a in inputs)


def apply_batched(cls, base, args: tuple, kwargs: dict, setup_style: bool):
    """``cls.apply(*args, **kwargs)`` where some argument is a BatchedTensor (``base``: the Function class)."""
    if not setup_style:
        raise RuntimeError(SETUP_CONTEXT_REQUIRED)
    has_rule = cls.vmap is not base.vmap
    if cls.generate_vmap_rule and has_rule:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an "
                           "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden "
                           f"vmap staticmethod to avoid ambiguity. For more details, please see {FUNC_NOTES}")
    if cls.generate_vmap_rule:
        return _generated_rule(cls, args, kwargs)
    if not has_rule:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override "
                           "and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, "
                           f"please see {FUNC_NOTES}")
    return _own_rule(cls, args, kwargs)


def _generated_rule(cls, args: tuple, kwargs: dict):
    if STATE.grad_enabled and any(isinstance(a, BatchedTensor) and a.physical.requires_grad
                                  for a in (*args, *kwargs.values())):
        raise NotImplementedError(f"myautograd does not implement autograd.Function.generate_vmap_rule for inputs that "
                                  f"require grad ({cls.__name__} under vmap); override the vmap staticmethod instead")
    previous = STATE.grad_enabled
    STATE.grad_enabled = False  # as any Function's forward
    try:
        return cls.forward(*args, **kwargs)
    finally:
        STATE.grad_enabled = previous


def _unwrap(value, level: int):
    """``value`` seen one level out, its batch at ``level`` (the innermost it has) its first dimension, and
    that dimension's index (None where ``value`` is not batched at ``level``)."""
    if not isinstance(value, BatchedTensor) or level not in value.levels:
        return value, None
    outer = value.levels[:-1]
    return (BatchedTensor(value.physical, outer) if outer else value.physical), 0


def _rewrap(value, out_dim, level: int):
    """The rule's output back inside ``level``: its dimension ``out_dim`` becomes the batch."""
    if out_dim is None or not isinstance(value, Tensor):
        return value
    outer = value.levels if isinstance(value, BatchedTensor) else ()
    physical = value.physical if outer else value
    physical = RAW["movedim"](physical, len(outer) + out_dim, len(outer))
    return BatchedTensor(physical, tuple(sorted((*outer, level))))


def _own_rule(cls, args: tuple, kwargs: dict):
    level = union_of_levels((*args, *kwargs.values()))[-1]
    unwrapped, in_dims = zip(*(_unwrap(a, level) for a in args)) if args else ((), ())
    info = VmapInfo(LEVELS[level - 1].size, LEVELS[level - 1].randomness)
    output, out_dims = cls.vmap(info, tuple(in_dims), *unwrapped, **kwargs)
    if isinstance(output, tuple):
        dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(output)
        return tuple(_rewrap(o, d, level) for o, d in zip(output, dims))
    return _rewrap(output, out_dims, level)
