"""Which exceptions mean "the implementation's API lacks this", and that name in torch's spelling.

An item is ``unsupported`` only when the implementation's API surface lacks something the
scenario uses. This module decides it, in the process that ran the scenario (it needs the live
exception, its traceback and the objects involved), from three kinds of exception:

* an ``AttributeError`` for a name looked up **on the API surface**: the namespace and its
  submodules (``torch.autograd.grad``), tensors (``Tensor.register_hook``), nodes
  (``Node.next_functions``), dtypes, devices, sizes, and the classes the namespace offers
  with their instances and subclasses (``torch.autograd.Function.apply``,
  ``torch.nn.Module.register_buffer``);
* a ``TypeError`` for an unexpected keyword given to such a callable
  (``torch.tensor(requires_grad=)``), or for calling such a name that is not callable;
* a ``NotImplementedError`` raised straight from such a callable.

The failure must come from the lookup or the call itself: between the scenario's line and the
raise there may only be lookup machinery (``__getattr__``, ``__getattribute__``, a descriptor's
``__get__``) or, for ``NotImplementedError``, the callable's own frame. An ``AttributeError``
raised on anything else (``None``, a list, a number: usually a wrong result, such as
``x.grad.zero_()`` when ``.grad`` stayed ``None``) or deep inside the implementation is not a
missing name: the item fails with its difference.
"""

from __future__ import annotations

import ast
import linecache
import re
import types
from dataclasses import dataclass
from typing import Any

# Submodules of torch a scenario may reach, walked from the namespace to spell names.
SUBMODULES = (
    "autograd", "autograd.graph", "autograd.function", "autograd.functional", "autograd.forward_ad",
    "autograd.anomaly_mode", "autograd.grad_mode", "nn", "nn.functional", "nn.init", "nn.parameter",
    "nn.modules", "nn.utils", "optim", "optim.lr_scheduler", "cuda", "utils", "utils.hooks", "utils.data",
    "utils.checkpoint", "testing", "backends", "func", "linalg", "special", "fft", "random", "overrides",
    "return_types", "types",
)
LOOKUP_FRAMES = frozenset({"__getattr__", "__getattribute__", "__get__"})
_UNEXPECTED_KEYWORD = re.compile(r"^(?P<func>[\w.<>]+)\(\) got an unexpected keyword argument '(?P<kw>\w+)'")
_NOT_CALLABLE = re.compile(r"^'(?P<type>[\w.]+)' object is not callable")
# A Python protocol the implementation's class lacks: (message pattern, the special method it needs).
_PROTOCOLS = (
    (re.compile(r"^(?P<method>float|int|complex)\(\) argument must be a string or a (?:real )?number, "
                r"not '(?P<type>[\w.]+)'"), None),
    (re.compile(r"^object of type '(?P<type>[\w.]+)' has no len\(\)"), "__len__"),
    (re.compile(r"^'(?P<type>[\w.]+)' object is not iterable"), "__iter__"),
    (re.compile(r"^'(?P<type>[\w.]+)' object is not subscriptable"), "__getitem__"),
    (re.compile(r"^'(?P<type>[\w.]+)' object does not support item assignment"), "__setitem__"),
)
_OPERATORS = {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "//": "__floordiv__",
              "%": "__mod__", "** or pow()": "__pow__", "@": "__matmul__", "+=": "__iadd__", "-=": "__isub__",
              "*=": "__imul__", "/=": "__itruediv__", "&": "__and__", "|": "__or__", "^": "__xor__"}
_BINARY = re.compile(r"^unsupported operand type\(s\) for (?P<op>.+?): '(?P<a>[\w.]+)' and '(?P<b>[\w.]+)'")
_UNARY = re.compile(r"^bad operand type for (?P<op>unary -|unary \+|unary ~|abs\(\)): '(?P<type>[\w.]+)'")
_UNARY_METHODS = {"unary -": "__neg__", "unary +": "__pos__", "unary ~": "__invert__", "abs()": "__abs__"}
_BASIC_TYPES = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


