"""The recorder of a standalone replay script, copied as it is into every script ``replay --script`` writes.

It imports nothing but the standard library (a script never imports the suite) and retells, for one
engine in one process, the suite's recorder, snapshot, normalisation and comparison; the tests hold
it to the suite's normalisation examples and run written scripts on torch and myautograd.

``main(scenario, expected, settings)`` imports the engine ``--impl`` names (torch by default), runs
the scenario on it and prints each step with whether it matches torch's (``expected``, in the
suite's encoding). Exit status 1 at the first step that differs at ``--level`` (the run stops
there), 0 when every step matches, 2 when the engine cannot be imported.
"""

import argparse
import cmath
import collections
import contextlib
import importlib
import importlib.metadata
import inspect
import io
import linecache
import os
import re
import sys
import traceback
import types
import warnings

PREVIEW = 300
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_TRIGGERED = re.compile(r" ?\(Triggered internally at [^\n]*\)$", re.DOTALL)
_STRING_SET = re.compile(r"\{'[^'{}\n]*'(?:, '[^'{}\n]*')+\}")
_FAST_MODE_MARK = "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876"
_PROJECTIONS = re.compile(r"^(.*?)numerical:[^\n]*\nanalytical:[^\n]*\n", re.DOTALL)
_MAX_DIFFERENCE = re.compile(r"(The max per-element difference \(slow mode\) is: )([-+0-9.eE]+|nan|inf)\.")
TENSOR_FIELDS = ("dtype", "shape", "device", "requires_grad", "is_leaf", "grad_fn", "retains_grad", "version")


class Stop(BaseException):
    """Raised at the first step that differs; a BaseException, so that no ``except Exception`` of the
    scenario stops it on its way out."""


# -- texts ---------------------------------------------------------------------------------------
def shown(text, limit=2000):
    """A text from the engine made safe for the terminal: one line, control characters escaped, cut."""
    text = text if isinstance(text, str) else repr(text)
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}",
                        text.replace("\n", " \u23ce "))
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def normalized(text, module_name=None):
    """A message, warning or printed text as the suite compares it: object addresses, torch's
    "(Triggered internally at ...)" suffix, the traceback of an anomaly-mode message and the order of
    a printed set of strings, and gradcheck's fast-mode projections (and the digits of its largest difference
    past the fourth) do not count; the engine's module name reads as ``torch``."""
    text = _ADDRESS.sub("0x\u2026", text)
    text = _TRIGGERED.sub("", text)
    if text.startswith("Error detected in "):
        text = text.split("\n", 1)[0]
    if "{'" in text:
        text = _STRING_SET.sub(lambda m: "{" + ", ".join(sorted(m.group(0)[1:-1].split(", "))) + "}", text)
    if _FAST_MODE_MARK in text:
        text = _PROJECTIONS.sub(lambda m: f"{m.group(1)}numerical:\u2026\nanalytical:\u2026\n", text, count=1)
        text = _MAX_DIFFERENCE.sub(lambda m: f"{m.group(1)}{float(m.group(2)):.4g}.", text)
    if module_name and module_name != "torch":
        text = re.sub(rf"\b{re.escape(module_name)}\b", "torch", text)
    return text


def type_name(cls):
    module, name = getattr(cls, "__module__", ""), getattr(cls, "__qualname__", repr(cls))
    return name if module in ("builtins", "", None) else f"{module}.{name}"


def error_of(exc):
    return {"type": type_name(type(exc)), "message": str(exc)}


# -- observing a value, as the suite's snapshot does ----------------------------------------------
def _quiet(read):
    try:
        return read()
    except Exception:
        return None


def _has(value, *names):
    return _quiet(lambda: [getattr(value, name) for name in names]) is not None


def _type_attribute(owner, name):
    value = _quiet(lambda: getattr(owner, name)) if owner is not None else None
    return value if isinstance(value, type) else None


