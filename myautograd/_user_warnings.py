"""Warnings as torch's C++ code issues them: once per process, and pointing at the user's line.

A warning torch raises in C++ points at the Python line that called the op; myautograd's are raised
several frames down inside the package, so ``stacklevel`` is counted up to the first frame outside it.
"""

from __future__ import annotations

import os
import sys
import warnings

_warned_once: set[str] = set()


def warn_once(message: str, category=UserWarning, stacklevel: int | None = 3) -> None:
    """Warnings that torch emits once per process; ``stacklevel=None``: pointing at the first frame
    outside myautograd, as a warning from torch's C++ code points at the Python line that called it."""
    if message not in _warned_once:
        _warned_once.add(message)
        warnings.warn(message, category, stacklevel=_user_stacklevel() if stacklevel is None else stacklevel)


def warn_from_user_code(message: str, category=UserWarning) -> None:
    """A warning pointing at the first frame outside myautograd, as a warning from torch's C++ code
    points at the Python line that called the op (however many of myautograd's frames lie between)."""
    warnings.warn(message, category, stacklevel=_user_stacklevel())


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by this function's caller point at the first
    frame outside the package."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