class Surface:
    """The API surface of one namespace: what belongs to it, and each part's name in torch."""

    def __init__(self, namespace: Any) -> None:
        self.root = namespace
        self._names: dict[int, str] | None = None
        self._keep: list = []

    # -- what belongs to the surface -------------------------------------------------------
    def names(self) -> dict[int, str]:
        """id -> torch spelling for the namespace, its submodules and the classes they hold."""
        if self._names is not None:
            return self._names
        names: dict[int, str] = {id(self.root): "torch"}
        self._keep = [self.root]
        spaces = [("torch", self.root)]
        for path in SUBMODULES:
            owner = self.root
            for part in path.split("."):
                owner = _quiet_getattr(owner, part)
                if owner is None:
                    break
            if owner is not None and not isinstance(owner, type) and id(owner) not in names:
                names[id(owner)] = f"torch.{path}"
                self._keep.append(owner)
                spaces.append((f"torch.{path}", owner))
        for prefix, space in spaces:
            for attribute, value in _quiet_items(space):
                if isinstance(value, type) and id(value) not in names and not issubclass(value, _BASIC_TYPES):
                    names[id(value)] = f"{prefix}.{attribute}"
                    self._keep.append(value)
        tensor = _quiet_getattr(self.root, "Tensor")
        if isinstance(tensor, type):
            names[id(tensor)] = "Tensor"
        self._names = names
        return names

    def spell_owner(self, obj: Any) -> str | None:
        """The torch spelling of an object of the API surface, or None when it is not one."""
        if obj is None or isinstance(obj, _BASIC_TYPES):
            return None
        names = self.names()
        if id(obj) in names:
            return names[id(obj)]
        for kind, spelled in (("tensor", "Tensor"), ("node", "Node"), ("dtype", "dtype"), ("device", "device"),
                              ("size", "Size")):
            if self._is(obj, kind):
                return spelled
        classes = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
        for cls in classes:
            if id(cls) in names:
                return names[id(cls)]
        return None

    def _is(self, obj: Any, kind: str) -> bool:
        if kind == "tensor":
            cls = _quiet_getattr(self.root, "Tensor")
        elif kind == "node":
            cls = _quiet_getattr(_quiet_getattr(_quiet_getattr(self.root, "autograd"), "graph"), "Node")
            if cls is None:
                return hasattr(type(obj), "next_functions") and hasattr(type(obj), "name")
        elif kind == "dtype":
            example = _quiet_getattr(self.root, "float32")
            cls = type(example) if example is not None else None
        elif kind == "device":
            cls = _quiet_getattr(self.root, "device")
        else:
            cls = _quiet_getattr(self.root, "Size")
        if not isinstance(cls, type) or cls in _BASIC_TYPES:
            return False
        try:
            return isinstance(obj, cls)
        except Exception:  # noqa: BLE001 - an isinstance hook of the implementation
            return False

    # -- classifying an exception ---------------------------------------------------------
    def missing(self, exc: BaseException, in_scenario) -> dict | None:
        """``{"name", "kind"}`` when ``exc`` says the API surface lacks something, else None.

        ``in_scenario(filename, line)`` tells whether a traceback entry is in the case's own code
        (its scenario, or a helper written beside it).
        """
        try:
            frames = _frames(exc)
            last = max((i for i, entry in enumerate(frames) if in_scenario(entry.code.co_filename, entry.line)),
                       default=None)
            if last is None:
                return None
            deeper = [entry.code.co_name for entry in frames[last + 1:]]
            if isinstance(exc, AttributeError):
                return self._missing_attribute(exc, deeper)
            if isinstance(exc, TypeError) and not deeper:
                return self._bad_call(exc, frames[last])
            if isinstance(exc, NotImplementedError) and len(deeper) == 1:
                return self._not_implemented(frames[last + 1].code)
        except Exception:  # noqa: BLE001 - classification must never fail the harness
            return None
        return None

    def missing_attribute(self, exc: AttributeError, owner: Any, attribute: str, deeper: list[str]) -> dict | None:
        """For a lookup the harness made itself (a snapshot reading ``owner.attribute``)."""
        if not all(name in LOOKUP_FRAMES for name in deeper):
            return None
        spelled = self.spell_owner(owner)
        return None if spelled is None else {"name": f"{spelled}.{attribute}", "kind": "attribute"}

    def _missing_attribute(self, exc: AttributeError, deeper: list[str]) -> dict | None:
        name = getattr(exc, "name", None)
        if not name or not all(frame in LOOKUP_FRAMES for frame in deeper):
            return None
        spelled = self.spell_owner(getattr(exc, "obj", None))
        return None if spelled is None else {"name": f"{spelled}.{name}", "kind": "attribute"}

    def _bad_call(self, exc: TypeError, entry: _Entry) -> dict | None:
        message = str(exc)
        protocol = self._missing_protocol(message)
        if protocol is not None:
            return protocol
        keyword = _UNEXPECTED_KEYWORD.match(message)
        not_callable = _NOT_CALLABLE.match(message)
        if not keyword and not not_callable:
            return None
        for call in _calls_on_line(entry):
            owner, attribute, callee = _resolve_callee(call, entry.frame)
            if callee is _UNRESOLVED and keyword and isinstance(call.func, ast.Attribute):
                # the owner is an expression (``(x * x).sum().backward(...)``) that cannot be evaluated
                # without running it again: look for the method on the API's classes instead
                owner, attribute, callee = self._method_on_api_classes(call.func.attr)
            if callee is _UNRESOLVED:
                continue
            spelled = self._spell_callee(owner, attribute, callee)
            if spelled is None:
                continue
            if keyword:
                wanted = keyword.group("func").rsplit(".", 1)[-1]
                if attribute != wanted and getattr(callee, "__name__", None) != wanted:
                    continue
                if not any(k.arg == keyword.group("kw") for k in call.keywords):
                    continue
                return {"name": f"{spelled}({keyword.group('kw')}=)", "kind": "keyword"}
            if not callable(callee):
                return {"name": spelled, "kind": "not-callable"}
        return None

    def _missing_protocol(self, message: str) -> dict | None:
        """A Python protocol (float(x), len(x), x + y...) that an API class lacks, from the message."""
        for pattern, method in _PROTOCOLS:
            found = pattern.match(message)
            if found:
                owner = self._class_named(found.group("type"))
                name = method or f"__{found.group('method')}__"
                return None if owner is None else {"name": f"{owner}.{name}", "kind": "protocol"}
        found = _BINARY.match(message)
        if found and found.group("op") in _OPERATORS:
            owner = self._class_named(found.group("a")) or self._class_named(found.group("b"))
            if owner is not None:
                return {"name": f"{owner}.{_OPERATORS[found.group('op')]}", "kind": "protocol"}
        found = _UNARY.match(message)
        if found:
            owner = self._class_named(found.group("type"))
            if owner is not None:
                return {"name": f"{owner}.{_UNARY_METHODS[found.group('op')]}", "kind": "protocol"}
        return None

    def _class_named(self, name: str) -> str | None:
        """The torch spelling of the API class whose name is ``name`` (as messages write it)."""
        short = name.rsplit(".", 1)[-1]
        tensor = _quiet_getattr(self.root, "Tensor")
        if isinstance(tensor, type) and tensor.__name__ == short:
            return "Tensor"
        for cls in self._keep_classes():
            if cls.__name__ == short:
                return self.names()[id(cls)]
        return None

    def _method_on_api_classes(self, attribute: str) -> tuple[Any, str | None, Any]:
        """(class, attribute, method) for the first API class (Tensor first) that has ``attribute``."""
        tensor = _quiet_getattr(self.root, "Tensor")
        classes = [tensor] if isinstance(tensor, type) else []
        classes += [obj for obj in self._keep_classes() if obj is not tensor]
        for cls in classes:
            method = _quiet_getattr(cls, attribute)
            if method is not None and callable(method):
                return cls, attribute, method
        return _UNRESOLVED, None, _UNRESOLVED

    def _keep_classes(self) -> list[type]:
        names = self.names()
        return [obj for obj in self._all_classes() if id(obj) in names]

    def _all_classes(self) -> list[type]:
        found = []
        for obj in self._keep:
            for _, value in _quiet_items(obj):
                if isinstance(value, type):
                    found.append(value)
        return found

    def _not_implemented(self, code: types.CodeType) -> dict | None:
        self.names()
        for obj in self._keep:
            for attribute, value in _quiet_items(obj):
                function = getattr(value, "__func__", value)
                if getattr(function, "__code__", None) is code:
                    return {"name": f"{self.names()[id(obj)]}.{attribute}", "kind": "not-implemented"}
        return {"name": code.co_qualname if hasattr(code, "co_qualname") else code.co_name, "kind": "not-implemented"}

    def _spell_callee(self, owner: Any, attribute: str | None, callee: Any) -> str | None:
        if owner is not _UNRESOLVED and attribute is not None:
            spelled = self.spell_owner(owner)
            return None if spelled is None else f"{spelled}.{attribute}"
        return self.names().get(id(callee)) or self._find(callee)

    def _find(self, value: Any) -> str | None:
        self.names()
        for obj in self._keep:
            for attribute, candidate in _quiet_items(obj):
                if candidate is value:
                    return f"{self.names()[id(obj)]}.{attribute}"
        return None


