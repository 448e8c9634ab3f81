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

``gradcheck_fast_mode``
    gradcheck's fast mode compares one projection ``u^T J v`` of each Jacobian on random vectors
    drawn from the engine's own generator, and prints both numbers at full precision, then the
    largest difference of the slow-mode Jacobians at full precision (finite differences there
    differ in their last digits with the order an engine rounds in). The two projections become
    ``…``; the largest difference is kept to 4 significant digits. The slow-mode Jacobians, printed
    as tensors, are compared as they are.
    ``numerical:3.2258974205228435\nanalytical:-3.22589742025346\n\nThe above quantities ... is: 8.639999999613522.``
    becomes ``numerical:…\nanalytical:…\n\nThe above quantities ... is: 8.64.``

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

Rules applied to the implementation under test only:

``module_name``
    Where torch prints its own module name, an implementation prints its own: the top-level
    module name of the implementation is read as ``torch``.
    For implementation ``myautograd``: ``<class 'myautograd.nn.parameter.Parameter'>`` becomes
    ``<class 'torch.nn.parameter.Parameter'>``.

Where the implementation runs on a device of its own while the reference runs on the CPU
(``--impl torch@cuda``, see ``placement``), the implementation's device, as its tensors name it
(``cuda:0``, ``DEVICE`` below; ``TYPE`` is its type, ``cuda``), reads as the CPU in four forms
(``device_rules``), so that a tensor on an unexpected device, another index or the CPU, still
differs:

``device_name``
    A text that is the device's name, or its type, is the CPU's: a tensor's ``str(t.device)``,
    ``str(t.device.type)``. The CPU named on the implementation's side is not its device:
    ``cpu`` there reads as ``cpu, not the implementation's device DEVICE``.
    ``cuda:0`` becomes ``cpu``.

``device_repr``
    A device object's repr: ``device(type='cuda', index=0)`` becomes ``device(type='cpu')``, and
    ``device(type='cpu')`` on the implementation's side reads as not its device, as above.

``device_argument``
    torch prints the device of a tensor that is not on the CPU in its repr, and none for one on
    the CPU. ``tensor([1., 2.], device='cuda:0', requires_grad=True)`` becomes
    ``tensor([1., 2.], requires_grad=True)``; the arguments after it are laid out again as torch
    lays them out without it (at its default line width, 80).

``device_type_name``
    The legacy type names of the device's tensors, in ``x.type()`` and in messages, name its
    type. ``(was torch.cuda.FloatTensor got torch.cuda.DoubleTensor)`` becomes
    ``(was torch.FloatTensor got torch.DoubleTensor)``.

Values are not normalised: they compare with the item's tolerances as on any implementation (a
device's kernels may sum in another order, or fuse a multiply and an add, within them).
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


_FAST_MODE_MARK = "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876"
_PROJECTIONS = re.compile(r"^(.*?)numerical:[^\n]*\nanalytical:[^\n]*\n", re.DOTALL)
_MAX_DIFFERENCE = re.compile(r"(The max per-element difference \(slow mode\) is: )([-+0-9.eE]+|nan|inf)\.")


def _gradcheck_fast_mode(text: str) -> str:
    if _FAST_MODE_MARK not in text:
        return text
    text = _PROJECTIONS.sub(lambda m: f"{m.group(1)}numerical:\u2026\nanalytical:\u2026\n", text, count=1)
    return _MAX_DIFFERENCE.sub(lambda m: f"{m.group(1)}{float(m.group(2)):.4g}.", text)


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
    Rule(
        "gradcheck_fast_mode",
        _gradcheck_fast_mode,
        "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:3.2258974205228435\n"
        "analytical:-3.22589742025346\n\nThe above quantities relating the numerical and analytical jacobians are "
        "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "The max per-element difference (slow mode) is: 8.639999999613522.\n",
        "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:\u2026\nanalytical:\u2026\n\nThe above "
        "quantities relating the numerical and analytical jacobians are computed \nin fast mode. See: "
        "https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "The max per-element difference (slow mode) is: 8.64.\n",
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


# A tensor repr's suffixes after its values (``device='cuda:0'``, ``dtype=torch.float64``,
# ``grad_fn=<MulBackward0>``, ``size=(0, 2)``), each after ", " or wrapped onto a line of its own.
_SUFFIX_SEPARATOR = r",(?: |\n +)"
_SUFFIX = r"[a-z_]+=(?:\([^()]*\)|<[^<>]*>|'[^']*'|[^,()\s]+)"
_REPR_LINE_WIDTH = 80  # torch's default print option (no case changes it)
_REPR_INDENT = len("tensor(")


def _suffixes_laid_out(match: re.Match) -> str:
    """The suffixes that followed a device argument, laid out as torch lays out a repr's suffixes
    (``torch._tensor_str``): each on the line so far where it fits, else on a line of its own."""
    before = match.string[:match.start()]
    shown = before[before.rfind("tensor("):] if "tensor(" in before else before
    line = len(shown) - shown.rfind("\n") + 1  # torch's count
    laid_out = []
    for suffix in re.findall(_SUFFIX, match.group(1)):
        if line + len(suffix) + 2 > _REPR_LINE_WIDTH:
            laid_out.append(",\n" + " " * _REPR_INDENT + suffix)
            line = _REPR_INDENT + len(suffix)
        else:
            laid_out.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(laid_out) + ")"


def device_rules(device: str) -> tuple[Rule, ...]:
    """The rules that read ``device`` (how the implementation's tensors name the device it runs on,
    ``cuda:0``) as the CPU, the reference's device (module docstring); their examples name ``device``."""
    kind, _, index = device.partition(":")
    not_its_device = f", not the implementation's device {device}"
    names = {device: "cpu", kind: "cpu", "cpu": "cpu" + not_its_device}
    device_repr = f"device(type='{kind}'" + (f", index={index})" if index else ")")
    reprs = {device_repr: "device(type='cpu')", "device(type='cpu')": "device(type='cpu')" + not_its_device}
    argument = re.compile(rf"{_SUFFIX_SEPARATOR}device='{re.escape(device)}'((?:{_SUFFIX_SEPARATOR}{_SUFFIX})*)\)")
    type_name = re.compile(rf"\btorch\.{re.escape(kind)}\.(?=[A-Z][A-Za-z]*Tensor\b)")
    return (
        Rule("device_name", lambda text: names.get(text, text), device, "cpu"),
        Rule("device_repr", lambda text: reprs.get(text, text), device_repr, "device(type='cpu')"),
        Rule("device_argument", lambda text: argument.sub(_suffixes_laid_out, text) if "device='" in text else text,
             f"tensor([1., 2.], device='{device}', requires_grad=True)", "tensor([1., 2.], requires_grad=True)"),
        Rule("device_type_name", lambda text: type_name.sub("torch.", text),
             f"(was torch.{kind}.FloatTensor got torch.{kind}.DoubleTensor)",
             "(was torch.FloatTensor got torch.DoubleTensor)"),
    )


class Normalizer:
    """Normalises texts of one side: the reference, or an implementation named by its module; where
    the implementation runs on a device of its own (``device``, as its tensors name it: ``cuda:0``),
    that device reads as the CPU (``device_rules``)."""

    def __init__(self, implementation_module: str | None = None, device: str | None = None) -> None:
        rules = list(COMMON_RULES)
        if implementation_module and implementation_module != "torch":
            rules.append(module_name_rule(implementation_module))
        if device is not None:
            rules.extend(device_rules(device))
        self.rules = tuple(rules)

    def __call__(self, text: str) -> str:
        for rule in self.rules:
            text = rule.apply(text)
        return text
