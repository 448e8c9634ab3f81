"""Whole autograd programs: drawn step by step with hypothesis, rendered as a catalog-style scenario.

A program holds tensors ``t0, t1, ...`` (leaves built from literal values, and results) whose
shapes it tracks, and draws each next step from these kinds:

* ``leaf``: a tensor from literal values (0-d, vectors, matrices, broadcastable shapes, empty),
  in the program's dtype, with or without ``requires_grad``;
* ``op``: an elementwise operator of the operator table (``ops``), on tensors the program holds
  or on fresh leaves drawn from the operator's domain; any other operator of the table, through
  one of its samples' calls, on program tensors of the sample's shapes or on fresh leaves like
  the sample's inputs (its result's shape is not tracked); a Python-number operand; a reduction
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
  through a gradient (double backward); ``.grad`` set to None or zeroed;
* ``to_python``: ``item()`` or ``tolist()`` of a tensor (compared at its dtype's precision);
* ``optimize``: an SGD, Adam or AdamW optimizer over leaves, stepped three times with the
  leaves' gradients rescaled in between (momentum, dampening, Nesterov, weight decay, AMSGrad
  drawn), then ``zero_grad()`` or not.

Every program ends with a backward of its newest tensor that requires grad, so that each
operator's derivative is observed. Literal values are tenths and quarters in the input's range
(``0.1`` is not exact in binary: float64 work done in float32 shows).

Every step but a leaf runs inside ``rec.attempt``, so an exception is an observation and the
program goes on; tensors are recorded (values, flags, node names, ``.grad`` of leaves, versions)
after the steps that make or change them. Nothing depends on random numbers, object addresses
or the order of a dict: a program's source is its whole behaviour.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..operators.values import literal as values_literal
from .ops import ElementwiseOp, TableOp

SHAPES = ((), (3,), (2, 3), (3, 1), (1, 3), (2, 1, 3), (0,), (1,))
GRAD_MODES = ("torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)", "torch.inference_mode()")
PLAIN_ASSIGN = "{out} = {expr}"


@dataclass
class Var:
    name: str
    shape: tuple[int, ...] | None      # None: not tracked (the result of a table operator)
    leaf: bool
    requires_grad: bool
    from_inference: bool = False       # made in inference mode, or computed from a tensor that was


@dataclass
class Program:
    dtype: str
    lines: list[str] = field(default_factory=list)
    vars: list[Var] = field(default_factory=list)
    uses_functional: bool = False
    steps: int = 0
    named: int = 0                     # names given (t0, t1, ...), also to results no step uses

    # -- building -------------------------------------------------------------------------
    def new_name(self) -> str:
        self.named += 1
        return f"t{self.named - 1}"

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def attempt(self, label: str, body: list[str]) -> None:
        self.steps += 1
        self.emit(f"with rec.attempt({f's{self.steps}: {label}'!r}):", *(f"    {line}" for line in body))

    def record(self, var: Var, version: bool = False) -> str:
        """``rec(...)`` of a tensor; with ``version``, its ``_version`` too, except for a tensor that
        comes from inference mode: outside it, an op on an inference tensor returns a tensor whose
        version depends on how torch's kernel wrote it (``sum``: 1, ``mean``: 2, ``mul``: 0), a detail
        of torch's implementation that no engine is asked to copy."""
        suffix = ", version=True" if version and not var.from_inference else ""
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
    return values_literal(values)


def known(var: Var) -> bool:
    return var.shape is not None


def shape_of(values: Any) -> tuple[int, ...]:
    shape = []
    while isinstance(values, list):
        shape.append(len(values))
        values = values[0] if values else None
    return tuple(shape)


def broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    result = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + a), reversed((1,) * (len(a) - len(b)) + b)):
        if x != y and 1 not in (x, y):
            return None
        result.append(y if x == 1 else x)
    return tuple(reversed(result))