class Observer:
    """Turns what a scenario records into plain data: tensors by their values, dtype, shape, device,
    flags, node name and gradient; graph nodes by name; exceptions by type and message."""

    def __init__(self, engine):
        self.tensor_type = _type_attribute(engine, "Tensor")
        self.node_type = _type_attribute(_quiet(lambda: engine.autograd.graph), "Node")
        example = _quiet(lambda: engine.float32)
        dtype_type = type(example) if example is not None else None
        self.dtype_type = None if dtype_type in (int, float, str, bool, type) else dtype_type
        size_type = _type_attribute(engine, "Size")
        self.size_type = None if size_type in (tuple, list) else size_type
        self.device_type = _type_attribute(engine, "device")

    def encode(self, value, version=False):
        if value is None or isinstance(value, (bool, str, int, float, complex)):
            return plain(value)
        if self._is(value, self.tensor_type) or self.tensor_type is None and _has(value, "requires_grad", "shape"):
            return self.tensor(value, version)
        if self._is(value, self.node_type) or _has(value, "next_functions") and callable(_quiet(lambda: value.name)):
            return {"t": "node", "name": node_name(value)}
        if self._is(value, self.size_type):
            return {"t": "size", "items": [int(v) for v in value]}
        if self._is(value, self.dtype_type) or self._is(value, self.device_type):
            return {"t": "dtype" if self._is(value, self.dtype_type) else "device", "repr": repr(value)}
        if isinstance(value, tuple):
            return {"t": "tuple", "items": [self.encode(v, version) for v in value]}
        if isinstance(value, list):
            return [self.encode(v, version) for v in value]
        if isinstance(value, dict):
            return {"t": "dict", "items": [[self.encode(k), self.encode(v, version)] for k, v in value.items()]}
        if isinstance(value, type):
            return {"t": "type", "name": type_name(value)}
        if isinstance(value, BaseException):
            return {"t": "exception", **error_of(value)}
        if type(value).__module__ == "numpy":
            kind = "ndarray" if type(value).__name__ == "ndarray" else "numpy_scalar"
            return {"t": kind, "dtype": str(value.dtype), "shape": list(value.shape), "values": plain(value.tolist())}
        return {"t": "object", "type": type_name(type(value)), "repr": repr(value)}

    @staticmethod
    def _is(value, cls):
        return cls is not None and isinstance(value, cls)

    def tensor(self, t, version):
        zero_tensor = getattr(t, "_is_zerotensor", None)  # torch's efficient zeros refuse tolist()
        readable = t.clone() if callable(zero_tensor) and zero_tensor() is True else t
        seen = {"t": "tensor",
                "dtype": read(t, "dtype", repr),
                "shape": read(t, "shape", lambda shape: [int(n) for n in shape]),
                "device": read(t, "device", str),
                "values": read(readable, "tolist", lambda tolist: plain(tolist())),
                "requires_grad": read(t, "requires_grad", bool),
                "is_leaf": read(t, "is_leaf", bool),
                "grad_fn": read(t, "grad_fn", lambda node: None if node is None else node_name(node)),
                "retains_grad": read(t, "retains_grad", bool)}
        if seen["is_leaf"] is not False or seen["retains_grad"] is True:  # .grad of other tensors warns
            seen["grad"] = read(t, "grad", self.encode)
        if version:
            seen["version"] = read(t, "_version", int)
        return seen


def read(owner, attribute, convert):
    """``convert(owner.<attribute>)``, or the error reading it raised (an observation too)."""
    try:
        return convert(getattr(owner, attribute))
    except Exception as exc:
        return {"t": "error", **error_of(exc)}


def plain(values):
    """A number, or the nested lists ``tolist()`` returns, as the suite encodes them (non-finite floats
    tagged)."""
    if isinstance(values, (list, tuple)):
        return [plain(v) for v in values]
    if isinstance(values, float):
        values = float(values)
        return values if abs(values) < float("inf") else {"t": "float", "v": str(values)}
    if isinstance(values, complex):
        return {"t": "complex", "re": plain(values.real), "im": plain(values.imag)}
    if values is None or isinstance(values, (bool, int, str)):
        return values
    return {"t": "object", "type": type_name(type(values)), "repr": repr(values)}


def node_name(node):
    name = getattr(node, "name", None)
    return str(name()) if callable(name) else type(node).__name__


# -- describing and comparing observations ---------------------------------------------------------
def decoded(value):
    if isinstance(value, dict) and value.get("t") == "float":
        return float(value["v"])
    if isinstance(value, dict) and value.get("t") == "complex":
        return complex(decoded(value["re"]), decoded(value["im"]))
    return value


