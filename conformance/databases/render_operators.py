"""Render ``torch.testing._internal.common_methods_invocations.op_db`` as data (reference side only).

``python -m conformance.databases op_db`` reads every OpInfo of torch's ``op_db`` (it needs the
``expecttest`` package) and writes ``op_db.json`` (``conformance/catalog/opinfo.py`` reads it), per
entry (an operator and its ``variant_test_name``):

* the call by its public name: ``torch.<name>`` (``torch.nn.functional``, ``torch.linalg``,
  ``torch.special``, ``torch.fft``, ... included) where that object is the entry's function, else the
  Tensor method of that name;
* the dtypes among float32 and float64 it supports on the CPU, and its flags: gradients
  (``supports_autograd``), second order (``supports_gradgrad``), forward mode (``supports_forward_ad``),
  forward-over-reverse (``supports_fwgrad_bwgrad``);
* its samples (``sample_inputs("cpu", dtype, requires_grad=True)``, in float32 where it has it): each
  tensor as its values, dtype, shape, whether it is contiguous and whether it requires grad; Python
  arguments as source; which outputs are differentiable (found by running the sample on torch);
* its invalid calls (``error_inputs("cpu")``) the same way, with the exception type and the pattern
  torch's tests expect of the message.

What cannot be rendered is kept with the reason: a whole entry (no public name, no float dtype, an
output drawn at random, an attribute or signature that this torch release does not have) in
``skipped``, a sample (a complex tensor, an argument of a type with no literal, a size over the
limits) in the entry's ``dropped`` counts. A change of torch's internals thus skips entries, never
stops the rendering. The limits (samples per entry, elements per sample) keep the catalog's run time
and the file's size bounded; they are recorded in the file.
"""

from __future__ import annotations

import collections
import math

from .encode import Unrenderable
from .render_modules import spread as spread_evenly

FORMAT = 1
MAX_SAMPLES = 6  # per entry, spread over torch's list
MAX_ERRORS = 4  # invalid calls per entry
MAX_ELEMENTS = 1024  # tensor elements per sample, all inputs together (a unary sample of torch is 20 x 20 and more)
FLOAT_DTYPES = ("float32", "float64")
EXACT_KINDS = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool")


def tensor_kind(tensor, dtype_name: str | None) -> str:
    name = str(tensor.dtype).removeprefix("torch.")
    if dtype_name is not None and name == dtype_name:
        return "float"  # the case's dtype, float32 or float64 as the item runs
    if name not in EXACT_KINDS:
        raise Unrenderable(f"a tensor of dtype {name}")
    return name


