"""Custom autograd Functions: ``torch.autograd.Function`` subclasses and their ``ctx``."""

from .. import docs
from ..case import case

SETUP_CONTEXT = docs.docstring("torch.autograd.Function.setup_context")
FUNCTION_BACKWARD = docs.docstring("torch.autograd.Function.backward")
FUNCTION_FORWARD = docs.docstring("torch.autograd.Function.forward")


# -- basics ----------------------------------------------------------------------------------

@case("A custom Function gives a non-leaf output with grad_fn '<Class>Backward' and its backward's gradients",
      doc=docs.EXTENDING_AUTOGRAD,
      features=("non-scalar", "custom-function"))
def basic_function(torch, rec):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Cube.apply(x)
    rec("y", y)
    rec("y.grad_fn", y.grad_fn)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("ctx.needs_input_grad tells, per forward input, whether it requires grad (False for non-tensors)",
      doc=docs.EXTENDING_AUTOGRAD,
      features=("custom-function",))
def needs_input_grad(torch, rec):
    flags = []

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            flags.append(("forward", ctx.needs_input_grad))
            return x * w * k

        @staticmethod
        def backward(ctx, g):
            flags.append(("backward", ctx.needs_input_grad))
            return g * 2, None, None

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    w = torch.tensor([2.0], device=rec.device)
    Scale.apply(x, w, 3.0).sum().backward()
    rec("needs_input_grad", flags)
    rec("x.grad", x.grad)


@case("Function.apply with no input requiring grad returns a plain tensor without grad_fn",
      doc=docs.EXTENDING_AUTOGRAD,
      features=("non-scalar", "custom-function"))
def apply_without_requires_grad(torch, rec):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = Double.apply(x)
    rec("y", y)
    rec("y.grad_fn", y.grad_fn)


@case("A custom Function's output is a new tensor: forward returning an input unchanged gives a view of it",
      doc=docs.EXTENDING_AUTOGRAD, tags=("hard",),
      features=("non-scalar", "views", "custom-function"))
def returning_input_gives_new_tensor(torch, rec):
    class Identity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Identity.apply(x)
    rec.same("y is x", y, x)
    rec("y._is_view()", y._is_view())
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("A Function written with forward(*args) and a separate setup_context works like the ctx style",
      doc=SETUP_CONTEXT,
      features=("custom-function",))
def setup_context_style(torch, rec):
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(a, b):
            return a * b

        @staticmethod
        def setup_context(ctx, inputs, output):
            a, b = inputs
            ctx.save_for_backward(a, b)

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a

    a = torch.tensor([2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0], requires_grad=True, device=rec.device)
    y = Mul.apply(a, b)
    rec("y", y)
    y.backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("Non-tensor outputs of forward are returned as they are",
      doc=FUNCTION_FORWARD,
      features=("custom-function",))