class Generator:
    """Draws one program from ``draw`` (hypothesis's ``data.draw``), using ``ops``."""

    def __init__(self, draw: Draw, ops: tuple[ElementwiseOp, ...], strategies,
                 table: dict[str, tuple[TableOp, ...]] | None = None) -> None:
        self.draw = draw
        self.ops = ops
        self.st = strategies
        self.table = table or {}
        self.table_names = tuple(sorted(self.table))

    def program(self, dtype: str, max_steps: int) -> Program:
        program = Program(dtype)
        self.leaf(program, requires_grad=True)
        steps = self.draw(self.st.integers(1, max_steps))
        kinds = ("op", "op", "op", "op", "leaf", "view", "in_place", "detach", "retain_grad", "hook",
                 "mode", "backward", "backward", "grad", "reset_grad", "to_python", "optimize")
        for _ in range(steps):
            getattr(self, self.draw(self.st.sampled_from(kinds)))(program)
        self.backward(program, final=True)
        return program

    # -- values and tensors ----------------------------------------------------------------
    def values(self, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0, signed: bool = False) -> Any:
        """Literal values: quarters and tenths in ``[low, high]`` (tenths are not exact in binary);
        ``signed``: magnitudes in ``[low, high]`` with either sign."""
        if not shape:
            value = self.draw(self.st.sampled_from(grid(low, high)))
            return -value if signed and self.draw(self.st.booleans()) else value
        return [self.values(shape[1:], low, high, signed) for _ in range(shape[0])]

    def leaf(self, program: Program, shape: tuple[int, ...] | None = None, low: float = -2.0, high: float = 2.0,
             requires_grad: bool | None = None, values: Any = None) -> Var:
        """A new leaf: random literal values of ``shape`` in ``[low, high]``, or ``values`` as given."""
        if values is not None:
            shape = shape_of(values)
        shape = self.draw(self.st.sampled_from(SHAPES)) if shape is None else shape
        requires_grad = self.draw(self.st.booleans()) if requires_grad is None else requires_grad
        var = Var(program.new_name(), shape, True, requires_grad)
        program.vars.append(var)
        grad = ", requires_grad=True" if requires_grad else ""
        if values is None:
            values = self.values(shape, low, high)
        program.emit(f"{var.name} = torch.tensor({literal(values)}, dtype=rec.float_dtype, device=rec.device{grad})")
        return var

    def tensor_literal(self, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0, extra: str = "") -> str:
        """``torch.tensor(<literal values>, dtype=rec.float_dtype, device=rec.device<extra>)``."""
        return (f"torch.tensor({literal(self.values(shape, low, high))}, dtype=rec.float_dtype, "
                f"device=rec.device{extra})")

    def pick(self, program: Program, where: Callable[[Var], bool] = known) -> Var | None:
        """A tensor of the program (by default one of known shape): often the newest, so that
        operations chain into deep graphs."""
        candidates = [v for v in program.vars if where(v)]
        if not candidates:
            return None
        if self.draw(self.st.booleans()):
            return candidates[-1]
        return self.draw(self.st.sampled_from(candidates))

    def result(self, program: Program, shape: tuple[int, ...], grad: bool, operand: bool = True) -> Var:
        """A new variable; later steps compute with it unless ``operand`` is False."""
        var = Var(program.new_name(), shape, False, grad)
        if operand:
            program.vars.append(var)
        return var

    # -- kinds of steps --------------------------------------------------------------------
    def op(self, program: Program, under: str | None = None) -> None:
        kinds = ("elementwise", "elementwise", "table", "table", "scalar", "reduce", "matmul")
        kind = self.draw(self.st.sampled_from(kinds if self.table else kinds[:2] + kinds[4:]))
        made = getattr(self, f"_{kind}")(program)
        if made is None:
            return
        expr, shape, inputs, label = made
        out = self.result(program, shape, any(v.requires_grad for v in inputs) and under in (None, GRAD_MODES[1]))
        out.from_inference = under == GRAD_MODES[3] or any(v.from_inference for v in inputs)
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
            if op.arity == 1:  # a unary op keeps any shape, tracked or not
                existing = None if fresh else self.pick(program, lambda v: True)
            else:
                existing = None if fresh else self.pick(
                    program, lambda v: known(v) and (not inputs or broadcast(inputs[0].shape, v.shape) is not None))
            inputs.append(existing or self.leaf(program, inputs[0].shape if inputs else None, low, high))
        if len(inputs) == 1:
            shape = inputs[0].shape
        else:
            shape = broadcast(inputs[0].shape, inputs[1].shape)
            if shape is None:
                return None
        program.uses_functional |= op.template.startswith("F.")
        expr = op.call(*(v.name for v in inputs))
        return expr, shape, inputs, expr

    def _table(self, program: Program):
        """A sample call of any operator of the table, its inputs bound to program tensors."""
        sample = self.draw(self.st.sampled_from(self.table[self.draw(self.st.sampled_from(self.table_names))]))
        bindings, inputs = [], []
        for _, spec in sample.inputs:
            if spec.kind != "float":
                dtype = f", dtype=torch.{spec.kind}" if spec.values == [] else ""
                bindings.append(f"torch.tensor({literal(spec.values)}{dtype}, device=rec.device)")
                continue
            requires_grad = None if spec.grad else False     # None: drawn
            if spec.values is not None:                      # a convention point (relu at 0): as given
                var = self.leaf(program, values=spec.values, requires_grad=requires_grad)
            else:
                existing = None if self.draw(self.st.booleans()) else self.pick(program, lambda v: v.shape == spec.shape)
                values = self.values(spec.shape, spec.low, spec.high, signed=spec.signed)
                var = existing or self.leaf(program, values=values, requires_grad=requires_grad)
            bindings.append(var.name)
            inputs.append(var)
        program.uses_functional |= "F." in sample.call
        names = ", ".join(name for name, _ in sample.inputs)
        expr = f"({lambda_of(names, sample.call)})({', '.join(bindings)})"
        return expr, None, inputs, f"{sample.name}: {sample.call}"

    def _scalar(self, program: Program):
        var = self.pick(program, lambda v: True)
        if var is None:
            return None
        number = self.draw(self.st.sampled_from((2, 0.5, -1.5, 3)))
        form = self.draw(self.st.sampled_from(("{v} * {n}", "{v} + {n}", "{n} - {v}", "{v} / {n}", "{v} ** 2",
                                               "{n} * {v} * {v}")))
        expr = form.format(v=var.name, n=number)
        return expr, var.shape, [var], expr

    def _reduce(self, program: Program):
        var = self.pick(program, lambda v: True)
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
        left = self.pick(program, lambda v: known(v) and len(v.shape) == 2)
        if left is None:
            return None
        right = self.pick(program, lambda v: known(v) and len(v.shape) in (1, 2) and v.shape[0] == left.shape[1])
        if right is None:
            right = self.leaf(program, (left.shape[1], self.draw(self.st.sampled_from((1, 2)))))
        shape = (left.shape[0],) + right.shape[1:]
        expr = f"{left.name} @ {right.name}"
        return expr, shape, [left, right], expr

    def view(self, program: Program) -> None:
        var = self.pick(program, lambda v: known(v) and len(v.shape) >= 1)
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
        out.from_inference = var.from_inference
        program.attempt(f"{out.name} = {expr}", [f"{out.name} = {expr}", program.record(out)])

    def in_place(self, program: Program) -> None:
        var = self.pick(program, lambda v: True)
        if var is None:
            return
        other = self.pick(program, lambda v: known(v) and known(var) and broadcast(var.shape, v.shape) == var.shape)
        forms = [f"{var.name}.mul_(1.5)", f"{var.name}.add_(2)", f"{var.name}.sin_()", f"{var.name}.zero_()",
                 f"{var.name}.clamp_(-1, 1)"]
        if other is not None:
            forms.append(f"{var.name}.add_({other.name})")
        if var.shape and var.shape[0] > 0:
            forms.append(f"{var.name}[0] = 0.5")
        statement = self.draw(self.st.sampled_from(forms))
        program.attempt(statement, [statement, program.record(var, version=True)])

    def detach(self, program: Program) -> None:
        var = self.pick(program, lambda v: True)
        if var is None:
            return
        form = self.draw(self.st.sampled_from(("{v}.detach()", "{v}.data", "{v}.detach_()")))
        if form == "{v}.detach_()":
            program.attempt(f"{var.name}.detach_()", [f"{var.name}.detach_()", program.record(var)])
            var.requires_grad = False
            return
        out = self.result(program, var.shape, False)
        out.from_inference = var.from_inference
        expr = form.format(v=var.name)
        program.attempt(f"{out.name} = {expr}", [f"{out.name} = {expr}", program.record(out, version=True)])

    def retain_grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: True)
        if var is not None:
            program.attempt(f"{var.name}.retain_grad()", [f"{var.name}.retain_grad()"])

    def hook(self, program: Program) -> None:
        var = self.pick(program, lambda v: True)
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

    def backward(self, program: Program, final: bool = False) -> None:
        """A backward call; ``final``: the program's last step, a plain backward of its newest
        tensor that requires grad (if any)."""
        if final:
            wanted = [v for v in program.vars if v.requires_grad and not v.leaf]
            if wanted:
                self._backward_call(program, wanted[-1], [])
            return
        var = self.pick(program, lambda v: v.requires_grad) or self.pick(program, lambda v: True)
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
            options.insert(0, f"gradient={self.tensor_literal(var.shape)}")
            self._backward_call(program, var, options, summed=False)
        else:
            self._backward_call(program, var, options)

    def _backward_call(self, program: Program, var: Var, options: list[str], summed: bool = True) -> None:
        leaves = [v for v in program.vars if v.leaf and v.requires_grad]
        target = f"{var.name}{'.sum()' if summed else ''}.backward({', '.join(options)})"
        records = [f"rec({(v.name + '.grad')!r}, {v.name}.grad)" for v in leaves]
        program.attempt(target, [target, *records])

    def grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: v.requires_grad) or self.pick(program, lambda v: True)
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

    def to_python(self, program: Program) -> None:
        """A tensor's values as Python numbers: ``item()`` of a one-element tensor, or ``tolist()``."""
        var = self.pick(program, lambda v: True)
        if var is None:
            return
        expr = self.draw(self.st.sampled_from((f"{var.name}.sum().item()", f"{var.name}.tolist()")))
        program.attempt(expr, [f"rec({expr!r}, {expr})"])

    def optimize(self, program: Program) -> None:
        """An optimizer over one or two leaves, stepped three times; between steps the leaves'
        gradients are rescaled (so that moments and momentum see gradients that change)."""
        leaves = [v for v in program.vars if v.leaf and v.requires_grad and known(v)]
        if not leaves:
            return
        if self.draw(self.st.booleans()):
            self.backward(program)
        chosen = self.draw(self.st.lists(self.st.sampled_from(leaves), min_size=1, max_size=2, unique_by=id))
        kind = self.draw(self.st.sampled_from(("SGD", "Adam", "AdamW")))
        decay = self.draw(self.st.sampled_from((0, 0.1)))
        if kind == "SGD":
            momentum = self.draw(self.st.sampled_from((0, 0.9)))
            nesterov = momentum > 0 and self.draw(self.st.booleans())
            dampening = 0 if nesterov else self.draw(self.st.sampled_from((0, 0.5)))
            options = f"lr=0.1, momentum={momentum}, dampening={dampening}, nesterov={nesterov}, weight_decay={decay}"
        else:
            eps = self.draw(self.st.sampled_from((1e-08, 0.1)))
            amsgrad = self.draw(self.st.booleans())
            options = f"lr=0.1, betas=(0.8, 0.9), eps={eps}, weight_decay={decay}, amsgrad={amsgrad}"
        names = ", ".join(v.name for v in chosen)
        body = [f"opt = torch.optim.{kind}([{names}], {options})"]
        for scale in (-0.5, 0.25, None):
            body.append("opt.step()")
            if scale is not None:
                body += [f"for p in [{names}]:", "    if p.grad is not None:", f"        p.grad.mul_({scale})"]
        body += [program.record(v, version=True) for v in chosen]
        if self.draw(self.st.booleans()):
            body.append("opt.zero_grad()")
        body += [f"rec({(v.name + '.grad')!r}, {v.name}.grad)" for v in chosen]
        program.attempt(f"{kind}({options}) steps on {names}", body)

    def reset_grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: v.leaf and v.requires_grad)
        if var is None:
            return
        statement = self.draw(self.st.sampled_from((f"{var.name}.grad = None", f"{var.name}.grad.zero_()")))
        program.attempt(statement, [statement, f"rec({(var.name + '.grad')!r}, {var.name}.grad)"])


def lambda_of(parameters: str, call: str) -> str:
    """``lambda x, t: F.mse_loss(x, t)``: a sample's call, applied to program tensors as written."""
    return f"lambda {parameters}: {call}"


def grid(low: float, high: float) -> list[float]:
    """The quarters and tenths in ``[low, high]``, in order."""
    points = {v / 4 for v in range(math.ceil(low * 4), math.floor(high * 4) + 1)}
    points |= {round(v / 10, 1) for v in range(math.ceil(low * 10), math.floor(high * 10) + 1)}
    return sorted(points) or [low]


def _numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
