"""Planted: ``formula``'s bug (``MulBackward0``'s second gradient) in an engine whose graph nodes
take no hooks: ``Node.register_hook`` is missing, so nothing can say what flows through a node."""

from . import formula
from ._planting import exports as _exports


def install():
    from myautograd._autograd.node import Node

    formula.install()
    del Node.register_hook


__conformance_module__, __version__, __getattr__ = _exports(install)