class SampleWriter:
    """Renders one call's arguments as source over named tensor inputs."""

    def __init__(self, torch, dtype_name: str | None) -> None:
        self.torch = torch
        self.dtype_name = dtype_name
        self.inputs: dict[str, dict] = {}
        self.tensors: dict[str, object] = {}
        self.elements = 0

    def tensor(self, tensor) -> str:
        if tensor.layout != self.torch.strided:
            raise Unrenderable(f"a tensor of layout {tensor.layout}")
        kind = tensor_kind(tensor, self.dtype_name)
        name = "abcdefghijklmnopqrstuvwxyz"[len(self.inputs)] if len(self.inputs) < 26 else f"t{len(self.inputs)}"
        self.elements += tensor.numel()
        if self.elements > MAX_ELEMENTS:
            raise Unrenderable(f"more than {MAX_ELEMENTS} tensor elements")
        detached = tensor.detach()
        contiguous = bool(tensor.is_contiguous()) or tensor.dim() == 0
        self.inputs[name] = {
            "kind": kind,
            "shape": list(tensor.shape),
            "values": None if tensor.numel() == 0 else detached.tolist(),
            "contiguous": contiguous,
            "grad": bool(tensor.requires_grad),
        }
        self.tensors[name] = self.rebuilt(detached, contiguous).requires_grad_(tensor.requires_grad)
        return name

    def rebuilt(self, detached, contiguous: bool):
        """The tensor as the scenario builds it from the data (``operators.render``): its values in storage of
        their own, a non-contiguous one every other element of its last dimension. Torch runs the sample on it,
        so a sample whose meaning the data loses (a view's offset into a larger storage) shows here."""
        if contiguous or detached.numel() == 0:
            return detached.clone(memory_format=self.torch.contiguous_format)
        wide = self.torch.zeros((*detached.shape[:-1], 2 * detached.shape[-1]), dtype=detached.dtype)
        wide[..., ::2] = detached
        return wide[..., ::2]

    def source(self, value) -> str:
        torch = self.torch
        if isinstance(value, torch.Tensor):
            return self.tensor(value)
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, float):
            if math.isnan(value):
                return "float('nan')"
            if math.isinf(value):
                return "float('inf')" if value > 0 else "-float('inf')"
            return repr(value)
        if isinstance(value, (tuple, torch.Size)):
            parts = [self.source(v) for v in value]
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        if isinstance(value, list):
            return "[" + ", ".join(self.source(v) for v in value) + "]"
        if isinstance(value, torch.dtype):  # the sample's own dtype is the item's: the scenario's ``dtype``
            return "dtype" if str(value) == f"torch.{self.dtype_name}" else str(value)
        if isinstance(value, torch.device):
            return "rec.device"
        if isinstance(value, (torch.memory_format, torch.layout)):
            return str(value)
        if isinstance(value, slice):
            return f"slice({self.source(value.start)}, {self.source(value.stop)}, {self.source(value.step)})"
        if value is Ellipsis:
            return "..."
        raise Unrenderable(f"an argument of type {type(value).__name__}")

    def call(self, prefix: str, method: bool, sample) -> str:
        first = self.source(sample.input)
        rest = [self.source(arg) for arg in sample.args]
        rest += [f"{key}={self.source(value)}" for key, value in sample.kwargs.items()]
        if method:
            if not isinstance(sample.input, self.torch.Tensor):
                raise Unrenderable("a method called on something other than a tensor")
            return f"{first}.{prefix}({', '.join(rest)})"
        return f"{prefix}({', '.join([first, *rest])})"


def public_call(torch, op) -> tuple[str, bool, str]:
    """``(callable source, is a method, docstring path)`` of an entry, by its public name; the path is
    ``""`` where that object has no docstring."""
    if any(part.startswith("_") and not part.startswith("__") or part in ("torch", "ops") for part in op.name.split(".")):
        raise Unrenderable("its name is torch's internal one")
    target = torch
    for part in op.name.split("."):
        target = getattr(target, part, None)
    function = op.op
    if target is not None and (target is function or getattr(function, "__wrapped__", None) is target):
        return f"torch.{op.name}", False, documented(target, f"torch.{op.name}")
    method_name = op.name.rsplit(".", 1)[-1]
    if op.method_variant is not None and getattr(torch.Tensor, method_name, None) is op.method_variant:
        return method_name, True, documented(op.method_variant, f"torch.Tensor.{method_name}")
    raise Unrenderable("its function is not a public name of torch, nor a Tensor method of its name")


def documented(target, path: str) -> str:
    return path if (getattr(target, "__doc__", None) or "").strip() else ""


def differentiable_outputs(torch, out) -> list[tuple[str, object]]:
    """``(expression of out, tensor)`` for each output that requires grad."""
    if isinstance(out, torch.Tensor):
        return [("out", out)] if out.requires_grad else []
    if isinstance(out, (tuple, list)):
        return [(f"out[{i}]", o) for i, o in enumerate(out) if isinstance(o, torch.Tensor) and o.requires_grad]
    return []


