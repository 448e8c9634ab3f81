"""Ill-conditioned values: differences that rounding alone explains, measured on the reference.

Two correct engines round differently: NumPy's and torch's ``expf`` differ by one unit in the
last place now and then, a reduction adds in another order. Most programs pass on that through
the campaign's tolerance, but a program can amplify one rounding without bound: ``sin`` of
``exp(5.6)`` in float32 turns a one-ulp difference of ``exp`` (270.42636 / 270.42639) into a
relative difference of 1e-4. No fixed tolerance and no ``[[fuzz]]`` pattern tells that apart
from a wrong formula. The program itself does: run the **reference** again with every literal
float tensor of the program scaled by ``1 + s`` for ``s`` in ``±δ, ±2δ`` (``δ`` = 8 units of
the dtype's roundoff, ``2**-20`` in float32), and see how far torch's own value moves.

A value difference is **ill-conditioned**, and no finding, when at every element that differs
beyond the tolerance

* torch's value moves both ways (scaled up and scaled down) by at least the difference: a value
  that rounding at the level of a few ulps moves that far cannot be judged more closely; and
* it moves smoothly: about twice as far for ``2δ`` as for ``δ`` (between 1.5 and 3 times).
  A kink or a tie that the scaling crosses (a clamp at its bound, a maximum between a leaf and
  a constant) makes a jump that does not grow with ``δ``; a difference there is a finding.

Scaling keeps zeros, signs and ties between leaves (every leaf is scaled alike), so the kinks at
zero and the ties the generator draws on purpose stay where they are. Only value and gradient
differences can be ill-conditioned, and only in their numbers: both observations must be alike
once every number is blanked out (bools, ``None``, structure), and a number must differ. Any other
difference in the program (a flag, a node name, an exception) makes it a finding. Non-finite
values must match exactly, as in the comparison.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..levels import counts_at
from ..snapshot import decode_float

ROUNDOFF = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}
STEPS = 8                                   # δ in units of the dtype's roundoff
SMOOTH = (1.5, 3.0)                         # how much farther 2δ moves a value than δ, when it moves smoothly
VALUE_ASPECTS = ("value", "gradient")

# ``torch.tensor(<literal>, dtype=rec.float_dtype``: the literal float tensors of a fuzzed program
_FLOAT_TENSOR = re.compile(r"torch\.tensor\(((?:[-\[\]\s,.\deE+]|float\('(?:nan|inf)'\))+)(?=, dtype=rec\.float_dtype)")
_NUMBER = re.compile(r"(?<![\w.'])-?\d+\.\d*(?:e[-+]?\d+)?|(?<![\w.'])-?\d+e[-+]?\d+")


def scales(dtype: str) -> dict[str, float]:
    """The factors the literal tensors are scaled by, named: ``+δ``, ``-δ``, ``+2δ``, ``-2δ``."""
    delta = STEPS * ROUNDOFF.get(dtype, ROUNDOFF["float32"])
    return {"+δ": 1 + delta, "-δ": 1 - delta, "+2δ": 1 + 2 * delta, "-2δ": 1 - 2 * delta}


def scaled_source(source: str, factor: float) -> str:
    """``source`` with every number of its literal float tensors multiplied by ``factor``."""
    def scale_number(match: re.Match) -> str:
        return repr(float(match.group(0)) * factor)

    def scale_literal(match: re.Match) -> str:
        return "torch.tensor(" + _NUMBER.sub(scale_number, match.group(1))

    return _FLOAT_TENSOR.sub(scale_literal, source)


def numbers(value: Any) -> list[float]:
    """Every number an observation holds (tensor values, gradients, tuple items), in order."""
    found: list[float] = []
    _walk(value, found)
    return found


def skeleton(value: Any) -> Any:
    """An observation with every number replaced by ``"#"``: what must be equal for a difference
    to be one of numbers only (flags, bools, strings, None and the structure are kept)."""
    return _walk(value, [])


def _walk(value: Any, found: list[float]) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        found.append(float(value))
        return "#"
    if isinstance(value, dict) and value.get("t") == "float":
        found.append(float(decode_float(value)))
        return "#"
    if isinstance(value, dict):
        return {key: _walk(value[key], found) for key in sorted(value)}
    if isinstance(value, list):
        return [_walk(item, found) for item in value]
    return repr(value)


def could_be_ill_conditioned(record: dict, level: str) -> bool:
    """Whether ``record`` differs, at ``level``, in values and gradients only (then the reference
    is worth running scaled)."""
    diffs = [d for d in record.get("diff") or () if counts_at(d["aspect"], level)]
    return bool(diffs) and all(d["aspect"] in VALUE_ASPECTS for d in diffs)


def ill_conditioned(record: dict, scaled: Mapping[str, Sequence[dict]], level: str,
                    tolerance: tuple[float, float]) -> bool:
    """Whether every difference of ``record`` that counts at ``level`` is an ill-conditioned value.

    ``scaled`` maps each name of ``scales`` to the steps the reference recorded on the program
    scaled by that factor; ``tolerance`` is the ``(rtol, atol)`` the record was judged at.
    """
    if not could_be_ill_conditioned(record, level):
        return False
    diffs = [d for d in record["diff"] if counts_at(d["aspect"], level)]
    reference = record["reference"]["steps"]
    implementation = record["implementation"]["steps"]
    for index in sorted({d["step"] - 1 for d in diffs}):
        steps = [reference, implementation, *(scaled[name] for name in ("+δ", "-δ", "+2δ", "-2δ"))]
        if any(index >= len(s) or "value" not in s[index] or s[index]["label"] != reference[index]["label"]
               for s in steps):
            return False
        if skeleton(reference[index]["value"]) != skeleton(implementation[index]["value"]):
            return False  # a difference that is not in numbers (a bool, a flag, None, a shape)
        arrays = [np.asarray(numbers(s[index]["value"]), dtype=float) for s in steps]
        if len({a.size for a in arrays}) != 1 or not _within_movement(*arrays, tolerance):
            return False
    return True


def _within_movement(ref: np.ndarray, impl: np.ndarray, up: np.ndarray, down: np.ndarray, up2: np.ndarray,
                     down2: np.ndarray, tolerance: tuple[float, float]) -> bool:
    rtol, atol = tolerance
    with np.errstate(invalid="ignore", over="ignore"):
        differs = ~(np.abs(impl - ref) <= atol + rtol * np.abs(ref))
        differs &= ~(np.isnan(ref) & np.isnan(impl))
        if not differs.any():
            return False  # the difference is not in these numbers
        ref, impl = ref[differs], impl[differs]
        moved = np.minimum(np.abs(up[differs] - ref), np.abs(down[differs] - ref))
        moved2 = np.minimum(np.abs(up2[differs] - ref), np.abs(down2[differs] - ref))
        finite = np.isfinite(ref) & np.isfinite(impl) & np.isfinite(moved) & np.isfinite(moved2)
        smooth = (moved2 >= SMOOTH[0] * moved) & (moved2 <= SMOOTH[1] * moved)
        return bool(np.all(finite & smooth & (np.abs(impl - ref) <= moved)))
