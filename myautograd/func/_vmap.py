"""``vmap``: a function written for one sample, run for a batch of samples in one go.

``vmap(f, in_dims, out_dims)(*args)`` opens a level (``_batched.LEVELS``), turns the batched arguments
into ``BatchedTensor``s of that level (the batch dimension of each moved to the front of its physical
tensor), calls ``f`` once, and moves the level's dimension of each output to its ``out_dims`` place.

How the ops inside ``f`` find their batching rules: while a vmap runs, the ``torch.<name>`` and
``torch.nn.functional.<name>`` functions and the Tensor methods are replaced by dispatchers that send a
call with a batched argument (or a random op) to ``_torch_loops.run`` and any other call to the op
itself; they are put back when the outermost vmap ends. A BatchedTensor's own methods are dispatchers
for good. So the ops cost nothing more when no vmap runs.
"""

from __future__ import annotations

import functools
import inspect
import sys

from .. import _ops
from .._batched import LEVELS, RAW, BatchedTensor, Level, aligned, levels_of
from .._tensor import Tensor
from . import _batching_rules, _batching_rules_fft, _batching_rules_nn  # noqa: F401 - the rules register themselves
from ._batching_rules import RANDOM, SELF_ONLY
from ._pytree import flatten, spec_repr, unflatten
from ._torch_loops import run

RANDOMNESS_MODES = ("error", "different", "same")


# -- how the ops reach the rules ---------------------------------------------------------------------------------
def _named(name: str, op):
    """``op`` under the name the rules know it by (a registry op's own ``__name__`` may differ)."""
    @functools.wraps(op)
    def named(*args, **kwargs):
        return op(*args, **kwargs)
    named.__name__ = name
    return named


def _has_batched(args, kwargs) -> bool:
    for value in (*args, *kwargs.values()):
        if isinstance(value, BatchedTensor):
            return True
        if isinstance(value, (list, tuple)) and any(isinstance(item, BatchedTensor) for item in value):
            return True
    return False


def _dispatcher(name: str, op):
    named = _named(name, op)
    random = name in RANDOM

    def dispatch(*args, **kwargs):
        if (random and LEVELS) or _has_batched(args, kwargs):
            return run(name, named, args, kwargs)
        return op(*args, **kwargs)

    dispatch.__name__ = name
    return dispatch


def _functional_module():
    return sys.modules["myautograd.nn.functional"]


def _self_only(name: str, op) -> bool:
    """Whether the method ``name`` takes no tensor but its self, so that called on a plain tensor it never
    meets a batched value (and vmap need not replace it on Tensor)."""
    if name in RANDOM or name.startswith("__"):
        return False
    if name in SELF_ONLY:
        return True
    try:
        parameters = inspect.signature(op).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    return len(positional) <= 1 and not any(p.kind is p.KEYWORD_ONLY for p in parameters)


def _replaced() -> list:
    """(owner, name, original, dispatcher) for every function and method that vmap replaces while it runs."""
    root = sys.modules["myautograd"]
    functional = _functional_module()
    entries = []
    for name, op in _ops.FUNCTIONS.items():
        if getattr(root, name, None) is op:
            entries.append((root, name, op, _dispatcher(name, op)))
    for name, op in vars(functional).items():
        # functional's own functions and those it takes from its family modules (nn/_functional_<family>.py)
        if callable(op) and not name.startswith("_") and not isinstance(op, type) and getattr(op, "__module__", "") \
                .startswith((functional.__name__, functional.__name__.replace("functional", "_functional_"))):
            entries.append((functional, name, op, _dispatcher(name, op)))
    fourier = sys.modules["myautograd.fft"]
    for name in fourier.__all__:
        entries.append((fourier, name, getattr(fourier, name), _dispatcher(f"fft_{name}", getattr(fourier, name))))
    for name, op in RAW.items():
        if _self_only(name, op):
            continue
        if name in ("T", "mT", "real", "imag"):
            entries.append((Tensor, name, property(op), property(_dispatcher(name, op))))
        else:
            entries.append((Tensor, name, op, _dispatcher(name, op)))
    return entries


_REPLACED: list = []
_SWAPS: list = []  # (namespace, originals, dispatchers): a module's all at once, with one dict update


def _replacements() -> list:
    """``_REPLACED`` (and ``_SWAPS``), made the first time they are needed."""
    if not _REPLACED:
        _REPLACED.extend(_replaced())
        for owner in {id(owner): owner for owner, *_ in _REPLACED}.values():
            if owner is not Tensor:
                entries = [entry for entry in _REPLACED if entry[0] is owner]
                _SWAPS.append((vars(owner), {name: original for _, name, original, _ in entries},
                               {name: dispatcher for _, name, _, dispatcher in entries}))
    return _REPLACED


def _install() -> None:
    _replacements()
    for namespace, _, dispatchers in _SWAPS:
        namespace.update(dispatchers)
    for owner, name, _, dispatcher in _REPLACED:
        if owner is Tensor:
            setattr(Tensor, name, dispatcher)


def _uninstall() -> None:
    for namespace, originals, _ in _SWAPS:
        namespace.update(originals)
    for owner, name, original, _ in _REPLACED:
        if owner is Tensor:
            setattr(Tensor, name, original)


def _batched_methods() -> None:
    """A BatchedTensor's methods: dispatchers always (its own size, dim and friends excepted)."""
    own = set(vars(BatchedTensor))
    for name, op in RAW.items():
        if name in own:
            continue
        dispatcher = _dispatcher(name, op)
        setattr(BatchedTensor, name, property(dispatcher) if name in ("T", "mT", "real", "imag") else dispatcher)


_batched_methods()


