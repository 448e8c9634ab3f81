"""Broken: ``Tensor.retains_grad`` does not exist (a missing attribute, seen by every snapshot)."""

from ._fault import exports as _exports
from ._fault import remove_tensor_attribute as _remove_tensor_attribute

__conformance_module__, __version__, __getattr__ = _exports(
    install=lambda torch: _remove_tensor_attribute(torch, "retains_grad"))
