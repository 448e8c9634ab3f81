"""Broken: backward overwrites the leaves' ``.grad`` instead of adding to it."""

from ._fault import exports as _exports
from ._fault import graph_leaves as _graph_leaves
from ._fault import wrap_backward as _wrap_backward


def _install(torch):
    def backward(original, self, *args, **kwargs):
        for leaf in _graph_leaves(self):
            leaf.grad = None
        return original(self, *args, **kwargs)

    _wrap_backward(torch, backward)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