# -- vmap ---------------------------------------------------------------------------------------------------------
def _name_of(func) -> str:
    return getattr(func, "__name__", repr(func))


def _dims_for(dims, tree, where: str, fail):
    """``dims`` (an int, None, or a container matching ``tree``'s outer structure) for every leaf of ``tree``."""
    if not isinstance(dims, (tuple, list, dict)):
        leaves, _ = flatten(tree)
        return [dims] * len(leaves)
    if isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)) and type(dims) is type(tree) \
            and len(dims) == len(tree):
        return [d for sub, part in zip(dims, tree, strict=True) for d in _dims_for(sub, part, where, fail)]
    if isinstance(dims, dict) and isinstance(tree, dict) and list(dims) == list(tree):
        return [d for key in tree for d in _dims_for(dims[key], tree[key], where, fail)]
    fail()
    return []


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its arguments; see the module's docstring."""
    if randomness not in RANDOMNESS_MODES:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = _name_of(func)

    @functools.wraps(func)
    def mapped(*args, **kwargs):
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             "trying to vmap over a function with no inputs. The latter is unsupported.")
        if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
            raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                             f"structure of inputs, got: {type(in_dims)}.")

        def structure_error():
            raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has "
                             f"structure {spec_repr(in_dims)} but inputs has structure {spec_repr(args)}.")

        leaves, spec = flatten(args)
        dims = _dims_for(in_dims if isinstance(in_dims, int) else in_dims, args, where, structure_error)
        size = _batch_size(leaves, dims, where)
        if chunk_size is None or chunk_size >= size:
            return _call(func, name, leaves, dims, spec, kwargs, size, out_dims, randomness)
        chunks = []
        for start in range(0, size, chunk_size):
            count = min(chunk_size, size - start)
            part = [RAW["narrow"](leaf, d, start, count) if d is not None else leaf for leaf, d in zip(
                leaves, dims, strict=True)]
            chunks.append(_call(func, name, part, dims, spec, kwargs, count, out_dims, randomness))
        return _joined(chunks, out_dims)

    return mapped


def _batch_size(leaves, dims, where: str) -> int:
    sizes = []
    for leaf, dim in zip(leaves, dims, strict=True):
        if dim is None:
            continue
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but in_dim must be either an integer dimension "
                             "or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type {type(leaf)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        rank = leaf.dim()
        if not -rank <= dim < rank:
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a Tensor of dimensionality "
                             f"{rank} so expected in_dim to satisfy -{rank} <= in_dim < {rank}.")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    return sizes[0]


def _enter(leaf, dim, number: int):
    """An argument as the samples see it: its batch dimension ``dim`` moved behind its outer levels' ones."""
    if dim is None:
        return leaf
    own = levels_of(leaf)
    physical = leaf.physical if own else leaf
    rank = leaf.dim()
    physical = RAW["movedim"](physical, len(own) + (dim + rank if dim < 0 else dim), len(own))
    return BatchedTensor(physical, own + (number,))


def _leave(value, out_dim, number: int, name: str):
    """An output as the caller gets it: the level's dimension moved to ``out_dim`` (added if not batched)."""
    own = levels_of(value)
    if out_dim is None:
        if number in own:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return value
    if number not in own:
        own = own + (number,)
        physical = aligned(value, own, expand=True)
    else:
        physical = value.physical
    position = len(own) - 1
    rank = physical.dim() - len(own)
    size = rank + 1
    if not -size <= out_dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {out_dim})")
    target = position + (out_dim + size if out_dim < 0 else out_dim)
    if target != position:
        physical = RAW["movedim"](physical, position, target)
    rest = own[:-1]
    return BatchedTensor(physical, rest) if rest else physical


def as_dispatcher(func):
    """An op passed to a transform itself (``vmap(torch.dot)``, ``jacrev(torch.sin)``) was looked up
    before the dispatchers were in place: its dispatcher, which finds the batching rule whenever a
    BatchedTensor reaches it; any other function as it is."""
    for _, _, original, dispatcher in _replacements():
        if original is func and not isinstance(original, property):
            return dispatcher
    return func


def _call(func, name, leaves, dims, spec, kwargs, size, out_dims, randomness):
    number = len(LEVELS) + 1
    if not LEVELS:
        _install()
    func = as_dispatcher(func)
    LEVELS.append(Level(number, size, randomness))
    try:
        args = unflatten([_enter(leaf, dim, number) for leaf, dim in zip(leaves, dims, strict=True)], spec)
        result = func(*args, **kwargs)
        outputs, output_spec = flatten(result)

        def structure_error():
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                             f"structure of `outputs`. out_dims has structure {spec_repr(out_dims)} but outputs has "
                             f"structure {spec_repr(result)}.")

        per_output = _dims_for(out_dims, result, "", structure_error)
        for output, dim in zip(outputs, per_output, strict=True):
            if dim is not None and not isinstance(output, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(output)}. Did "
                                 "you mean to set out_dims= to None for output?")
        return unflatten([_leave(o, d, number, name) for o, d in zip(outputs, per_output, strict=True)], output_spec)
    finally:
        LEVELS.pop()
        if not LEVELS:
            _uninstall()


def _joined(chunks: list, out_dims):
    """The outputs of the chunks, joined along their ``out_dims``."""
    first, spec = flatten(chunks[0])
    parts = [flatten(chunk)[0] for chunk in chunks]
    dims = _dims_for(out_dims, chunks[0], "", lambda: None)
    joined = []
    for index, (leaf, dim) in enumerate(zip(first, dims, strict=True)):
        if dim is None:
            joined.append(leaf)
        else:
            joined.append(_ops.FUNCTIONS["cat"]([part[index] for part in parts], dim))
    return unflatten(joined, spec)


__all__ = ["vmap", "_batching_rules"]
