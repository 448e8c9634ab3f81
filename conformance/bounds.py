"""Size limits on everything an implementation can make the harness hold, send, print or write.

An implementation under test can print 100 MB, raise an exception with a 1 MB message, return
a value nested 400 lists deep or an integer of 5000 digits, or fill its messages with terminal
escape sequences. Whatever it does, each observation is cut to the limits below before it
leaves the process that observed it, with a marker saying how much was cut, so the reports and
the console stay bounded and readable. The limits are far above anything a behaving case
produces.
"""

from __future__ import annotations

import re

TEXT_LIMIT = 16_384          # characters of one message, warning, repr or block of printed text
CAPTURE_LIMIT = 65_536       # bytes of a case process's raw stdout / stderr kept for the report
VALUES_LIMIT = 100_000       # elements of one tensor's values
DEPTH_LIMIT = 64             # levels of nesting in one observed value
STEPS_LIMIT = 2_000          # steps recorded by one side of one item
INT_BITS_LIMIT = 1_024       # bits of an integer recorded as it is (larger ones by a digest)
RESULT_BYTES_LIMIT = 16 << 20  # bytes of one side's result as it crosses a process boundary
CONSOLE_LIMIT = 240          # characters of a detail shown on the console
TRACE_CALLS_LIMIT = 64       # backward calls traced in one item (``gradtrace``)
TRACE_NODES_LIMIT = 1_000    # graph nodes traced in one backward call
TRACE_VALUES_LIMIT = 200_000  # gradient elements recorded in one item's trace (the rest: cut)
NAME_LIMIT = 400             # characters of a node's name


def cut_text(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` with everything past ``limit`` characters replaced by a marker saying how much."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\u2026 [{len(text) - limit} more characters cut]"


def safe_str(value: object, limit: int = TEXT_LIMIT) -> str:
    """``str(value)``, cut; if ``str`` raises (or returns a non-string), a text saying so."""
    try:
        text = str(value)
        if not isinstance(text, str):
            raise TypeError("__str__ returned a non-string")
    except BaseException as exc:  # noqa: BLE001 - whatever the implementation's __str__ does
        return f"<str() raised {type(exc).__name__}>"
    return cut_text(text, limit)


def safe_repr(value: object, limit: int = TEXT_LIMIT) -> str:
    """``repr(value)``, cut; if ``repr`` raises, a text saying so."""
    try:
        text = repr(value)
        if not isinstance(text, str):
            raise TypeError("__repr__ returned a non-string")
    except BaseException as exc:  # noqa: BLE001
        return f"<repr() raised {type(exc).__name__}>"
    return cut_text(text, limit)


# C0 controls but tab and newline, DEL, C1 controls and lone surrogates: shown, never obeyed.
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_console(text: object, limit: int = CONSOLE_LIMIT) -> str:
    """Text from the implementation made safe for a terminal: one line, escapes visible, cut."""
    value = text if isinstance(text, str) else safe_str(text)
    value = _TERMINAL_UNSAFE.sub(_escape, value.replace("\n", " \u23ce "))
    return value if len(value) <= limit else value[: limit - 1] + "\u2026"
