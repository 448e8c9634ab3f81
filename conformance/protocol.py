"""The messages between the judging process and the side workers, and their validation.

The judging process (the CLI, or pytest) sends each side worker one request at a time::

    {"seq": 7, "token": "<random hex>", "case": "leaf.x", "device": "cpu", "dtype": "float32",
     "timeout": 30.0, "memory_mib": 2048, "kind": "item"}

and the worker answers with the same ``seq``, ``token``, ``case``, ``device`` and ``dtype`` and the
side's result (``{"status", "steps", "duration", "trace"?, ...}``, see ``recorder.observe`` and
``gradtrace``). Messages are
JSON, one per line, at most ``MAX_MESSAGE`` bytes. Nothing the implementation's side sends is
trusted: :func:`reply_problem` checks that an answer matches the request it answers (the token
is drawn per request by the judging process; the case's child was forked before the request
arrived and cannot know it), and :func:`side_problem` checks the result against the schema of
observations (types, tags, sizes, nesting), so that everything downstream can read it without
guarding. A message that fails is that item's ``crash``, with the reason.
"""

from __future__ import annotations

import json
import numbers
import os
import secrets
from typing import Any

from .bounds import (
    CAPTURE_LIMIT,
    DEPTH_LIMIT,
    NAME_LIMIT,
    RESULT_BYTES_LIMIT,
    STEPS_LIMIT,
    TEXT_LIMIT,
    TRACE_CALLS_LIMIT,
    TRACE_NODES_LIMIT,
)

MAX_MESSAGE = RESULT_BYTES_LIMIT + (1 << 20)
SIDE_STATUSES = ("completed", "raised", "timeout", "crash", "memory", "error")
STEP_ASPECTS = ("identity", "printed")
MAX_TEXT = TEXT_LIMIT + 200  # a cut text carries a marker after the limit
MAX_TEXT_FIELD = 4 * CAPTURE_LIMIT + 200  # captured bytes shown with escapes take up to 4 characters each


def new_token() -> str:
    return secrets.token_hex(16)


def encode(message: dict) -> bytes:
    return json.dumps(message, allow_nan=False, separators=(",", ":")).encode() + b"\n"


