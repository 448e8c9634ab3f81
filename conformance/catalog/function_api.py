"""The rest of ``torch.autograd.Function``'s documented API: ``vjp`` as the backward's other name, keyword
arguments of ``apply``, ``setup_context``'s binding of the arguments, ``clear_saved_tensors_on_access``,
``boxed_grads_call``, ``InplaceFunction``, ``mark_shared_storage``, and the ``vmap`` staticmethod and
``generate_vmap_rule`` under ``torch.func.vmap``."""

from .. import docs
from ..case import case

FUNCTION_VJP = docs.docstring("torch.autograd.Function.vjp")
FUNCTION_VMAP = docs.docstring("torch.autograd.Function.vmap")
SETUP_CONTEXT = docs.docstring("torch.autograd.Function.setup_context")
INPLACE_FUNCTION = docs.docstring("torch.autograd.function.InplaceFunction")
EXTENDING_FUNC = docs.note("autograd-function-and-torch-func", "Extending torch.func with autograd.Function",
                           f"{docs.DOCS_ROOT}/notes/extending.func.html")


# -- vjp, backward's other name ------------------------------------------------------------------

@case("A Function that defines vjp instead of backward uses it as its backward",
      doc=FUNCTION_VJP,
      features=("non-scalar", "custom-function"))
def vjp_instead_of_backward(torch, rec):
    class Triple(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def vjp(ctx, g):
            return g * 3

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Triple.apply(x)
    rec("y.grad_fn", y.grad_fn)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("A Function that defines both backward and vjp raises when its backward runs",
      doc=FUNCTION_VJP, tags=("error",),
      features=("non-scalar", "custom-function"))
def backward_and_vjp_both_raises(torch, rec):
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Twice.apply(x)
    rec("y", y)
    y.sum().backward()


@case("A Function defining neither backward nor vjp applies, and its backward raises NotImplementedError",
      doc=FUNCTION_VJP, tags=("error",),
      features=("custom-function",))
def neither_backward_nor_vjp_raises(torch, rec):
    class ForwardOnly(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    y = ForwardOnly.apply(x)
    rec("y", y)
    y.backward()


# -- the arguments of apply ------------------------------------------------------------------------

@case("apply's keyword arguments reach forward(ctx, ...) and count as inputs, after the positional ones: "
      "needs_input_grad and the gradients backward returns cover them",
      doc=docs.AUTOGRAD_FUNCTION,
      features=("non-scalar", "custom-function"))
def apply_keyword_arguments_are_inputs(torch, rec):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2.0):
            ctx.save_for_backward(x, k)
            rec("needs_input_grad", ctx.needs_input_grad)
            return x * k

        @staticmethod
        def backward(ctx, g):
            x, k = ctx.saved_tensors
            return g * k, (g * x).sum()

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    k = torch.tensor(3.0, requires_grad=True, device=rec.device)
    y = Scale.apply(x, k=k)
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)
    rec("k.grad", k.grad)
    only_x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("apply(x=...) keeps the graph", Scale.apply(x=only_x, k=k).grad_fn is not None)


@case("A Function with setup_context gets its arguments bound to forward's signature, defaults included: "
      "setup_context's inputs hold the default, and backward must return a gradient for it",
      doc=SETUP_CONTEXT, tags=("error",),
      features=("non-scalar", "custom-function"))
def setup_context_inputs_include_defaults(torch, rec):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, k=2.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            rec("setup_context inputs", inputs)
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with rec.attempt("an unknown keyword argument"):
        Scale.apply(x, scale=3.0)
    y = Scale.apply(x)
    rec("y", y)
    y.sum().backward()


@case("setup_context with a forward that still takes ctx: apply binds the arguments to forward's signature "
      "and raises TypeError for the argument left over",
      doc=SETUP_CONTEXT, tags=("error",),
      features=("custom-function",))
def setup_context_with_ctx_forward_raises(torch, rec):
    class Mixed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    Mixed.apply(x)


# -- class attributes --------------------------------------------------------------------------------

@case("clear_saved_tensors_on_access = True: saved_tensors can be read once; a second read, in backward, "
      "from grad_fn or by a second backward, raises",
      doc=docs.AUTOGRAD_FUNCTION, tags=("error",),
      features=("non-scalar", "retain-graph", "custom-function"))
def clear_saved_tensors_on_access(torch, rec):
    class Square(torch.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            with rec.attempt("a second read in backward"):
                rec("second read", ctx.saved_tensors)
            return 2 * x * g

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Square.apply(x)
    y.sum().backward(retain_graph=True)
    rec("x.grad", x.grad)
    with rec.attempt("grad_fn.saved_tensors after backward"):
        rec("grad_fn.saved_tensors", y.grad_fn.saved_tensors)
    with rec.attempt("a second backward"):
        y.sum().backward()


@case("boxed_grads_call = True: backward(ctx, grads) receives the gradients as one mutable list",
      doc=docs.AUTOGRAD_FUNCTION,
      features=("non-scalar", "custom-function"))
def boxed_grads_call(torch, rec):
    class Pair(torch.autograd.Function):
        boxed_grads_call = True

        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grads):
            rec("grads received", (type(grads).__name__, grads))
            first = grads.pop(0)
            second = grads.pop(0)
            return first * 2 + second * 3

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a, b = Pair.apply(x)
    (a + b * 10).sum().backward()
    rec("x.grad", x.grad)


