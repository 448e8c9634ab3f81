"""Turn a variant of the operator table into a catalog case: a small generated scenario program.

The scenario is ordinary Python source (``rendered``), which ``cases.build`` compiles under a stable
file name that is registered in ``linecache``, so ``Case.source`` is exactly what runs, tracebacks
show its lines and the recorder's line numbers point into it. For each sample it

1. builds the inputs from literals (``dtype=getattr(torch, rec.dtype)``: the runner runs it once
   per dtype of ``Case.dtypes``),
2. records the forward result (values, dtype, shape, ``requires_grad`` and the node name),
3. records the gradients of every differentiable input for seeded random ``grad_outputs``, with
   ``torch.autograd.grad``, or, for an implementation without it (``rec.has("autograd.grad")`` is
   False), through ``.backward()``: every differentiable input is a leaf, and its ``.grad`` is
   recorded under the same label, in the same form,
4. where torch has them, records the second-order gradients (the gradient of the first-order
   gradients against seeded random vectors, with ``materialize_grads=True``); only with both
   ``autograd.grad`` and ``higher-order``. They are taken in an attempt block of their own, so an
   implementation that raises there (torch.compile's double backward) has the exception recorded
   (and ``None`` as its gradients) while the next samples are still checked,
5. with ``forward-ad``, records forward mode: inside a ``dual_level``, every differentiable input
   made dual with a seeded random tangent, the call made again, the tangents of its outputs
   (``unpack_dual(o).tangent``); then, where torch has second-order gradients (and with
   ``autograd.grad`` and ``higher-order``), forward-over-reverse: the tangents of the first-order
   gradients taken with ``create_graph=True`` on the dual inputs for the same ``grad_outputs``.
   Each is an attempt of its own (``None`` as its tangents where it raised): where torch has no
   forward formula, its exception is what is compared (``torch_raises`` in the table says where).

6. with ``vmap`` and ``func-transforms``, records the sample under ``torch.func.vmap``: its float
   inputs stacked over a batch of three (the sample's values and two more drawn alike, every other
   input batched at its last dimension, int and bool inputs not batched), the outputs, and the
   members of the batch whose results running them alone (on the same implementation) gives
   otherwise, within the tolerance class (``batching.differing``: ``[]`` where vmap is right); then,
   with ``autograd.grad`` too, ``vmap-of-vjp``: ``torch.func.vjp``'s pullback under vmap for a batch
   of ``grad_outputs``, recorded and checked the same way. Each is an attempt of its own: where
   torch cannot batch the sample, its exception is compared (``torch_raises``); a sample that
   cannot be batched at all says why (``no_vmap``), in a comment of the scenario.

``autograd.grad``, ``higher-order``, ``forward-ad``, ``func-transforms`` and ``vmap`` are thus the cases' optional features
(``Case.optional_features``, ``OPTIONAL_FEATURES``): an implementation whose profile lacks them
runs the cases without them instead of their being ``n/a``.

Error samples record the exception their call raises (``rec.attempt``).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

import numpy as np

from ..features import FEATURES, detected
from . import spec
from .spec import RAISING_STEPS, Input, Operator, Raises, Sample, Variant
from .tolerances import FLOAT64_SUFFIX
from .values import case_seed, draw, draw_ints, imaginary_parts, literal

INDENT = "    "
#: How a case's title names the values of each step that torch may refuse.
STEP_TITLES = {"forward-mode": "forward-mode tangents", "forward-over-reverse": "forward-over-reverse tangents",
               "vmap": "outputs under vmap", "vmap-of-vjp": "vector-Jacobian products under vmap"}
BATCH = 3  # the members of a vmap step's batch: the sample and two drawn alike

IN_PLACE = re.compile(r"\b[a-z0-9]+_\(|[-+*/]=")
GENERATED_PREFIX = "<generated "


def case_id(operator: Operator, variant: Variant) -> str:
    return f"{operator.prefix}.{operator.name}.{variant.name}"


def qualified_name(operator: Operator) -> str:
    """The operator as tags and the coverage table name it: ``add``, or ``opinfo.add`` for op_db's entry."""
    return operator.name if operator.prefix == "op" else f"{operator.prefix}.{operator.name}"


def function_name(operator: Operator, variant: Variant) -> str:
    """The scenario's name: ``op_<name>__<variant>``, every character not of an identifier an underscore
    (op_db's names have dots: ``opinfo_nn_functional_relu__default``)."""
    return re.sub(r"\W", "_", f"{operator.prefix}_{operator.name}__{variant.name}")


