"""Custom Functions under forward-mode AD: ``Function.jvp``, ``ctx.save_for_forward``, and the checks
torch makes of what ``jvp`` returns (in-place and view outputs, non-differentiable outputs, counts and
shapes). The rest of forward mode is the topic ``forward_ad``."""

from .. import docs
from ..case import case

FUNCTION_JVP = docs.docstring("torch.autograd.Function.jvp")
SAVE_FOR_FORWARD = docs.docstring("torch.autograd.function.FunctionCtx.save_for_forward")


@case("A custom Function's jvp gets the input's tangent and returns the output's; tensors saved with "
      "ctx.save_for_forward are in ctx.saved_tensors there", doc=SAVE_FOR_FORWARD,
      features=("non-scalar", "forward-ad", "custom-function"))
def jvp_with_save_for_forward(torch, rec):
    fwAD = torch.autograd.forward_ad

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

        @staticmethod
        def jvp(ctx, x_t):
            (x,) = ctx.saved_tensors
            rec("jvp: the input's tangent", x_t)
            rec("jvp: ctx.saved_tensors", ctx.saved_tensors)
            return 3 * x ** 2 * x_t

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                              torch.tensor([1.0, 0.5], device=rec.device))
        rec("unpack_dual(Cube.apply(dual))", fwAD.unpack_dual(Cube.apply(dual)))


@case("A custom Function without jvp raises NotImplementedError when given a dual tensor, and works "
      "on plain tensors", doc=FUNCTION_JVP, tags=("error",),
      features=("non-scalar", "forward-ad", "custom-function"))
def function_without_jvp_raises(torch, rec):
    fwAD = torch.autograd.forward_ad

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        rec("Double.apply(x) of a plain tensor", Double.apply(x))
        Double.apply(fwAD.make_dual(x, torch.tensor([1.0, 1.0], device=rec.device)))


@case("jvp sees only what save_for_forward saved: tensors saved with save_for_backward alone are not in "
      "ctx.saved_tensors there, while attributes set on ctx are", doc=docs.EXTENDING_FORWARD_AD,
      features=("non-scalar", "forward-ad", "custom-function"))
def jvp_does_not_see_tensors_saved_for_backward(torch, rec):
    fwAD = torch.autograd.forward_ad

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.x = x
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

        @staticmethod
        def jvp(ctx, x_t):
            rec("jvp: len(ctx.saved_tensors)", len(ctx.saved_tensors))
            return 2 * ctx.x * x_t

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 3.0], device=rec.device),
                              torch.tensor([1.0, 1.0], device=rec.device))
        rec("unpack_dual(Square.apply(dual))", fwAD.unpack_dual(Square.apply(dual)))


@case("jvp gets a zero tangent for an input without one, and None once ctx.set_materialize_grads(False); "
      "non-tensor inputs get None", doc=docs.EXTENDING_FORWARD_AD,
      features=("non-scalar", "forward-ad", "custom-function"))
def jvp_tangents_are_materialized(torch, rec):
    fwAD = torch.autograd.forward_ad

    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, materialize):
            ctx.set_materialize_grads(materialize)
            ctx.save_for_forward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a, None

        @staticmethod
        def jvp(ctx, a_t, b_t, materialize_t):
            rec("jvp: tangents of a, b and materialize", (a_t, b_t, materialize_t))
            a, b = ctx.saved_tensors
            return a_t * b if b_t is None else a_t * b + a * b_t

    with fwAD.dual_level():
        a = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device), torch.tensor([1.0, 1.0], device=rec.device))
        b = torch.tensor([3.0, 4.0], device=rec.device)
        rec("tangent with materialized tangents", fwAD.unpack_dual(Mul.apply(a, b, True)).tangent)
        rec("tangent without", fwAD.unpack_dual(Mul.apply(a, b, False)).tangent)


@case("A custom Function that modifies its input in place (mark_dirty) must modify the tangent in place in "
      "jvp: then the input's tangent changes, otherwise it raises", doc=docs.EXTENDING_FORWARD_AD,
      tags=("error",),
      features=("non-scalar", "forward-ad", "custom-function", "in-place"))
def mark_dirty_jvp_works_in_place(torch, rec):
    fwAD = torch.autograd.forward_ad

    class DoubleInPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, x_t):
            return x_t.mul_(2)

    class DoubleOutOfPlaceTangent(DoubleInPlace):
        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                              torch.tensor([1.0, -1.0], device=rec.device))
        out = DoubleInPlace.apply(dual)
        rec.same("the output is the input", out, dual)
        rec("unpack_dual(dual)", fwAD.unpack_dual(dual))
        other = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                               torch.tensor([1.0, -1.0], device=rec.device))
        DoubleOutOfPlaceTangent.apply(other)


@case("A custom Function whose output is a view of its input must return a view of the input's tangent "
      "from jvp: a view works, a copy raises", doc=docs.EXTENDING_FORWARD_AD, tags=("error",),
      features=("non-scalar", "forward-ad", "custom-function", "views"))
def view_output_needs_a_view_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad

    class Flatten(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2, 2)

        @staticmethod
        def jvp(ctx, x_t):
            return x_t.view(-1)

    class FlattenCopiedTangent(Flatten):
        @staticmethod
        def jvp(ctx, x_t):
            return x_t.reshape(-1).clone()

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device),
                              torch.tensor([[1.0, 0.0], [0.0, 1.0]], device=rec.device))
        rec("unpack_dual(Flatten.apply(dual))", fwAD.unpack_dual(Flatten.apply(dual)))
        FlattenCopiedTangent.apply(dual)


@case("An output marked non-differentiable gets no tangent (jvp returns None for it); returning a tangent "
      "for it raises", doc=docs.FUNCTION_CTX_MARK_NON_DIFFERENTIABLE, tags=("error",),
      features=("non-scalar", "forward-ad", "custom-function", "integer-dtypes"))
def non_differentiable_outputs_get_no_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad

    class Sort(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_forward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, g_values, g_indices):
            return None

        @staticmethod
        def jvp(ctx, x_t):
            (indices,) = ctx.saved_tensors
            return x_t[indices], None

    class MarkedDouble(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return None

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([3.0, 1.0, 2.0], device=rec.device),
                              torch.tensor([10.0, 20.0, 30.0], device=rec.device))
        values, indices = Sort.apply(dual)
        rec("unpack_dual(values)", fwAD.unpack_dual(values))
        rec("unpack_dual(indices)", fwAD.unpack_dual(indices))
        MarkedDouble.apply(dual)


@case("jvp must return one tangent per output, of the output's shape: another count or shape raises",
      doc=FUNCTION_JVP, tags=("error",),
      features=("non-scalar", "forward-ad", "custom-function"))
def jvp_results_are_checked(torch, rec):
    fwAD = torch.autograd.forward_ad

    class TwoTangents(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2, x_t

    class SummedTangent(TwoTangents):
        @staticmethod
        def jvp(ctx, x_t):
            return (x_t * 2).sum()

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                              torch.tensor([1.0, 1.0], device=rec.device))
        with rec.attempt("jvp returning two tangents for one output"):
            TwoTangents.apply(dual)
        with rec.attempt("jvp returning a tangent of shape () for an output of shape (2,)"):
            SummedTangent.apply(dual)
