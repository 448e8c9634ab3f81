"""Broken: ``Tensor.retain_grad`` does not exist (a missing method)."""

from ._fault import exports as _exports
from ._fault import remove_tensor_attribute as _remove_tensor_attribute

__conformance_module__, __version__, __getattr__ = _exports(
    install=lambda torch: _remove_tensor_attribute(torch, "retain_grad"))