def render_sample(torch, op, prefix: str, method: bool, dtype_name: str, sample) -> dict:
    writer = SampleWriter(torch, dtype_name)
    call = writer.call(prefix, method, sample)
    scope = {"torch": torch, "rec": _Device(), "dtype": getattr(torch, dtype_name), **writer.tensors}
    torch.manual_seed(0)
    try:
        out = eval(call, scope)  # noqa: S307 - the source just written, over torch's own sample
    except Exception as exc:  # noqa: BLE001 - torch itself cannot call it as written: not a sample we can use
        raise Unrenderable(f"torch raises on the rendered call ({type(exc).__name__})") from None
    outputs = differentiable_outputs(torch, out)
    wanted = [name for name, inp in writer.inputs.items() if inp["kind"] == "float" and inp["grad"]]
    used = []
    if outputs and wanted and op.supports_autograd:
        try:
            grads = torch.autograd.grad([o for _, o in outputs], [writer.tensors[n] for n in wanted],
                                        [torch.ones_like(o) for _, o in outputs], allow_unused=True)
        except Exception as exc:  # noqa: BLE001 - torch has no gradient for this sample (eig's phase, ...)
            raise Unrenderable(f"torch's gradient raises ({type(exc).__name__})") from None
        used = [name for name, grad in zip(wanted, grads) if grad is not None]
    for name in wanted:
        writer.inputs[name]["grad"] = name in used  # an input the outputs do not depend on is passed as a constant
    expressions = [expression for expression, _ in outputs]
    return {
        "call": call,
        "inputs": writer.inputs,
        "outputs": "out" if expressions == ["out"] else "[" + ", ".join(expressions) + "]",
        "grad": bool(used),
        "note": _note(sample),
    }


def render_error(torch, prefix: str, method: bool, error) -> dict:
    writer = SampleWriter(torch, None)
    call = writer.call(prefix, method, error.sample_input)
    return {"call": call, "inputs": writer.inputs, "type": getattr(error.error_type, "__name__", str(error.error_type)),
            "pattern": str(error.error_regex), "note": _note(error.sample_input)}


def _note(sample) -> str:
    name = getattr(sample, "name", "") or ""
    return str(name)[:80]


class _Device:
    device = "cpu"


def is_random(torch, prefix: str, method: bool, dtype_name: str, op) -> bool:
    """Whether the entry's first sample gives different outputs for two seeds of torch's generator."""
    for sample in op.sample_inputs("cpu", getattr(torch, dtype_name), requires_grad=False):
        writer = SampleWriter(torch, dtype_name)
        try:
            call = writer.call(prefix, method, sample)
        except Unrenderable:
            continue
        results = []
        for seed in (0, 1):
            torch.manual_seed(seed)
            try:
                scope = {"torch": torch, "rec": _Device(), "dtype": getattr(torch, dtype_name), **writer.tensors}
                results.append(eval(call, scope))  # noqa: S307 - the source just written, over torch's own sample
            except Exception:  # noqa: BLE001 - judged on a sample that torch can call
                break
        if len(results) == 2:
            try:
                return not _same(torch, *results)
            except Exception:  # noqa: BLE001 - outputs torch cannot compare (meta tensors, ...): not random
                return False
    return False


def _same(torch, first, second) -> bool:
    if isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor):
        return first.shape == second.shape and bool(torch.equal(first.detach(), second.detach())
                                                    or torch.allclose(first.detach(), second.detach(), equal_nan=True))
    if isinstance(first, (tuple, list)) and isinstance(second, (tuple, list)):
        return len(first) == len(second) and all(_same(torch, a, b) for a, b in zip(first, second))
    return first == second


def spread(count: int, wanted: int) -> list[int]:
    """The indices ``0..count-1``, ``wanted`` of them evenly spread over the range first, then the rest (in
    case some cannot be rendered): the samples kept come from the whole of torch's list (its later samples
    try other options)."""
    first = spread_evenly(count, wanted)
    return first + [i for i in range(count) if i not in set(first)]


