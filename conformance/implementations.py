"""Finding an implementation by name, its version, and the devices it can run on.

Imported only by side workers (``worker``): the judging process never imports the
implementation under test. An implementation is any importable module (or an attribute of one)
that offers the torch-like API the catalog uses. ``--impl NAME`` accepts:

* a module name: ``myautograd``, ``torch``, ``mypkg.torch_api``;
* ``module:attribute`` for a namespace object built by an adapter: ``myadapter:namespace``;
* a short name listed in ``ADAPTERS``: the thin adapters shipped with the suite (``PEER_ADAPTERS``;
  ``pip install .[peers]`` installs the engines they adapt), ``canary``, torch with one
  deliberate fault per aspect (``adapters/canary.py``), which proves that the judge sees them all,
  and torch under ``torch.compile`` (``TORCH_COMPILE_ADAPTERS``: ``torch-compile``,
  ``torch-compile-aot-eager``, ``torch-compile-eager``, ``torch-compile-compiled-autograd``, each
  also as ``NAME:dynamic``; ``adapters/torch_compile.py``).

The module's top-level name is what the ``module_name`` normalisation rule maps to ``torch``;
a namespace can name another with a ``__conformance_module__`` attribute. The version is the
namespace's (or module's) ``__version__``, else the installed distribution's version
(``importlib.metadata``) of a ``__conformance_distribution__`` the namespace names or of the
module's top-level package.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from typing import Any

from .bounds import safe_str

REFERENCE = "torch"

# Short names for adapters shipped with the suite: name -> "module:attribute". The peers adapt
# other engines; the canary is torch with planted faults.
PEER_ADAPTERS: dict[str, str] = {
    "mygrad": "conformance.adapters.mygrad:namespace",
    "tinygrad": "conformance.adapters.tinygrad:namespace",
    "micrograd": "conformance.adapters.micrograd:namespace",
}
# torch.compile as the implementation (adapters/torch_compile.py): one name per compiler stack, each
# also with the option ":dynamic" (torch.compile(dynamic=True)).
TORCH_COMPILE_VARIANTS = {"torch-compile": "inductor", "torch-compile-aot-eager": "aot_eager",
                          "torch-compile-eager": "eager", "torch-compile-compiled-autograd": "compiled_autograd"}
TORCH_COMPILE_ADAPTERS: dict[str, str] = {
    f"{name}{option}": f"conformance.adapters.torch_compile:{attribute}{suffix}"
    for name, attribute in TORCH_COMPILE_VARIANTS.items() for option, suffix in (("", ""), (":dynamic", "_dynamic"))}
ADAPTERS: dict[str, str] = {**PEER_ADAPTERS, "canary": "conformance.adapters.canary:namespace",
                            **TORCH_COMPILE_ADAPTERS}


class UnknownImplementation(Exception):
    """The implementation named on the command line cannot be imported."""


@dataclass
class Implementation:
    name: str
    namespace: Any
    module_name: str
    version: str


def target_of(name: str) -> str:
    """``module:attribute`` (or a module name) that ``--impl name`` stands for."""
    return ADAPTERS.get(name, name)


def resolve(name: str) -> Implementation:
    target = target_of(name)
    module_path, _, attribute = target.partition(":")
    if not module_path or not all(part.isidentifier() for part in module_path.split(".")):
        raise UnknownImplementation(f"unknown implementation {name!r}: expected a module name")
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as exc:
        if exc.name and module_path.startswith(exc.name):
            raise UnknownImplementation(f"unknown implementation {name!r}: no module named {exc.name!r}") from exc
        raise UnknownImplementation(f"implementation {name!r} failed to import: {safe_str(exc, 300)}") from exc
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt... at import
        raise UnknownImplementation(
            f"implementation {name!r} failed to import: {type(exc).__name__}: {safe_str(exc, 300)}") from exc
    namespace = module
    if attribute:
        try:
            namespace = getattr(module, attribute)
        except BaseException as exc:  # noqa: BLE001
            raise UnknownImplementation(f"unknown implementation {name!r}: reading {attribute!r} from "
                                        f"{module_path} raised {type(exc).__name__}") from exc
    module_name = _text_attribute(namespace, "__conformance_module__") or module_path.split(".")[0]
    return Implementation(name=name, namespace=namespace, module_name=module_name,
                          version=version_of(namespace, module, module_path))


def version_of(namespace: Any, module: Any, module_path: str) -> str:
    for owner in (namespace, module):
        text = _text_attribute(owner, "__version__")
        if text:
            return text
    distribution = _text_attribute(namespace, "__conformance_distribution__") or module_path.split(".")[0]
    try:
        return safe_str(importlib.metadata.version(distribution), 100)
    except Exception:  # noqa: BLE001 - no such distribution, or broken metadata
        return "unknown"


def _text_attribute(owner: Any, name: str) -> str | None:
    """A short, encodable text attribute; None when absent, unreadable or empty."""
    try:
        value = getattr(owner, name, None)
    except BaseException:  # noqa: BLE001
        return None
    if value is None:
        return None
    text = safe_str(value, 100)
    text = text.encode("utf-8", errors="backslashreplace").decode("utf-8")
    return text or None


def device_status(namespace: Any, device: str) -> str | None:
    """None when ``device`` is usable with this namespace, otherwise the reason it is not.

    Checking CUDA initialises the driver, after which forked children cannot use CUDA: the
    worker calls this in a child of its own, never in itself.
    """
    if device == "cpu":
        return None
    try:
        cuda = getattr(namespace, "cuda", None)
        is_available = getattr(cuda, "is_available", None)
    except BaseException:  # noqa: BLE001
        return "CUDA not supported by the implementation (reading torch.cuda.is_available raised)"
    if not callable(is_available):
        return "CUDA not supported by the implementation"
    try:
        return None if bool(is_available()) else "CUDA not available"
    except BaseException as exc:  # noqa: BLE001 - SystemExit from is_available() too
        return f"CUDA not available ({type(exc).__name__}: {safe_str(exc, 200)})"


class UnknownDevice(Exception):
    """The namespace does not know the name of the device its side is to run on."""


def placed_device(namespace: Any, device: str) -> tuple[str | None, str | None]:
    """For the device a side runs every item on (``placement``): why it cannot be used (None when
    it can) and how the namespace's tensors name it (``cuda:0`` for ``cuda``; None when unusable).
    An :class:`UnknownDevice` when ``namespace.device(device)`` refuses the name. Like
    :func:`device_status`, called in a child of the worker."""
    make_device = getattr(namespace, "device", None)
    if callable(make_device):
        try:
            make_device(device)
        except BaseException as exc:  # noqa: BLE001 - whatever the namespace raises for a name it does not know
            raise UnknownDevice(f"unknown device {device!r} for the implementation: {type(exc).__name__}: "
                                f"{safe_str(exc, 300)}") from None
    kind = device.partition(":")[0]
    reason = device_status(namespace, kind) if kind == "cuda" else _availability(namespace, kind)
    if reason is not None:
        return reason, None
    try:
        return None, safe_str(namespace.zeros(1, device=device).device, 100)
    except BaseException as exc:  # noqa: BLE001
        return f"making a tensor there raised {type(exc).__name__}: {safe_str(exc, 200)}", None


def _availability(namespace: Any, kind: str) -> str | None:
    """What ``namespace.<kind>.is_available()`` says, where the device's module has one (a
    PrivateUse1 backend registers its module under its name); None where it has none."""
    try:
        is_available = getattr(getattr(namespace, kind, None), "is_available", None)
        if not callable(is_available) or bool(is_available()):
            return None
    except BaseException as exc:  # noqa: BLE001
        return f"{kind} not available ({type(exc).__name__}: {safe_str(exc, 200)})"
    return f"{kind} not available"