def tag(value):
    return value.get("t") if isinstance(value, dict) else None


def kind_of(value):
    if not isinstance(value, bool) and (isinstance(value, (int, float)) or tag(value) in ("float", "complex")):
        return "number"
    if isinstance(value, (list, dict)):
        return "sequence" if isinstance(value, list) else str(value.get("t", "dict"))
    return "none" if value is None else type(value).__name__


def flat(values):
    if isinstance(values, list):
        return [x for v in values for x in flat(v)]
    return [decoded(values)]


def numbers_in(value):
    """The numbers a tensor, array, number or nested list holds (flat), or None where it holds others."""
    if tag(value) in ("tensor", "ndarray", "numpy_scalar"):
        value = value.get("values")
    if isinstance(value, bool) or value is None or isinstance(value, dict) and tag(value) not in ("float", "complex"):
        return None
    numbers = flat(value)
    return numbers if all(isinstance(n, (bool, int, float, complex)) for n in numbers) else None


_DESCRIBE = {  # tag -> how an observation with that tag reads
    "float": lambda v: repr(decoded(v)), "complex": lambda v: repr(decoded(v)),
    "node": lambda v: f"<{v['name']}>", "size": lambda v: f"Size({v['items']})",
    "tuple": lambda v: "(" + ", ".join(map(describe, v["items"])) + ("," if len(v["items"]) == 1 else "") + ")",
    "dict": lambda v: "{" + ", ".join(f"{describe(k)}: {describe(x)}" for k, x in v["items"]) + "}",
    "exception": lambda v: f"{v['type']}: {v['message']}", "error": lambda v: f"{v['type']}: {v['message']}",
    "ok": lambda v: "completed", "type": lambda v: f"<class '{v['name']}'>",
    "dtype": lambda v: v["repr"], "device": lambda v: v["repr"], "object": lambda v: v["repr"],
    "ndarray": lambda v: f"numpy {v['dtype']} {describe(v['values'])}",
    "numpy_scalar": lambda v: f"numpy {v['dtype']} {describe(v['values'])}",
    "tensor": lambda v: f"tensor({describe(v['values'])}, " + ", ".join(
        f"{key}={describe(v[key]) if isinstance(v[key], dict) else v[key]}"
        for key in (*TENSOR_FIELDS, "grad") if key in v) + ")",
}


def describe(value):
    """A short, readable rendering of an observation."""
    if tag(value) is not None:
        return _DESCRIBE.get(tag(value), lambda v: f"<{v['t']}: {v.get('why') or v.get('name') or ''}>")(value)
    if isinstance(value, list):
        text = "[" + ", ".join(describe(v) for v in value) + "]"
        return text if len(text) <= PREVIEW else text[:PREVIEW - 1] + "\u2026"
    return repr(value)


def step_text(step):
    if step is None:
        return "no such step (the run ended before)"
    return f"{step['label']} raised {_DESCRIBE['error'](step['error'])}" if "error" in step \
        else f"observed {step['label']!r}"


def close(expected, actual, rtol, atol):
    if isinstance(expected, (bool, int)) and isinstance(actual, (bool, int)) and not (rtol or atol):
        return expected == actual
    e, a = complex(expected), complex(actual)
    if cmath.isnan(e) or cmath.isnan(a):
        return cmath.isnan(e) and cmath.isnan(a)
    if cmath.isinf(e) or cmath.isinf(a):
        return e == a
    return abs(a - e) <= atol + rtol * abs(e)


def mismatch(expected, actual, tolerance):
    """Empty when the flat lists of numbers agree within ``(rtol, atol)``, else how they differ."""
    if len(expected) != len(actual):
        return f"{len(expected)} and {len(actual)} elements"
    rtol, atol = tolerance
    bad = [i for i, (e, a) in enumerate(zip(expected, actual)) if not close(e, a, rtol, atol)]
    if not bad:
        return ""

    def distance(i):
        d = abs(complex(actual[i]) - complex(expected[i]))
        return float("inf") if d != d else d

    worst = max(bad, key=distance)
    return (f"{len(bad)} of {len(expected)} elements differ; the greatest absolute difference is "
            f"{distance(worst):.6g}, at flat index {worst}; rtol={rtol:g}, atol={atol:g}")


