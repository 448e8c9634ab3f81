"""Broken: ``torch.autograd.graph.increment_version`` returns without bumping any version counter."""

from ._fault import exports as _exports


def _install(torch):
    torch.autograd.graph.increment_version = lambda tensor: None


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