def non_tensor_outputs_returned_as_is(torch, rec):
    class WithCount(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7, "label"

        @staticmethod
        def backward(ctx, g, g_count, g_label):
            return g * 2

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    y, count, label = WithCount.apply(x)
    rec("count, label", (count, label))
    y.sum().backward()
    rec("x.grad", x.grad)


# -- what backward returns ---------------------------------------------------------------------

@case("backward returning the wrong number of gradients raises",
      doc=FUNCTION_BACKWARD, tags=("error",),
      features=("custom-function",))
def wrong_number_of_gradients_raises(torch, rec):
    class Add(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    a = torch.tensor([1.0], requires_grad=True, device=rec.device)
    b = torch.tensor([2.0], requires_grad=True, device=rec.device)
    Add.apply(a, b).sum().backward()


@case("backward returning a gradient of the wrong shape raises",
      doc=FUNCTION_BACKWARD, tags=("error",),
      features=("non-scalar", "custom-function"))
def wrong_gradient_shape_raises(torch, rec):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3, device=rec.device)

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    Bad.apply(x).sum().backward()


@case("backward returning a smaller gradient that would broadcast to the input's shape is rejected",
      doc=FUNCTION_BACKWARD, tags=("error", "hard"),
      features=("non-scalar", "custom-function"))
def smaller_broadcastable_gradient_rejected(torch, rec):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum().reshape(1)

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    Bad.apply(x).sum().backward()


@case("backward may return a gradient with extra leading dimensions: they are summed to the input's shape",
      doc=FUNCTION_BACKWARD, tags=("hard",),
      features=("non-scalar", "views", "custom-function"))
def extra_leading_dims_summed(torch, rec):
    class Spread(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(3, 2) * torch.tensor([[1.0], [2.0], [4.0]], device=rec.device)

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    Spread.apply(x).sum().backward()
    rec("x.grad", x.grad)


@case("backward returning a gradient for a non-tensor input raises",
      doc=FUNCTION_BACKWARD, tags=("error",),
      features=("non-scalar", "custom-function"))
def gradient_for_non_tensor_input_raises(torch, rec):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    Scale.apply(x, 2.0).sum().backward()


@case("A gradient of another floating dtype returned by backward is cast to the input's dtype",
      doc=FUNCTION_BACKWARD,
      features=("non-scalar", "float64", "custom-function"))
def gradient_dtype_cast(torch, rec):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).double()

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    Double.apply(x).sum().backward()
    rec("x.grad", x.grad)


@case("backward returning None for an input that requires grad leaves that input's .grad None",
      doc=FUNCTION_BACKWARD,
      features=("custom-function",))
def none_gradient_leaves_grad_none(torch, rec):
    class First(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, None

    a = torch.tensor([1.0], requires_grad=True, device=rec.device)
    b = torch.tensor([2.0], requires_grad=True, device=rec.device)
    First.apply(a, b).sum().backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("An exception raised inside backward propagates unchanged to the caller of backward()",
      doc=FUNCTION_BACKWARD, tags=("error",),
      features=("custom-function",))
def exception_in_backward_propagates(torch, rec):
    class Fails(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward refused this gradient")

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    y = Fails.apply(x)
    rec("y", y)
    y.sum().backward()


# -- non-differentiable outputs and materialized grads -----------------------------------------

@case("mark_non_differentiable on a float output: it does not require grad, has no grad_fn, and computations on "
      "it are not recorded; backward gets a zero gradient for it",
      doc=docs.FUNCTION_CTX_MARK_NON_DIFFERENTIABLE,
      features=("non-scalar", "custom-function"))
def mark_non_differentiable_float_output(torch, rec):
    received = []

    class ScaleWithMask(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(mask)
            return x * 2, mask

        @staticmethod
        def backward(ctx, g_out, g_mask):
            received.append(g_mask)
            return g_out * 2

    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True, device=rec.device)
    out, mask = ScaleWithMask.apply(x)
    rec("mask", mask)
    rec("mask * 3: not recorded", mask * 3)
    (out * 1).sum().backward()
    rec("gradient received for the mask", received)
    rec("x.grad", x.grad)


@case("mark_non_differentiable: that output does not require grad, and backward still gets a zero gradient for it",
      doc=docs.FUNCTION_CTX_MARK_NON_DIFFERENTIABLE,
      features=("non-scalar", "in-place", "custom-function"))
def mark_non_differentiable(torch, rec):
    received = []

    class MaxWithIndex(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax()
            ctx.save_for_backward(idx)
            ctx.mark_non_differentiable(idx)
            return x.max(), idx

        @staticmethod
        def backward(ctx, g_value, g_idx):
            received.append(g_idx)
            (idx,) = ctx.saved_tensors
            grad = torch.zeros(3, device=rec.device)
            grad[idx] = g_value
            return grad

    x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True, device=rec.device)
    value, idx = MaxWithIndex.apply(x)
    rec("value", value)
    rec("idx", idx)
    value.backward()
    rec("gradient received for idx", received)
    rec("x.grad", x.grad)


@case("By default backward receives zeros for outputs that got no gradient",
      doc=docs.FUNCTION_CTX_SET_MATERIALIZE_GRADS,
      features=("non-scalar", "custom-function"))
def materialize_grads_default(torch, rec):
    received = []

    class Pair(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            received.append((g1, g2))
            return g1 * 2 + g2 * 3

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    first, _ = Pair.apply(x)
    first.sum().backward()
    rec("(g1, g2) received", received)
    rec("x.grad", x.grad)


@case("After ctx.set_materialize_grads(False) backward receives None for outputs that got no gradient",
      doc=docs.FUNCTION_CTX_SET_MATERIALIZE_GRADS,
      features=("non-scalar", "custom-function"))
def materialize_grads_false(torch, rec):
    received = []

    class Pair(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            received.append((g1, g2))
            grad = g1 * 2
            if g2 is not None:
                grad = grad + g2 * 3
            return grad

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    first, _ = Pair.apply(x)
    first.sum().backward()
    rec("(g1, g2) received", received)
    rec("x.grad", x.grad)


# -- higher order ------------------------------------------------------------------------------

@case("A backward written with differentiable ops supports double backward",
      doc=docs.EXTENDING_AUTOGRAD,
      features=("autograd.grad", "higher-order", "custom-function"))
def double_backward_through_backward(torch, rec):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.tensor([3.0], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    rec("dy/dx", g)
    (g2,) = torch.autograd.grad(g.sum(), x)
    rec("d2y/dx2", g2)


def once_differentiable_square(torch):
    """``x * x`` as a custom Function (node ``SquareBackward``) whose backward is marked
    once_differentiable: the scenarios below differentiate through it a second time."""
    once_differentiable = torch.autograd.function.once_differentiable

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


@case("once_differentiable: with an incoming gradient that does not require grad, the result does not "
      "either, so differentiating it again raises",
      doc=docs.EXTENDING_AUTOGRAD, tags=("error", "hard"),
      features=("autograd.grad", "higher-order", "custom-function"))
def once_differentiable_result_without_grad(torch, rec):
    Square = once_differentiable_square(torch)
    x = torch.tensor([3.0], requires_grad=True, device=rec.device)
    (g,) = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    rec("g", g)
    torch.autograd.grad(g.sum(), x)


@case("once_differentiable: when the incoming gradient requires grad, the result's grad_fn is an Error node "
      "whose edges lead to stand-in leaves, not to x: autograd.grad of it with respect to x finds x unused, "
      "and a backward that runs every node raises (found by the fuzzer)",
      doc=docs.EXTENDING_AUTOGRAD, tags=("error", "hard"),
      features=("autograd.grad", "higher-order", "custom-function", "graph-introspection", "retain-graph"))
def once_differentiable_double_backward_raises(torch, rec):
    Square = once_differentiable_square(torch)
    x = torch.tensor([3.0], requires_grad=True, device=rec.device)
    y = Square.apply(x)
    (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
    rec("g", g)
    rec("d g / d x (allow_unused)", torch.autograd.grad(g.sum(), x, retain_graph=True, allow_unused=True))
    g.sum().backward()


# -- mark_dirty ---------------------------------------------------------------------------------

@case("mark_dirty: an in-place Function returns the very input object, its _version bumped",
      doc=docs.FUNCTION_CTX_MARK_DIRTY,
      features=("non-scalar", "in-place", "version-counter", "custom-function"))
def mark_dirty_returns_input(torch, rec):
    class AddOne_(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.clone()
    rec("y before", y, version=True)
    z = AddOne_.apply(y)
    rec.same("z is y", z, y)
    rec("y after", y, version=True)
    z.sum().backward()
    rec("x.grad", x.grad)


@case("mark_dirty on a leaf that requires grad raises",
      doc=docs.FUNCTION_CTX_MARK_DIRTY, tags=("error",),
      features=("non-scalar", "in-place", "custom-function"))
def mark_dirty_leaf_raises(torch, rec):
    class AddOne_(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    AddOne_.apply(x)


@case("mark_dirty given a tensor that is not an input only warns",
      doc=docs.FUNCTION_CTX_MARK_DIRTY, tags=("warning",),
      features=("non-scalar", "custom-function"))
def mark_dirty_non_input_warns(torch, rec):
    class Odd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Odd.apply(x)
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)


# -- saved tensors -----------------------------------------------------------------------------

@case("save_for_backward with something other than a tensor or None raises TypeError",
      doc=docs.FUNCTION_CTX_SAVE_FOR_BACKWARD, tags=("error",),
      features=("custom-function",))
def save_for_backward_non_tensor_raises(torch, rec):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x, k)
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    Scale.apply(x, 3)


@case("Reading saved_tensors after backward freed the graph raises",
      doc=docs.FUNCTION_CTX_SAVE_FOR_BACKWARD, tags=("error",),
      features=("non-scalar", "retain-graph", "custom-function"))
def saved_tensors_after_free_raises(torch, rec):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = Square.apply(x)
    y.sum().backward()
    rec("x.grad", x.grad)
    rec("y.grad_fn.saved_tensors after backward", y.grad_fn.saved_tensors)


@case("A tensor saved with save_for_backward and then modified in place makes backward raise the version error",
      doc=docs.FUNCTION_CTX_SAVE_FOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar", "in-place", "version-counter", "custom-function"))
def saved_tensor_modified_inplace_raises(torch, rec):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    h = x + 1
    y = Square.apply(h)
    h.add_(1)
    rec("h", h, version=True)
    y.sum().backward()


# -- legacy -------------------------------------------------------------------------------------

@case("Instantiating a Function with a legacy non-static forward warns; calling the instance raises",
      doc=docs.AUTOGRAD_FUNCTION, tags=("warning", "error"),
      features=("custom-function",))
def legacy_non_static_forward(torch, rec):
    class Legacy(torch.autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, g):
            return g * 2

    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    fn = Legacy()
    rec("instantiated", fn is not None)
    fn(x)


@case("once_differentiable: autograd.grad through the result of its backward raises, as backward() does",
      doc=docs.EXTENDING_AUTOGRAD, tags=("error", "hard"),
      features=("autograd.grad", "higher-order", "custom-function"))
def once_differentiable_autograd_grad_raises(torch, rec):
    Square = once_differentiable_square(torch)
    x = torch.tensor([3.0], requires_grad=True, device=rec.device)
    y = Square.apply(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True, grad_outputs=torch.ones((), requires_grad=True,
                                                                                       device=rec.device))
    rec("g", g)
    torch.autograd.grad(g.sum(), x)
