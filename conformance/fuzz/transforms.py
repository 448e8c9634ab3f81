"""The fuzzer's forward-mode and transform steps: dual levels, and torch.func transforms of pure sub-functions.

A mixin of ``generator.Generator`` (it uses the generator's ``draw``, ``gate``, ``pick``, ``leaf``,
``result``, ``values`` and its operation draws). Two kinds of steps:

* ``dual``: a ``torch.autograd.forward_ad.dual_level`` around a part of the program. One or two
  tensors of the program are made dual (``make_dual``) with drawn tangents; one to four operations
  follow, drawn as the generator's ``op`` draws them (elementwise operators of the operator table,
  Python-number operands, reductions, matrix products), on the dual tensors or on any other of the
  program's; the tangent of every result is read with ``unpack_dual`` and recorded. Then, now and
  then, forward-over-reverse (the tangent of a gradient ``autograd.grad`` took with
  ``create_graph=True`` inside the level); a tangent of the wrong shape (``make_dual``'s error);
  and, after the level, the tangent of its last result, which the level's end must have deleted.
  A tensor made in inference mode (or computed from one) is never made dual: torch gives a dual of
  it tangents through some operations and not others, by which internal overload each dispatches
  to (``dual * 2`` keeps its tangent, ``dual.exp()`` loses it, ``dual.abs()`` raises about
  ``abs_out``), which is no documented behaviour; the ``forward_ad`` topic records the rule itself.
  The dual tensors and the results stay in the program: later steps compute with them, as with views
  of their primals. Every operation in a level is also an operation of the program (its value
  recorded, its graph there for the gradients the program ends with), so the kind is drawn four
  times as often as the others but ``op`` (a wrong forward formula of one operator among the table's
  is found within a minute: ``tests/test_fuzz.py``).
* ``transform``: a pure function of one or two tensors (``def f0(a, b)``: a chain of elementwise
  operators of the table and Python-number operands, ending in a weighted sum where the transform
  needs a number), and one transform of it applied to tensors of the program: ``grad`` and
  ``grad_and_value`` (``argnums`` an int or a tuple), ``vjp`` (its function applied to a drawn
  cotangent), ``jvp``, ``vmap`` (``in_dims`` on any dimension of the batched argument, ``None`` for
  the other), ``jacrev``, ``jacfwd``, and the compositions ``vmap(grad(f))`` (per-sample gradients)
  and ``vmap(jvp)``. Their results' values are recorded, and whether each requires grad (a result
  that depends on a tensor of the program that requires grad stays differentiable), not the names
  of the nodes torch.func's own graph gives them (``program.RESULTS_OF``); no later step computes
  with them.

What each needs is in ``gate.USES`` (``forward-ad``, ``func-transforms``, ``vmap``): a profile that
lacks a feature never gets the steps or the transforms that use it.
"""

from __future__ import annotations

from .program import Program, Var, known

FORWARD_OPS = ("elementwise", "elementwise", "elementwise", "table", "table", "scalar", "reduce", "matmul")
# each transform -> the use of gate.USES it needs
TRANSFORMS = {
    "grad": "function transforms", "grad_and_value": "function transforms", "vjp": "function transforms",
    "jvp": "forward-mode transforms", "jacfwd": "forward-mode transforms over vmap",
    "vmap": "vmap", "jacrev": "vmap", "vmap(grad)": "vmap", "vmap(jvp)": "forward-mode transforms over vmap",
}
# what each transform's recorded result is
RESULTS = {"grad": "gradient", "grad_and_value": "(gradient, value)", "vjp": "(output, vector-Jacobian product)",
           "jvp": "(output, tangent)", "jacfwd": "Jacobian (from tangents)", "vmap": "outputs", "jacrev": "Jacobian",
           "vmap(grad)": "per-sample gradients", "vmap(jvp)": "per-sample (output, tangent)"}
NUMBER_FORMS = ("{h} * 2", "{h} + 0.5", "1.5 - {h}", "{h} * {h}")


