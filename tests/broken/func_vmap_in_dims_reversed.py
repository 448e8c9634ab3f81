"""Broken: ``torch.func.vmap`` applies ``in_dims`` to the wrong arguments: a tuple of in_dims is read in
reverse order (``in_dims=(0, None)`` maps the second argument and shares the first). An int in_dims, which
applies to every argument alike, is unaffected, and so are the transforms built on vmap inside torch."""

import functools

from ._fault import exports as _exports


def _install(torch):
    original = torch.func.vmap

    @functools.wraps(original)
    def vmap(func, in_dims=0, *args, **kwargs):
        if isinstance(in_dims, tuple):
            in_dims = in_dims[::-1]
        return original(func, in_dims, *args, **kwargs)

    torch.func.vmap = vmap


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
