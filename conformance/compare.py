"""Compare what the reference and the implementation observed, and judge the outcome.

Steps are aligned by position. Within a step the comparison covers, in this order: the warnings
(category and normalised message, in order), the printed output, then either the exception
(type and normalised message) or the observed value. Values are compared structurally:
tensor flags, dtypes, shapes, node names and types exactly, numbers within tolerance.

Tolerances are those of ``torch.testing.assert_close``: per dtype ``(rtol, atol)`` with
``|actual - expected| <= atol + rtol * |expected|``; a case may override them per dtype. NaN
equals NaN here (both sides producing NaN at the same place is the same behaviour), and an
infinity equals only the same infinity. Python floats use the float32 tolerances unless the
case overrides ``"float"``.

Each difference names where it is, e.g. ``step 3: x.grad: values``, and shows both sides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .normalize import is_ignored_warning
from .snapshot import decode_float

DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "torch.float16": (1e-3, 1e-5),
    "torch.bfloat16": (1.6e-2, 1e-5),
    "torch.float32": (1.3e-6, 1e-5),
    "torch.float64": (1e-7, 1e-7),
    "torch.complex32": (1e-3, 1e-5),
    "torch.complex64": (1.3e-6, 1e-5),
    "torch.complex128": (1e-7, 1e-7),
    "float": (1.3e-6, 1e-5),
}

TENSOR_FIELDS = ("dtype", "shape", "device", "requires_grad", "is_leaf", "grad_fn", "retains_grad", "version")
MISSING_API_TYPES = ("AttributeError", "NotImplementedError")
PREVIEW = 300


@dataclass
class Difference:
    where: str
    reference: str
    implementation: str
    detail: str = ""
    unsupported: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        text = f"{self.where}: torch {self.reference} / implementation {self.implementation}"
        return text if not self.detail else f"{text} ({self.detail})"


def compared_warnings(step: dict) -> list[dict]:
    """The warnings of a step that take part in the comparison (see ``normalize.IGNORED_WARNINGS``)."""
    return [w for w in step.get("warnings", []) if not is_ignored_warning(w["category"], w["message"])]


class Comparison:
    """Diff of one case on one device. ``normalize_ref`` / ``normalize_impl`` normalise texts."""

    def __init__(
        self,
        normalize_ref: Callable[[str], str],
        normalize_impl: Callable[[str], str],
        tolerances: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        self.norm_ref = normalize_ref
        self.norm_impl = normalize_impl
        self.tolerances = dict(DEFAULT_TOLERANCES)
        for key, value in (tolerances or {}).items():
            self.tolerances[key if key == "float" or key.startswith("torch.") else f"torch.{key}"] = tuple(value)
        self.diffs: list[Difference] = []

    # -- steps ----------------------------------------------------------------------------
    def steps(self, ref_steps: list[dict], impl_steps: list[dict]) -> list[Difference]:
        for index in range(max(len(ref_steps), len(impl_steps))):
            ref = ref_steps[index] if index < len(ref_steps) else None
            impl = impl_steps[index] if index < len(impl_steps) else None
            if ref is None or impl is None or ref["label"] != impl["label"]:
                self._diverged(index + 1, ref, impl)
                break
            self._step(index + 1, ref, impl)
        return self.diffs

    def _diverged(self, number: int, ref: dict | None, impl: dict | None) -> None:
        missing = None
        if impl is not None and impl.get("error", {}).get("type") in MISSING_API_TYPES:
            if ref is None or ref.get("error", {}).get("type") != impl["error"]["type"]:
                missing = impl["error"].get("missing") or impl["error"]["message"]
        self.diffs.append(
            Difference(f"step {number}", describe_step(ref), describe_step(impl), "the runs diverge here", missing)
        )

    def _step(self, number: int, ref: dict, impl: dict) -> None:
        where = f"step {number}: {ref['label']}"
        ref_warnings = [self._warning(w, self.norm_ref) for w in compared_warnings(ref)]
        impl_warnings = [self._warning(w, self.norm_impl) for w in compared_warnings(impl)]
        if ref_warnings != impl_warnings:
            self.diffs.append(
                Difference(f"{where}: warnings", show_list(ref_warnings), show_list(impl_warnings),
                           warning_count_detail(ref_warnings, impl_warnings))
            )
        ref_out = self.norm_ref(ref.get("stdout", ""))
        impl_out = self.norm_impl(impl.get("stdout", ""))
        if ref_out != impl_out:
            self.diffs.append(Difference(f"{where}: printed output", repr(ref_out), repr(impl_out)))
        if "error" in ref or "error" in impl:
            self._errors(where, ref.get("error"), impl.get("error"))
        else:
            self.value(where, ref["value"], impl["value"])

    @staticmethod
    def _warning(w: dict, norm: Callable[[str], str]) -> str:
        return f"{norm(w['category'])}: {norm(w['message'])}"

    def _errors(self, where: str, ref: dict | None, impl: dict | None) -> None:
        ref_text = None if ref is None else f"{self.norm_ref(ref['type'])}: {self.norm_ref(ref['message'])}"
        impl_text = None if impl is None else f"{self.norm_impl(impl['type'])}: {self.norm_impl(impl['message'])}"
        if ref_text == impl_text:
            return
        missing = None
        if impl is not None and impl["type"] in MISSING_API_TYPES and (ref is None or ref["type"] != impl["type"]):
            missing = impl.get("missing") or impl["message"]
        field = "exception" if ref is not None and impl is not None and ref["type"] == impl["type"] else "outcome"
        self.diffs.append(
            Difference(f"{where}: {'message' if field == 'exception' else 'exception'}",
                       ref_text or "raised nothing", impl_text or "raised nothing", unsupported=missing)
        )

    # -- values ---------------------------------------------------------------------------
    def value(self, where: str, ref: Any, impl: Any) -> None:
        if is_tagged(impl, "unsupported") and not is_tagged(ref, "unsupported"):
            self.diffs.append(Difference(where, describe(ref), describe(impl), unsupported=impl["name"]))
            return
        ref_kind, impl_kind = kind_of(ref), kind_of(impl)
        if ref_kind != impl_kind:
            self.diffs.append(Difference(f"{where}: kind", describe(ref), describe(impl)))
            return
        handler = getattr(self, f"_value_{ref_kind}", None)
        if handler is not None:
            handler(where, ref, impl)
        elif self._text(ref, self.norm_ref) != self._text(impl, self.norm_impl):
            self.diffs.append(Difference(where, describe(ref), describe(impl)))

    def _text(self, value: Any, norm: Callable[[str], str]) -> Any:
        """Normalise every string inside a value (reprs, messages, type names)."""
        if isinstance(value, str):
            return norm(value)
        if isinstance(value, list):
            return [self._text(v, norm) for v in value]
        if isinstance(value, dict):
            return {k: self._text(v, norm) for k, v in value.items()}
        return value

    def _value_number(self, where: str, ref: Any, impl: Any) -> None:
        if isinstance(decode_float(ref), float) or isinstance(decode_float(impl), float):
            tolerance = self.tolerances["float"]
        else:
            tolerance = (0.0, 0.0)
        if type(decode_float(ref)) is not type(decode_float(impl)):
            self.diffs.append(Difference(f"{where}: type", describe(ref), describe(impl)))
            return
        problem = compare_numbers([ref], [impl], tolerance)
        if problem:
            self.diffs.append(Difference(where, describe(ref), describe(impl), problem))

    def _value_sequence(self, where: str, ref: list, impl: list) -> None:
        if len(ref) != len(impl):
            self.diffs.append(Difference(f"{where}: length", str(len(ref)), str(len(impl))))
            return
        for index, (r, m) in enumerate(zip(ref, impl)):
            self.value(f"{where}[{index}]", r, m)

    def _value_tuple(self, where: str, ref: dict, impl: dict) -> None:
        self._value_sequence(where, ref["items"], impl["items"])

    def _value_size(self, where: str, ref: dict, impl: dict) -> None:
        if ref["items"] != impl["items"]:
            self.diffs.append(Difference(where, describe(ref), describe(impl)))

    def _value_dict(self, where: str, ref: dict, impl: dict) -> None:
        ref_keys = [describe(k) for k, _ in ref["items"]]
        impl_keys = [describe(k) for k, _ in impl["items"]]
        if ref_keys != impl_keys:
            self.diffs.append(Difference(f"{where}: keys", show_list(ref_keys), show_list(impl_keys)))
            return
        for key, (_, r), (_, m) in zip(ref_keys, ref["items"], impl["items"]):
            self.value(f"{where}[{key}]", r, m)

    def _value_tensor(self, where: str, ref: dict, impl: dict) -> None:
        for field in TENSOR_FIELDS:
            if field not in ref and field not in impl:
                continue
            r, m = ref.get(field, "<absent>"), impl.get(field, "<absent>")
            if is_tagged(m, "unsupported") and not is_tagged(r, "unsupported"):
                self.diffs.append(Difference(f"{where}: {field}", describe(r), describe(m), unsupported=m["name"]))
            elif self._text(r, self.norm_ref) != self._text(m, self.norm_impl):
                self.diffs.append(Difference(f"{where}: {field}", describe(r), describe(m)))
        if ref.get("dtype") == impl.get("dtype") and ref.get("shape") == impl.get("shape"):
            self._tensor_values(where, ref, impl)
        if "grad" in ref or "grad" in impl:
            self.value(f"{where}.grad", ref.get("grad", "<not read>"), impl.get("grad", "<not read>"))

    def _tensor_values(self, where: str, ref: dict, impl: dict) -> None:
        r, m = ref["values"], impl["values"]
        if is_tagged(r, "error") or is_tagged(m, "error") or is_tagged(m, "unsupported"):
            if self._text(r, self.norm_ref) != self._text(m, self.norm_impl):
                self.diffs.append(Difference(f"{where}: values", describe(r), describe(m),
                                             unsupported=m["name"] if is_tagged(m, "unsupported") else None))
            return
        problem = compare_numbers(r, m, self.tolerances.get(ref["dtype"], (0.0, 0.0)))
        if problem:
            self.diffs.append(Difference(f"{where}: values", preview(r), preview(m), problem))


# -- helpers ---------------------------------------------------------------------------------
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
        return value.get("t", "dict")
    if value is None:
        return "none"
    return type(value).__name__


def to_array(values: Any) -> np.ndarray:
    def decode(v: Any) -> Any:
        return [decode(x) for x in v] if isinstance(v, list) else decode_float(v)

    return np.asarray(decode(values))


def compare_numbers(ref: Any, impl: Any, tolerance: tuple[float, float]) -> str:
    """Empty when equal within tolerance, otherwise a short account of the mismatch."""
    expected, actual = to_array(ref), to_array(impl)
    if expected.shape != actual.shape:
        return f"shapes {list(expected.shape)} and {list(actual.shape)}"
    if expected.size == 0:
        return ""
    rtol, atol = tolerance
    if expected.dtype.kind in "biu" and actual.dtype.kind in "biu":
        close = expected == actual
    else:
        expected_c, actual_c = expected.astype(complex), actual.astype(complex)
        close = np.isclose(actual_c, expected_c, rtol=rtol, atol=atol, equal_nan=True)
        same_inf = (np.isinf(expected_c) == np.isinf(actual_c)) & ~(
            np.isinf(expected_c) & (expected_c != actual_c)
        )
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


def preview(value: Any) -> str:
    text = str(to_array(value).tolist()) if not isinstance(value, dict) else describe(value)
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "\u2026"


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
            shown = preview(values) if isinstance(values, list) else describe(values)
            flags = [f"{key}={describe(value[key]) if isinstance(value[key], dict) else value[key]}"
                     for key in ("dtype", "shape", "device", *TENSOR_FIELDS[3:], "grad") if key in value]
            return f"tensor({shown}, {', '.join(flags)})"
        if tag in ("float", "complex"):
            return repr(decode_float(value))
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
        if tag == "ok":
            return "completed"
        if tag in ("dtype", "device", "object"):
            return value.get("repr", "")
        if tag == "type":
            return f"<class '{value['name']}'>"
        if tag in ("ndarray", "numpy_scalar"):
            return f"numpy {value['dtype']} {preview(value['values'])}"
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


# -- judging ---------------------------------------------------------------------------------
FAILED_SIDE = ("crash", "timeout")


def judge(reference: dict, implementation: dict, comparison: Comparison) -> tuple[str, str, list[Difference]]:
    """Outcome, one-line detail and differences of one case on one device."""
    if reference["status"] in FAILED_SIDE or reference["status"] == "error":
        return "error", f"the reference side did not finish: {reference.get('detail') or reference['status']}", []
    if implementation["status"] == "timeout":
        return "timeout", implementation.get("detail", "timed out"), []
    if implementation["status"] == "crash":
        return "crash", implementation.get("detail", "crashed"), []
    if implementation["status"] == "error":
        return "error", implementation.get("detail", "harness error"), []
    diffs = comparison.steps(reference["steps"], implementation["steps"])
    if not diffs:
        return "pass", "", []
    first = diffs[0]
    if first.unsupported:
        return "unsupported", f"unsupported: {first.unsupported}", diffs
    return "fail", first.summary(), diffs
