"""The fuzzer's bookkeeping steps: hooks, ``retain_grad``, grad modes, custom Functions, batched gradients.

A mixin of ``generator.Generator`` (it uses the generator's ``draw``, ``gate``, ``pick``, ``leaf``,
``result`` and ``op``). These steps draw what engines get wrong without any formula being wrong:
the order hooks run in, a grad mode left changed by an exception or inherited by a thread, what a
custom Function's ``ctx`` says and saves, which gradients reach its backward, a gradient batched
over rows of ``grad_outputs``.
"""

from __future__ import annotations

from .program import GRAD_MODES, RECORDING_MODES, Program, Var, known

SET_GRAD_ENABLED_CALL = "set_grad_enabled call"   # torch.set_grad_enabled(False) as a call, then True again
MODE_FORMS = GRAD_MODES + RECORDING_MODES[1:] + (SET_GRAD_ENABLED_CALL,)
HOOK_FORMS = ("g * 2", "g * 0.5", "g * -1", "g + 1")
BATCHED_FORMS = ("{x} * {x}", "{x}.sin() * 2", "{x}.exp()", "{x}.pow(3)", "({x} * {x}).sum()")


class BookkeepingSteps:
    # -- retain_grad and hooks --------------------------------------------------------------
    def retain_grad(self, program: Program) -> None:
        var = self.pick(program, lambda v: True)
        if var is not None:
            program.attempt(f"{var.name}.retain_grad()", [f"{var.name}.retain_grad()"])
            var.retains = var.retains or (var.requires_grad and not var.leaf)

    def hook(self, program: Program) -> None:
        """A tensor hook (two in a row do not commute: ``g + 1`` and ``g * 2``), a post-accumulate-grad
        hook scaling ``.grad``, or a pre-hook or hook on a result's node."""
        var = self.pick(program, lambda v: True)
        if var is None:
            return
        forms = ("tensor", "tensor", "two tensor hooks", "post_accumulate", "node")
        if not self.gate.allows("post-accumulate-grad hooks"):
            forms = tuple(f for f in forms if f != "post_accumulate")
        form = self.draw(self.st.sampled_from(forms))
        change = self.draw(self.st.sampled_from(HOOK_FORMS))
        if form == "tensor":
            statement = f"{var.name}.register_hook(lambda g: {change})"
            program.attempt(statement, [statement])
        elif form == "two tensor hooks":  # they run in the order they were registered
            first, second = (f"{var.name}.register_hook(lambda g: {c})" for c in ("g + 1", change))
            program.attempt(f"{first}; {second}", [first, second])
        elif form == "post_accumulate":  # returns None: it changes .grad in place
            hook = f"change_{var.name}_grad"
            statement = f"{var.name}.register_post_accumulate_grad_hook({hook})"
            in_place = change.replace("g * ", "p.grad.mul_(").replace("g + ", "p.grad.add_(") + ")"
            program.attempt(statement, [f"def {hook}(p):", f"    {in_place}", statement])
        else:
            var = self.pick(program, lambda v: v.requires_grad and not v.leaf)
            if var is None:
                return
            each = f"tuple(None if g is None else {change} for g in grads)"
            statement = self.draw(self.st.sampled_from((
                f"{var.name}.grad_fn.register_prehook(lambda grads: {each})",
                f"{var.name}.grad_fn.register_hook(lambda grads, outputs: {each})")))
            program.attempt(statement, [statement])

    # -- grad modes ---------------------------------------------------------------------------
    def mode(self, program: Program) -> None:
        """An op under a grad mode (a block, nested blocks, or ``set_grad_enabled`` called); an exception
        leaving a block; a thread started inside a block."""
        form = self.draw(self.st.sampled_from(("op", "op", "op", "exception", "thread")))
        if form == "op":
            forms = MODE_FORMS if self.gate.allows("inference mode") else tuple(f for f in MODE_FORMS
                                                                                 if f != GRAD_MODES[3])
            self.op(program, under=self.draw(self.st.sampled_from(forms)))
            return
        block = self.draw(self.st.sampled_from(GRAD_MODES[:2] + RECORDING_MODES[1:]))
        if form == "exception":
            program.attempt(f"an exception leaves the block {block}",
                            [f"with {block}:", "    raise ValueError('leaving the block')"])
            program.emit("rec('torch.is_grad_enabled() after the block', torch.is_grad_enabled())")
            return
        program.uses_threading = True
        program.attempt(f"a thread started under {block}", [
            "seen = []", f"with {block}:",
            "    worker = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))",
            "    worker.start()", "    worker.join()",
            "rec('torch.is_grad_enabled() in the thread', seen)"])

    # -- custom Functions ---------------------------------------------------------------------
    def function(self, program: Program) -> None:
        """A custom ``torch.autograd.Function`` applied to program tensors: one that saves its inputs
        (``needs_input_grad`` recorded, an input then changed in place), one with two outputs of which
        one is used (``materialize_grads`` on or off), one with a non-differentiable output, one whose
        backward is ``once_differentiable`` (then differentiated twice)."""
        a = self.pick(program, known) or self.leaf(program)
        name = program.new_function_name()
        form = self.draw(self.st.sampled_from(("saved", "two_outputs", "non_differentiable", "once")))
        getattr(self, f"_function_{form}")(program, name, a)

    def _define(self, program: Program, name: str, forward: list[str], backward: list[str],
                once: bool = False) -> None:
        decorator = ["    @torch.autograd.function.once_differentiable"] if once else []
        program.attempt(f"class {name}(torch.autograd.Function)", [
            f"class {name}(torch.autograd.Function):", "    @staticmethod", *(f"    {line}" for line in forward),
            "", "    @staticmethod", *decorator, *(f"    {line}" for line in backward)])

    def _function_saved(self, program: Program, name: str, a: Var) -> None:
        b = self.pick(program, lambda v: v is not a and v.shape == a.shape) if self.draw(self.st.booleans()) else None
        b = b or self.leaf(program, a.shape)
        self._define(program, name, [
            "def forward(ctx, a, b):", f"    rec('{name}.forward: ctx.needs_input_grad', ctx.needs_input_grad)",
            "    ctx.save_for_backward(a, b)", "    return a * b + a",
        ], [
            "def backward(ctx, grad):", "    a, b = ctx.saved_tensors",
            f"    rec('{name}.backward: ctx.needs_input_grad', ctx.needs_input_grad)",
            "    return (grad * (b + 1) if ctx.needs_input_grad[0] else None,",
            "            grad * a if ctx.needs_input_grad[1] else None)",
        ])
        out = self.result(program, a.shape, a.requires_grad or b.requires_grad)
        program.made(out, [a, b])
        program.attempt(f"{out.name} = {name}.apply({a.name}, {b.name})",
                        [f"{out.name} = {name}.apply({a.name}, {b.name})", program.record(out)])
        writable = [v for v in (b, a) if not (v.leaf and v.requires_grad)]
        if writable and self.gate.allows("a saved input changed in place") and self.draw(self.st.booleans()):
            statement = f"{writable[0].name}.add_(1)"  # a saved input changed: its backward must refuse
            program.attempt(statement, [statement, program.record(writable[0], version=True)])
            program.changed_in_place(writable[0], [])

    def _function_two_outputs(self, program: Program, name: str, a: Var) -> None:
        materialize = self.draw(self.st.booleans())
        self._define(program, name, [
            "def forward(ctx, a):", *([] if materialize else ["    ctx.set_materialize_grads(False)"]),
            "    ctx.save_for_backward(a)", "    return a * 2, a.exp()",
        ], [
            "def backward(ctx, grad_double, grad_exp):", "    a, = ctx.saved_tensors",
            f"    rec('{name}.backward: the gradients it receives', (grad_double, grad_exp))",
            "    total = torch.zeros_like(a)",
            "    if grad_double is not None:", "        total = total + grad_double * 2",
            "    if grad_exp is not None:", "        total = total + grad_exp * a.exp()",
            "    return total",
        ])
        index = self.draw(self.st.integers(0, 1))
        out = self.result(program, a.shape, a.requires_grad)
        program.made(out, [a])
        call = f"{out.name} = {name}.apply({a.name})[{index}]"
        program.attempt(call, [call, program.record(out)])

    def _function_non_differentiable(self, program: Program, name: str, a: Var) -> None:
        self._define(program, name, [
            "def forward(ctx, a):", "    sign = a.sign()", "    ctx.mark_non_differentiable(sign)",
            "    return a * 2, sign",
        ], [
            "def backward(ctx, grad, grad_sign):",
            f"    rec('{name}.backward: the gradient of the non-differentiable output', grad_sign)",
            "    return grad * 2",
        ])
        out = self.result(program, a.shape, a.requires_grad)
        program.made(out, [a])
        sign = self.result(program, a.shape, False)
        call = f"{out.name}, {sign.name} = {name}.apply({a.name})"
        program.attempt(call, [call, program.record(out), program.record(sign)])

    def _function_once(self, program: Program, name: str, a: Var) -> None:
        self._define(program, name, [
            "def forward(ctx, a):", "    ctx.save_for_backward(a)", "    return a * a * a",
        ], [
            "def backward(ctx, grad):", "    a, = ctx.saved_tensors", "    return grad * 3 * a * a",
        ], once=True)
        out = self.result(program, a.shape, a.requires_grad)
        program.made(out, [a])
        call = f"{out.name} = {name}.apply({a.name})"
        program.attempt(call, [call, program.record(out)])
        if (a.requires_grad and self.gate.allows("differentiating a once_differentiable backward")
                and self.can_backward(program, out)):
            gradient = self.result(program, a.shape, True, operand=False)
            program.made(gradient, [out, a])
            program.attempt(f"differentiate {name} twice", [
                f"{gradient.name}, = torch.autograd.grad({out.name}.sum(), [{a.name}], create_graph=True)",
                program.record(gradient), f"rec('second derivative', torch.autograd.grad({gradient.name}.sum(), "
                                          f"[{a.name}]))"])
            program.went_through(gradient)

    # -- batched gradients --------------------------------------------------------------------
    def batched_grad(self, program: Program) -> None:
        """``torch.autograd.grad(..., is_grads_batched=True)`` of a small function of a fresh leaf, with
        two different rows of ``grad_outputs``."""
        x = self.leaf(program, requires_grad=True)
        form = self.draw(self.st.sampled_from(BATCHED_FORMS))
        expr = form.format(x=x.name)
        shape = () if form.endswith(".sum()") else x.shape
        rows = f"torch.stack([{self.weights_literal(shape)}, {self.weights_literal(shape, start=3)}])"
        out = self.result(program, (2,) + x.shape, False)
        call = f"{out.name}, = torch.autograd.grad({expr}, [{x.name}], grad_outputs={rows}, is_grads_batched=True)"
        program.attempt(call, [call, program.record(out)])