def rendered(items: list, limit: int, what: str, dropped: collections.Counter, render, label: str = "") -> list[dict]:
    """Up to ``limit`` of ``items`` rendered, taken in the order of ``spread``; what is left out counted in ``dropped``."""
    kept: list[tuple[int, dict]] = []
    for index in spread(len(items), limit):
        if len(kept) == limit:
            dropped[f"more than {limit} {what}"] += 1
            continue
        try:
            kept.append((index, render(items[index])))
        except Unrenderable as exc:
            dropped[f"{label}{exc}"] += 1
    return [data for _, data in sorted(kept, key=lambda pair: pair[0])]  # in torch's order


def uninitialized(name: str) -> bool:
    """Whether the operator returns uninitialized memory (``empty``, ``new_empty_strided``, ...): values that
    differ from run to run, which no seed fixes."""
    return "empty" in name.rsplit(".", 1)[-1].split("_")


def render_entry(torch, op) -> dict:
    if uninitialized(op.name):
        raise Unrenderable("its outputs are uninitialized memory")
    supported = op.supported_dtypes("cpu")
    dtypes = [name for name in FLOAT_DTYPES if getattr(torch, name) in supported]
    if not dtypes:
        raise Unrenderable("supports neither float32 nor float64 on the CPU")
    prefix, method, doc = public_call(torch, op)
    if is_random(torch, prefix, method, dtypes[0], op):
        raise Unrenderable("its outputs are drawn from torch's random generator")
    dropped: collections.Counter = collections.Counter()
    torch.manual_seed(0)  # torch's sample functions draw values and options at random: the same file every time
    every = list(op.sample_inputs("cpu", getattr(torch, dtypes[0]), requires_grad=op.supports_autograd))
    samples = rendered(every, MAX_SAMPLES, "samples", dropped,
                       lambda sample: render_sample(torch, op, prefix, method, dtypes[0], sample))
    torch.manual_seed(0)
    invalid = list(op.error_inputs("cpu")) if getattr(op, "error_inputs_func", None) is not None else []
    errors = rendered(invalid, MAX_ERRORS, "invalid calls", dropped,
                      lambda error: render_error(torch, prefix, method, error), "invalid call: ")
    if not samples and not errors:
        reasons = "; ".join(reason for reason, _ in dropped.most_common(3)) or "none"  # one skip reason per cause
        raise Unrenderable(f"no sample could be rendered: {reasons}")
    return {
        "name": op.name,
        "variant": op.variant_test_name or "default",
        "call": prefix,
        "method": method,
        "doc": doc,
        "dtypes": dtypes,
        "supports_autograd": bool(op.supports_autograd),
        "supports_gradgrad": bool(op.supports_gradgrad),
        "supports_forward_ad": bool(op.supports_forward_ad),
        "supports_fwgrad_bwgrad": bool(op.supports_fwgrad_bwgrad),
        "samples": samples,
        "errors": errors,
        "dropped": dict(dropped),
    }


def render(entries_of_db=None) -> dict:
    """The database as data: every entry of ``entries_of_db`` (by default torch's ``op_db``) rendered or
    skipped with the reason; any exception reading an entry (torch's internals changed) is such a skip."""
    import torch

    if entries_of_db is None:
        from torch.testing._internal.common_methods_invocations import op_db as entries_of_db

    entries, skipped = [], []
    for op in entries_of_db:
        name = getattr(op, "name", repr(op))
        variant = getattr(op, "variant_test_name", "") or "default"
        try:
            entries.append(render_entry(torch, op))
        except Unrenderable as exc:
            skipped.append({"name": name, "variant": variant, "reason": str(exc)})
        except Exception as exc:  # noqa: BLE001 - torch's internals changed (an attribute, a signature): skip it
            skipped.append({"name": name, "variant": variant,
                            "reason": f"reading the entry raised {type(exc).__name__}: {str(exc)[:160]}"})
    return {"format": FORMAT, "torch": torch.__version__,
            "database": "torch.testing._internal.common_methods_invocations.op_db",
            "limits": {"samples": MAX_SAMPLES, "errors": MAX_ERRORS, "elements": MAX_ELEMENTS},
            "entries": entries, "skipped": skipped}
