"""Compare what the reference and the implementation observed: every difference, by aspect.

Steps are aligned by position and label. The comparison goes through every step both sides
recorded, and within a step covers the warnings (whether there were any, then their category
and normalised message, in order), the printed output, then either the exception (raised or
not, type, normalised message) or the observed value. Values are compared structurally:
tensor dtypes, shapes, devices, flags and node names exactly, numbers within tolerance. Where
the runs part (one side raised, or ended, where the other went on) one difference says so and
the comparison stops: nothing after it was observed on both sides.

Each difference carries its **aspect** (``levels.ASPECTS``), which decides at which levels it
counts, where it is (``step 3: x.grad: values``), both sides, and, where the implementation's
API lacks something, the missing name in torch's spelling.

The comparison also counts what it compared (``Comparison.compared``): the steps it aligned, and
per aspect the checks it made, numbers counted element by element for values and gradients (a
tensor of six elements is six). A run's verdict rests on these counts: a pass that compared
nothing is no pass (see ``runner``).

Tolerances are per dtype ``(rtol, atol)`` with ``|actual - expected| <= atol + rtol * |expected|``;
a case may override them per dtype. float32 (and complex64) use ``torch.testing.assert_close``'s
defaults. float64 (and complex128) use ``1e-12``: about 4500 units in the last place, loose
enough for a different order of summation, tight enough to catch float64 work done in float32
(an error near ``1e-8``). Integers and bools compare exactly. A Python float is compared at the
tolerance of the dtype the item runs in. NaN equals NaN (both sides producing NaN at the same
place is the same behaviour), and an infinity equals only the same infinity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .bounds import cut_text
from .normalize import is_ignored_warning, is_set_aside
from .operators.tolerances import FLOAT64_SUFFIX, PARTS, REDUCED, reduced_precision_problem
from .snapshot import decode_float

DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "torch.float16": (1e-3, 1e-5),
    "torch.bfloat16": (1.6e-2, 1e-5),
    "torch.float32": (1.3e-6, 1e-5),
    "torch.float64": (1e-12, 1e-12),
    "torch.complex32": (1e-3, 1e-5),
    "torch.complex64": (1.3e-6, 1e-5),
    "torch.complex128": (1e-12, 1e-12),
}
TENSOR_FIELDS = ("dtype", "shape", "device", "requires_grad", "is_leaf", "grad_fn", "retains_grad", "version")
FIELD_ASPECTS = {"dtype": "dtype", "shape": "shape", "device": "device", "requires_grad": "flag", "is_leaf": "flag",
                 "retains_grad": "flag", "version": "flag"}
PREVIEW = 300
# A step whose label names a gradient: ``x.grad``, ``grads``, ``dx``, the fuzzer's ``dt7/dt2`` (of t7 with respect to t2).
_GRADIENT_LABEL = re.compile(r"\.grad\b(?!_)|\bgrads?\b|gradient|autograd\.grad|\bd[a-z]\b|\bd\w+/d\w+\b")


@dataclass
class Difference:
    where: str
    aspect: str
    reference: str
    implementation: str
    detail: str = ""
    unsupported: str | None = None
    step: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def compared_warnings(step: dict, set_aside_from: tuple[str, ...] = ()) -> list[dict]:
    """The warnings of a step that take part in the comparison: not those of ``normalize.IGNORED_WARNINGS``,
    nor those issued from the modules of ``set_aside_from`` (``normalize.is_set_aside``)."""
    return [w for w in step.get("warnings", []) if not is_ignored_warning(w["category"], w["message"])
            and not is_set_aside(w, set_aside_from)]


def tolerances_for(overrides: Mapping[str, tuple[float, float]] | None) -> dict[str, tuple[float, float]]:
    tolerances = dict(DEFAULT_TOLERANCES)
    for key, value in (overrides or {}).items():
        tolerances[key if key.startswith("torch.") else f"torch.{key}"] = tuple(value)
    return tolerances


class Comparison:
    """Diff of one item. ``normalize_ref`` / ``normalize_impl`` normalise the texts of each side;
    ``dtype`` is the dtype the item runs in (Python floats are compared at its tolerance);
    warnings issued from the modules of ``set_aside_from`` take no part (on both sides)."""

    def __init__(self, normalize_ref: Callable[[str], str], normalize_impl: Callable[[str], str],
                 tolerances: Mapping[str, tuple[float, float]] | None = None, dtype: str = "float32",
                 set_aside_from: tuple[str, ...] = ()) -> None:
        self.set_aside_from = tuple(set_aside_from)
        self.norm_ref = normalize_ref
        self.norm_impl = normalize_impl
        self.tolerances = tolerances_for(tolerances)
        self.float_tolerance = self.tolerances.get(f"torch.{dtype}", self.tolerances["torch.float32"])
        if dtype in PARTS:  # real values computed from complex ones (abs, angle, a tangent's real part): the complex floor
            parts = f"torch.{PARTS[dtype]}"
            self.tolerances[parts] = tuple(max(a, b) for a, b in zip(self.tolerances.get(parts, (0.0, 0.0)),
                                                                     self.float_tolerance))
        self.reduced = dtype in REDUCED
        self._float64_steps: dict[str, dict] = {}  # label -> torch's float64 computation of that step's values
        self._float64_at: dict[str, dict] = {}  # where -> the float64 tensor of the step being compared
        self.diffs: list[Difference] = []
        self._step_number = 0
        self.steps_compared = 0
        self.checks: dict[str, int] = {}

    @property
    def compared(self) -> dict:
        """What was compared: ``{"steps": n, "elements": n, "by_aspect": {aspect: n}}``, where
        ``elements`` counts the numbers of values and gradients (``by_aspect``'s value + gradient)."""
        by_aspect = {aspect: count for aspect, count in sorted(self.checks.items())}
        return {"steps": self.steps_compared, "elements": by_aspect.get("value", 0) + by_aspect.get("gradient", 0),
                "by_aspect": by_aspect}

    def count(self, aspect: str, number: int = 1) -> None:
        self.checks[aspect] = self.checks.get(aspect, 0) + number

    def add(self, where: str, aspect: str, reference: str, implementation: str, detail: str = "",
            unsupported: str | None = None) -> None:
        self.diffs.append(Difference(where, aspect, cut_text(reference, 2000), cut_text(implementation, 2000),
                                     detail, unsupported, self._step_number))

    # -- steps ----------------------------------------------------------------------------
    def steps(self, ref_steps: list[dict], impl_steps: list[dict]) -> list[Difference]:
        if self.reduced:  # the reduced-precision rule (operators.tolerances) measures against these
            self._float64_steps = {step["label"]: step for step in ref_steps
                                   if step.get("label", "").endswith(FLOAT64_SUFFIX) and "value" in step}
        for index in range(max(len(ref_steps), len(impl_steps))):
            self._step_number = index + 1
            ref = ref_steps[index] if index < len(ref_steps) else None
            impl = impl_steps[index] if index < len(impl_steps) else None
            if ref is None or impl is None or ref["label"] != impl["label"]:
                self.count("raised")
                self._diverged(ref, impl)
                break
            self.steps_compared += 1
            self._step(ref, impl)
        return self.diffs

    def _diverged(self, ref: dict | None, impl: dict | None) -> None:
        where = f"step {self._step_number}"
        ref_raised = ref is not None and "error" in ref
        impl_raised = impl is not None and "error" in impl
        missing = None
        if impl_raised and not (ref_raised and ref["error"]["type"] == impl["error"]["type"]):
            missing = (impl["error"].get("missing") or {}).get("name")
        if ref_raised or impl_raised or ref is None or impl is None:
            detail = "the runs part here: one side raised or ended where the other went on"
            self.add(where, "raised", describe_step(ref), describe_step(impl), detail, missing)
        else:
            self.add(where, "value", describe_step(ref), describe_step(impl), "the runs part here")

    def _step(self, ref: dict, impl: dict) -> None:
        where = f"step {self._step_number}: {ref['label']}"
        ref_warnings = [self._warning(w, self.norm_ref) for w in compared_warnings(ref, self.set_aside_from)]
        impl_warnings = [self._warning(w, self.norm_impl) for w in compared_warnings(impl, self.set_aside_from)]
        self.count("warned")
        if ref_warnings and impl_warnings:
            self.count("warning-text", len(ref_warnings))
        if bool(ref_warnings) != bool(impl_warnings):
            self.add(f"{where}: warnings", "warned", show_list(ref_warnings), show_list(impl_warnings),
                     warning_count_detail(ref_warnings, impl_warnings))
        elif ref_warnings != impl_warnings:
            self.add(f"{where}: warnings", "warning-text", show_list(ref_warnings), show_list(impl_warnings),
                     warning_count_detail(ref_warnings, impl_warnings))
        ref_out = self.norm_ref(ref.get("stdout", ""))
        impl_out = self.norm_impl(impl.get("stdout", ""))
        self.count("printed")
        if ref_out != impl_out:
            self.add(f"{where}: printed output", "printed", repr(ref_out), repr(impl_out))
        if "error" in ref or "error" in impl:
            self._errors(where, ref.get("error"), impl.get("error"))
        elif ref.get("aspect") == "identity" or impl.get("aspect") == "identity":
            self.count("identity")
            if ref["value"] != impl["value"]:
                self.add(where, "identity", describe(ref["value"]), describe(impl["value"]))
        elif ref.get("aspect") == "printed" or impl.get("aspect") == "printed":
            if self._text(ref["value"], self.norm_ref) != self._text(impl["value"], self.norm_impl):
                self.add(where, "printed", describe(ref["value"]), describe(impl["value"]))
        else:
            role = "gradient" if _GRADIENT_LABEL.search(ref["label"]) else "value"
            float64 = self._float64_steps.get(ref["label"] + FLOAT64_SUFFIX)
            self._float64_at = tensors_at(where, float64["value"]) if float64 else {}
            self.value(where, ref["value"], impl["value"], role)
            self._float64_at = {}

    @staticmethod
    def _warning(w: dict, norm: Callable[[str], str]) -> str:
        return f"{norm(w['category'])}: {norm(w['message'])}"

    def _errors(self, where: str, ref: dict | None, impl: dict | None) -> None:
        self.count("raised")
        if ref is not None and impl is not None:
            self.count("exception-type")
            self.count("message")
        ref_text = None if ref is None else f"{self.norm_ref(ref['type'])}: {self.norm_ref(ref['message'])}"
        impl_text = None if impl is None else f"{self.norm_impl(impl['type'])}: {self.norm_impl(impl['message'])}"
        if ref_text == impl_text:
            return
        missing = (impl.get("missing") or {}).get("name") if impl is not None else None
        if ref is None or impl is None or missing:
            # where the implementation raised because its API lacks a name, it did not reach what
            # torch raises (or does not raise) for: that counts at every level
            self.add(f"{where}: exception", "raised", ref_text or "raised nothing", impl_text or "raised nothing",
                     unsupported=missing)
        elif self.norm_ref(ref["type"]) != self.norm_impl(impl["type"]):
            self.add(f"{where}: exception", "exception-type", ref_text, impl_text)
        else:
            self.add(f"{where}: message", "message", ref_text, impl_text)

    # -- values ---------------------------------------------------------------------------
    def value(self, where: str, ref: Any, impl: Any, role: str = "value") -> None:
        if is_tagged(impl, "unsupported") and not is_tagged(ref, "unsupported"):
            self.add(where, role, describe(ref), describe(impl), unsupported=impl["name"])
            return
        ref_kind, impl_kind = kind_of(ref), kind_of(impl)
        self.count("type")
        if ref_kind != impl_kind:
            self._kinds_differ(where, ref, impl, role)
            return
        handler = getattr(self, f"_value_{ref_kind}", None)
        if handler is not None:
            handler(where, ref, impl, role)
            return
        self.count("raised" if ref_kind in ("error", "ok") else role)  # ok: an attempt that completed
        if self._text(ref, self.norm_ref) != self._text(impl, self.norm_impl):
            aspect = "raised" if ref_kind == "error" else role
            self.add(where, aspect, describe(ref), describe(impl), self._read_as(ref, impl))

    def _kinds_differ(self, where: str, ref: Any, impl: Any, role: str) -> None:
        ref_items, impl_items = sequence_items(ref), sequence_items(impl)
        if ref_items is not None and impl_items is not None:  # a Size, a tuple, a list: the kind is api
            self.add(f"{where}: kind", "type", describe(ref), describe(impl))
            self._value_sequence(where, ref_items, impl_items, role)
            return
        ref_numbers, impl_numbers = numeric_content(ref), numeric_content(impl)
        if ref_numbers is not None and impl_numbers is not None:
            self.add(f"{where}: kind", "type", describe(ref), describe(impl))
            self.count(role, count_numbers(ref_numbers))
            problem = compare_numbers(ref_numbers, impl_numbers, self.float_tolerance, flatten=True)
            if problem:
                self.add(f"{where}: values", role, preview(ref_numbers), preview(impl_numbers), problem)
            return
        aspect = "raised" if "error" in (kind_of(ref), kind_of(impl)) else role
        self.add(f"{where}: kind", aspect, describe(ref), describe(impl))

    def _read_as(self, ref: Any, impl: Any) -> str:
        """For two values that read alike as recorded but differ once normalised (the CPU named where
        the implementation runs on a device of its own, ``normalize.device_rules``), how each was read."""
        if describe(ref) != describe(impl):
            return ""
        return (f"alike as recorded, read as {describe(self._text(ref, self.norm_ref))} on torch's side and "
                f"{describe(self._text(impl, self.norm_impl))} on the implementation's")

    def _text(self, value: Any, norm: Callable[[str], str]) -> Any:
        """Normalise every string inside a value (reprs, messages, type names)."""
        if isinstance(value, str):
            return norm(value)
        if isinstance(value, list):
            return [self._text(v, norm) for v in value]
        if isinstance(value, dict):
            return {k: self._text(v, norm) for k, v in value.items()}
        return value

    def _value_number(self, where: str, ref: Any, impl: Any, role: str) -> None:
        ref_number, impl_number = decode_float(ref), decode_float(impl)
        if type(ref_number) is not type(impl_number):
            self.add(f"{where}: type", "type", describe(ref), describe(impl))
        tolerance = self.float_tolerance if isinstance(ref_number, (float, complex)) else (0.0, 0.0)
        self.count(role)
        problem = compare_numbers([ref], [impl], tolerance)
        if problem:
            self.add(where, role, describe(ref), describe(impl), problem)

    def _value_sequence(self, where: str, ref: list, impl: list, role: str) -> None:
        if len(ref) != len(impl):
            self.add(f"{where}: length", role, str(len(ref)), str(len(impl)))
            return
        for index, (r, m) in enumerate(zip(ref, impl)):
            self.value(f"{where}[{index}]", r, m, role)

    def _value_tuple(self, where: str, ref: dict, impl: dict, role: str) -> None:
        self._value_sequence(where, ref["items"], impl["items"], role)

    def _value_size(self, where: str, ref: dict, impl: dict, role: str) -> None:
        self.count(role, max(len(ref["items"]), 1))
        if ref["items"] != impl["items"]:
            self.add(where, role, describe(ref), describe(impl))

    def _value_dict(self, where: str, ref: dict, impl: dict, role: str) -> None:
        ref_keys = [describe(k) for k, _ in ref["items"]]
        impl_keys = [describe(k) for k, _ in impl["items"]]
        self.count(role, len(ref_keys))
        if ref_keys != impl_keys:
            self.add(f"{where}: keys", role, show_list(ref_keys), show_list(impl_keys))
            return
        for key, (_, r), (_, m) in zip(ref_keys, ref["items"], impl["items"]):
            self.value(f"{where}[{key}]", r, m, role)

    def _value_node(self, where: str, ref: dict, impl: dict, role: str) -> None:
        self.count("node-name")
        if self.norm_ref(ref["name"]) != self.norm_impl(impl["name"]):
            self.add(where, "node-name", describe(ref), describe(impl))

    def _value_cut(self, where: str, ref: dict, impl: dict, role: str) -> None:
        self.add(where, role, describe(ref), describe(impl), "too large to compare: both sides were cut")

    def _value_tensor(self, where: str, ref: dict, impl: dict, role: str) -> None:
        for field in TENSOR_FIELDS:
            if field not in ref and field not in impl:
                continue
            r, m = ref.get(field, "<absent>"), impl.get(field, "<absent>")
            if field == "grad_fn":
                aspect = "node-name" if isinstance(r, str) and isinstance(m, str) else "flag"
            else:
                aspect = FIELD_ASPECTS[field]
            self.count(aspect)
            if is_tagged(m, "unsupported") and not is_tagged(r, "unsupported"):
                self.add(f"{where}: {field}", aspect, describe(r), describe(m), unsupported=m["name"])
            elif self._text(r, self.norm_ref) != self._text(m, self.norm_impl):
                self.add(f"{where}: {field}", aspect, describe(r), describe(m), self._read_as(r, m))
        self._tensor_values(where, ref, impl, role)
        if "grad" in ref and "grad" in impl:  # where one side did not read it, is_leaf or retains_grad differs
            self.value(f"{where}.grad", ref["grad"], impl["grad"], "gradient")

    def tolerance_of(self, dtype: Any) -> tuple[float, float]:
        """The tolerance of a recorded dtype (exact for integers, bools and what is not a dtype name)."""
        return self.tolerances.get(dtype, (0.0, 0.0)) if isinstance(dtype, str) else (0.0, 0.0)

    def _tensor_values(self, where: str, ref: dict, impl: dict, role: str) -> None:
        r, m = ref["values"], impl["values"]
        if (isinstance(r, dict) or isinstance(m, dict)) and not (_is_number(r) and _is_number(m)):
            self.count(role)
            if self._text(r, self.norm_ref) != self._text(m, self.norm_impl) or is_tagged(r, "cut"):
                unsupported = m["name"] if is_tagged(m, "unsupported") and not is_tagged(r, "unsupported") else None
                detail = "too large to compare: both sides were cut" if is_tagged(r, "cut") and is_tagged(m, "cut") \
                    else ""
                self.add(f"{where}: values", role, describe(r), describe(m), detail, unsupported)
            return
        same_shape = ref.get("shape") == impl.get("shape")
        float64 = self._float64_at.get(where)
        if float64 is not None and same_shape and ref.get("dtype") == impl.get("dtype") \
                and ref.get("dtype") in {f"torch.{name}" for name in REDUCED} and not isinstance(float64["values"], dict):
            self.count(role, count_numbers(r))
            try:
                problem = reduced_precision_problem(to_array(r), to_array(m), to_array(float64["values"]),
                                                    ref["dtype"].removeprefix("torch."))
            except (ValueError, TypeError) as exc:
                problem = f"not comparable as numbers ({exc})"
            if problem:
                self.add(f"{where}: values", role, preview(r, ref.get("dtype")), preview(m, impl.get("dtype")), problem)
            return
        tolerance = max(self.tolerance_of(ref.get("dtype")), self.tolerance_of(impl.get("dtype")))
        self.count(role, count_numbers(r))
        problem = compare_numbers(r, m, tolerance, flatten=not same_shape)
        if problem:
            self.add(f"{where}: values", role, preview(r, ref.get("dtype")), preview(m, impl.get("dtype")), problem)


# -- helpers ---------------------------------------------------------------------------------
def tensors_at(where: str, value: Any) -> dict[str, dict]:
    """The tensors of an observed value by where ``Comparison.value`` compares them (``where[0][1]``)."""
    if is_tagged(value, "tensor"):
        return {where: value}
    found: dict[str, dict] = {}
    for index, item in enumerate(sequence_items(value) or ()):
        found.update(tensors_at(f"{where}[{index}]", item))
    return found


def count_numbers(values: Any) -> int:
    """How many numbers a (nested) list of encoded numbers holds; 1 for a single number."""
    if isinstance(values, list):
        return sum(count_numbers(v) for v in values)
    return 1


def _is_number(value: Any) -> bool:
    """A 0-dim tensor's value: a number, or one encoded as a dict (a complex one, a non-finite float)."""
    return isinstance(value, (int, float)) or is_tagged(value, "complex") or is_tagged(value, "float")


def is_tagged(value: Any, tag: str) -> bool:
    return isinstance(value, dict) and value.get("t") == tag


def kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)) or is_tagged(value, "float") or is_tagged(value, "complex"):
        return "number"
    if isinstance(value, list):
        return "sequence"
    if isinstance(value, dict):
        return str(value.get("t", "dict"))
    if value is None:
        return "none"
    return type(value).__name__