# -- helpers ---------------------------------------------------------------------------------
_UNRESOLVED = object()


def _quiet_getattr(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    try:
        return getattr(obj, name, None)
    except BaseException:  # noqa: BLE001 - an attribute of the implementation that raises
        return None


def _quiet_items(obj: Any) -> list[tuple[str, Any]]:
    try:
        names = [n for n in dir(obj) if isinstance(n, str) and not n.startswith("__")]
    except BaseException:  # noqa: BLE001
        return []
    items = []
    for name in names[:5000]:
        value = _quiet_getattr(obj, name)
        if value is not None:
            items.append((name, value))
    return items


@dataclass(frozen=True)
class _Entry:
    """One traceback entry: the frame, its code, and the line and instruction it was at."""

    frame: types.FrameType
    code: types.CodeType
    line: int
    lasti: int


def _frames(exc: BaseException) -> list[_Entry]:
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(_Entry(tb.tb_frame, tb.tb_frame.f_code, tb.tb_lineno, tb.tb_lasti))
        tb = tb.tb_next
    return frames


def _calls_on_line(entry: _Entry) -> list[ast.Call]:
    """The calls a traceback entry was making: the very call that raised, from the instruction's
    source positions (a call may span several lines); failing that, every call on its line."""
    code, line = entry.code, entry.line
    try:
        start, end, start_col, end_col = list(code.co_positions())[entry.lasti // 2]
    except (AttributeError, IndexError, ValueError):
        start = None
    if start is not None and end is not None and start_col is not None and end_col is not None:
        lines = [linecache.getline(code.co_filename, number) for number in range(start, end + 1)]
        if lines and all(lines):
            text = "".join(lines)[start_col:len("".join(lines[:-1])) + end_col] if len(lines) > 1 \
                else lines[0][start_col:end_col]
            try:
                node = ast.parse(text.strip(), mode="eval").body
            except SyntaxError:
                node = None
            if isinstance(node, ast.Call):
                return [node]
    text = linecache.getline(code.co_filename, line).strip()
    for candidate in (text, text.rstrip(":") + ": pass", text + ")"):
        try:
            return [node for node in ast.walk(ast.parse(candidate)) if isinstance(node, ast.Call)]
        except SyntaxError:
            continue
    return []


def _resolve_callee(call: ast.Call, frame: types.FrameType) -> tuple[Any, str | None, Any]:
    """(owner object, attribute name, callee) of a call whose callee is a name or attribute chain."""
    func = call.func
    if isinstance(func, ast.Attribute):
        owner = _evaluate(func.value, frame)
        if owner is _UNRESOLVED:
            return _UNRESOLVED, None, _UNRESOLVED
        try:
            callee = getattr(owner, func.attr)
        except BaseException:  # noqa: BLE001
            return _UNRESOLVED, None, _UNRESOLVED
        return owner, func.attr, callee
    if isinstance(func, ast.Name):
        return _UNRESOLVED, None, _evaluate(func, frame)
    return _UNRESOLVED, None, _UNRESOLVED


def _evaluate(node: ast.AST, frame: types.FrameType) -> Any:
    """The value of a plain name or attribute chain in ``frame``; anything else is unresolved."""
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
            if node.id in scope:
                return scope[node.id]
        return _UNRESOLVED
    if isinstance(node, ast.Attribute):
        owner = _evaluate(node.value, frame)
        if owner is _UNRESOLVED:
            return _UNRESOLVED
        try:
            return getattr(owner, node.attr)
        except BaseException:  # noqa: BLE001
            return _UNRESOLVED
    return _UNRESOLVED