def source_file(operator: Operator, variant: Variant) -> str:
    """The stable file name the scenario is compiled under (and registered in linecache)."""
    module_path = operator.module.replace(".", "/") + ".py"
    return f"{GENERATED_PREFIX}{case_id(operator, variant)} from {module_path}>"


def gradgrad_of(operator: Operator, variant: Variant, sample: Sample) -> bool | tuple[str, ...]:
    for choice in (sample.gradgrad, variant.gradgrad):
        if choice is not None:
            return choice
    return operator.gradgrad


class Writer:
    """Accumulates the lines of one scenario."""

    def __init__(self, operator: Operator, variant: Variant) -> None:
        self.operator = operator
        self.variant = variant
        self.id = case_id(operator, variant)
        seed = case_seed(self.id)
        self.rng = np.random.default_rng(seed)
        self.imaginary_rng = np.random.default_rng([seed, 1])  # apart, so that the real parts are those of float items
        self.seed_base = (seed % 100_000) * 100
        self.lines = [f"def {function_name(operator, variant)}(torch, rec):",
                      f"{INDENT}# generated from the operator table: {self.id}",
                      f"{INDENT}dtype = getattr(torch, rec.dtype)",
                      f"{INDENT}reduced = rec.dtype in REDUCED  # judged against double precision on the same inputs"]
        self.checks: set[str] = set()
        self.raised_in_torch: dict[str, list[bool]] = {step: [] for step in RAISING_STEPS}  # per sample making it
        self.depth = 1  # the scenario's body

    def refused(self) -> tuple[str, ...]:
        """The steps (forward mode, vmap) that torch raises in for every sample that takes them."""
        return tuple(step for step, raised in self.raised_in_torch.items() if raised and all(raised))

    def emit(self, line: str = "") -> None:
        self.lines.append(INDENT * self.depth + line if line else "")

    @contextlib.contextmanager
    def indented(self):
        """Lines emitted in the block are one level deeper (the body of an ``if``)."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def seed(self, number: int, offset: int) -> int:
        return self.seed_base + number * 10 + offset

    # -- inputs ---------------------------------------------------------------------------------
    def tensor_source(self, inp: Input, differentiable: bool) -> str:
        if inp.kind != "float":  # int64 and bool inputs are always explicit (indices, masks), as are exact kinds
            if inp.values is None:
                return f"torch.zeros({inp.shape!r}, dtype=torch.{inp.kind}, device=rec.device)"
            exact = inp.kind not in ("int64", "bool") or _is_empty(inp.values)
            return explicit(inp, (f", dtype=torch.{inp.kind}" if exact else "") + ", device=rec.device", False)
        if inp.values is not None:
            return explicit(inp, ", dtype=dtype, device=rec.device", differentiable)
        grad = ", requires_grad=True" if differentiable else ""
        if inp.numel == 0:
            return f"torch.zeros({inp.shape!r}, dtype=dtype, device=rec.device{grad})"
        if inp.layout == "contiguous":
            return f"torch.tensor({self.random_values(inp, inp.shape)}, dtype=dtype, device=rec.device{grad})"
        if inp.layout == "transposed":
            stored = inp.shape[:-2] + (inp.shape[-1], inp.shape[-2])
            view = ".t()" if len(inp.shape) == 2 else ".transpose(-2, -1)"
        else:  # strided: every other element of the last dimension
            stored = inp.shape[:-1] + (2 * inp.shape[-1],)
            view = "[..., ::2]"
        built = f"torch.tensor({self.random_values(inp, stored)}, dtype=dtype, device=rec.device)"
        return built + view + (".requires_grad_()" if differentiable else "")

    def random_values(self, inp: Input, shape: tuple[int, ...], rng: np.random.Generator | None = None,
                      imaginary_rng: np.random.Generator | None = None) -> str:
        """The source of a random input's values: real parts, and imaginary parts for the complex dtypes."""
        real = literal(self.draw(inp, shape, rng))
        imaginary = literal(imaginary_parts(imaginary_rng or self.imaginary_rng, shape, inp.low, inp.high))
        return f"drawn({real}, {imaginary}, rec.dtype)"

    def draw(self, inp: Input, shape: tuple[int, ...], rng: np.random.Generator | None = None):
        rng = rng or self.rng
        values = draw(rng, shape, inp.low, inp.high)
        if inp.signed:
            signs = draw_ints(rng, shape, 0, 2)
            values = apply_signs(values, signs)
        return values

    def inputs(self, inputs: dict[str, Input], differentiable: bool) -> list[str]:
        """Emit the inputs; returns the names of those that require grad."""
        wanted = []
        for name, inp in inputs.items():
            requires = differentiable and inp.differentiable
            self.emit(f"{name} = {self.tensor_source(inp, requires)}")
            if requires:
                wanted.append(name)
        return wanted

    # -- samples --------------------------------------------------------------------------------
    def sample(self, number: int, sample: Sample) -> None:
        self.emit()
        self.emit(f"# sample {number}: {describe(sample)}")
        wanted = self.inputs(sample.inputs, differentiable=True)
        label = f"{number}: {one_line(sample.call)}"
        if assigns_out(sample):
            for statement in sample.call.splitlines():
                self.emit(statement)
            self.emit(f'rec("{label}", out)')
        else:
            self.emit(f'out = rec("{label}", {sample.call})')
        for expression in sample.also:
            self.emit(f'rec("{number}: {expression}", {expression})')
        self.checks.add("check:forward")
        differentiable = bool(sample.grad and wanted and self.operator.differentiable)
        if differentiable:
            self.gradients(number, sample, wanted)
        self.in_float64(number, sample, wanted if differentiable else [])
        if differentiable:
            self.forward_steps(number, sample, wanted)
        reason = sample.no_vmap or self.operator.no_vmap
        if reason:
            self.emit(f"# not run under vmap: {one_line(reason)}")
        else:
            self.vmap_steps(number, sample, wanted if differentiable else [])

    def gradients(self, number: int, sample: Sample, wanted: list[str]) -> None:
        """The first-order gradients of the ``wanted`` inputs for random ``grad_outputs``, through
        ``torch.autograd.grad`` or, where the item runs without it, through ``.backward()`` (every
        input is a leaf: its ``.grad``), recorded under the same label in the same form; then, where
        torch has them and the item runs with ``autograd.grad`` and ``higher-order``, the second-order
        gradients."""
        if not is_several(sample):
            if sample.outputs != "out":
                self.emit(f"out = {sample.outputs}")
            self.emit(f"grad_out = torch.tensor(random_floats(out.shape, seed={self.seed(number, 0)}, like=out), "
                      f"dtype=out.dtype, device=rec.device).reshape(out.shape)")
            outputs, grad_outputs = "out", "grad_out"
            backward = "out.backward(grad_out)"
        else:
            self.emit(f"outs = {sample.outputs}")
            self.emit(f"grad_outs = [torch.tensor(random_floats(o.shape, seed={self.seed(number, 0)} + i, like=o), "
                      f"dtype=o.dtype, device=rec.device).reshape(o.shape) for i, o in enumerate(outs)]")
            outputs, grad_outputs = "outs", "grad_outs"
            backward = "torch.autograd.backward(outs, grad_outs)"
        names = ", ".join(wanted)
        label = f"{number}: gradients of {names}"
        grads = [f"grad_{name}" for name in wanted]
        unpack = unpacking(grads)
        twice = self.twice(sample, wanted)
        if twice:
            self.emit(f'if rec.has("autograd.grad") and rec.has("higher-order") and not reduced{self.complex_only()}:')
            with self.indented():
                self.emit(f"{unpack} = torch.autograd.grad({outputs}, [{names}], {grad_outputs}, create_graph=True)")
                self.emit(f'rec("{label}", [{", ".join(f"{g}.detach()" for g in grads)}])')
                self.second_order(number, wanted, twice)
            self.emit('elif rec.has("autograd.grad"):  # no second-order gradients')
        else:
            self.emit('if rec.has("autograd.grad"):')
        with self.indented():
            self.emit(f"{unpack} = torch.autograd.grad({outputs}, [{names}], {grad_outputs})")
            self.emit(f'rec("{label}", [{", ".join(grads)}])')
        self.emit(f"else:  # through .backward() and the leaves' .grad{'; no second-order gradients' if twice else ''}")
        with self.indented():
            self.emit(backward)
            self.emit(f'rec("{label}", [{", ".join(f"{name}.grad" for name in wanted)}])')
        self.checks.add("check:grad")

    def in_float64(self, number: int, sample: Sample, wanted: list[str]) -> None:
        """In the reduced dtypes, the sample again in float64 on its inputs (and ``grad_outputs``) as rounded to
        the item's dtype: the forward value and the gradients of the ``wanted`` inputs, each under its label
        followed by ``FLOAT64_SUFFIX``. The rule of reduced precision (``tolerances``) measures both sides'
        errors against torch's."""
        floats = [name for name, inp in sample.inputs.items() if inp.kind == "float"]
        self.emit(f"if reduced:  # sample {number} in double precision, on the inputs as rounded to rec.dtype")
        with self.indented():
            self.emit("wide = getattr(torch, WIDE)")
            for name in floats:
                upcast = ".detach().to(wide).requires_grad_()" if name in wanted else ".detach().to(wide)"
                self.emit(f"{name} = {name}{upcast}")
            label = f"{number}: {one_line(sample.call)}{FLOAT64_SUFFIX}"
            if assigns_out(sample):
                for statement in sample.call.splitlines():
                    self.emit(statement)
                self.emit(f'rec("{label}", out)')
            else:
                self.emit(f'out = rec("{label}", {sample.call})')
            for expression in sample.also:
                self.emit(f'rec("{number}: {expression}{FLOAT64_SUFFIX}", {expression})')
            if not wanted:
                return
            names = ", ".join(wanted)
            label = f"{number}: gradients of {names}{FLOAT64_SUFFIX}"
            if is_several(sample):
                self.emit(f"outs = {sample.outputs}")
                self.emit("grad_outs = [g.to(o.dtype) for g, o in zip(grad_outs, outs)]  # double precision, of its kind")
                outputs, grad_outputs, backward = "outs", "grad_outs", "torch.autograd.backward(outs, grad_outs)"
            else:
                if sample.outputs != "out":
                    self.emit(f"out = {sample.outputs}")
                self.emit("grad_out = grad_out.to(out.dtype)  # the double precision dtype of its kind")
                outputs, grad_outputs, backward = "out", "grad_out", "out.backward(grad_out)"
            self.emit('if rec.has("autograd.grad"):')
            with self.indented():
                self.emit(f'rec("{label}", list(torch.autograd.grad({outputs}, [{names}], {grad_outputs})))')
            self.emit("else:")
            with self.indented():
                self.emit(backward)
                self.emit(f'rec("{label}", [{", ".join(f"{name}.grad" for name in wanted)}])')

    def twice(self, sample: Sample, wanted: list[str]) -> list[str]:
        """The inputs (of ``wanted``) whose first-order gradients torch differentiates again."""
        gradgrad = gradgrad_of(self.operator, self.variant, sample)
        return [name for name in wanted if gradgrad is True or (gradgrad and name in gradgrad)]

    def complex_only(self) -> str:
        """The condition that keeps second-order steps to the complex dtypes (``Operator.real_gradgrad``)."""
        return "" if self.operator.real_gradgrad else ' and rec.dtype.startswith("complex")'

    def second_order(self, number: int, wanted: list[str], twice: list[str]) -> None:
        """The second-order gradients of the ``wanted`` inputs through the first-order gradients of
        those in ``twice`` (taken with ``create_graph=True``) against random vectors."""
        names = ", ".join(wanted)
        nodes = ", ".join(f"grad_{name}.grad_fn" for name in twice)
        self.emit(f'rec("{number}: nodes that recorded the gradients of {", ".join(twice)}", [{nodes}])')
        firsts = ", ".join(f"grad_{name}" for name in twice)
        self.emit("vectors = [")
        for i, name in enumerate(twice):
            self.emit(f"{INDENT}torch.tensor(random_floats({name}.shape, seed={self.seed(number, 1 + i)}, like={name}), "
                      f"dtype=dtype, device=rec.device).reshape({name}.shape),")
        self.emit("]")
        self.emit("second = None  # an exception here is recorded, and the next samples are still checked")
        self.emit(f'with rec.attempt("{number}: second-order gradients of {names} are taken"):')
        with self.indented():
            self.emit(f"second = torch.autograd.grad([{firsts}], [{names}], vectors, materialize_grads=True)")
        self.emit("# clone(): torch may answer with an efficient zero tensor, whose values tolist() cannot read")
        self.emit(f'rec("{number}: second-order gradients of {names} through the gradients of '
                  f'{", ".join(twice)}", None if second is None else [g.clone() for g in second])')
        self.checks.add("check:gradgrad")

    def forward_steps(self, number: int, sample: Sample, wanted: list[str]) -> None:
        """Forward mode and forward-over-reverse, where the item runs with ``forward-ad``: every
        ``wanted`` input made dual with a seeded random tangent, the operator called again inside a
        dual level, and the tangents of its outputs recorded; then, where torch has second-order
        gradients and the item runs with ``autograd.grad`` and ``higher-order``, the tangents of the
        first-order gradients (the vector-Jacobian product for the same ``grad_outputs``, taken with
        ``create_graph=True`` on the dual inputs). Each is an attempt of its own: an operator torch
        has no forward formula for raises, and its exception is what is compared."""
        names = ", ".join(wanted)
        if "forward-mode" in self.operator.left_out:
            self.emit("# no forward mode: torch does not support it for this operator")
            return
        self.emit(f"# forward mode: the tangents for random tangents of {names}")
        self.emit('if rec.has("forward-ad") and not reduced:')
        with self.indented():
            self.emit("fwAD = torch.autograd.forward_ad")
            self.emit(f"primals = [{names}]")
            self.emit(f"tangents = [torch.tensor(random_floats(p.shape, seed={self.seed(number, 5)} + i, like=p), "
                      "dtype=dtype, device=rec.device).reshape(p.shape) for i, p in enumerate(primals)]")
            self.dual_attempt(number, sample, "forward-mode", wanted, self.forward_mode(sample))
            self.emit(f'rec("{number}: forward-mode tangents of the outputs for tangents of {names}", tangents_out)')
            twice = self.twice(sample, wanted)
            if not twice or "forward-over-reverse" in self.operator.left_out:
                return
            self.emit(f'if rec.has("autograd.grad") and rec.has("higher-order"){self.complex_only()}:')
            with self.indented():
                self.dual_attempt(number, sample, "forward-over-reverse", wanted,
                                  self.forward_over_reverse(sample, wanted, twice))
                self.emit(f'rec("{number}: forward-mode tangents of the gradients of {", ".join(twice)} '
                          f'for tangents of {names}", tangents_out)')

    def dual_attempt(self, number: int, sample: Sample, step: str, wanted: list[str], body: list[str]) -> None:
        """``body`` (which sets ``tangents_out``) in an attempt and a dual level, on the ``wanted``
        inputs made dual; the inputs are the primals again afterwards. ``step`` is one of
        ``FORWARD_STEPS``; where the table says torch raises in it, a comment says so."""
        self.emit("tangents_out = None  # an exception here is recorded, and the next steps are still checked")
        self.step_taken(sample, step)
        self.emit(f'with rec.attempt("{number}: {step} is taken"):')
        with self.indented():
            self.emit("with fwAD.dual_level():")
            with self.indented():
                self.emit(f"{unpacking(wanted)} = [fwAD.make_dual(p, t) for p, t in zip(primals, tangents)]")
                for line in body:
                    self.emit(line)
        self.emit(f"{unpacking(wanted)} = primals")

    def step_taken(self, sample: Sample, step: str) -> None:
        """Note that the sample takes ``step`` (of ``RAISING_STEPS``) and whether torch raises in it
        (``torch_raises`` of the operator or the sample), which a comment then says."""
        raises = step in self.operator.torch_raises or step in sample.torch_raises
        self.raised_in_torch[step].append(raises)
        self.checks.add(f"check:{step}")
        if raises:
            self.emit("# torch raises here (see the operator table): its exception is what is compared")

    def forward_mode(self, sample: Sample) -> list[str]:
        """The lines that call the operator on dual inputs and read the tangents of its outputs."""
        outputs = sample.outputs if is_several(sample) else f"[{sample.outputs}]"
        return [*call_lines(sample), *read_tangents(outputs)]

    def forward_over_reverse(self, sample: Sample, wanted: list[str], twice: list[str]) -> list[str]:
        """The lines that call the operator on dual inputs, take the gradients of the ``wanted``
        inputs with ``create_graph=True`` and read the tangents of those of ``twice``."""
        if is_several(sample):
            outputs, differentiated, grad_outputs = [f"outs = {sample.outputs}"], "outs", "grad_outs"
        else:
            outputs = [] if sample.outputs == "out" else [f"out = {sample.outputs}"]
            differentiated, grad_outputs = "out", "grad_out"
        grads = unpacking([f"grad_{name}" for name in wanted])
        return [*call_lines(sample), *outputs,
                f"{grads} = torch.autograd.grad({differentiated}, [{', '.join(wanted)}], {grad_outputs}, create_graph=True)",
                *read_tangents(f"[{', '.join(f'grad_{name}' for name in twice)}]")]

    def vmap_steps(self, number: int, sample: Sample, wanted: list[str]) -> None:
        """The sample under ``torch.func.vmap``, where the item runs with ``vmap`` and ``func-transforms``:
        its float inputs (or, without any, its other tensor inputs) stacked over a batch of ``BATCH``
        (the sample's own values, then values drawn alike: explicit values are copied), every other
        one at its last dimension, the rest not batched (``in_dims`` ``None``); the outputs recorded,
        and the members whose outputs the batched run does not reproduce (each member run alone on
        the same implementation, within the operator's tolerance class). Then, for the ``wanted``
        (differentiable) inputs and with ``autograd.grad``, ``vmap-of-vjp``: the pullback of
        ``torch.func.vjp`` under vmap over the batch and a batch of ``grad_outputs``, recorded and
        checked against each member's alone."""
        names = list(sample.inputs)
        floats = [name for name in names if sample.inputs[name].kind == "float"]
        batched = floats or names
        dims = {name: len(_shape_of(sample.inputs[name])) if k % 2 else 0 for k, name in enumerate(batched)}
        where = ", ".join(f"{name} at dim {dim}" for name, dim in dims.items())
        alone = [name for name in names if name not in dims]
        self.emit(f"# vmap: sample {number} and {BATCH - 1} more drawn alike, a batch of {BATCH} ({where}"
                  + (f"; {', '.join(alone)} not batched)" if alone else ")"))
        self.emit('if rec.has("vmap") and rec.has("func-transforms") and not reduced:')
        with self.indented():
            self.emit(f"def call_{number}({', '.join(names)}):")
            with self.indented():
                for line in call_lines(sample):
                    self.emit(line)
                self.emit("return out")
            self.members(number, sample, batched)
            self.emit("batched = [" + ", ".join(f"torch.stack([m[{k}] for m in members], {dims[name]})"
                                                for k, name in enumerate(batched)) + "]")
            in_dims = ", ".join(str(dims[name]) if name in dims else "None" for name in names)
            arguments = ", ".join(f"batched[{batched.index(name)}].clone()" if name in dims else name for name in names)
            each = ", ".join(f"m[{batched.index(name)}].clone()" if name in dims else name for name in names)
            self.vmap_attempt(number, sample, "vmap", f"call_{number}", f"({in_dims},)", arguments,
                              f"[call_{number}({each}) for m in members]", "the outputs")
            if wanted:
                self.emit('if rec.has("autograd.grad"):  # torch.func.vjp is built on it')
                with self.indented():
                    self.vmap_of_vjp(number, sample, wanted, in_dims, arguments, each)

    def members(self, number: int, sample: Sample, batched: list[str]) -> None:
        """``members``: per member of the batch, the values of the ``batched`` inputs (the sample's own
        first, then random inputs drawn alike from a generator of the sample's own, explicit values copied)."""
        rng = np.random.default_rng(self.seed(number, 7))
        imaginary_rng = np.random.default_rng([self.seed(number, 7), 1])
        self.emit("members = [")
        self.emit(f"{INDENT}[{', '.join(f'{name}.detach()' for name in batched)}],")
        for _ in range(BATCH - 1):
            alike = []
            for name in batched:
                inp = sample.inputs[name]
                if inp.kind == "float" and inp.values is None and inp.numel:
                    values = self.random_values(inp, inp.shape, rng, imaginary_rng)
                    alike.append(f"torch.tensor({values}, dtype=dtype, device=rec.device)")
                else:
                    alike.append(f"{name}.detach().clone()")
            self.emit(f"{INDENT}[{', '.join(alike)}],")
        self.emit("]")

    def vmap_of_vjp(self, number: int, sample: Sample, wanted: list[str], in_dims: str, arguments: str, each: str) -> None:
        """The ``vmap-of-vjp`` step: ``torch.func.vjp``'s pullback of the ``wanted`` inputs under vmap, for
        the sample's ``grad_outputs`` and more drawn alike, one per member of the batch."""
        names = list(sample.inputs)
        self.emit(f"def pullback_{number}(cotangents, {', '.join(names)}):")
        with self.indented():
            self.emit(f"def outputs({', '.join(wanted)}):")
            with self.indented():
                for line in call_lines(sample):
                    self.emit(line)
                self.emit(f"return {sample.outputs}")
            self.emit(f"return torch.func.vjp(outputs, {', '.join(wanted)})[1](cotangents)")
        if is_several(sample):
            more = [f"[torch.tensor(random_floats(g.shape, seed={self.seed(number, 8)} + {10 * m} + i, like=g), "
                    "dtype=g.dtype, device=rec.device).reshape(g.shape) for i, g in enumerate(grad_outs)]"
                    for m in range(1, BATCH)]
            self.emit(f"cotangents = [grad_outs, {', '.join(more)}]")
            stacked = "[torch.stack(parts) for parts in zip(*cotangents)]"
        else:
            more = [f"torch.tensor(random_floats(grad_out.shape, seed={self.seed(number, 8)} + {10 * m}, like=grad_out), "
                    "dtype=grad_out.dtype, device=rec.device).reshape(grad_out.shape)" for m in range(1, BATCH)]
            self.emit(f"cotangents = [grad_out, {', '.join(more)}]")
            stacked = "torch.stack(cotangents)"
        alone = f"[pullback_{number}(cotangent, {each}) for cotangent, m in zip(cotangents, members)]"
        self.vmap_attempt(number, sample, "vmap-of-vjp", f"pullback_{number}", f"(0, {in_dims})",
                          f"{stacked}, {arguments}", alone,
                          f"the gradients (vector-Jacobian products) for {', '.join(wanted)}")  # judged as gradients

    def vmap_attempt(self, number: int, sample: Sample, step: str, function: str, in_dims: str, arguments: str,
                     alone: str, what: str) -> None:
        """In an attempt, ``function`` under vmap on the batched ``arguments`` and on each member alone;
        then the batched result (``what`` it is) and the members it does not reproduce are recorded."""
        self.emit("vmapped = alone = None  # an exception here is recorded, and the next steps are still checked")
        self.step_taken(sample, step)
        self.emit(f'with rec.attempt("{number}: {step} is taken"):')
        with self.indented():
            self.emit(f"vmapped = torch.func.vmap({function}, in_dims={in_dims})({arguments})")
            self.emit(f"alone = {alone}")
        self.emit(f'rec("{number}: {step}: {what} over the batch", vmapped)')
        self.emit(f'rec("{number}: {step}: the members that running alone gives other results", '
                  "None if alone is None else differing(vmapped, alone, *tolerance))")

    def raises(self, number: int, error: Raises) -> None:
        self.emit()
        self.emit(f"# invalid call {number}: {describe(error)}")
        self.inputs(error.inputs, differentiable=True)
        self.emit(f'with rec.attempt("invalid {number}: {one_line(error.call)}"):')
        for statement in error.call.splitlines():
            self.emit(INDENT + statement)
        self.checks.add("check:error")