def sequence_items(value: Any) -> list | None:
    """The items of a list, tuple or Size observation; None for anything else."""
    if isinstance(value, list):
        return value
    if is_tagged(value, "tuple") or is_tagged(value, "size"):
        return value["items"]
    return None


def numeric_content(value: Any) -> Any:
    """The numbers a tensor, array, number or (nested) list holds, or None if it holds others."""
    if is_tagged(value, "tensor") or is_tagged(value, "ndarray") or is_tagged(value, "numpy_scalar"):
        value = value.get("values")
    if isinstance(value, bool) or value is None or isinstance(value, dict) and not (
            is_tagged(value, "float") or is_tagged(value, "complex")):
        return None
    try:
        array = to_array(value)
    except (ValueError, TypeError):
        return None
    return value if array.dtype.kind in "biufc" else None


def to_array(values: Any) -> np.ndarray:
    def decode(v: Any) -> Any:
        return [decode(x) for x in v] if isinstance(v, list) else decode_float(v)

    return np.asarray(decode(values))


def compare_numbers(ref: Any, impl: Any, tolerance: tuple[float, float], flatten: bool = False) -> str:
    """Empty when equal within tolerance, otherwise a short account of the mismatch."""
    try:
        expected, actual = to_array(ref), to_array(impl)
    except (ValueError, TypeError) as exc:
        return f"not comparable as numbers ({exc})"
    if flatten:
        expected, actual = expected.reshape(-1), actual.reshape(-1)
    if expected.shape != actual.shape:
        return f"shapes {list(expected.shape)} and {list(actual.shape)}"
    if expected.size == 0:
        return ""
    if expected.dtype.kind not in "biufc" or actual.dtype.kind not in "biufc":
        return "not comparable as numbers"
    if "c" in (expected.dtype.kind, actual.dtype.kind):  # a complex number matches where both its parts do
        expected, actual = as_parts(expected), as_parts(actual)
    rtol, atol = tolerance
    if expected.dtype.kind in "biu" and actual.dtype.kind in "biu":
        close = expected == actual
    else:
        expected_c, actual_c = expected.astype(complex), actual.astype(complex)
        with np.errstate(all="ignore"):
            close = np.isclose(actual_c, expected_c, rtol=rtol, atol=atol, equal_nan=True)
        same_inf = (np.isinf(expected_c) == np.isinf(actual_c)) & ~(np.isinf(expected_c) & (expected_c != actual_c))
        close = close & same_inf
    if bool(np.all(close)):
        return ""
    bad = int(np.size(close) - np.count_nonzero(close))
    with np.errstate(all="ignore"):
        delta = np.abs(actual.astype(complex) - expected.astype(complex))
        delta = np.where(np.isnan(delta), np.inf, delta)
    worst = np.unravel_index(int(np.argmax(delta)), delta.shape) if delta.ndim else ()
    return (
        f"mismatched elements: {bad} / {expected.size}; greatest absolute difference "
        f"{float(np.max(delta)):.6g} at index {tuple(int(i) for i in worst)}; rtol={rtol:g}, atol={atol:g}"
    )