@case("The ctx forward receives is the grad_fn of its outputs: an instance of BackwardCFunction and of "
      "FunctionCtx",
      doc=docs.docstring("torch.autograd.function.BackwardCFunction"),
      features=("custom-function",))
def ctx_is_the_backward_node(torch, rec):
    contexts = []

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            contexts.append(ctx)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    y = Double.apply(x)
    rec.same("ctx is y.grad_fn", contexts[0], y.grad_fn)
    function = torch.autograd.function
    rec("isinstance(ctx, (BackwardCFunction, FunctionCtx))",
        (isinstance(contexts[0], function.BackwardCFunction), isinstance(contexts[0], function.FunctionCtx)))


# -- legacy --------------------------------------------------------------------------------------------

@case("InplaceFunction: an instance warns as any Function instance and keeps its inplace flag; its "
      "subclasses apply as a Function does, in place with mark_dirty",
      doc=INPLACE_FUNCTION, tags=("warning",),
      features=("non-scalar", "in-place", "custom-function"))
def inplace_function(torch, rec):
    class Double_(torch.autograd.function.InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    rec("inplace flags", (Double_(inplace=True).inplace, Double_().inplace))
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    h = x + 0
    y = Double_.apply(h)
    rec.same("y is h", y, h)
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("ctx.mark_shared_storage is deprecated: it warns and does nothing",
      doc=docs.AUTOGRAD_FUNCTION, tags=("warning",),
      features=("non-scalar", "custom-function"))
def mark_shared_storage_warns(torch, rec):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_shared_storage((x, y))
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Double.apply(x)
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)


# -- under torch.func.vmap -------------------------------------------------------------------------------

def sine_with_vmap_rule(torch, rule_calls):
    """``k * sin(x)`` as a Function in the setup_context style with a vmap staticmethod that records what it
    is given in ``rule_calls`` and applies the Function to the unwrapped batch."""

    class ScaledSin(torch.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x.sin() * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * ctx.k, None

        @staticmethod
        def vmap(info, in_dims, x, k):
            rule_calls.append((info.batch_size, info.randomness, in_dims, tuple(x.shape)))
            return ScaledSin.apply(x, k), in_dims[0]

    return ScaledSin


@case("Under vmap a Function's vmap staticmethod gets (info, in_dims, *unwrapped args) and returns "
      "(output, out_dims); info has batch_size and randomness; nested vmaps call it once per level, and grad "
      "under vmap differentiates through the Function",
      doc=FUNCTION_VMAP,
      features=("non-scalar", "custom-function", "func-transforms", "vmap"))
def vmap_staticmethod(torch, rec):
    rule_calls = []
    ScaledSin = sine_with_vmap_rule(torch, rule_calls)
    x = torch.tensor([[0.0, 1.0, 2.0], [2.0, 3.0, 4.0]], device=rec.device)
    rec("vmap", torch.func.vmap(ScaledSin.apply, in_dims=(0, None))(x, 2.0))
    rec("vmap with randomness='different'",
        torch.func.vmap(ScaledSin.apply, in_dims=(0, None), randomness="different")(x, 2.0))
    rec("vmap of vmap", torch.func.vmap(torch.func.vmap(ScaledSin.apply, in_dims=(0, None)), in_dims=(0, None))(x, 2.0))
    rec("vmap of grad", torch.func.vmap(torch.func.grad(lambda v: ScaledSin.apply(v, 2.0).sum()))(x))
    rec("rule calls", rule_calls)


@case("generate_vmap_rule = True: vmap runs the Function's forward on the batch, with no vmap staticmethod",
      doc=FUNCTION_VMAP,
      features=("non-scalar", "custom-function", "func-transforms", "vmap"))
def generate_vmap_rule(torch, rec):
    class Cube(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    rec("vmap", torch.func.vmap(Cube.apply)(x))
    rec("vmap over dim 1", torch.func.vmap(Cube.apply, in_dims=1)(x))


@case("vmap of a Function raises where it cannot batch it: no vmap staticmethod nor generate_vmap_rule, "
      "forward still taking ctx (setup_context is required), or both a vmap staticmethod and generate_vmap_rule",
      doc=EXTENDING_FUNC, tags=("error",),
      features=("non-scalar", "custom-function", "func-transforms", "vmap"))
def vmap_without_rule_raises(torch, rec):
    class NoRule(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class CtxForward(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Both(NoRule):
        generate_vmap_rule = True

        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, in_dims[0]

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    with rec.attempt("no rule"):
        torch.func.vmap(NoRule.apply)(x)
    with rec.attempt("forward taking ctx"):
        torch.func.vmap(CtxForward.apply)(x)
    with rec.attempt("both a rule and generate_vmap_rule"):
        torch.func.vmap(Both.apply)(x)