Difference = collections.namedtuple("Difference", "where aspect torch_text engine_text detail")


class Comparison:
    """The differences between torch's step and the engine's, each with its aspect (the suite's rules)."""

    def __init__(self, settings, module_name):
        self.tolerances = {dtype: tuple(pair) for dtype, pair in settings["tolerances"].items()}
        self.float_tolerance = self.tolerances.get(f"torch.{settings['dtype']}", self.tolerances["torch.float32"])
        self.gradient_label = re.compile(settings["gradient_label"])
        self.ignored_warnings = [tuple(pair) for pair in settings["ignored_warnings"]]
        self.module_name = module_name
        self.found = []

    def add(self, where, aspect, torch_text, engine_text, detail=""):
        self.found.append(Difference(where, aspect, torch_text, engine_text, detail))

    def texts(self, value, engine):
        """Every string in ``value``, normalised (the engine's side also reads its module name as torch)."""
        if isinstance(value, str):
            return normalized(value, self.module_name if engine else None)
        if isinstance(value, list):
            return [self.texts(v, engine) for v in value]
        if isinstance(value, dict):
            return {k: self.texts(v, engine) for k, v in value.items()}
        return value

    def step(self, number, expected, observed):
        """The differences at step ``number`` (``expected``: torch's step or None; ``observed``: the
        engine's or None). The runs part where the labels differ or one side has no such step."""
        self.found = []
        if expected is None or observed is None or expected["label"] != observed["label"]:
            raised = expected is None or observed is None or "error" in expected or "error" in observed
            self.add(f"step {number}", "raised" if raised else "value", step_text(expected), step_text(observed),
                     "the runs part here")
            return self.found
        where = f"step {number}: {expected['label']}"
        torch_warnings, engine_warnings = self.warnings(expected, False), self.warnings(observed, True)
        if torch_warnings != engine_warnings:
            self.add(f"{where}: warnings", "warned" if bool(torch_warnings) != bool(engine_warnings) else "warning-text",
                     str(torch_warnings or "none"), str(engine_warnings or "none"))
        torch_out, engine_out = self.texts(expected.get("stdout", ""), False), self.texts(observed.get("stdout", ""), True)
        if torch_out != engine_out:
            self.add(f"{where}: printed output", "printed", repr(torch_out), repr(engine_out))
        if "error" in expected or "error" in observed:
            self.errors(where, expected.get("error"), observed.get("error"))
        elif expected.get("aspect") or observed.get("aspect"):  # an identity, or a printed text
            if self.texts(expected["value"], False) != self.texts(observed["value"], True):
                aspect = expected.get("aspect") or observed.get("aspect")
                self.add(where, aspect, describe(expected["value"]), describe(observed["value"]))
        else:
            role = "gradient" if self.gradient_label.search(expected["label"]) else "value"
            self.value(where, expected["value"], observed["value"], role)
        return self.found

    def warnings(self, step, engine):
        return [f"{self.texts(w['category'], engine)}: {self.texts(w['message'], engine)}"
                for w in step.get("warnings", [])
                if not any(w["category"] == category and w["message"].startswith(prefix)
                           for category, prefix in self.ignored_warnings)]

    def errors(self, where, expected, observed):
        torch_text = expected and f"{self.texts(expected['type'], False)}: {self.texts(expected['message'], False)}"
        engine_text = observed and f"{self.texts(observed['type'], True)}: {self.texts(observed['message'], True)}"
        if torch_text == engine_text:
            return
        if expected is None or observed is None:
            self.add(f"{where}: exception", "raised", torch_text or "raised nothing", engine_text or "raised nothing")
        elif self.texts(expected["type"], False) != self.texts(observed["type"], True):
            self.add(f"{where}: exception", "exception-type", torch_text, engine_text)
        else:
            self.add(f"{where}: message", "message", torch_text, engine_text)

    def value(self, where, expected, observed, role):
        kind, other = kind_of(expected), kind_of(observed)
        if kind != other:
            self.kinds_differ(where, expected, observed, role)
        elif kind == "number":
            if type(decoded(expected)) is not type(decoded(observed)):
                self.add(f"{where}: type", "type", describe(expected), describe(observed))
            tolerance = self.float_tolerance if isinstance(decoded(expected), (float, complex)) else (0.0, 0.0)
            problem = mismatch([decoded(expected)], [decoded(observed)], tolerance)
            if problem:
                self.add(where, role, describe(expected), describe(observed), problem)
        elif kind in ("sequence", "tuple"):
            self.sequence(where, items_of(expected), items_of(observed), role)
        elif kind == "dict":
            keys, other_keys = [describe(k) for k, _ in expected["items"]], [describe(k) for k, _ in observed["items"]]
            if keys != other_keys:
                self.add(f"{where}: keys", role, str(keys), str(other_keys))
            else:
                for key, (_, e), (_, o) in zip(keys, expected["items"], observed["items"]):
                    self.value(f"{where}[{key}]", e, o, role)
        elif kind == "node":
            if self.texts(expected["name"], False) != self.texts(observed["name"], True):
                self.add(where, "node-name", describe(expected), describe(observed))
        elif kind == "tensor":
            self.tensor(where, expected, observed, role)
        elif self.texts(expected, False) != self.texts(observed, True):
            self.add(where, "raised" if kind == "error" else role, describe(expected), describe(observed))

    def kinds_differ(self, where, expected, observed, role):
        if items_of(expected) is not None and items_of(observed) is not None:  # a Size, a tuple, a list
            self.add(f"{where}: kind", "type", describe(expected), describe(observed))
            self.sequence(where, items_of(expected), items_of(observed), role)
            return
        numbers, other_numbers = numbers_in(expected), numbers_in(observed)
        if numbers is not None and other_numbers is not None:
            self.add(f"{where}: kind", "type", describe(expected), describe(observed))
            problem = mismatch(numbers, other_numbers, self.float_tolerance)
            if problem:
                self.add(f"{where}: values", role, describe(numbers), describe(other_numbers), problem)
            return
        aspect = "raised" if "error" in (kind_of(expected), kind_of(observed)) else role
        self.add(f"{where}: kind", aspect, describe(expected), describe(observed))

    def sequence(self, where, expected, observed, role):
        if len(expected) != len(observed):
            self.add(f"{where}: length", role, str(len(expected)), str(len(observed)))
            return
        for index, (e, o) in enumerate(zip(expected, observed)):
            self.value(f"{where}[{index}]", e, o, role)

    def tolerance_of(self, dtype):
        return self.tolerances.get(dtype, (0.0, 0.0)) if isinstance(dtype, str) else (0.0, 0.0)

    def tensor(self, where, expected, observed, role):
        for field in TENSOR_FIELDS:
            if field not in expected and field not in observed:
                continue
            e, o = expected.get(field, "<absent>"), observed.get(field, "<absent>")
            if field == "grad_fn":
                aspect = "node-name" if isinstance(e, str) and isinstance(o, str) else "flag"
            else:
                aspect = field if field in ("dtype", "shape", "device") else "flag"
            if self.texts(e, False) != self.texts(o, True):
                self.add(f"{where}: {field}", aspect, describe(e), describe(o))
        e, o = expected["values"], observed["values"]
        if (isinstance(e, dict) or isinstance(o, dict)) and not (kind_of(e) == "number" and kind_of(o) == "number"):
            if self.texts(e, False) != self.texts(o, True):
                self.add(f"{where}: values", role, describe(e), describe(o))
        else:
            tolerance = max(self.tolerance_of(expected.get("dtype")), self.tolerance_of(observed.get("dtype")))
            problem = mismatch(flat(e), flat(o), tolerance)
            if problem:
                self.add(f"{where}: values", role, describe(e), describe(o), problem)
        if "grad" in expected and "grad" in observed:
            self.value(f"{where}.grad", expected["grad"], observed["grad"], "gradient")


