"""The loop: an op run once per sample of a batch, for vmap where no batching rule computes it at once.

``fallback`` runs an op once for every combination of the running levels' indices and stacks the results,
after the warning torch's own fallback gives (``FALLBACK_WARNING``); ``per_sample`` does the same for a
computation over several values (the gradients of ``vmap(grad(f))`` where torch loops). With
``one_sample_warns``, the samples' own warnings are those of one sample, as torch's batched code gives
them once for the batch.
The rules that batch at once are ``_batching_rules`` and ``_batching_rules_nn``; where torch itself loops,
``_torch_loops``.
"""

from __future__ import annotations

import functools
import itertools
import warnings

from .._batched import RAW, BatchedTensor, aligned, batched, level_size, levels_of, union_of_levels
from .._tensor import Tensor


def _tensors(args, kwargs) -> list:
    found = [a for a in args if isinstance(a, Tensor)] + [v for v in kwargs.values() if isinstance(v, Tensor)]
    for a in args:
        if isinstance(a, (list, tuple)):
            found += [item for item in a if isinstance(item, Tensor)]
    return found


def _map_tensors(fn, args, kwargs):
    def one(value):
        if isinstance(value, Tensor):
            return fn(value)
        if isinstance(value, (list, tuple)) and any(isinstance(item, Tensor) for item in value):
            return type(value)(one(item) for item in value)
        return value
    return [one(a) for a in args], {key: one(value) for key, value in kwargs.items()}


FALLBACK_WARNING = ("There is a performance drop because we have not yet implemented the batching rule for {}. "
                    "Please file us an issue on GitHub so that we can prioritize its implementation.")


def fallback(op, args, kwargs, warn: bool = True, one_sample_warns: bool = False):
    """The op run once per sample (every combination of the levels' indices) and the results stacked.
    ``one_sample_warns``: the warnings of the first sample alone are given (each as often as it gives
    it: a complex var's two, one for each part), as torch's batched code gives them once for the batch."""
    name = getattr(op, "__name__", str(op))
    if name.endswith("_") and not name.startswith("__"):
        raise RuntimeError(f"vmap: {name} has no batching rule, and an in-place op cannot run sample by sample")
    if warn:
        warnings.warn(FALLBACK_WARNING.format(f"aten::{name}"), UserWarning, stacklevel=4)
    levels = union_of_levels(_tensors(args, kwargs))
    sizes = [level_size(n) for n in levels]
    count = functools.reduce(lambda a, b: a * b, sizes, 1)

    def sample(index):
        def pick(t):
            if not levels_of(t):
                return t
            physical = aligned(t, levels, expand=True)
            return RAW["__getitem__"](RAW["reshape"](physical, [count] + list(physical.shape[len(levels):])), index)
        picked_args, picked_kwargs = _map_tensors(pick, args, kwargs)
        return op(*picked_args, **picked_kwargs)

    if one_sample_warns:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = [sample(0)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results += [sample(i) for i in range(1, count)]
        for caught_warning in caught:
            warnings.warn(caught_warning.message, caught_warning.category, stacklevel=5)
    else:
        results = [sample(i) for i in range(count)]
    from .._ops.shape import stack  # noqa: PLC0415 - the shape ops import nothing of vmap

    def join(items):
        first = items[0]
        if isinstance(first, Tensor):
            stacked = stack(items)
            return RAW["reshape"](stacked, sizes + list(stacked.shape[1:]))
        if isinstance(first, tuple):
            parts = [join([item[k] for item in items]) for k in range(len(first))]
            return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
        raise RuntimeError(f"vmap: {name} returned a {type(first).__name__}, which cannot be batched")

    return batched(join(results), levels)


def per_sample(levels: list, compute, values: list, name: str) -> list:
    """``compute(values)`` once per index of ``levels`` (the values' samples at that index picked out), the
    results (a list of tensors, each batched over any other levels) stacked as BatchedTensors over all of
    them; after the fallback's warning."""
    warnings.warn(FALLBACK_WARNING.format(name), UserWarning, stacklevel=4)
    sizes = [level_size(n) for n in levels]
    results = [compute([_picked(v, levels, index) for v in values]) for index in itertools.product(*map(range, sizes))]
    return [_stacked([result[k] for result in results], levels, sizes) for k in range(len(results[0]))]


def _picked(value, levels: list, index: tuple):
    own = levels_of(value)
    if not own:
        return value
    physical, remaining = value.physical, list(own)
    for number, position in sorted(zip(levels, index), key=lambda pair: -own.index(pair[0]) if pair[0] in own else 0):
        if number in remaining:
            physical = RAW["select"](physical, remaining.index(number), position)
            remaining.remove(number)
    return BatchedTensor(physical, tuple(remaining)) if remaining else physical


def _stacked(items: list, levels: list, sizes: list):
    from .._ops.shape import stack  # noqa: PLC0415 - the shape ops import nothing of vmap

    rest = union_of_levels(items)
    joined = stack([aligned(item, rest, expand=True) for item in items])
    joined = RAW["reshape"](joined, sizes + list(joined.shape[1:]))
    order = list(levels) + list(rest)
    target = sorted(order)
    count = len(order)
    joined = RAW["permute"](joined, [order.index(n) for n in target] + list(range(count, joined.dim())))
    return BatchedTensor(joined, tuple(target))
