"""The batching rules of ``torch.fft``: each transform once over the physical tensor, its dimensions shifted.

NumPy's FFT (and so myautograd's three primitives) transforms the dimensions it is given and carries every
other one along, so a batch needs no loop: the batch dimensions lead the physical tensor, and the sample's
transform dimensions (``dim``, or the ones ``s`` and ``dim=None`` imply: the last ``len(s)``, else all of the
sample's) are named past them. The sizes ``n``/``s`` and ``norm`` are the sample's as they are.
"""

from __future__ import annotations

import inspect

from .._batched import batched
from .._ops.common import normalize_dim
from ._batching_rules import rule

TRANSFORMS = ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn")
NAMES = {f"fft_{name}": name for name in TRANSFORMS}  # the names vmap knows them by: torch's aten names


@rule(*NAMES)
def fourier_transform(op, args, kwargs):
    arguments = inspect.signature(op).bind(*args, **kwargs)
    arguments.apply_defaults()
    values = arguments.arguments
    x = values["input"]
    rank, levels = x.dim(), x.levels
    sizes = values.get("n", values.get("s"))
    dim = values["dim"]
    if dim is None:
        count = rank if sizes is None else len(sizes)
        dims = list(range(rank - count, rank))
    else:
        dims = [normalize_dim(d, rank, wrap_scalar=False) for d in ((dim,) if isinstance(dim, int) else dim)]
    shifted = [d + len(levels) for d in dims]
    values["dim"] = shifted[0] if isinstance(dim, int) else tuple(shifted)
    values["input"] = x.physical
    return batched(op(**values), levels)