def read_tangents(outputs: str) -> list[str]:
    """The lines that set ``tangents_out`` to the tangents of the ``outputs`` (an expression giving a list)."""
    return ["# detach().clone(): their values, in ordinary tensors (not whether they require grad; no efficient zeros)",
            "tangents_out = [fwAD.unpack_dual(o).tangent for o in " + outputs + "]",
            "tangents_out = [t if t is None else t.detach().clone() for t in tangents_out]"]


def assigns_out(sample: Sample) -> bool:
    """Whether the sample's call is statements that assign ``out`` rather than an expression."""
    return "out =" in sample.call or "out +=" in sample.call


def call_lines(sample: Sample) -> list[str]:
    """The statements that call the sample's operator and leave its result in ``out``."""
    return sample.call.splitlines() if assigns_out(sample) else [f"out = {sample.call}"]


def is_several(sample: Sample) -> bool:
    """Whether the sample's ``outputs`` is a list of outputs rather than one."""
    return sample.outputs.startswith(("list(", "[", "("))


def unpacking(names: list[str]) -> str:
    """The target of an assignment that unpacks a sequence into ``names``."""
    return f"({names[0]},)" if len(names) == 1 else ", ".join(names)


def explicit(inp: Input, options: str, differentiable: bool) -> str:
    """The source of a tensor of explicit values; ``options`` follow the values (dtype, device). A
    ``"strided"`` input stores each element followed by a zero and takes every other one of its last dimension."""
    if inp.layout == "contiguous":
        return f"torch.tensor({literal(inp.values)}{options}{', requires_grad=True' if differentiable else ''})"
    if inp.layout != "strided":
        raise ValueError(f"explicit values in the {inp.layout} layout")
    grad = ".requires_grad_()" if differentiable else ""
    return f"torch.tensor({literal(interleaved(inp.values))}{options})[..., ::2]{grad}"