def as_parts(values: np.ndarray) -> np.ndarray:
    """Complex (or real) values as real and imaginary parts side by side, along a last dimension of 2."""
    values = values.astype(complex)
    return np.stack([values.real, values.imag], axis=-1)


# Values of these dtypes are shown with the shortest digits that identify them in their own
# precision (0.84147096, not float64's 0.8414709568023682), so that two values equal in float32 read
# the same in a report, and a difference shows in the digits that differ.
SHORT_FORMATS: dict[str, type] = {"torch.float32": np.float32, "torch.float16": np.float16,
                                  "torch.bfloat16": np.float32, "torch.complex64": np.complex64,
                                  "torch.complex32": np.complex64}


def preview(value: Any, dtype: Any = None) -> str:
    """A tensor's values (nested lists of encoded numbers) in one line, cut to ``PREVIEW`` characters;
    in ``dtype``'s own precision where it is a reduced one (``SHORT_FORMATS``)."""
    if isinstance(value, dict):
        return describe(value)
    kind = SHORT_FORMATS.get(dtype) if isinstance(dtype, str) else None
    try:
        text = short_numbers(value, kind) if kind is not None else str(to_array(value).tolist())
    except (ValueError, TypeError, OverflowError):
        text = describe(value)
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "\u2026"


def short_numbers(values: Any, kind: type) -> str:
    """Nested lists of encoded numbers as text, each float in the precision of ``kind``."""
    if isinstance(values, list):
        return "[" + ", ".join(short_numbers(v, kind) for v in values) + "]"
    number = decode_float(values)
    if isinstance(number, (float, complex)):
        return str(kind(number))
    return repr(number)


