"""Finding the implementation under test by name, and the devices it can run on.

An implementation is any importable module (or an attribute of one) that offers the torch-like
API the catalog uses. ``--impl NAME`` accepts:

* a module name: ``myautograd``, ``torch``, ``mypkg.torch_api``;
* ``module:attribute`` for a namespace object built by an adapter: ``myadapter:namespace``;
* a short name listed in ``ADAPTERS`` (thin adapters shipped with the suite).

The module's top-level name is what the ``module_name`` normalisation rule maps to ``torch``;
a namespace can name another with a ``__conformance_module__`` attribute.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

REFERENCE = "torch"

# Short names for adapters shipped with the suite: name -> "module:attribute".
ADAPTERS: dict[str, str] = {}


class UnknownImplementation(Exception):
    """The implementation named on the command line cannot be imported."""


@dataclass
class Implementation:
    name: str
    namespace: Any
    module_name: str
    version: str


def resolve(name: str) -> Implementation:
    target = ADAPTERS.get(name, name)
    module_path, _, attribute = target.partition(":")
    if not module_path:
        raise UnknownImplementation(f"unknown implementation {name!r}: expected a module name")
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as exc:
        if exc.name and module_path.startswith(exc.name):
            raise UnknownImplementation(f"unknown implementation {name!r}: no module named {exc.name!r}") from exc
        raise UnknownImplementation(f"implementation {name!r} failed to import: {exc}") from exc
    except Exception as exc:
        raise UnknownImplementation(f"implementation {name!r} failed to import: {type(exc).__name__}: {exc}") from exc
    namespace = module
    if attribute:
        try:
            namespace = getattr(module, attribute)
        except AttributeError as exc:
            raise UnknownImplementation(f"unknown implementation {name!r}: {module_path} has no {attribute!r}") from exc
    module_name = getattr(namespace, "__conformance_module__", module_path.split(".")[0])
    version = str(getattr(namespace, "__version__", getattr(module, "__version__", "unknown")))
    return Implementation(name=name, namespace=namespace, module_name=module_name, version=version)


def device_status(namespace: Any, device: str) -> str | None:
    """None when ``device`` is usable with this namespace, otherwise the reason it is not.

    Checking CUDA initialises the driver, after which forked children cannot use CUDA: call this
    only in processes that start their workers with exec (the CLI and the pytest plugin do).
    """
    if device == "cpu":
        return None
    cuda = getattr(namespace, "cuda", None)
    is_available = getattr(cuda, "is_available", None)
    if not callable(is_available):
        return "CUDA not supported by the implementation"
    try:
        return None if is_available() else "CUDA not available"
    except Exception as exc:
        return f"CUDA not available ({type(exc).__name__}: {exc})"
