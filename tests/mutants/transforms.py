"""Mutants of the function transforms built on vmap: in_dims, the batching rules, gradients under vmap,
jacrev, functional_call."""

from __future__ import annotations

import functools

import myautograd
from myautograd import func
from myautograd._batched import BatchedTensor, batched, level_size
from myautograd.func import _batching_rules, _jacobians, _modules, _vmap

from ._registry import mutant, replace


def _everywhere(name: str, make) -> None:
    """Replace ``func.<name>`` where user code reaches it (``torch.func``, and ``torch.vmap`` for vmap)."""
    patched = make(getattr(func, name))
    setattr(func, name, patched)
    if hasattr(myautograd, name):
        setattr(myautograd, name, patched)


@mutant("function transforms", "vmap applies in_dims to the wrong arguments: a tuple of in_dims is read in reverse")
def vmap_in_dims_reversed():
    def make(original):
        @functools.wraps(original)
        def broken(function, in_dims=0, *args, **kwargs):
            if isinstance(in_dims, tuple):
                in_dims = in_dims[::-1]
            return original(function, in_dims, *args, **kwargs)
        return broken

    _everywhere("vmap", make)


@mutant("function transforms", "jacrev returns each Jacobian transposed (the input's dimensions first)")
def jacrev_transposed():
    def make(original):
        @functools.wraps(original)
        def broken(function, argnums=0, *args, **kwargs):
            jacobian = original(function, argnums, *args, **kwargs)

            @functools.wraps(jacobian)
            def transposed(*inputs):
                result = jacobian(*inputs)
                if isinstance(result, myautograd.Tensor) and result.dim() == 2:
                    return result.T
                return result
            return transposed
        return broken

    _everywhere("jacrev", make)
    replace(_jacobians, "jacrev", make)


@mutant("function transforms", "sum() of a whole sample under vmap sums the whole batch")
def vmap_sum_over_the_batch():
    original = _batching_rules.RULES["sum"]

    def broken(op, args, kwargs):
        x = args[0]
        if len(args) == 1 and "dim" not in kwargs and isinstance(x, BatchedTensor):
            total = op(x.physical)
            return batched(total.expand(*[level_size(n) for n in x.levels]), x.levels)
        return original(op, args, kwargs)

    _batching_rules.RULES["sum"] = broken


@mutant("function transforms", "grad under vmap does not give an unbatched input the batch, so that its per-sample "
                               "gradients come from a loop over the samples (with the fallback's warning)")
def vmap_grad_loops_over_unbatched_inputs():
    def make(original):
        def broken(leaf):
            if isinstance(leaf, BatchedTensor) or not func.LEVELS:
                return original(leaf)
            return leaf.view_as(leaf) if leaf.requires_grad else leaf.detach().requires_grad_()
        return broken

    replace(func, "_track", make)


@mutant("function transforms", "functional_call leaves the given tensors in the module after the call")
def functional_call_not_restored():
    def make(original):
        @functools.wraps(original)
        def broken(module, parameter_and_buffer_dicts, *args, **kwargs):
            result = original(module, parameter_and_buffer_dicts, *args, **kwargs)
            given = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, dict) else {
                key: value for one in parameter_and_buffer_dicts for key, value in one.items()}
            for name, value in given.items():
                owner, attribute = _modules._owner(module, name)
                table = owner._parameters if attribute in owner._parameters else owner._buffers
                if attribute in table:
                    table[attribute] = value
            return result
        return broken

    _everywhere("functional_call", make)


@mutant("function transforms", "vmap with chunk_size drops the last chunk when the batch does not divide evenly")
def vmap_chunks_drop_the_remainder():
    def make(original):
        def broken(chunks, out_dims):
            return original(chunks[:-1] if len(chunks) > 2 else chunks, out_dims)
        return broken

    replace(_vmap, "_joined", make)