def items_of(value):
    if isinstance(value, list):
        return value
    return value["items"] if tag(value) in ("tuple", "size") else None


# -- the recorder a scenario writes to, and the command line ----------------------------------------
class Recorder:
    """``rec``: records each step as the suite's recorder does, prints it, and compares it with torch's
    step; the first difference that counts at ``level`` raises :class:`Stop`."""

    def __init__(self, engine, engine_name, module_name, scenario, expected, settings, level, out):
        self.device, self.dtype, self.without = settings["device"], settings["dtype"], frozenset(settings["without"])
        self._engine, self._engine_name, self._out = engine, engine_name, out
        self._observer = Observer(engine)
        self._comparison = Comparison(settings, module_name)
        self._expected, self._reference, self._aspect_levels = expected, settings["reference"], settings["aspect_levels"]
        self._levels = settings["levels"][:settings["levels"].index(level) + 1]
        self._steps = 0
        self.caught, self.stdout = [], io.StringIO()   # main() points them at what it captures
        lines, first = inspect.getsourcelines(scenario)
        self._scenario = (scenario.__code__.co_filename, first, first + len(lines) - 1)

    @property
    def float_dtype(self):
        return getattr(self._engine, self.dtype)

    def has(self, feature):
        return feature not in self.without

    def __call__(self, label, value, *, version=False):
        pending = self._drain()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # what observing a value warns is not the scenario's doing
            seen = self._observer.encode(value, version)
        self._step(label, self._caller_line(), pending, value=seen)
        return value

    def same(self, label, first, second):
        self._step(label, self._caller_line(), self._drain(), value=first is second, aspect="identity")
        return first is second

    def printed(self, label, text):
        self._step(label, self._caller_line(), self._drain(), value=self._observer.encode(text), aspect="printed")
        return text

    @contextlib.contextmanager
    def attempt(self, label):
        line = self._caller_line()
        try:
            yield
        except Exception as exc:
            self._step(label, self._raising_line(exc) or line, self._drain(), error=error_of(exc))
        else:
            self._step(label, line, self._drain(), value={"t": "ok"})

    def uncaught(self, exc):
        self._step("raised", self._raising_line(exc), self._drain(), error=error_of(exc))

    def finish(self):
        """Warnings and output after the last step make a closing step; a step of torch's that the
        engine's run never reached is a difference."""
        pending = self._drain()
        if pending["warnings"] or pending["stdout"]:
            self._step("end", None, pending, value={"t": "ok"})
        if self._steps < len(self._expected):
            self._check(self._steps + 1, self._expected[self._steps], None, None)

    # -- internals ------------------------------------------------------------------------------------
    def _say(self, text):
        print(text, file=self._out)

    def _step(self, label, line, pending, **outcome):
        self._steps += 1
        observed = {"label": str(label), **pending, **outcome}
        expected = self._expected[self._steps - 1] if self._steps <= len(self._expected) else None
        self._check(self._steps, expected, observed, line)

    def _check(self, number, expected, observed, line):
        source = f"  (line {line}: {shown(linecache.getline(self._scenario[0], line).strip(), 200)})" if line else ""
        self._say(f"step {number}: {shown((observed or expected)['label'], 400)}{source}")
        if observed is not None:
            self._show(self._engine_name, observed)
        differences = self._comparison.step(number, expected, observed)
        if not differences:
            self._say(f"  matches {self._reference}")
            return
        if expected is not None:
            self._show(self._reference, expected)
        for d in differences:
            level = self._aspect_levels[d.aspect]
            counted = "" if level in self._levels else f"; counts only at {level}"
            detail = f" ({d.detail})" if d.detail else ""
            self._say(f"  DIFFERS ({d.aspect}{counted}): {shown(d.where, 400)}: {self._reference} "
                      f"{shown(d.torch_text)} / {self._engine_name} {shown(d.engine_text)}{detail}")
        if any(self._aspect_levels[d.aspect] in self._levels for d in differences):
            raise Stop

    def _show(self, who, step):
        if "error" in step:
            self._say(f"  {who} raises {shown(step['error']['type'], 200)}: {shown(step['error']['message'])}")
        else:
            self._say(f"  {who}: {shown(describe(step['value']))}")
        for w in step.get("warnings", []):
            self._say(f"    warns {shown(w['category'], 200)}: {shown(w['message'])}")
        if step.get("stdout"):
            self._say(f"    prints {shown(repr(step['stdout']))}")

    def _drain(self):
        caught = [{"category": type_name(w.category), "message": str(w.message)} for w in self.caught]
        self.caught.clear()
        text = self.stdout.getvalue()
        self.stdout.seek(0)
        self.stdout.truncate()
        return {"warnings": caught, "stdout": text}

    def _in_scenario(self, filename, line):
        return filename == self._scenario[0] and self._scenario[1] <= line <= self._scenario[2]

    def _caller_line(self):
        frame = sys._getframe(1)
        while frame is not None and not self._in_scenario(frame.f_code.co_filename, frame.f_lineno):
            frame = frame.f_back
        return frame.f_lineno if frame is not None else None

    def _raising_line(self, exc):
        lines = [entry.lineno for entry in traceback.extract_tb(exc.__traceback__)
                 if entry.lineno is not None and self._in_scenario(entry.filename, entry.lineno)]
        return lines[-1] if lines else None