def interleaved(values):
    """Nested lists whose innermost lists have a zero after each element (a strided input's storage)."""
    if isinstance(values, list) and values and not isinstance(values[0], list):
        return [x for value in values for x in (value, type(value)(0))]
    if isinstance(values, list):
        return [interleaved(v) for v in values]
    raise ValueError("a strided input needs at least one dimension")


def apply_signs(values, signs):
    if isinstance(values, list):
        return [apply_signs(v, s) for v, s in zip(values, signs)]
    return values if signs else -values


def describe(sample: Sample | Raises) -> str:
    parts = []
    for name, inp in sample.inputs.items():
        shape = _shape_of(inp)
        extra = f" {inp.layout}" if inp.layout != "contiguous" else ""
        kind = "" if inp.kind == "float" else f" {inp.kind}"
        parts.append(f"{name} {shape}{kind}{extra}")
    shapes = ", ".join(parts)
    return "; ".join(p for p in (sample.note, shapes) if p) or "no tensor inputs"


def _shape_of(inp: Input) -> tuple[int, ...]:
    if inp.values is None:
        return inp.shape
    return tuple(np.shape(np.asarray(inp.values, dtype=object))) if not _is_empty(inp.values) else (0,)


def _is_empty(values) -> bool:
    return isinstance(values, list) and len(values) == 0


