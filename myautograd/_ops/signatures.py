"""torch's Python argument parser, where it refuses a call: an op's signatures as torch prints them,
and the TypeError torch raises for positional arguments that match none of them.

An op lists its signatures in torch's spelling (``"Tensor input, Number other, *, Tensor out = None"``)
and calls ``match_signature(name, signatures, args)``, which returns the index of the first signature
the arguments fit, or raises torch's message:

* where the op has one signature, or one whose parameter count fits the call, the first argument that
  does not fit it is named: ``atan2(): argument 'input' (position 1) must be Tensor, not int``;
* otherwise every signature is listed, ``eq() received an invalid combination of arguments - got (int,
  Tensor), but expected one of:``, and under a signature whose printed parts (``*`` counts as one) are
  as many as the arguments, ``didn't match because some of the arguments have invalid types``, each
  argument whose type's name is not its part's marked ``!int!`` (``_marked``).

Only positional arguments are read: the ops take Python arguments by name, and do not know which were
given by keyword. Parameter types other than those ``_FITS`` knows are taken to fit.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from .._tensor import Tensor

# The signatures many binary ops share: a tensor or a number as the second operand, or tensors only
TENSOR_OR_NUMBER = ("Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None")
TENSORS_ONLY = ("Tensor input, Tensor other, *, Tensor out = None",)


class Parameter(NamedTuple):
    type: str  # torch's spelling: "Tensor", "Number", "int", "tuple of ints"...
    name: str
    required: bool


_PYTHON_NUMBERS = frozenset((bool, int, float, complex))


def _is_number(value) -> bool:
    return value.__class__ in _PYTHON_NUMBERS or isinstance(value, (int, float, complex, np.number, np.bool_))


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


_FITS = {
    "Tensor": lambda value: isinstance(value, Tensor),
    "Number": _is_number,
    "int": _is_int,
    "float": lambda value: _is_int(value) or isinstance(value, (float, np.floating)),
    "bool": lambda value: isinstance(value, (bool, np.bool_)),
    "tuple of ints": lambda value: isinstance(value, (tuple, list)) and all(_is_int(v) for v in value),
    "tuple of Tensors": lambda value: isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value),
}


def _fits_any(value) -> bool:
    return True


def _fits(parameter_type: str, value) -> bool:
    return _FITS.get(parameter_type, _fits_any)(value)


class Signature(NamedTuple):
    text: str
    positional: tuple[Parameter, ...]  # those before "*"
    parts: tuple[str, ...]  # the printed parts, "*" among them

    @property
    def min_args(self) -> int:
        return sum(p.required for p in self.positional)

    @property
    def max_args(self) -> int:
        return len(self.parts) - ("*" in self.parts)


@cache
def _parse(text: str) -> Signature:
    parts = tuple(text.split(", "))
    positional = []
    for part in parts:
        if part == "*":
            break
        declared, _, default = part.partition(" = ")
        type_name, _, name = declared.rpartition(" ")
        positional.append(Parameter(type_name, name, not default))
    return Signature(text, tuple(positional), parts)


@cache
def _checks(signatures: tuple[str, ...]) -> tuple[tuple[int, int, tuple], ...]:
    """Per signature: the fewest and most positional arguments, and the test of each (worked out once)."""
    parsed = [_parse(text) for text in signatures]
    return tuple((s.min_args, len(s.positional), tuple(_FITS.get(p.type, _fits_any) for p in s.positional))
                 for s in parsed)


def match_signature(op: str, signatures: tuple[str, ...], args: tuple) -> int:
    """The index of the first of ``signatures`` that the positional ``args`` fit; torch's TypeError if none."""
    count = len(args)
    for index, (fewest, most, tests) in enumerate(_checks(signatures)):
        if fewest <= count <= most:
            for fits, value in zip(tests, args):
                if not fits(value):
                    break
            else:
                return index
    raise invalid_arguments(op, signatures, args)


def invalid_arguments(op: str, signatures: tuple[str, ...], args: tuple) -> TypeError:
    """torch's TypeError for positional ``args`` that fit none of ``signatures`` (module docstring)."""
    parsed = [_parse(text) for text in signatures]
    plausible = [s for s in parsed if s.min_args <= len(args) <= s.max_args]
    if len(parsed) == 1 or len(plausible) == 1:
        message = _first_misfit(op, parsed[0] if len(parsed) == 1 else plausible[0], args)
        if message is not None:
            return TypeError(message)
    given = ", ".join(_type_name(value) for value in args)
    lines = [f"{op}() received an invalid combination of arguments - got ({given}), but expected one of:"]
    for signature in parsed:
        lines.append(f" * ({signature.text})")
        if len(signature.parts) == len(args):
            marked = ", ".join(_marked(part, value) for part, value in zip(signature.parts, args))
            lines.append(f"      didn't match because some of the arguments have invalid types: ({marked})")
    return TypeError("\n".join(lines) + "\n")


def _first_misfit(op: str, signature: Signature, args: tuple) -> str | None:
    """torch's message for the first argument that does not fit ``signature`` (None if all fit). Too
    many or too few arguments never reach here: Python refuses them at the op's own signature."""
    for position, (parameter, value) in enumerate(zip(signature.positional, args), start=1):
        if not _fits(parameter.type, value):
            return (f"{op}(): argument '{parameter.name}' (position {position}) must be {parameter.type}, "
                    f"not {_type_name(value)}")
    return None


def _marked(part: str, value) -> str:
    """An argument as the list of reasons shows it: marked unless its type's name is the part's type
    (torch's reasons compare names, so a Parameter does not fit a Tensor part there, nor a number a
    Number part), or an int for a float; an argument for a part with a default is always marked
    (``bool keepdim = False`` marks ``!bool!``), as torch's are."""
    declared, _, default = part.partition(" = ")
    declared_type, name = declared.rpartition(" ")[0], _type_name(value)
    fits = not default and (name == declared_type or (declared_type, name) == ("float", "int"))
    return name if fits else f"!{name}!"


def _type_name(value) -> str:
    return type(value).__name__
