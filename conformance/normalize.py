"""The one place where message texts are normalised before they are compared.

Exception messages, warning messages, printed output and ``repr`` strings are compared exactly,
after these rules and no others. Each rule states what must vary between two runs that behave
the same, with an example; ``tests/test_normalize.py`` checks every example.

Rules applied to both sides:

``address``
    Object addresses differ from run to run.
    ``<MulBackward0 object at 0x7f2101229210>`` becomes ``<MulBackward0 object at 0x…>``.

``triggered_internally``
    Warnings raised from torch's C++ code end with the build path and line they come from.
    ``... avoid the leak. (Triggered internally at /__w/pytorch/engine.cpp:1307.)`` becomes
    ``... avoid the leak.``

``anomaly_traceback``
    In anomaly mode the "Error detected in ..." warning carries the traceback of the forward
    call, with file paths and line numbers; only its first line is compared.
    ``Error detected in DivBackward0. Traceback of forward call that caused the error:\\n  File ...``
    becomes ``Error detected in DivBackward0. Traceback of forward call that caused the error:``

``set_display``
    A message that shows a Python set of strings lists them in the set's iteration order, which
    follows the hashes of the process (and the order its bytecode stored a constant set in); the
    elements are put in sorted order.
    ``padding_mode must be one of {'zeros', 'reflect', 'replicate'}`` becomes
    ``padding_mode must be one of {'reflect', 'replicate', 'zeros'}``

Warnings dropped from both sides (``IGNORED_WARNINGS``), because whether they fire depends on
the process a case runs in, not on autograd:

``cuda_context``
    torch's CUDA runtime warns when cuBLAS first runs on a thread that has no current CUDA
    context. Each case runs in a fresh process and torch runs backward on a per-device thread,
    so the warning fires or not depending on which thread touched cuBLAS first.
    ``UserWarning: Attempting to run cuBLAS, but there was no current CUDA context! Attempting
    to set the primary context...`` is left out of the comparison.

Warnings an implementation's file sets aside (``[warnings] set_aside_from``, ``is_set_aside``), on
both sides, because they are not the program's: those issued from the modules it names (a
compiler's diagnostics while it traces, for ``torch-compile``). The reports mark them.

Rule applied to the implementation under test only:

``module_name``
    Where torch prints its own module name, an implementation prints its own: the top-level
    module name of the implementation is read as ``torch``.
    For implementation ``myautograd``: ``<class 'myautograd.nn.parameter.Parameter'>`` becomes
    ``<class 'torch.nn.parameter.Parameter'>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    apply: Callable[[str], str]
    example: str
    expected: str


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_TRIGGERED = re.compile(r" ?\(Triggered internally at [^\n]*\)$", re.DOTALL)
_ANOMALY_PREFIX = "Error detected in "
_STRING_SET = re.compile(r"\{'[^'{}\n]*'(?:, '[^'{}\n]*')+\}")


def _sorted_set_display(match: re.Match) -> str:
    return "{" + ", ".join(sorted(match.group(0)[1:-1].split(", "))) + "}"


COMMON_RULES = (
    Rule(
        "address",
        lambda text: _ADDRESS.sub("0x\u2026", text),
        "<MulBackward0 object at 0x7f2101229210>",
        "<MulBackward0 object at 0x\u2026>",
    ),
    Rule(
        "triggered_internally",
        lambda text: _TRIGGERED.sub("", text),
        "avoid the leak. (Triggered internally at /__w/pytorch/engine.cpp:1307.)",
        "avoid the leak.",
    ),
    Rule(
        "anomaly_traceback",
        lambda text: text.split("\n", 1)[0] if text.startswith(_ANOMALY_PREFIX) else text,
        "Error detected in DivBackward0. Traceback of forward call that caused the error:\n"
        '  File "x.py", line 3, in f',
        "Error detected in DivBackward0. Traceback of forward call that caused the error:",
    ),
    Rule(
        "set_display",
        lambda text: _STRING_SET.sub(_sorted_set_display, text) if "{'" in text else text,
        "padding_mode must be one of {'zeros', 'reflect', 'replicate'}",
        "padding_mode must be one of {'reflect', 'replicate', 'zeros'}",
    ),
)


@dataclass(frozen=True)
class IgnoredWarning:
    name: str
    category: str
    message_prefix: str
    example: str  # "Category: message", as a step records it

    def matches(self, category: str, message: str) -> bool:
        return category == self.category and message.startswith(self.message_prefix)


IGNORED_WARNINGS = (
    IgnoredWarning(
        "cuda_context",
        "UserWarning",
        "Attempting to run cuBLAS, but there was no current CUDA context!",
        "UserWarning: Attempting to run cuBLAS, but there was no current CUDA context! "
        "Attempting to set the primary context...",
    ),
)


def is_ignored_warning(category: str, message: str) -> bool:
    return any(rule.matches(category, message) for rule in IGNORED_WARNINGS)


def is_set_aside(warning: dict, modules: tuple[str, ...]) -> bool:
    """Whether a recorded warning was issued from one of ``modules`` or a module inside one (an
    implementation's ``[warnings] set_aside_from``, see ``expectations``)."""
    origin = warning.get("origin")
    return isinstance(origin, str) and any(origin == module or origin.startswith(module + ".") for module in modules)


def module_name_rule(implementation_module: str) -> Rule:
    pattern = re.compile(rf"\b{re.escape(implementation_module)}\b")
    return Rule(
        "module_name",
        lambda text: pattern.sub("torch", text),
        f"<class '{implementation_module}.nn.parameter.Parameter'>",
        "<class 'torch.nn.parameter.Parameter'>",
    )


class Normalizer:
    """Normalises texts of one side: the reference, or an implementation named by its module."""

    def __init__(self, implementation_module: str | None = None) -> None:
        rules = list(COMMON_RULES)
        if implementation_module and implementation_module != "torch":
            rules.append(module_name_rule(implementation_module))
        self.rules = tuple(rules)

    def __call__(self, text: str) -> str:
        for rule in self.rules:
            text = rule.apply(text)
        return text