def one_line(call: str) -> str:
    """The call on one line, fit for a double-quoted label in the scenario."""
    return spec.one_line(call).replace("\\", "\\\\").replace('"', "'")


def features_of(operator: Operator, variant: Variant, source: str) -> tuple[str, ...]:
    found = set(detected(source)) | set(operator.features)
    for sample in variant.samples:
        if any(inp.numel > 1 for inp in sample.inputs.values()) or not sample.inputs:
            found.add("non-scalar")
        if any(not inp.is_float for inp in sample.inputs.values()):
            found.add("integer-dtypes")
        if any(inp.layout != "contiguous" for inp in sample.inputs.values()):
            found.add("views")
        if IN_PLACE.search(sample.call):
            found.add("in-place")
        if "numpy." in sample.call:
            found.add("numpy-interop")
    return tuple(name for name in FEATURES if name in found)


@dataclass(frozen=True)
class Rendered:
    """A variant rendered: its scenario's source and what the case says about it (``cases.build`` makes the case)."""

    id: str
    source: str
    title: str
    tags: tuple[str, ...]
    features: tuple[str, ...]


def rendered(operator: Operator, variant: Variant) -> Rendered:
    writer = Writer(operator, variant)
    tolerance = variant.tolerance or operator.tolerance
    writer.emit(f"tolerance = TOLERANCE[rec.dtype]  # (rtol, atol) of the vmap steps: the class {tolerance.name}")
    if any("F." in entry.call for entry in variant.samples):
        writer.emit("F = torch.nn.functional")
    samples = errors = 0
    for entry in variant.samples:
        if isinstance(entry, Raises):
            errors += 1
            writer.raises(errors, entry)
        else:
            samples += 1
            writer.sample(samples, entry)
    source = "\n".join(writer.lines) + "\n"
    return Rendered(
        id=writer.id, source=source,
        title=title(operator, variant, writer.checks, writer.refused(), samples, errors),
        tags=("op", f"op:{qualified_name(operator)}", *sorted(writer.checks),
              *(f"torch-refuses:{step}" for step in writer.refused())),
        features=features_of(operator, variant, source))


def title(operator: Operator, variant: Variant, checks: set[str], refused: tuple[str, ...], samples: int,
          errors: int) -> str:
    parts = []
    if samples:
        what = ["values", "node names"]
        if "check:gradgrad" in checks:
            what.append("first- and second-order gradients")
        elif "check:grad" in checks:
            what.append("gradients")
        for step in RAISING_STEPS:
            if f"check:{step}" in checks:
                what.append(STEP_TITLES[step] + (" (torch refuses them)" if step in refused else ""))
        parts.append(f"{', '.join(what[:-1])} and {what[-1]} of {samples} sample{'s' if samples > 1 else ''}")
    if errors:
        parts.append(f"the errors of {errors} invalid call{'s' if errors > 1 else ''}")
    return f"{operator.name} ({variant.name}): " + "; ".join(parts)