class TransformSteps:
    # -- forward mode ---------------------------------------------------------------------------
    def dual(self, program: Program) -> None:
        """A dual level around a few operations on dual tensors, their tangents recorded."""
        program.uses_forward_ad = True
        primals = [self.pick(program, lambda v: known(v) and not v.from_inference) or self.leaf(program)]
        if self.draw(self.st.booleans()):
            second = self.pick(program, lambda v: known(v) and v is not primals[0] and not v.from_inference)
            primals += [second] if second is not None else []
        body, duals = [], []
        for primal in primals:
            dual = self.result(program, primal.shape, primal.requires_grad)
            dual.from_inference, dual.from_backward = primal.from_inference, primal.from_backward
            dual.memory, dual.data_alias = primal.memory, primal.data_alias  # make_dual gives a view of its primal
            program.made(dual, [primal])
            tangent_shape = primal.shape
            if self.draw(self.st.integers(0, 15)) == 0:  # make_dual refuses a tangent of another shape
                tangent_shape = (4,) if primal.shape != (4,) else (2, 2)
            body.append(f"{dual.name} = fwAD.make_dual({primal.name}, {self.tangent_literal(tangent_shape)})")
            duals.append(dual)
        results = []
        for _ in range(self.draw(self.st.integers(1, 6))):
            made = getattr(self, f"_{self.forward_op()}")(program)
            if made is None:
                continue
            expr, shape, inputs, _ = made
            out = self.result(program, shape, any(v.requires_grad for v in inputs))
            out.from_inference = any(v.from_inference for v in inputs)
            if shape is None:
                out.memory = out.memory.union(*(v.memory for v in inputs))
            program.made(out, inputs)
            body += [f"{out.name} = {expr}", program.record(out), tangent_record(out)]
            results.append(out)
        last = results[-1] if results else duals[-1]
        if last.requires_grad and self.gate.allows("forward-over-reverse") and self.draw(self.st.booleans()):
            body += self.forward_over_reverse(program, last, duals)
        labels = ", ".join(f"{v.name}" for v in results) or "nothing"
        names = ", ".join(p.name for p in primals)
        program.attempt(f"dual level: {names} made dual; tangents of {labels}",
                        ["with fwAD.dual_level():", *(f"    {line}" for line in body),
                         f"rec({f'{last.name}: unpack_dual after the level'!r}, fwAD.unpack_dual({last.name}))"])

    def forward_op(self) -> str:
        kinds = tuple(kind for kind in FORWARD_OPS if (kind != "table" or self.table)
                      and (kind != "matmul" or self.gate.allows("matrix products")))
        return self.draw(self.st.sampled_from(kinds))

    def forward_over_reverse(self, program: Program, out: Var, duals: list[Var]) -> list[str]:
        """The tangents of the gradients of ``out`` with respect to the dual tensors that require grad,
        taken with ``create_graph=True`` inside the level."""
        wrt = [v for v in duals if v.requires_grad]
        if not wrt or not self.can_backward(program, out):
            return []
        names = ", ".join(v.name for v in wrt)
        output = (f"{out.name}, [{names}], grad_outputs={self.weights_literal(out.shape)}" if known(out)
                  else f"{out.name}.sum(), [{names}]")
        grads = [f"d{out.name}_d{v.name}" for v in wrt]
        return [f"{', '.join(grads)}, = torch.autograd.grad({output}, create_graph=True, allow_unused=True)",
                *(f"rec({f'{g}: tangent (forward-over-reverse)'!r}, tangent_of({g}))" for g in grads)]

    def tangent_literal(self, shape: tuple[int, ...]) -> str:
        return self.tensor_literal(shape, -1.0, 1.0)

    # -- transforms of pure functions ------------------------------------------------------------
    def transform(self, program: Program) -> None:
        """A pure function of one or two tensors of the program, and a transform of it applied to them."""
        forms = [name for name, use in TRANSFORMS.items() if self.gate.allows(use)]
        form = self.draw(self.st.sampled_from(forms))
        batched = form in ("vmap", "vmap(grad)", "vmap(jvp)")
        first = self.pick(program, lambda v: known(v) and len(v.shape) >= 1 and 0 not in v.shape) if batched else \
            self.pick(program)
        first = first or self.leaf(program, (2, 3) if batched else None)
        in_dim = self.draw(self.st.integers(-len(first.shape), len(first.shape) - 1)) if batched else None
        shape = tuple(s for i, s in enumerate(first.shape) if i != in_dim % len(first.shape)) if batched else first.shape
        args = [first]
        if self.draw(self.st.booleans()):
            second = self.pick(program, lambda v: known(v) and v is not first and v.shape in (shape, ()))
            args.append(second or self.leaf(program, shape))
        scalar = form in ("grad", "grad_and_value", "vmap(grad)")
        name = self.pure_function(program, len(args), shape, scalar)
        names = ", ".join(v.name for v in args)
        call = getattr(self, "_" + form.replace("(", "_of_").rstrip(")"))(name, args, shape, in_dim)
        label = f"{form} of {name} at {names}"
        program.uses_transforms = True
        program.attempt(label, [f"rec({f'{label}: {RESULTS[form]}'!r}, results_of({call}))"])

    def pure_function(self, program: Program, arity: int, shape: tuple[int, ...], scalar: bool) -> str:
        """``def f0(a, b): ...``, a chain of one to three operations on its parameters (each of ``shape``
        or 0-d), ending in a weighted sum when ``scalar``; its name."""
        name = program.new_function_name("f")
        parameters = ["a", "b"][:arity]
        lines = [f"def {name}({', '.join(parameters)}):", "    h = a"]
        for _ in range(self.draw(self.st.integers(1, 3))):
            op = self.draw(self.st.sampled_from(self.ops))
            if self.draw(self.st.integers(0, 3)) == 0:
                expr = self.draw(self.st.sampled_from(NUMBER_FORMS)).format(h="h")
            elif op.arity == 1:
                expr = op.call("h")
            else:
                operands = ("h", self.draw(self.st.sampled_from(parameters)))
                expr = op.call(*(operands if self.draw(self.st.booleans()) else operands[::-1]))
            program.uses_functional |= op.template.startswith("F.")
            lines.append(f"    h = {expr}")
        if scalar:
            lines.append(f"    return (h * {self.weights_literal(shape)}).sum()")
        else:
            lines.append("    return h")
        program.emit(*lines)
        return name

    def _argnums(self, args: list[Var]) -> str:
        if len(args) == 1:
            return ""
        return ", argnums=" + self.draw(self.st.sampled_from(("0", "1", "(0, 1)", "(1, 0)")))

    def _grad(self, name: str, args: list[Var], shape, in_dim) -> str:
        return f"torch.func.grad({name}{self._argnums(args)})({', '.join(v.name for v in args)})"

    def _grad_and_value(self, name: str, args: list[Var], shape, in_dim) -> str:
        return f"torch.func.grad_and_value({name}{self._argnums(args)})({', '.join(v.name for v in args)})"

    def _vjp(self, name: str, args: list[Var], shape, in_dim) -> str:
        return (f"(lambda out, vjp_fn: (out, vjp_fn({self.weights_literal(shape)})))"
                f"(*torch.func.vjp({name}, {', '.join(v.name for v in args)}))")

    def _jvp(self, name: str, args: list[Var], shape, in_dim) -> str:
        tangents = ", ".join(self.tangent_literal(v.shape) for v in args)
        return f"torch.func.jvp({name}, ({', '.join(v.name for v in args)},), ({tangents},))"

    def _jacrev(self, name: str, args: list[Var], shape, in_dim) -> str:
        return f"torch.func.jacrev({name}{self._argnums(args)})({', '.join(v.name for v in args)})"

    def _jacfwd(self, name: str, args: list[Var], shape, in_dim) -> str:
        return f"torch.func.jacfwd({name}{self._argnums(args)})({', '.join(v.name for v in args)})"

    def _in_dims(self, args: list[Var], in_dim: int) -> str:
        return f"in_dims=({in_dim}, None)" if len(args) == 2 else f"in_dims={in_dim}"

    def _vmap(self, name: str, args: list[Var], shape, in_dim) -> str:
        return f"torch.func.vmap({name}, {self._in_dims(args, in_dim)})({', '.join(v.name for v in args)})"

    def _vmap_of_grad(self, name: str, args: list[Var], shape, in_dim) -> str:
        return (f"torch.func.vmap(torch.func.grad({name}), {self._in_dims(args, in_dim)})"
                f"({', '.join(v.name for v in args)})")

    def _vmap_of_jvp(self, name: str, args: list[Var], shape, in_dim) -> str:
        """A jvp per sample, the tangent batched with its primal."""
        batched = args[0].shape
        tangent = self.tangent_literal(batched)
        if len(args) == 1:
            inner = f"lambda x, t: torch.func.jvp({name}, (x,), (t,))"
            return f"torch.func.vmap({inner}, in_dims=({in_dim}, {in_dim}))({args[0].name}, {tangent})"
        inner = f"lambda x, t, y: torch.func.jvp(lambda x: {name}(x, y), (x,), (t,))"
        return f"torch.func.vmap({inner}, in_dims=({in_dim}, {in_dim}, None))({args[0].name}, {tangent}, {args[1].name})"


def tangent_record(var: Var) -> str:
    """``rec`` of the tangent of ``var`` (None without one), as an ordinary tensor (``program.TANGENT_OF``)."""
    return f"rec({f'{var.name}: tangent'!r}, tangent_of({var.name}))"