def load_engine(name):
    """The namespace ``--impl`` names (``module`` or ``module:attribute``), the module name its texts
    write where torch writes ``torch`` (``__conformance_module__``, else its top-level package), and
    its name and version."""
    sys.path.insert(0, os.getcwd())  # as ``python -m`` does: a module of the current directory is found
    module_path, _, attribute = name.partition(":")
    module = importlib.import_module(module_path)
    engine = getattr(module, attribute) if attribute else module
    module_name = _quiet(lambda: str(engine.__conformance_module__)) or module_path.split(".")[0]
    distribution = _quiet(lambda: str(engine.__conformance_distribution__)) or module_path.split(".")[0]
    version = _quiet(lambda: str(getattr(engine, "__version__", None) or module.__version__)) or _quiet(
        lambda: importlib.metadata.version(distribution)) or "(no version)"
    return engine, module_name, f"{name} {version}"


# Modules an engine's first use of a feature imports, and whose import warns (torch's forward mode AD
# imports torch._decomp.decompositions_for_jvp, whose torch.jit.script calls warn): imported quietly
# first, where the engine has them, as the suite's worker does before any case.
WARM_UP = ("_decomp.decompositions_for_jvp",)


def warm_up(module_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in WARM_UP:
            try:
                importlib.import_module(f"{module_path}.{name}")
            except Exception:  # noqa: BLE001 - an engine without it does not need it
                pass


def main(scenario, expected, settings, argv=None):
    parser = argparse.ArgumentParser(description=f"Replay {settings['item']} on an engine and compare each step "
                                                 f"with what {settings['reference']} observed.")
    parser.add_argument("--impl", default="torch",
                        help="the engine: any importable module with torch's API, or module:attribute (default: torch)")
    parser.add_argument("--level", choices=settings["levels"], default=settings["levels"][-1],
                        help="stop only at differences that count at this level (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        engine, module_name, engine_name = load_engine(args.impl)
    except Exception as exc:
        print(f"{parser.prog}: error: cannot import {args.impl}: {type(exc).__name__}: {shown(str(exc), 400)}",
              file=sys.stderr)
        return 2
    warm_up(args.impl.partition(":")[0].split(".")[0])
    out, reference = sys.stdout, settings["reference"]
    engine_name = shown(engine_name, 200)
    print(f"{settings['item']} on {engine_name}, compared with {reference} (differences that count at "
          f"{args.level} stop it):", file=out)
    # the classes the scenario defines are named after the module it has in the suite, as torch saw them
    scenario = types.FunctionType(scenario.__code__, {**scenario.__globals__, "__name__": settings["module"]},
                                  scenario.__name__, scenario.__defaults__, scenario.__closure__)
    rec = Recorder(engine, engine_name, module_name, scenario, expected, settings, args.level, out)
    with warnings.catch_warnings(record=True) as rec.caught, contextlib.redirect_stdout(rec.stdout):
        warnings.simplefilter("always")
        try:
            try:
                seed = getattr(engine, "manual_seed", None)
                if callable(seed):
                    seed(0)
                scenario(engine, rec)
            except Stop:
                raise
            except BaseException as exc:  # SystemExit too: an exception is an observation
                rec.uncaught(exc)
            rec.finish()
        except Stop:
            print(f"stopped: this step differs from what {reference} observed (exit status 1)", file=out)
            return 1
    print(f"every step matches what {reference} observed, at {args.level} (exit status 0)", file=out)
    return 0
