"""Broken: torch that says CUDA is not available (``torch.cuda.is_available()`` is False), whatever
the machine: a run that asks for ``--device cuda`` is incomplete on every machine."""

import types

from ._fault import exports as _exports

cuda = types.SimpleNamespace(is_available=lambda: False)

__conformance_module__, __version__, __getattr__ = _exports()
