"""Where vmap runs an op once per sample, as torch's own fallback does, and ``run``, the entry of every call.

torch 2.13 has no batching rule for some ops (mostly in-place ones: ``fmod_``, ``clamp_``, ``cumsum_``...,
and ``masked_fill`` with a tensor value, ``kl_div``, ``take``): it loops over the samples after the warning
of its fallback, which names the op's overload (``aten::fmod_.Tensor``). A program that runs under torch's
vmap gives that warning, so myautograd loops there too, with the same text (``TORCH_LOOPS``). Under a
gradient transform, torch reaches other ops for some of them (``TORCH_GRAD_LOOPS``: ``bilinear`` is
``_trilinear``, forward and backward; ``take``'s backward is ``put``); for others it has a decomposition it
batches (``square_``, ``kl_div``), and so do myautograd's rules. Everywhere else an op is batched by its
rule (``_batching_rules``), or by the generic loop with the warning when it has none.
"""

from __future__ import annotations

import warnings

from .._batched import RAW, BatchedTensor, levels_of, union_of_levels
from .._tensor import Tensor
from ._batching_rules import INPLACE_ERROR, RULES
from ._per_sample import FALLBACK_WARNING, _tensors, fallback


# -- where torch itself loops: its fallback's warning, under torch's name of the op's overload -------------
def _overload(tensor_suffix: str, other_suffix: str, position: int, keyword: str):
    """The overload torch picks by whether the argument at ``position`` (or ``keyword``) is a tensor."""
    def named(args, kwargs):
        value = args[position] if len(args) > position else kwargs.get(keyword)
        return tensor_suffix if isinstance(value, Tensor) else other_suffix
    return named


def _always(suffix: str):
    return lambda args, kwargs: suffix


def _tensor_value_only(args, kwargs):
    value = args[2] if len(args) > 2 else kwargs.get("value")
    return ".Tensor" if isinstance(value, Tensor) else None


def _complex_only(args, kwargs):
    """A real input is returned as it is (torch has nothing to batch); a complex one is conjugated per sample."""
    return "" if args[0].is_complex() else None


def _without_grad(args, kwargs):
    """Under a gradient (the inputs require grad) torch decomposes the op into ops it has rules for."""
    return None if any(t.requires_grad for t in _tensors(args, kwargs)) else ""


# op name -> the overload suffix torch 2.13 has no batching rule for (None: torch has a rule for this call)
TORCH_LOOPS = {
    "fmod_": _overload(".Tensor", ".Scalar", 1, "other"), "lerp_": _overload(".Tensor", ".Scalar", 2, "weight"),
    "clamp_": _overload(".Tensor", "", 1, "min"), "addcmul_": _always(""), "addcdiv_": _always(""),
    "square_": _without_grad, "cumsum_": _always(""), "tril_": _always(""),
    "scatter_": _overload(".src", ".value", 3, "src"), "masked_fill": _tensor_value_only, "kl_div": _without_grad,
    "conj_physical": _complex_only, "conj_physical_": _always(""),
}
SHOWN_AS = {"conj_physical": "_conj_physical"}  # the aten op torch's warning names, where it is not the op's own
# op name -> the ops torch's backward of a looped call loops over too, under a gradient: a complex conjugate's
# gradient is conjugated by the same op (a real one's passes as it is)
TORCH_BACKWARD_LOOPS = {"conj_physical": ("_conj_physical",), "conj_physical_": ("_conj_physical",)}


def _differentiable_count(args, kwargs) -> int:
    return sum(1 for t in _tensors(args[:3], {}) if t.requires_grad)


# op name -> under a gradient, (the op torch's autograd reaches, the ops its backward reaches): torch loops over both
TORCH_GRAD_LOOPS = {
    "bilinear": lambda args, kwargs: ("_trilinear", ["_trilinear"] * _differentiable_count(args, kwargs)),
    "take": lambda args, kwargs: ("take", ["put"] if args[0].requires_grad else []),
}


def torch_loop(name: str, suffix: str, op, args, kwargs, shown: str | None = None, backward: tuple = ()):
    """What torch's fallback does: the warnings a sample's own code gives (once, as torch's Python prologue
    gives them), the fallback's warning (for the op ``shown``, by default ``name``), then the op once per
    sample; an in-place op computes out of place per sample and writes the stacked results into its target,
    which must be batched over every level. ``backward``: the ops torch's backward of the result loops over,
    whose warnings the backward pass gives."""
    inplace = name.endswith("_")
    target = args[0]
    levels = union_of_levels(_tensors(args, kwargs))
    if inplace and levels_of(target) != levels:
        raise RuntimeError(INPLACE_ERROR)
    compute = RAW[name[:-1]] if inplace else op
    if inplace:  # the samples read from a copy, so that writing the target leaves what backward saved intact
        args = (BatchedTensor(RAW["clone"](target.physical), levels), *args[1:])
    result = fallback(compute, args, kwargs, warn=False, one_sample_warns=True)
    warnings.warn(FALLBACK_WARNING.format(f"aten::{shown or name}{suffix}"), UserWarning, stacklevel=4)
    if backward and isinstance(result, BatchedTensor) and result.requires_grad:
        def backward_warnings(grad):
            for backward_name in backward:
                warnings.warn(FALLBACK_WARNING.format(f"aten::{backward_name}"), UserWarning, stacklevel=2)
        result.physical.register_hook(backward_warnings)
    if not inplace:
        return result
    RAW["copy_"](target.physical, result.physical)
    return target


def run(name: str, op, args, kwargs):
    """``op`` applied to arguments of which at least one is batched, or a random op under vmap."""
    if name in TORCH_GRAD_LOOPS and any(t.requires_grad for t in _tensors(args, kwargs)):
        shown, backward = TORCH_GRAD_LOOPS[name](args, kwargs)
        return torch_loop(name, "", op, args, kwargs, shown=shown, backward=tuple(backward))
    loops = TORCH_LOOPS.get(name)
    suffix = loops(args, kwargs) if loops is not None else None
    if suffix is not None:
        differentiated = (name in TORCH_BACKWARD_LOOPS and args[0].is_complex()
                          and any(t.requires_grad for t in _tensors(args, kwargs)))
        return torch_loop(name, suffix, op, args, kwargs, shown=SHOWN_AS.get(name),
                          backward=TORCH_BACKWARD_LOOPS[name] if differentiated else ())
    found = RULES.get(name)
    if found is None:
        return fallback(op, args, kwargs)
    return found(op, args, kwargs)


__all__ = ["TORCH_BACKWARD_LOOPS", "TORCH_LOOPS", "run"]
