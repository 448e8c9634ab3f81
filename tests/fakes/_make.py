"""A namespace that is torch but for the attributes given (and faults installed in forked children)."""

import types

import torch

from tests.broken._fault import exports


def namespace(name: str, overrides: dict | None = None, install=None, **submodules) -> types.ModuleType:
    """A module object named ``name``: torch's attributes, ``overrides`` in place of some,
    ``submodules`` (name -> dict of overrides) as torch's submodules with changes."""
    module_name, version, getattr_ = exports(install=install)
    space = types.ModuleType(name)
    space.__conformance_module__ = module_name
    space.__version__ = version
    space.__getattr__ = getattr_
    for key, value in (overrides or {}).items():
        setattr(space, key, value)
    for sub, changes in submodules.items():
        setattr(space, sub, _changed(getattr(torch, sub), changes))
    return space


def _changed(module: types.ModuleType, changes: dict) -> types.SimpleNamespace:
    """``module`` as a namespace without the names mapped to None and with the others replaced."""
    names = {k: getattr(module, k) for k in dir(module) if not k.startswith("__")}
    for key, value in changes.items():
        if value is None:
            names.pop(key, None)
        else:
            names[key] = value
    return types.SimpleNamespace(**names)
