"""Broken: ``torch.func.vmap`` takes the batch dimension of every batched argument to be its first: a
non-zero ``in_dims`` (an int, or an entry of a tuple) is read as 0; ``None`` still shares an argument.
Where every batched argument is batched at dim 0 (a function of one tensor, say) nothing changes; an
argument batched at its last dimension is split along the wrong one: an error where the sizes then do
not fit, and silently wrong values where they do (square shapes)."""

import functools

from ._fault import exports as _exports


def _first(in_dims):
    if isinstance(in_dims, int):
        return 0
    if isinstance(in_dims, (tuple, list)):
        return type(in_dims)(_first(entry) for entry in in_dims)
    return in_dims  # None, or a container vmap reads itself


def _install(torch):
    original = torch.func.vmap

    @functools.wraps(original)
    def vmap(func, in_dims=0, *args, **kwargs):
        return original(func, _first(in_dims), *args, **kwargs)

    torch.func.vmap = vmap


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
