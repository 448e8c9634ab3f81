"""Per-op dispatch: while a ``DispatchMode`` is active, each op a script calls reports its aten overload
(``aten.OVERLOADS``), arguments and output to the mode, which runs it or gives another output instead, as a
torch ``TorchDispatchMode`` does (selective checkpointing is built on it: ``utils/checkpoint.py``).

Outside any mode an op costs nothing more: the reporting wrappers are installed only while a mode is
active. Entering the first mode puts a wrapper in front of each op of ``aten.OVERLOADS`` where a script
reaches it: the Tensor methods (operators included), the ``torch.<name>`` functions and
``torch.nn.functional``; leaving the last one puts the ops back. Code inside myautograd that calls an op
through its module (``pointwise.sin``) is not wrapped: an op reports once, as the op the script called,
and what it runs inside reports nothing. A composite op that torch decomposes names its pieces itself
with ``call`` (dropout: ``empty_like``, ``bernoulli_``, ``div_``, ``mul``); ``call`` costs one check of
the mode stack when no mode is active.

A mode's ``dispatch(op, run, args, kwargs)`` gets the op's overload, its arguments as the script passed
them (Python numbers stay numbers, where torch's dispatcher would see 0-dim tensors) and ``run``, which
runs the op below this mode: through the next mode down, or the op itself. Within a mode's ``dispatch``
(the op, the mode's own code) no op reports: as in torch, where a mode's handler runs with the mode
popped, and an op's insides are below the dispatcher.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from .._tensor import Tensor
from .aten import OVERLOADS, OpOverload

_MODES: list[DispatchMode] = []  # the active modes, innermost last
_SURFACES = ("myautograd", "myautograd.nn.functional")  # the modules whose functions a script calls as torch's


class _State:
    depth = 0  # >0 while an op that reported runs: what it calls does not report
    originals: list = []  # (owner, name, original) for each wrapper installed


class DispatchMode:
    """A context manager that sees every op run under it (see the module docstring)."""

    def dispatch(self, op: OpOverload, run: Callable, args: tuple, kwargs: dict):
        return run()

    def __enter__(self):
        push(self)
        return self

    def __exit__(self, *exc) -> None:
        pop(self)


def push(mode: DispatchMode) -> None:
    _MODES.append(mode)
    if len(_MODES) == 1:
        _install()


def pop(mode: DispatchMode) -> None:
    _MODES.remove(mode)
    if not _MODES:
        _uninstall()


def active() -> bool:
    return bool(_MODES)


def call(op: OpOverload, fn: Callable, args: tuple, kwargs: dict | None = None):
    """Run ``fn(*args, **kwargs)`` as the op ``op``: through the active modes, innermost first."""
    kwargs = kwargs or {}
    if not _MODES or _State.depth:
        return fn(*args, **kwargs)
    _State.depth += 1
    try:
        return _through(len(_MODES) - 1, op, fn, args, kwargs)
    finally:
        _State.depth -= 1


def _through(level: int, op: OpOverload, fn: Callable, args: tuple, kwargs: dict):
    if level < 0:
        return fn(*args, **kwargs)
    return _MODES[level].dispatch(op, lambda: _through(level - 1, op, fn, args, kwargs), args, kwargs)


def _reporting(name: str, fn: Callable) -> Callable:
    """``fn`` reporting itself as the overload ``OVERLOADS[name]`` picks."""
    picks = OVERLOADS[name]

    @functools.wraps(fn)
    def reporting(*args, **kwargs):
        op = picks if isinstance(picks, OpOverload) else picks(args, kwargs)
        return call(op, fn, args, kwargs)

    return reporting


def _install() -> None:
    owners = [Tensor] + [sys.modules[name] for name in _SURFACES if name in sys.modules]
    for owner in owners:
        namespace = vars(owner)
        for name in OVERLOADS:
            original = namespace.get(name)
            if callable(original) and not isinstance(original, type):
                _State.originals.append((owner, name, original))
                setattr(owner, name, _reporting(name, original))


def _uninstall() -> None:
    for owner, name, original in reversed(_State.originals):
        setattr(owner, name, original)
    _State.originals = []
