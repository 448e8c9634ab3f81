"""``outcome(fn, *args, **kwargs)``: how a call ends, as data two libraries' runs can be compared on:
``None`` when it returns, ``(exception type name, message)`` when it raises."""

from __future__ import annotations


def outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return None