def show_list(items: list[str]) -> str:
    return "[" + ", ".join(repr(i) for i in items) + "]" if items else "none"


def warning_count_detail(ref: list[str], impl: list[str]) -> str:
    return f"{len(ref)} warning(s) on torch, {len(impl)} on the implementation" if len(ref) != len(impl) else ""


def describe(value: Any) -> str:
    """A short, readable rendering of an encoded observation."""
    if isinstance(value, dict):
        tag = value.get("t")
        if tag == "tensor":
            values = value.get("values")
            shown = preview(values, value.get("dtype")) if isinstance(values, list) else describe(values)
            flags = [f"{key}={describe(value[key]) if isinstance(value[key], dict) else value[key]}"
                     for key in ("dtype", "shape", "device", *TENSOR_FIELDS[3:], "grad") if key in value]
            return f"tensor({shown}, {', '.join(flags)})"
        if tag in ("float", "complex"):
            return repr(decode_float(value))
        if tag == "bigint":
            return f"<an integer of {value['bits']} bits>"
        if tag == "node":
            return f"<{value['name']}>"
        if tag in ("tuple", "size"):
            inner = ", ".join(describe(v) if tag == "tuple" else str(v) for v in value["items"])
            return f"({inner})" if tag == "tuple" else f"Size([{inner}])"
        if tag == "dict":
            return "{" + ", ".join(f"{describe(k)}: {describe(v)}" for k, v in value["items"]) + "}"
        if tag in ("exception", "error"):
            return f"{value['type']}: {value['message']}"
        if tag == "unsupported":
            return f"unsupported: {value['name']}"
        if tag == "cut":
            return f"<cut: {value['why']}>"
        if tag == "ok":
            return "completed"
        if tag in ("dtype", "device", "object"):
            return value.get("repr", "")
        if tag == "type":
            return f"<class '{value['name']}'>"
        if tag in ("ndarray", "numpy_scalar"):
            return f"numpy {value['dtype']} {preview(value['values'], 'torch.' + str(value['dtype']))}"
    if isinstance(value, list):
        text = "[" + ", ".join(describe(v) for v in value) + "]"
        return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "\u2026"
    return repr(value)


def describe_step(step: dict | None) -> str:
    if step is None:
        return "no such step (the run ended before)"
    where = f" at line {step['line']}: {step['source']}" if step.get("line") else ""
    if "error" in step:
        what = "raised" if step["label"] == "raised" else f"{step['label']} raised"
        return f"{what} {step['error']['type']}: {step['error']['message']}{where}"
    return f"observed {step['label']!r}{where}"
