"""Broken: tensors print as ``Tensor([...])`` instead of ``tensor([...])``."""

from ._fault import exports as _exports


def _install(torch):
    original = torch.Tensor.__repr__

    def __repr__(self, *args, **kwargs):
        return original(self, *args, **kwargs).replace("tensor(", "Tensor(", 1)

    torch.Tensor.__repr__ = __repr__


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
