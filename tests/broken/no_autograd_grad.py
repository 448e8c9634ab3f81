"""Broken: ``torch.autograd.grad`` does not exist (an engine with ``.backward()`` only): reading it
is an AttributeError, as for any missing name. With a profile that lacks ``autograd.grad`` the
operator cases take their gradients through ``.backward()``, and this passes them."""

from ._fault import exports as _exports
from ._fault import remove_autograd_grad as _remove_autograd_grad

__conformance_module__, __version__, __getattr__ = _exports(install=_remove_autograd_grad)
