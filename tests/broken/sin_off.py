"""Broken: ``torch.sin`` and ``Tensor.sin`` are off by a factor of 1 + 1e-3, computed as a product, so
the result's node is ``MulBackward0``: wrong values (semantics) behind a node name (drop-in) that
differs in an earlier step. The headline of a failing item must be the wrong value."""

from ._fault import exports as _exports

FACTOR = 1 + 1e-3


def _install(torch):
    original = torch.Tensor.sin

    def sin(input, *args, **kwargs):
        return original(input, *args, **kwargs) * FACTOR

    torch.sin = sin
    torch.Tensor.sin = sin


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
