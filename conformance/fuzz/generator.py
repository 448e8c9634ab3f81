"""Draws whole autograd programs step by step with hypothesis (``data.draw``).

A program holds tensors ``t0, t1, ...`` (leaves built from literal values, and results) whose
shapes it tracks, and draws each next step from these kinds:

* ``leaf``: a tensor from literal values (0-d, vectors, matrices, broadcastable shapes, empty),
  in the program's dtype, with or without ``requires_grad``;
* ``op``: an elementwise operator of the operator table (``ops``), on tensors the program holds
  or on fresh leaves drawn from the operator's domain; any other operator of the table, through
  one of its samples' calls, on program tensors of the sample's shapes or on fresh leaves like
  the sample's inputs (its result's shape is not tracked); a Python-number operand; a reduction
  (``sum``, ``mean``, ``amax``, ``prod``, ``var_mean``, ``std_mean`` over all or one dim,
  ``keepdim``); a matrix product;
* ``view``: slicing, ``view``, ``transpose``, ``t``, ``unsqueeze``, ``expand``;
* ``in-place``: ``add_``, ``mul_``, ``sin_``, ``zero_``, ``clamp_``, an item assignment, on
  leaves, views and results alike;
* ``detach``, ``.data``, ``detach_()``;
* ``backward`` (of a sum, or with a literal ``gradient``) and ``torch.autograd.grad`` with
  ``retain_graph``, ``create_graph``, ``inputs``, ``grad_outputs``, ``allow_unused``; a backward
  through a gradient (double backward); ``.grad`` set to None or zeroed;
* ``to_python``: ``item()`` or ``tolist()`` of a tensor (compared at its dtype's precision);
* ``optimize``: an SGD, Adam or AdamW optimizer over leaves, stepped three times with the
  leaves' gradients rescaled in between (momentum, dampening, Nesterov, weight decay, AMSGrad
  drawn), then ``zero_grad()`` or not;
* the bookkeeping kinds of ``bookkeeping.BookkeepingSteps``: ``retain_grad``, tensor and node
  hooks, grad-mode blocks, custom Functions, batched gradients;
* the kinds of ``transforms.TransformSteps``: ``dual`` (a dual level around a few operations, their
  tangents recorded) and ``transform`` (a torch.func transform of a drawn pure function).

Every program ends with the gradients of its newest results (up to ``FINAL_GRADIENTS``) with
respect to its leaves, each weighted unevenly (``program.weights``), then a backward of its
newest tensor that requires grad: every operator drawn has its derivative observed. Without
``torch.autograd.grad`` (or without ``retain_graph``), the gradients are those of one backward of
the results' weighted sum, read from the leaves' ``.grad`` (set to None first).

Every draw that uses a feature of ``features.FEATURES`` asks the ``gate`` (the implementation's
profile) first, so that a program needs nothing the profile lacks (``gate.USES``). Literal
values are tenths and quarters in the input's range (``0.1`` is not exact in binary: float64
work done in float32 shows), or, for one leaf in four, a few round values (ties and zeros).

Every step but a leaf runs inside ``rec.attempt``, so an exception is an observation and the
program goes on; tensors are recorded (values, flags, node names, ``.grad`` of leaves, versions)
after the steps that make or change them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .bookkeeping import SET_GRAD_ENABLED_CALL, BookkeepingSteps
from .gate import Gate
from .ops import ElementwiseOp, TableOp
from .program import (
    GRAD_MODES,
    RECORDING_MODES,
    SHAPES,
    Program,
    Var,
    broadcast,
    coarse_grid,
    grid,
    known,
    lambda_of,
    literal,
    numel,
    shape_of,
    weights,
)
from .transforms import TransformSteps

Draw = Callable[[Any], Any]
FINAL_GRADIENTS = 6
KINDS = ("op", "op", "op", "op", "op", "op", "leaf", "view", "in_place", "detach", "retain_grad", "hook", "mode", "backward",
         "backward", "grad", "reset_grad", "to_python", "optimize", "function", "batched_grad", "transform",
         "dual", "dual", "dual", "dual")   # a dual level holds several operations of the program (transforms)


class Generator(BookkeepingSteps, TransformSteps):
    """Draws one program from ``draw`` (hypothesis's ``data.draw``), using ``ops`` and the samples of
    ``table``, and nothing that ``gate`` (the implementation's profile) keeps out."""

    def __init__(self, draw: Draw, ops: tuple[ElementwiseOp, ...], strategies,
                 table: dict[str, tuple[TableOp, ...]] | None = None, gate: Gate | None = None) -> None:
        self.draw = draw
        self.gate = gate = gate or Gate()
        self.ops = gate.elementwise(ops)
        self.st = strategies
        self.table = gate.table(table or {})
        self.table_names = tuple(sorted(self.table))
        self.kinds = gate.kinds(KINDS)
        self.shapes = SHAPES if gate.allows("shapes of other than one element") else ((),)

    def program(self, dtype: str, max_steps: int) -> Program:
        program = Program(dtype)
        self.leaf(program, requires_grad=True)
        steps = self.draw(self.st.integers(1, max_steps))
        for _ in range(steps):
            getattr(self, self.draw(self.st.sampled_from(self.kinds)))(program)
        self.finish(program)
        return program

    def can_backward(self, program: Program, var: Var) -> bool:
        """Whether a backward (or ``autograd.grad``) from ``var`` stays within the profile: through no
        node freed before (``retain-graph``), nor one that saved memory changed in place since
        (``version-counter``)."""
        return ((self.gate.keeps("retain-graph") or not program.through_freed(var))
                and (self.gate.keeps("version-counter") or not program.stale(var)))

    def finish(self, program: Program) -> None:
        """The gradients of the newest results with respect to the leaves, then a final backward."""
        leaves = program.leaves()
        newest = [v for v in program.vars if v.requires_grad and not v.leaf and self.can_backward(program, v)]
        if leaves and newest:
            if self.gate.allows("gradients through autograd.grad"):
                for var in newest[-FINAL_GRADIENTS:]:
                    self.weighted_gradient(program, var, leaves)
            else:
                self.weighted_backward(program, newest[-FINAL_GRADIENTS:], leaves)
        self.backward(program, final=True)

    def weighted_gradient(self, program: Program, var: Var, leaves: list[Var]) -> None:
        inputs = ", ".join(v.name for v in leaves)
        if known(var):
            output = f"{var.name}, [{inputs}], grad_outputs={self.weights_literal(var.shape)}"
        else:
            output = f"{var.name}.sum(), [{inputs}]"
        call = f"torch.autograd.grad({output}, retain_graph=True, allow_unused=True)"
        body = [f"grads = {call}", *(f"rec({f'd{var.name}/d{v.name}'!r}, grads[{i}])" for i, v in enumerate(leaves))]
        program.attempt(f"gradients of {var.name} with respect to {inputs}", body)

    def weighted_backward(self, program: Program, results: list[Var], leaves: list[Var]) -> None:
        """The ending without ``autograd.grad``: the leaves' ``.grad`` set to None, then one backward of
        the results' sum, each weighted unevenly, then the leaves' ``.grad``."""
        terms = [f"({v.name} * {self.weights_literal(v.shape, start=i)}).sum()" if known(v) else f"{v.name}.sum()"
                 for i, v in enumerate(results)]
        retain = "retain_graph=True" if self.gate.allows("retain_graph=True") else ""
        names = " + ".join(v.name for v in results)
        body = [f"{v.name}.grad = None" for v in leaves]
        body += [f"({' + '.join(terms)}).backward({retain})",
                 *(f"rec({f'd({names})/d{v.name}'!r}, {v.name}.grad)" for v in leaves)]
        program.attempt(f"gradients of {names} (weighted) with respect to {', '.join(v.name for v in leaves)}", body)
        if not retain:
            for var in results:
                program.went_through(var)

    @staticmethod
    def weights_literal(shape: tuple[int, ...], start: int = 0) -> str:
        return f"torch.tensor({literal(weights(shape, start))}, dtype=rec.float_dtype, device=rec.device)"

    # -- values and tensors ----------------------------------------------------------------
    def values(self, shape: tuple[int, ...], low: float = -2.0, high: float = 2.0, signed: bool = False,
               points: list[float] | None = None) -> Any:
        """Literal values: ``points``, or quarters and tenths in ``[low, high]`` (tenths are not exact in
        binary); ``signed``: magnitudes in ``[low, high]`` with either sign."""
        if not shape:
            value = self.draw(self.st.sampled_from(points or grid(low, high)))
            return -value if signed and self.draw(self.st.booleans()) else value
        return [self.values(shape[1:], low, high, signed, points) for _ in range(shape[0])]

    def leaf(self, program: Program, shape: tuple[int, ...] | None = None, low: float = -2.0, high: float = 2.0,
             requires_grad: bool | None = None, values: Any = None) -> Var:
        """A new leaf: random literal values of ``shape`` in ``[low, high]``, or ``values`` as given."""
        if values is not None:
            shape = shape_of(values)
        shape = self.draw(self.st.sampled_from(self.shapes)) if shape is None else shape
        requires_grad = self.draw(self.st.booleans()) if requires_grad is None else requires_grad
        var = Var(program.new_name(), shape, True, requires_grad)
        program.vars.append(var)
        grad = ", requires_grad=True" if requires_grad else ""
        if values is None:
            coarse = self.draw(self.st.integers(0, 3)) == 0
            values = self.values(shape, low, high, points=coarse_grid(low, high) if coarse else None)
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
        if not self.table:
            kinds = kinds[:2] + kinds[4:]
        if not self.gate.allows("matrix products"):
            kinds = kinds[:-1]
        kind = self.draw(self.st.sampled_from(kinds))
        made = getattr(self, f"_{kind}")(program)
        if made is None:
            return
        expr, shape, inputs, label = made
        recording = under is None or under in RECORDING_MODES
        out = self.result(program, shape, any(v.requires_grad for v in inputs) and recording)
        out.from_inference = under == GRAD_MODES[3] or any(v.from_inference for v in inputs)
        if shape is None:  # a table operator's result may be a view of its inputs
            out.memory = out.memory.union(*(v.memory for v in inputs))
            out.data_alias = any(v.data_alias for v in inputs)
        program.made(out, inputs)
        body = [f"{out.name} = {expr}", program.record(out)]
        if under == SET_GRAD_ENABLED_CALL:
            body = ["torch.set_grad_enabled(False)", "try:", f"    {out.name} = {expr}", "finally:",
                    "    torch.set_grad_enabled(True)", program.record(out)]
            label = f"{label} after torch.set_grad_enabled(False)"
        elif under is not None:
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
        name = self.draw(self.st.sampled_from(("sum", "mean", "amax", "prod", "var_mean", "std_mean")))
        # var_mean and std_mean: one node with two outputs, both used
        form = f"(lambda spread, mean: spread * 2 + mean)(*torch.{name}({var.name}{{}}))" if "_" in name else \
            f"{var.name}.{name}({{}})"
        if not var.shape or self.draw(self.st.booleans()):
            expr = form.format("")
            return expr, (), [var], expr
        dim = self.draw(self.st.integers(-len(var.shape), len(var.shape) - 1))
        keepdim = self.draw(self.st.booleans())
        axis = dim % len(var.shape)
        shape = tuple(1 if i == axis else s for i, s in enumerate(var.shape)) if keepdim else \
            tuple(s for i, s in enumerate(var.shape) if i != axis)
        expr = form.format(f"{', ' if '_' in name else ''}dim={dim}, keepdim={keepdim}")
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
                 (f"{var.name}.view(-1)", (numel(var.shape),)),
                 (f"{var.name}.unsqueeze(0)", (1,) + var.shape)]
        if len(var.shape) == 2:
            forms += [(f"{var.name}.t()", var.shape[::-1]), (f"{var.name}.transpose(0, 1)", var.shape[::-1])]
        if 1 in var.shape:
            forms.append((f"{var.name}.expand({', '.join(str(4 if s == 1 else s) for s in var.shape)})",
                          tuple(4 if s == 1 else s for s in var.shape)))
        expr, shape = self.draw(self.st.sampled_from(forms))
        out = self.result(program, shape, var.requires_grad)
        out.from_inference, out.from_backward = var.from_inference, var.from_backward
        out.memory, out.data_alias = var.memory, var.data_alias
        program.made(out, [var])
        program.attempt(f"{out.name} = {expr}", [f"{out.name} = {expr}", program.record(out)])

    def in_place(self, program: Program) -> None:
        var = self.pick(program, lambda v: self.writable(program, v))
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
        program.attempt(statement, [statement, self.record_with_version(program, var)])
        program.changed_in_place(var, [other] if other is not None and statement == f"{var.name}.add_({other.name})"
                                 else [])

    def writable(self, program: Program, var: Var) -> bool:
        """Whether an in-place op on ``var`` stays within the profile: without ``version-counter``, not
        through a ``.data`` alias of memory a graph saved."""
        return self.gate.keeps("version-counter") or not (var.data_alias and program.in_a_graph(var))

    def record_with_version(self, program: Program, var: Var) -> str:
        """``rec`` of a tensor an in-place op changed, with its ``_version`` where the profile keeps it."""
        return program.record(var, version=self.gate.allows("recorded _version"))

    def detach(self, program: Program) -> None:
        var = self.pick(program, lambda v: True)
        if var is None:
            return
        forms = ("{v}.detach()", "{v}.data", "{v}.detach_()")
        form = self.draw(self.st.sampled_from(forms if self.gate.allows("detach_()") else forms[:2]))
        if form == "{v}.detach_()":
            program.attempt(f"{var.name}.detach_()", [f"{var.name}.detach_()", program.record(var)])
            var.requires_grad = False
            var.graph = frozenset()
            return
        out = self.result(program, var.shape, False)
        out.from_inference, out.from_backward = var.from_inference, var.from_backward
        out.memory, out.data_alias = var.memory, var.data_alias or form == "{v}.data"
        expr = form.format(v=var.name)
        program.attempt(f"{out.name} = {expr}", [f"{out.name} = {expr}", self.record_with_version(program, out)])

    def backward(self, program: Program, final: bool = False) -> None:
        """A backward call; ``final``: the program's last step, a plain backward of its newest
        tensor that requires grad (if any)."""
        if final:
            wanted = [v for v in program.vars if v.requires_grad and not v.leaf and self.can_backward(program, v)]
            if wanted:
                self._backward_call(program, wanted[-1], [])
            return
        var = self.pick_to_differentiate(program)
        if var is None:
            return
        options = []
        if self.gate.allows("retain_graph=True") and self.draw(self.st.booleans()):
            options.append("retain_graph=True")
        if self.gate.allows("create_graph=True") and self.draw(self.st.integers(0, 4)) == 0:
            options.append("create_graph=True")
        leaves = [v for v in program.vars if v.leaf and v.requires_grad]
        if leaves and self.gate.allows("backward(inputs=)") and self.draw(self.st.integers(0, 3)) == 0:
            chosen = self.draw(self.st.lists(self.st.sampled_from(leaves), min_size=1, max_size=2, unique_by=id))
            options.append(f"inputs=[{', '.join(v.name for v in chosen)}]")
        if var.shape and self.draw(self.st.booleans()):
            options.insert(0, f"gradient={self.tensor_literal(var.shape)}")
            self._backward_call(program, var, options, summed=False)
        else:
            self._backward_call(program, var, options)

    def _backward_call(self, program: Program, var: Var, options: list[str], summed: bool = True) -> None:
        target = f"{var.name}{'.sum()' if summed else ''}.backward({', '.join(options)})"
        program.attempt(target, [target, *program.grad_records()])
        if not {"retain_graph=True", "create_graph=True"} & set(options):
            program.went_through(var)

    def pick_to_differentiate(self, program: Program) -> Var | None:
        """The tensor a backward or ``autograd.grad`` starts from: one that requires grad if any (else
        one that does not: torch raises), and one the profile lets a backward start from."""
        return (self.pick(program, lambda v: v.requires_grad and self.can_backward(program, v))
                or self.pick(program, lambda v: self.can_backward(program, v)))

    def grad(self, program: Program) -> None:
        var = self.pick_to_differentiate(program)
        inputs = [v for v in program.vars if v.requires_grad and v is not var]
        if var is None or not inputs:
            return
        chosen = self.draw(self.st.lists(self.st.sampled_from(inputs), min_size=1, max_size=2, unique_by=id))
        options = []
        create = self.gate.allows("create_graph=True") and self.draw(self.st.integers(0, 2)) == 0
        unused = self.draw(self.st.booleans())
        retain = self.gate.allows("retain_graph=True") and self.draw(self.st.booleans())
        for flag, text in ((retain, "retain_graph=True"), (create, "create_graph=True"),
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
        for result in results:
            result.from_backward = True
            program.made(result, [var, *chosen])
        names = ", ".join(r.name for r in results) + ("," if len(results) == 1 else "")
        call = f"torch.autograd.grad({output}, [{', '.join(v.name for v in chosen)}]{''.join(', ' + o for o in options)})"
        body = [f"{names} = {call}", *(program.record(r) for r in results)]
        program.attempt(f"{names} = {call}", body)
        if not (retain or create):
            program.went_through(var)

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
        rescale = self.gate.allows("rescaled gradients between optimizer steps")
        for scale in (-0.5, 0.25, None):
            body.append("opt.step()")
            if scale is not None and rescale:
                body += [f"for p in [{names}]:", "    if p.grad is not None:", f"        p.grad.mul_({scale})"]
        body += [self.record_with_version(program, v) for v in chosen]
        if self.draw(self.st.booleans()):
            body.append("opt.zero_grad()")
        body += [f"rec({(v.name + '.grad')!r}, {v.name}.grad)" for v in chosen]
        program.attempt(f"{kind}({options}) steps on {names}", body)
        for var in chosen:  # the steps change the leaves in place
            program.written(var)

    def reset_grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: v.leaf and v.requires_grad)
        if var is None:
            return
        forms = (f"{var.name}.grad = None", f"{var.name}.grad.zero_()")
        statement = self.draw(self.st.sampled_from(forms if self.gate.allows("zeroing .grad in place") else forms[:1]))
        program.attempt(statement, [statement, f"rec({(var.name + '.grad')!r}, {var.name}.grad)"])
