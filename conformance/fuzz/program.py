"""Whole autograd programs: drawn step by step with hypothesis, rendered as a catalog-style scenario.

A program holds tensors ``t0, t1, ...`` (leaves built from literal values, and results) whose
shapes it tracks, and draws each next step from these kinds:

* ``leaf``: a tensor from literal values (0-d, vectors, matrices, broadcastable shapes, empty),
  in the program's dtype, with or without ``requires_grad``;
* ``op``: an elementwise operator of the operator table (``ops``), on tensors the program holds
  or on fresh leaves drawn from the operator's domain; a Python-number operand; a reduction
  (``sum``, ``mean``, ``amax`` over all or one dim, ``keepdim``); a matrix product;
* ``view``: slicing, ``view``, ``transpose``, ``t``, ``unsqueeze``, ``expand``;
* ``in-place``: ``add_``, ``mul_``, ``sin_``, ``zero_``, an item assignment, on leaves, views
  and results alike;
* ``detach``, ``.data``, ``retain_grad``, a tensor hook (scaling), a post-accumulate-grad hook
  (scaling ``.grad``);
* a ``no_grad`` / ``enable_grad`` / ``set_grad_enabled(False)`` / ``inference_mode`` block around
  one operation;
* ``backward`` (of a sum, or with a literal ``gradient``) and ``torch.autograd.grad`` with
  ``retain_graph``, ``create_graph``, ``inputs``, ``grad_outputs``, ``allow_unused``; a backward
  through a gradient (double backward); ``.grad`` set to None or zeroed.

Every step but a leaf runs inside ``rec.attempt``, so an exception is an observation and the
program goes on; tensors are recorded (values, flags, node names, ``.grad`` of leaves, versions)
after the steps that make or change them. Nothing depends on random numbers, object addresses
or the order of a dict: a program's source is its whole behaviour.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .ops import ElementwiseOp

SHAPES = ((), (3,), (2, 3), (3, 1), (1, 3), (2, 1, 3), (0,), (1,))
GRAD_MODES = ("torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)", "torch.inference_mode()")
PLAIN_ASSIGN = "{out} = {expr}"


@dataclass
class Var:
    name: str
    shape: tuple[int, ...]
    leaf: bool
    requires_grad: bool


@dataclass
class Program:
    dtype: str
    lines: list[str] = field(default_factory=list)
    vars: list[Var] = field(default_factory=list)
    uses_functional: bool = False
    steps: int = 0

    # -- building -------------------------------------------------------------------------
    def new_name(self) -> str:
        return f"t{len(self.vars)}"

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def attempt(self, label: str, body: list[str]) -> None:
        self.steps += 1
        self.emit(f"with rec.attempt({f's{self.steps}: {label}'!r}):", *(f"    {line}" for line in body))

    def record(self, var: Var, version: bool = False) -> str:
        suffix = ", version=True" if version else ""
        return f"rec({var.name!r}, {var.name}{suffix})"

    # -- rendering ------------------------------------------------------------------------
    def source(self, function: str = "scenario") -> str:
        header = [f"def {function}(torch, rec):"]
        body = []
        if self.uses_functional:
            body.append("F = torch.nn.functional")
        body += self.lines
        body += [f"rec({(v.name + '.grad')!r}, {v.name}.grad)" for v in self.vars if v.leaf and v.requires_grad]
        return "\n".join(header + [f"    {line}" for line in body or ["pass"]]) + "\n"

    def digest(self) -> str:
        return hashlib.sha256(f"{self.dtype}\n{self.source()}".encode()).hexdigest()[:12]


# -- drawing ------------------------------------------------------------------------------------
Draw = Callable[[Any], Any]


def literal(values: Any) -> str:
    return repr(values)


def broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    result = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + a), reversed((1,) * (len(a) - len(b)) + b)):
        if x != y and 1 not in (x, y):
            return None
        result.append(y if x == 1 else x)
    return tuple(reversed(result))


class Generator:
    """Draws one program from ``draw`` (hypothesis's ``data.draw``), using ``ops``."""

    def __init__(self, draw: Draw, ops: tuple[ElementwiseOp, ...], strategies) -> None:
        self.draw = draw
        self.ops = ops
        self.st = strategies

    def program(self, dtype: str, max_steps: int) -> Program:
        program = Program(dtype)
        self.leaf(program, requires_grad=True)
        steps = self.draw(self.st.integers(1, max_steps))
        kinds = ("op", "op", "op", "op", "leaf", "view", "in_place", "detach", "retain_grad", "hook",
                 "mode", "backward", "backward", "grad", "reset_grad")
        for _ in range(steps):
            getattr(self, self.draw(self.st.sampled_from(kinds)))(program)
        return program

    # -- values and tensors ----------------------------------------------------------------
    def values(self, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0) -> Any:
        """Literal values on a grid of quarters (exact in every float dtype)."""
        grid = [v / 4 for v in range(int(low * 4) + (1 if low * 4 != int(low * 4) else 0), int(high * 4) + 1)]
        if not grid:
            grid = [low]
        if not shape:
            return self.draw(self.st.sampled_from(grid))
        return [self.values(shape[1:], low, high) for _ in range(shape[0])]

    def leaf(self, program: Program, shape: tuple[int, ...] | None = None, low: float = -2.0, high: float = 2.0,
             requires_grad: bool | None = None) -> Var:
        shape = self.draw(self.st.sampled_from(SHAPES)) if shape is None else shape
        requires_grad = self.draw(self.st.booleans()) if requires_grad is None else requires_grad
        var = Var(program.new_name(), shape, True, requires_grad)
        program.vars.append(var)
        grad = ", requires_grad=True" if requires_grad else ""
        program.emit(f"{var.name} = {self.tensor_literal(shape, low, high, grad)}")
        return var

    def tensor_literal(self, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0, extra: str = "") -> str:
        """``torch.tensor(<literal values>, dtype=rec.float_dtype, device=rec.device<extra>)``."""
        return (f"torch.tensor({literal(self.values(shape, low, high))}, dtype=rec.float_dtype, "
                f"device=rec.device{extra})")

    def pick(self, program: Program, where: Callable[[Var], bool] = lambda v: True) -> Var | None:
        candidates = [v for v in program.vars if where(v)]
        return self.draw(self.st.sampled_from(candidates)) if candidates else None

    def result(self, program: Program, shape: tuple[int, ...], grad: bool, operand: bool = True) -> Var:
        """A new variable; later steps compute with it unless ``operand`` is False."""
        var = Var(program.new_name(), shape, False, grad)
        if operand:
            program.vars.append(var)
        return var

    # -- kinds of steps --------------------------------------------------------------------
    def op(self, program: Program, under: str | None = None) -> None:
        kind = self.draw(self.st.sampled_from(("elementwise", "elementwise", "scalar", "reduce", "matmul")))
        made = getattr(self, f"_{kind}")(program)
        if made is None:
            return
        expr, shape, inputs, label = made
        out = self.result(program, shape, any(v.requires_grad for v in inputs) and under in (None, GRAD_MODES[1]))
        body = [f"{out.name} = {expr}", program.record(out)]
        if under is not None:
            body = [f"with {under}:", f"    {out.name} = {expr}", program.record(out)]
            label = f"{label} under {under}"
        program.attempt(f"{out.name} = {label}", body)

    def _elementwise(self, program: Program):
        op = self.draw(self.st.sampled_from(self.ops))
        inputs = []
        for low, high in op.domains:
            fresh = self.draw(self.st.booleans())
            existing = None if fresh else self.pick(program, lambda v: not inputs or broadcast(inputs[0].shape, v.shape))
            inputs.append(existing or self.leaf(program, inputs[0].shape if inputs else None, low, high))
        shape = inputs[0].shape if len(inputs) == 1 else broadcast(inputs[0].shape, inputs[1].shape)
        if shape is None:
            return None
        program.uses_functional |= op.template.startswith("F.")
        expr = op.call(*(v.name for v in inputs))
        return expr, shape, inputs, expr

    def _scalar(self, program: Program):
        var = self.pick(program)
        if var is None:
            return None
        number = self.draw(self.st.sampled_from((2, 0.5, -1.5, 3)))
        form = self.draw(self.st.sampled_from(("{v} * {n}", "{v} + {n}", "{n} - {v}", "{v} / {n}", "{v} ** 2",
                                               "{n} * {v} * {v}")))
        expr = form.format(v=var.name, n=number)
        return expr, var.shape, [var], expr

    def _reduce(self, program: Program):
        var = self.pick(program)
        if var is None:
            return None
        name = self.draw(self.st.sampled_from(("sum", "mean", "amax", "prod")))
        if not var.shape or self.draw(self.st.booleans()):
            return f"{var.name}.{name}()", (), [var], f"{var.name}.{name}()"
        dim = self.draw(self.st.integers(-len(var.shape), len(var.shape) - 1))
        keepdim = self.draw(self.st.booleans())
        axis = dim % len(var.shape)
        shape = tuple(1 if i == axis else s for i, s in enumerate(var.shape)) if keepdim else \
            tuple(s for i, s in enumerate(var.shape) if i != axis)
        expr = f"{var.name}.{name}(dim={dim}, keepdim={keepdim})"
        return expr, shape, [var], expr

    def _matmul(self, program: Program):
        left = self.pick(program, lambda v: len(v.shape) == 2)
        if left is None:
            return None
        right = self.pick(program, lambda v: len(v.shape) in (1, 2) and v.shape[0] == left.shape[1])
        if right is None:
            right = self.leaf(program, (left.shape[1], self.draw(self.st.sampled_from((1, 2)))))
        shape = (left.shape[0],) + right.shape[1:]
        expr = f"{left.name} @ {right.name}"
        return expr, shape, [left, right], expr

    def view(self, program: Program) -> None:
        var = self.pick(program, lambda v: len(v.shape) >= 1)
        if var is None:
            return
        forms = [(f"{var.name}[1:]", (max(var.shape[0] - 1, 0),) + var.shape[1:]),
                 (f"{var.name}[::2]", ((var.shape[0] + 1) // 2,) + var.shape[1:]),
                 (f"{var.name}.view(-1)", (_numel(var.shape),)),
                 (f"{var.name}.unsqueeze(0)", (1,) + var.shape)]
        if len(var.shape) == 2:
            forms += [(f"{var.name}.t()", var.shape[::-1]), (f"{var.name}.transpose(0, 1)", var.shape[::-1])]
        if 1 in var.shape:
            forms.append((f"{var.name}.expand({', '.join(str(4 if s == 1 else s) for s in var.shape)})",
                          tuple(4 if s == 1 else s for s in var.shape)))
        expr, shape = self.draw(self.st.sampled_from(forms))
        out = self.result(program, shape, var.requires_grad)
        program.attempt(f"{out.name} = {expr}", [f"{out.name} = {expr}", program.record(out)])

    def in_place(self, program: Program) -> None:
        var = self.pick(program)
        if var is None:
            return
        other = self.pick(program, lambda v: broadcast(var.shape, v.shape) == var.shape)
        forms = [f"{var.name}.mul_(1.5)", f"{var.name}.add_(2)", f"{var.name}.sin_()", f"{var.name}.zero_()",
                 f"{var.name}.clamp_(-1, 1)"]
        if other is not None:
            forms.append(f"{var.name}.add_({other.name})")
        if var.shape and var.shape[0] > 0:
            forms.append(f"{var.name}[0] = 0.5")
        statement = self.draw(self.st.sampled_from(forms))
        program.attempt(statement, [statement, program.record(var, version=True)])

    def detach(self, program: Program) -> None:
        var = self.pick(program)
        if var is None:
            return
        form = self.draw(self.st.sampled_from(("{v}.detach()", "{v}.data", "{v}.detach_()")))
        if form == "{v}.detach_()":
            program.attempt(f"{var.name}.detach_()", [f"{var.name}.detach_()", program.record(var)])
            var.requires_grad = False
            return
        out = self.result(program, var.shape, False)
        expr = form.format(v=var.name)
        program.attempt(f"{out.name} = {expr}", [f"{out.name} = {expr}", program.record(out, version=True)])

    def retain_grad(self, program: Program) -> None:
        var = self.pick(program)
        if var is not None:
            program.attempt(f"{var.name}.retain_grad()", [f"{var.name}.retain_grad()"])

    def hook(self, program: Program) -> None:
        var = self.pick(program)
        if var is None:
            return
        factor = self.draw(self.st.sampled_from((2, 0.5, -1)))
        if self.draw(self.st.booleans()):
            statement = f"{var.name}.register_hook(lambda g: g * {factor})"
            program.attempt(statement, [statement])
        else:  # a post-accumulate-grad hook returns None: it scales .grad in place
            hook = f"scale_{var.name}_grad"
            statement = f"{var.name}.register_post_accumulate_grad_hook({hook})"
            program.attempt(statement, [f"def {hook}(p):", f"    p.grad.mul_({factor})", statement])

    def mode(self, program: Program) -> None:
        self.op(program, under=self.draw(self.st.sampled_from(GRAD_MODES)))

    def backward(self, program: Program) -> None:
        var = self.pick(program, lambda v: v.requires_grad) or self.pick(program)
        if var is None:
            return
        options = []
        if self.draw(self.st.booleans()):
            options.append("retain_graph=True")
        if self.draw(self.st.integers(0, 4)) == 0:
            options.append("create_graph=True")
        leaves = [v for v in program.vars if v.leaf and v.requires_grad]
        if leaves and self.draw(self.st.integers(0, 3)) == 0:
            chosen = self.draw(self.st.lists(self.st.sampled_from(leaves), min_size=1, max_size=2, unique_by=id))
            options.append(f"inputs=[{', '.join(v.name for v in chosen)}]")
        if var.shape and self.draw(self.st.booleans()):
            gradient = f"gradient={self.tensor_literal(var.shape)}"
            target = f"{var.name}.backward({', '.join([gradient, *options])})"
        else:
            target = f"{var.name}.sum().backward({', '.join(options)})"
        records = [f"rec({(v.name + '.grad')!r}, {v.name}.grad)" for v in leaves]
        program.attempt(target, [target, *records])

    def grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: v.requires_grad) or self.pick(program)
        inputs = [v for v in program.vars if v.requires_grad and v is not var]
        if var is None or not inputs:
            return
        chosen = self.draw(self.st.lists(self.st.sampled_from(inputs), min_size=1, max_size=2, unique_by=id))
        options = []
        create = self.draw(self.st.integers(0, 2)) == 0
        unused = self.draw(self.st.booleans())
        for flag, text in ((self.draw(self.st.booleans()), "retain_graph=True"), (create, "create_graph=True"),
                           (unused, "allow_unused=True")):
            if flag:
                options.append(text)
        output = f"{var.name}.sum()"
        if var.shape and self.draw(self.st.booleans()):
            output = var.name
            options.append(f"grad_outputs={self.tensor_literal(var.shape)}")
        # Under allow_unused a gradient may be None: it is recorded, but no later step computes
        # with it (what an op says about a None argument is torch's argument parser, not autograd).
        results = [self.result(program, v.shape, create, operand=not unused) for v in chosen]
        names = ", ".join(r.name for r in results) + ("," if len(results) == 1 else "")
        call = f"torch.autograd.grad({output}, [{', '.join(v.name for v in chosen)}]{''.join(', ' + o for o in options)})"
        body = [f"{names} = {call}", *(program.record(r) for r in results)]
        program.attempt(f"{names} = {call}", body)

    def reset_grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: v.leaf and v.requires_grad)
        if var is None:
            return
        statement = self.draw(self.st.sampled_from((f"{var.name}.grad = None", f"{var.name}.grad.zero_()")))
        program.attempt(statement, [statement, f"rec({(var.name + '.grad')!r}, {var.name}.grad)"])


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