class LineReader:
    """Splits what arrives on a file descriptor into messages; bounded; never blocks."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.closed = False
        self.overflow = False

    def feed(self) -> None:
        """Read what is available (call when ``select`` says the descriptor is readable)."""
        try:
            chunk = os.read(self.fd, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self.closed = True
            return
        self.buffer += chunk
        if len(self.buffer) > MAX_MESSAGE and b"\n" not in self.buffer:
            self.overflow = True

    def next(self) -> bytes | None:
        end = self.buffer.find(b"\n")
        if end < 0:
            return None
        line = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        return line


def decode(line: bytes) -> tuple[Any, str | None]:
    """(message, None), or (None, why it is not a message)."""
    if len(line) > MAX_MESSAGE:
        return None, f"a message of {len(line)} bytes, over the limit of {MAX_MESSAGE}"
    try:
        return json.loads(line), None
    except (ValueError, RecursionError) as exc:
        return None, f"a malformed message ({str(exc)[:120]})"


# -- replies -----------------------------------------------------------------------------------
def reply_problem(reply: Any, request: dict) -> str | None:
    """Why ``reply`` is not the answer to ``request``, or None when it is."""
    if not isinstance(reply, dict):
        return "an answer that is not an object"
    for key in ("seq", "token", "case", "device", "dtype"):
        if reply.get(key) != request[key]:
            shown = json.dumps(reply.get(key))[:80]
            return f"an answer whose {key} ({shown}) does not match the request"
    return side_problem(reply.get("side"))


def side_problem(side: Any) -> str | None:
    """Why ``side`` is not a valid side result, or None."""
    if not isinstance(side, dict):
        return "a side result that is not an object"
    if side.get("status") not in SIDE_STATUSES:
        return f"a side result with status {json.dumps(side.get('status'))[:60]}"
    for key in ("detail", "stdout_fd", "stderr"):
        if key in side and not _text(side[key]):
            return f"a side result whose {key} is not a bounded text"
    if not isinstance(side.get("duration", 0.0), numbers.Real) or isinstance(side.get("duration"), bool):
        return "a side result whose duration is not a number"
    steps = side.get("steps")
    if not isinstance(steps, list) or len(steps) > STEPS_LIMIT + 1:
        return "a side result whose steps are not a bounded list"
    for number, step in enumerate(steps, start=1):
        problem = step_problem(step)
        if problem:
            return f"step {number}: {problem}"
    if "trace" in side:
        problem = trace_problem(side["trace"])
        if problem:
            return f"trace: {problem}"
    return None


def step_problem(step: Any) -> str | None:
    if not isinstance(step, dict):
        return "not an object"
    if not _text(step.get("label")):
        return "no label"
    if step.get("line") is not None and not _int(step["line"]):
        return "a line that is not a number"
    if step.get("source") is not None and not _text(step["source"]):
        return "a source that is not a text"
    if not _text(step.get("stdout", "")):
        return "printed output that is not a bounded text"
    warnings = step.get("warnings", [])
    if not isinstance(warnings, list) or len(warnings) > 101 or not all(
            isinstance(w, dict) and _text(w.get("category")) and _text(w.get("message"))
            and _text(w.get("origin", "")) for w in warnings):
        return "malformed warnings"
    if step.get("aspect") is not None and step["aspect"] not in STEP_ASPECTS:
        return "an unknown aspect"
    if ("value" in step) == ("error" in step):
        return "neither a value nor an error (or both)"
    if "error" in step:
        return _error_problem(step["error"])
    return value_problem(step["value"])


def _error_problem(error: Any) -> str | None:
    if not isinstance(error, dict) or not _text(error.get("type")) or not _text(error.get("message")):
        return "a malformed exception"
    if "traceback" in error and not _text(error["traceback"]):
        return "a malformed traceback"
    missing = error.get("missing")
    if missing is not None and not (isinstance(missing, dict) and _text(missing.get("name"))
                                    and _text(missing.get("kind"))):
        return "a malformed missing-API name"
    return None


# -- gradient traces (see ``gradtrace``) ----------------------------------------------------------
TRACE_ENTRIES = ("Tensor.backward", "autograd.backward", "autograd.grad")
TRACE_NODE_FIELDS = ("name", "parent", "edge", "next", "fired", "incoming", "outgoing")
MAX_NAME = NAME_LIMIT + 200  # a cut name carries a marker after the limit


def trace_problem(trace: Any) -> str | None:
    """Why ``trace`` is not a gradient trace, or None."""
    if not isinstance(trace, dict) or not isinstance(trace.get("calls"), list):
        return "not an object with a list of calls"
    if len(trace["calls"]) > TRACE_CALLS_LIMIT:
        return f"more than {TRACE_CALLS_LIMIT} calls"
    for key in ("problem", "cut"):
        if key in trace and not _text(trace[key]):
            return f"a {key} that is not a bounded text"
    for number, call in enumerate(trace["calls"], start=1):
        problem = _call_problem(call)
        if problem:
            return f"call {number}: {problem}"
    return None


def _call_problem(call: Any) -> str | None:
    if not isinstance(call, dict) or call.get("entry") not in TRACE_ENTRIES:
        return "not an object naming a backward entry point"
    for key in ("step", "line"):
        if call.get(key) is not None and not _int(call[key]):
            return f"a {key} that is not a number"
    for key in ("source", "raised", "problem", "cut"):
        if call.get(key) is not None and not _text(call[key]):
            return f"a {key} that is not a bounded text"
    if "result" in call:
        problem = _gradients_problem(call["result"])
        if problem:
            return f"result: {problem}"
    nodes = call.get("nodes")
    if not isinstance(nodes, list) or len(nodes) > TRACE_NODES_LIMIT:
        return "nodes that are not a bounded list"
    if "roots" in call and not _targets(call["roots"], len(nodes)):
        return "roots that are not a bounded list of node indices"
    for index, node in enumerate(nodes):
        problem = _node_problem(node, index, len(nodes))
        if problem:
            return f"node {index}: {problem}"
    return None


def _node_problem(node: Any, index: int, count: int) -> str | None:
    if not isinstance(node, dict) or not all(key in node for key in TRACE_NODE_FIELDS):
        return "not an object with " + ", ".join(TRACE_NODE_FIELDS)
    if not isinstance(node["name"], str) or len(node["name"]) > MAX_NAME:
        return "a name that is not a bounded text"
    if not (_int(node["parent"]) and -1 <= node["parent"] < index):
        return "a parent that is not an earlier node"
    if not (_int(node["edge"]) and node["edge"] >= 0):
        return "an edge that is not a count"
    if not _targets(node["next"], count):
        return "next functions that are not a bounded list of node indices"
    if node["fired"] is not None and not (_int(node["fired"]) and 0 <= node["fired"] <= TRACE_NODES_LIMIT):
        return "a firing rank that is not a count"
    for key in ("incoming", "outgoing"):
        if node[key] is not None:
            problem = _gradients_problem(node[key])
            if problem:
                return f"{key}: {problem}"
    for key in ("grad_before", "grad_after"):
        if key in node:
            problem = value_problem(node[key])
            if problem:
                return f"{key}: {problem}"
    return None


def _targets(indices: Any, count: int) -> bool:
    """Where edges lead (``gradtrace``): indices of the call's ``count`` nodes, -1 (no node) or -2
    (a node past the limit)."""
    return isinstance(indices, list) and len(indices) <= TRACE_NODES_LIMIT and all(
        _int(i) and -2 <= i < count for i in indices)


def _gradients_problem(gradients: Any) -> str | None:
    if not isinstance(gradients, list) or len(gradients) > 64:
        return "not a bounded list of gradients"
    for gradient in gradients:
        problem = value_problem(gradient)
        if problem:
            return problem
    return None


# -- observed values ---------------------------------------------------------------------------
# tag -> {field: kind}; kinds: "text", "int", "number", "value", "values", "items", "pairs", "bool?"
_TAGS: dict[str, dict[str, str]] = {
    "float": {"v": "special"},
    "complex": {"re": "number", "im": "number"},
    "bigint": {"bits": "int", "sha256": "text"},
    "tensor": {"dtype": "field", "shape": "field", "device": "field", "values": "field", "requires_grad": "field",
               "is_leaf": "field", "grad_fn": "field", "retains_grad": "field"},
    "node": {"name": "text"},
    "size": {"items": "ints"},
    "dtype": {"repr": "text"},
    "device": {"repr": "text"},
    "tuple": {"items": "values"},
    "dict": {"items": "pairs"},
    "type": {"name": "text"},
    "exception": {"type": "text", "message": "text"},
    "ndarray": {"dtype": "text", "shape": "ints", "values": "value"},
    "numpy_scalar": {"dtype": "text", "shape": "ints", "values": "value"},
    "object": {"type": "text", "repr": "text"},
    "unsupported": {"name": "text", "detail": "text"},
    "error": {"type": "text", "message": "text"},
    "cut": {"why": "text"},
    "ok": {},
}
TENSOR_OPTIONAL = ("grad", "version")


def value_problem(value: Any, depth: int = 0) -> str | None:
    """Why ``value`` is not an encoded observation (see ``snapshot``), or None."""
    if depth > DEPTH_LIMIT + 4:
        return "a value nested too deeply"
    if value is None or isinstance(value, (bool, str)):
        return None if not isinstance(value, str) or len(value) <= MAX_TEXT else "a text over the limit"
    if isinstance(value, int):
        return None if value.bit_length() <= 1100 else "an integer over the limit"
    if isinstance(value, float):
        return None
    if isinstance(value, list):
        for item in value:
            problem = value_problem(item, depth + 1)
            if problem:
                return problem
        return None
    if not isinstance(value, dict):
        return "a value of an unknown kind"
    fields = _TAGS.get(value.get("t"))
    if fields is None:
        return f"an unknown tag {json.dumps(value.get('t'))[:40]}"
    for name, kind in fields.items():
        problem = _field_problem(kind, value.get(name, _ABSENT), depth)
        if problem:
            return f"{value['t']}.{name}: {problem}"
    if value["t"] == "tensor":
        for name in TENSOR_OPTIONAL:
            if name in value:
                problem = value_problem(value[name], depth + 1)
                if problem:
                    return f"tensor.{name}: {problem}"
    return None


_ABSENT = object()


def _field_problem(kind: str, field: Any, depth: int) -> str | None:
    if field is _ABSENT:
        return "missing"
    if kind == "text":
        return None if _text(field) else "not a bounded text"
    if kind == "int":
        return None if _int(field) else "not an integer"
    if kind == "special":
        return None if field in ("nan", "inf", "-inf") else "not nan, inf or -inf"
    if kind == "number":
        ok = (isinstance(field, numbers.Real) and not isinstance(field, bool)) or (
            isinstance(field, dict) and field.get("t") == "float" and field.get("v") in ("nan", "inf", "-inf"))
        return None if ok else "not a number"
    if kind == "ints":
        if not isinstance(field, list) or not all(_int(i) or isinstance(i, dict) for i in field):
            return "not a list of integers"
    if kind == "values" and not isinstance(field, list):
        return "not a list"
    if kind == "pairs":
        if not isinstance(field, list) or not all(isinstance(p, list) and len(p) == 2 for p in field):
            return "not a list of pairs"
    return value_problem(field, depth + 1)


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT_FIELD


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 64
