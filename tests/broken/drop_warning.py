"""Broken: reading ``.grad`` of a non-leaf tensor gives None without torch's UserWarning."""

import warnings as _warnings

from ._fault import exports as _exports


def _install(torch):
    base = torch._C.TensorBase.grad

    def get(self):
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            return base.__get__(self)

    torch.Tensor.grad = property(get, base.__set__, base.__delete__, base.__doc__)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
