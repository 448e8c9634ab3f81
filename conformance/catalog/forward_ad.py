"""Forward-mode AD (``torch.autograd.forward_ad``): dual levels, dual tensors and their tangents.

Inside a ``dual_level``, ``make_dual(x, v)`` gives ``x`` a tangent ``v``; every operation carries
the tangent forward (a Jacobian-vector product) and ``unpack_dual`` reads it back. These cases
cover the level's lifetime, the checks ``make_dual`` makes, tangents through views and in-place
operations, grad modes and ``requires_grad``, an operator without a forward formula, and forward
mode combined with reverse mode (forward-over-reverse and reverse-over-forward). Custom Functions
with ``jvp`` are the topic ``forward_ad_function``.
"""

from .. import docs
from ..case import case
from ..operators.tolerances import CHAINED, ELEMENTARY

BOTH = ("float32", "float64")
MAKE_DUAL = docs.docstring("torch.autograd.forward_ad.make_dual")
UNPACK_DUAL = docs.docstring("torch.autograd.forward_ad.unpack_dual")
DUAL_LEVEL = docs.docstring("torch.autograd.forward_ad.dual_level")
EXIT_DUAL_LEVEL = docs.docstring("torch.autograd.forward_ad.exit_dual_level")


# -- dual levels -----------------------------------------------------------------------------

@case("Inside dual_level, make_dual gives a tensor a tangent and unpack_dual reads the result's value and its "
      "Jacobian-vector product", doc=docs.FORWARD_AD, dtypes=BOTH, tolerances=ELEMENTARY.per_dtype(),
      features=("non-scalar", "forward-ad", "float64"))
def jacobian_vector_product(torch, rec):
    fwAD = torch.autograd.forward_ad
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, 2.0, -1.0], dtype=dtype, device=rec.device)
    v = torch.tensor([1.0, -2.0, 0.5], dtype=dtype, device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        out = dual.sin() * dual + dual.exp().sum()
        primal, tangent = fwAD.unpack_dual(out)
        rec("primal of sin(x) * x + exp(x).sum()", primal)
        rec("tangent: the Jacobian-vector product", tangent)


@case("dual_level yields the level it entered, 0, and so does enter_dual_level; exit_dual_level(level=0) "
      "leaves it", doc=DUAL_LEVEL,
      features=("non-scalar", "forward-ad"))
def levels_are_numbered_from_zero(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level() as level:
        rec("the level dual_level yields", level)
    level = rec("enter_dual_level()", fwAD.enter_dual_level())
    dual = fwAD.make_dual(x, torch.tensor([3.0, 4.0], device=rec.device), level=level)
    rec("unpack_dual(dual, level=level)", fwAD.unpack_dual(dual, level=level))
    fwAD.exit_dual_level(level=level)
    rec("unpack_dual(dual) after exit_dual_level", fwAD.unpack_dual(dual))


@case("When the level ends its tangents are deleted: the dual tensors and the results keep their values "
      "without tangent, in a new level too, where they can be made dual again", doc=DUAL_LEVEL,
      features=("non-scalar", "forward-ad"))
def tangents_end_with_their_level(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, 0.5], device=rec.device))
        out = dual * dual
        rec("tangent of out inside the level", fwAD.unpack_dual(out).tangent)
    rec("unpack_dual(out) after the level", fwAD.unpack_dual(out))
    rec("unpack_dual(dual) after the level", fwAD.unpack_dual(dual))
    with fwAD.dual_level():
        rec("unpack_dual(out) in a new level", fwAD.unpack_dual(out))
        again = fwAD.make_dual(out, torch.tensor([2.0, 2.0], device=rec.device))
        rec("out made dual again in the new level", fwAD.unpack_dual(again * 3))


@case("Nested dual levels are not supported: entering a second one raises, and the outer level goes on",
      doc=DUAL_LEVEL, tags=("error",),
      features=("non-scalar", "forward-ad"))
def nested_levels_raise(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, -1.0], device=rec.device))
        with rec.attempt("with dual_level() inside a dual_level"):
            with fwAD.dual_level():
                rec("inside the nested level", True)
        with rec.attempt("enter_dual_level() inside a dual_level"):
            fwAD.enter_dual_level()
        rec("the outer level's tangent", fwAD.unpack_dual(dual * 2).tangent)


@case("exit_dual_level with no level entered raises, and so does exiting a level other than the last one",
      doc=EXIT_DUAL_LEVEL, tags=("error",),
      features=("forward-ad",))
def exit_without_a_level_raises(torch, rec):
    fwAD = torch.autograd.forward_ad
    with rec.attempt("exit_dual_level() with no level entered"):
        fwAD.exit_dual_level()
    with rec.attempt("exit_dual_level(level=0) with no level entered"):
        fwAD.exit_dual_level(level=0)
    with fwAD.dual_level():
        with rec.attempt("exit_dual_level(level=1) inside level 0"):
            fwAD.exit_dual_level(level=1)


# -- make_dual and unpack_dual ---------------------------------------------------------------

@case("unpack_dual returns the named tuple UnpackedDualTensor, whose fields are primal and tangent",
      doc=docs.docstring("torch.autograd.forward_ad.UnpackedDualTensor"),
      features=("non-scalar", "forward-ad"))
def unpack_dual_is_a_named_tuple(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        unpacked = fwAD.unpack_dual(fwAD.make_dual(x, torch.tensor([0.5, 0.25], device=rec.device)))
        rec("type(unpacked) is UnpackedDualTensor", type(unpacked) is fwAD.UnpackedDualTensor)
        rec("type(unpacked).__name__", type(unpacked).__name__)
        rec("isinstance(unpacked, tuple)", isinstance(unpacked, tuple))
        rec("UnpackedDualTensor._fields", fwAD.UnpackedDualTensor._fields)
        rec("len(unpacked)", len(unpacked))
        rec("unpacked.primal", unpacked.primal)
        rec("unpacked.tangent", unpacked.tangent)
        rec("unpacked[1] is unpacked.tangent", unpacked[1] is unpacked.tangent)


@case("unpack_dual of a tensor without tangent gives tangent None, inside a level and outside any",
      doc=UNPACK_DUAL,
      features=("non-scalar", "forward-ad"))
def plain_tensor_has_no_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    rec("unpack_dual(x) outside a level", fwAD.unpack_dual(x))
    with fwAD.dual_level():
        rec("unpack_dual(x) inside a level", fwAD.unpack_dual(x))
        rec("unpack_dual(x * 2) inside a level", fwAD.unpack_dual(x * 2))


@case("make_dual outside a dual level raises", doc=MAKE_DUAL, tags=("error",),
      features=("non-scalar", "forward-ad"))
def make_dual_outside_a_level_raises(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    fwAD.make_dual(x, torch.tensor([1.0, 1.0], device=rec.device))


@case("make_dual refuses a tangent of another shape, even one that broadcasts to the primal's",
      doc=MAKE_DUAL, tags=("error",),
      features=("non-scalar", "forward-ad"))
def tangent_of_another_shape_raises(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    with fwAD.dual_level():
        with rec.attempt("make_dual(x of shape (2, 2), tangent of shape (2,))"):
            fwAD.make_dual(x, torch.tensor([1.0, 1.0], device=rec.device))
        with rec.attempt("make_dual(x of shape (2, 2), tangent of shape (2, 3))"):
            fwAD.make_dual(x, torch.ones(2, 3, device=rec.device))


@case("make_dual accepts a tangent of another floating dtype and keeps it in that dtype, through the "
      "operations too", doc=MAKE_DUAL,
      features=("non-scalar", "forward-ad", "float64"))
def tangent_of_another_dtype_is_kept(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, -1.0], dtype=torch.float64, device=rec.device))
        rec("unpack_dual(dual)", fwAD.unpack_dual(dual))
        rec("unpack_dual(dual * 3)", fwAD.unpack_dual(dual * 3))


@case("make_dual needs a floating-point primal and tangent: an integer or bool one raises ValueError",
      doc=MAKE_DUAL, tags=("error",),
      features=("non-scalar", "forward-ad", "integer-dtypes"))
def non_floating_primal_or_tangent_raises(torch, rec):
    fwAD = torch.autograd.forward_ad
    floats = torch.tensor([1.0, 2.0], device=rec.device)
    integers = torch.tensor([1, 2], device=rec.device)
    with fwAD.dual_level():
        with rec.attempt("make_dual(int64 primal, float tangent)"):
            fwAD.make_dual(integers, floats)
        with rec.attempt("make_dual(float primal, int64 tangent)"):
            fwAD.make_dual(floats, integers)
        with rec.attempt("make_dual(float primal, bool tangent)"):
            fwAD.make_dual(floats, integers > 1)


@case("make_dual of a tensor that already has a tangent at this level raises", doc=MAKE_DUAL, tags=("error",),
      features=("non-scalar", "forward-ad"))
def make_dual_of_a_dual_tensor_raises(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, 1.0], device=rec.device))
        fwAD.make_dual(dual, torch.tensor([2.0, 2.0], device=rec.device))


@case("make_dual's result is a view of the primal that shares its memory; the primal itself gets no tangent, "
      "and the tangent is kept as is (the same tensor)", doc=MAKE_DUAL,
      features=("non-scalar", "forward-ad", "views", "in-place", "version-counter"))
def make_dual_aliases_its_arguments(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    v = torch.tensor([0.5, -1.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        rec("dual._is_view()", dual._is_view())
        rec("dual._base is x", dual._base is x)
        rec("unpack_dual(x).tangent", fwAD.unpack_dual(x).tangent)
        rec.same("unpack_dual(dual).tangent is v", fwAD.unpack_dual(dual).tangent, v)
        x.add_(10)
        v.mul_(2)
        rec("dual after x.add_(10) and v.mul_(2)", fwAD.unpack_dual(dual), version=True)


@case("A tangent whose strides differ from the primal's is copied into the primal's layout",
      doc=MAKE_DUAL,
      features=("non-scalar", "forward-ad", "views"))
def tangent_of_another_layout_is_copied(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.ones(2, 3, device=rec.device)
    v = torch.arange(6.0, device=rec.device).view(3, 2).t()
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fwAD.make_dual(x, v)).tangent
        rec("tangent", tangent)
        rec("tangent is v", tangent is v)
        rec("tangent.stride()", tangent.stride())
        rec("v.stride()", v.stride())


@case("unpack_dual's primal is a view of the dual tensor's memory and its tangent is the tangent itself: "
      "changing it in place changes the dual tensor's tangent", doc=UNPACK_DUAL,
      features=("non-scalar", "forward-ad", "views", "in-place"))
def unpack_dual_aliases_primal_and_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, 1.0], device=rec.device))
        primal, tangent = fwAD.unpack_dual(dual)
        rec("primal._is_view()", primal._is_view())
        rec("primal._base is x", primal._base is x)
        rec("unpack_dual(primal).tangent", fwAD.unpack_dual(primal).tangent)
        rec.same("a second unpack_dual gives the same tangent", fwAD.unpack_dual(dual).tangent, tangent)
        tangent.mul_(5)
        rec("unpack_dual(dual) after tangent.mul_(5)", fwAD.unpack_dual(dual))


@case("A dual tensor prints its tangent after its values", doc=MAKE_DUAL,
      features=("non-scalar", "forward-ad", "printing"))
def dual_tensor_repr_shows_the_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        vector = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                                torch.tensor([0.5, -1.0], device=rec.device))
        scalar = fwAD.make_dual(torch.tensor(1.5, device=rec.device), torch.tensor(2.0, device=rec.device))
        rec.printed("repr(vector)", repr(vector))
        rec.printed("repr(scalar)", repr(scalar))
    rec.printed("repr(vector) after the level", repr(vector))


# -- which results carry a tangent -----------------------------------------------------------

@case("Only floating results that depend on a dual tensor get a tangent: integer and bool results and "
      "results of plain tensors have none; piecewise-constant functions give a zero tangent",
      doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad", "integer-dtypes", "float64"))
def which_results_have_a_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.5, -2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, 3.0], device=rec.device))
        rec("tangent of dual.argmax()", fwAD.unpack_dual(dual.argmax()).tangent)
        rec("tangent of dual > 0", fwAD.unpack_dual(dual > 0).tangent)
        rec("tangent of dual.long()", fwAD.unpack_dual(dual.long()).tangent)
        rec("tangent of x * 2 (x plain)", fwAD.unpack_dual(x * 2).tangent)
        rec("tangent of dual.floor()", fwAD.unpack_dual(dual.floor()).tangent)
        rec("tangent of dual.sign()", fwAD.unpack_dual(dual.sign()).tangent)
        rec("tangent of dual.double()", fwAD.unpack_dual(dual.double()).tangent)


@case("A plain tensor in an operation with a dual tensor counts as a constant: its tangent is taken as zero, "
      "broadcasting included", doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad"))
def plain_operands_are_constants(torch, rec):
    fwAD = torch.autograd.forward_ad
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, -1.0], device=rec.device),
                              torch.tensor([1.0, 0.0], device=rec.device))
        rec("tangent of w @ dual", fwAD.unpack_dual(w @ dual).tangent)
        rec("tangent of w * dual (broadcast)", fwAD.unpack_dual(w * dual).tangent)
        rec("tangent of (w + dual).sum(0)", fwAD.unpack_dual((w + dual).sum(0)).tangent)


@case("An operator without a forward-mode formula (cdist) raises NotImplementedError on a dual input; its "
      "backward works, and so does the level afterwards", doc=docs.FORWARD_AD, tags=("error",),
      features=("non-scalar", "forward-ad"))
def operator_without_forward_formula_raises(torch, rec):
    fwAD = torch.autograd.forward_ad
    a = torch.tensor([[0.0, 0.0], [1.0, 1.0]], requires_grad=True, device=rec.device)
    b = torch.tensor([[3.0, 4.0]], device=rec.device)
    torch.cdist(a, b).sum().backward()
    rec("a.grad through cdist", a.grad)
    with fwAD.dual_level():
        dual = fwAD.make_dual(b, torch.tensor([[1.0, 0.0]], device=rec.device))
        with rec.attempt("cdist(a, dual)"):
            torch.cdist(a, dual)
        rec("unpack_dual(dual * 2) afterwards", fwAD.unpack_dual(dual * 2))


# -- views and in-place operations -----------------------------------------------------------

@case("A view of a dual tensor has the matching view of its tangent", doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad", "views"))
def view_of_a_dual_tensor(torch, rec):
    fwAD = torch.autograd.forward_ad
    base = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(base, torch.tensor([[10.0, 20.0], [30.0, 40.0]], device=rec.device))
        rec("tangent of dual[0]", fwAD.unpack_dual(dual[0]).tangent)
        rec("tangent of dual.t()", fwAD.unpack_dual(dual.t()).tangent)
        rec("tangent of dual.view(4)", fwAD.unpack_dual(dual.view(4)).tangent)
        row_tangent = fwAD.unpack_dual(dual[1]).tangent
        rec("the row's tangent is a view", row_tangent._is_view())


@case("An in-place operation on a view of a dual tensor changes the base's value and tangent",
      doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad", "views", "in-place"))
def inplace_on_a_view_updates_the_base(torch, rec):
    fwAD = torch.autograd.forward_ad
    base = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(base, torch.tensor([[10.0, 20.0], [30.0, 40.0]], device=rec.device))
        row = dual[0]
        row.mul_(torch.tensor([2.0, 3.0], device=rec.device))
        rec("unpack_dual(row)", fwAD.unpack_dual(row))
        rec("unpack_dual(dual)", fwAD.unpack_dual(dual))


@case("An in-place operation on a dual tensor changes the tangent of its views", doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad", "views", "in-place"))
def inplace_on_the_base_updates_its_views(torch, rec):
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0, 3.0], device=rec.device),
                              torch.tensor([1.0, 1.0, 1.0], device=rec.device))
        head = dual[:2]
        dual.mul_(torch.tensor([3.0, 4.0, 5.0], device=rec.device))
        rec("unpack_dual(head) after dual.mul_", fwAD.unpack_dual(head))
        dual.sin_()
        rec("unpack_dual(head) after dual.sin_()", fwAD.unpack_dual(head))


@case("Writing a dual tensor in place into a plain tensor gives it a tangent; into a view of a plain tensor, "
      "the base gets a tangent that is zero elsewhere", doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad", "views", "in-place"))
def inplace_with_a_dual_operand_gives_a_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                              torch.tensor([0.5, -1.0], device=rec.device))
        plain = torch.zeros(2, device=rec.device)
        plain.add_(dual)
        rec("unpack_dual(plain) after plain.add_(dual)", fwAD.unpack_dual(plain))
        matrix = torch.zeros(2, 2, device=rec.device)
        matrix[1] = dual
        rec("unpack_dual(matrix) after matrix[1] = dual", fwAD.unpack_dual(matrix))
        other = torch.zeros(2, 2, device=rec.device)
        other[:, 0].copy_(dual)
        rec("unpack_dual(other) after other[:, 0].copy_(dual)", fwAD.unpack_dual(other))


# -- grad modes and requires_grad ------------------------------------------------------------

@case("no_grad and set_grad_enabled(False) do not stop forward-mode AD: tangents still flow, in-place "
      "operations included", doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad", "grad-mode", "in-place"))
def no_grad_does_not_stop_forward_ad(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        with torch.no_grad():
            dual = fwAD.make_dual(x, torch.tensor([0.5, -1.0], device=rec.device))
            rec("unpack_dual(dual * dual) under no_grad", fwAD.unpack_dual(dual * dual))
            dual.mul_(3)
            rec("unpack_dual(dual) after dual.mul_(3) under no_grad", fwAD.unpack_dual(dual))
        with torch.set_grad_enabled(False):
            rec("tangent of dual.exp() under set_grad_enabled(False)", fwAD.unpack_dual(dual.exp()).tangent)


@case("Under inference_mode forward-mode AD is off: results of dual tensors, make_dual and unpack_dual all "
      "give no tangent; after it the dual tensor's tangent is back", doc=docs.INFERENCE_MODE,
      features=("non-scalar", "forward-ad", "inference-mode"))
def inference_mode_drops_tangents(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([0.5, -1.0], device=rec.device))
        with torch.inference_mode():
            out = dual * 2
            rec("unpack_dual(dual * 2) under inference_mode", fwAD.unpack_dual(out))
            rec("unpack_dual(dual) under inference_mode", fwAD.unpack_dual(dual))
            made = fwAD.make_dual(torch.tensor([1.0], device=rec.device), torch.tensor([1.0], device=rec.device))
            rec("unpack_dual(make_dual(...)) under inference_mode", fwAD.unpack_dual(made))
        rec("unpack_dual(dual * 2) after inference_mode", fwAD.unpack_dual(out))
        rec("unpack_dual(dual) after inference_mode", fwAD.unpack_dual(dual))


@case("A dual tensor made of an inference tensor keeps its tangent, but an operation whose tensor operands are all "
      "inference tensors gives its result none (a view of it neither); an operand that is not one, a tensor or a "
      "Python number, brings the tangent back", doc=docs.INFERENCE_MODE,
      features=("non-scalar", "forward-ad", "inference-mode", "views"))
def dual_of_an_inference_tensor(torch, rec):
    fwAD = torch.autograd.forward_ad
    with torch.inference_mode():
        x = torch.tensor([1.0, 2.0], device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([0.5, -1.0], device=rec.device))
        rec("dual.is_inference()", dual.is_inference())
        rec("unpack_dual(dual)", fwAD.unpack_dual(dual))
        rec("unpack_dual(dual.exp())", fwAD.unpack_dual(dual.exp()))
        rec("unpack_dual(dual + dual)", fwAD.unpack_dual(dual + dual))
        rec("unpack_dual(dual.unsqueeze(0))", fwAD.unpack_dual(dual.unsqueeze(0)))
        rec("unpack_dual(dual * 2)", fwAD.unpack_dual(dual * 2))
        rec("unpack_dual(dual - 1)", fwAD.unpack_dual(dual - 1))
        rec("unpack_dual(dual * torch.ones(2))", fwAD.unpack_dual(dual * torch.ones(2, device=rec.device)))


@case("make_dual of a leaf that requires grad is a non-leaf view whose backward reaches the leaf; the tangent "
      "given does not require grad, the tangent of a result that depends on the primal does", doc=MAKE_DUAL,
      features=("non-scalar", "forward-ad"))
def make_dual_of_a_tensor_requiring_grad(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with fwAD.dual_level():
        dual = rec("dual", fwAD.make_dual(x, torch.tensor([0.5, -1.0], device=rec.device)))
        rec("unpack_dual(dual).tangent", fwAD.unpack_dual(dual).tangent)
        out = (dual * dual).sum()
        rec("unpack_dual(out)", fwAD.unpack_dual(out))
        out.backward()
    rec("x.grad", x.grad)


@case("detach() and .data drop the tangent; clone() keeps it", doc=docs.TENSOR_DETACH,
      features=("non-scalar", "forward-ad", "detach"))
def detach_drops_the_tangent(torch, rec):
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0], device=rec.device),
                              torch.tensor([0.5, -1.0], device=rec.device))
        rec("tangent of dual.detach()", fwAD.unpack_dual(dual.detach()).tangent)
        rec("tangent of dual.data", fwAD.unpack_dual(dual.data).tangent)
        rec("tangent of dual.clone()", fwAD.unpack_dual(dual.clone()).tangent)


# -- forward and reverse mode together -------------------------------------------------------

@case("Forward-over-reverse: the gradient of a dual input, taken with create_graph=True, carries the "
      "Hessian-vector product as its tangent (and does without create_graph too)", doc=docs.FORWARD_AD,
      dtypes=BOTH, tolerances=CHAINED.per_dtype(),
      features=("non-scalar", "forward-ad", "autograd.grad", "higher-order", "float64"))
def forward_over_reverse(torch, rec):
    fwAD = torch.autograd.forward_ad
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([1.0, 2.0, -0.5], dtype=dtype, requires_grad=True, device=rec.device)
    v = torch.tensor([1.0, 0.5, -2.0], dtype=dtype, device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        (grad,) = torch.autograd.grad((dual ** 3).sum() * dual.sin().sum(), dual, create_graph=True)
        rec("gradient and Hessian @ v", fwAD.unpack_dual(grad))
        (plain_grad,) = torch.autograd.grad((dual ** 3).sum(), dual)
        rec("without create_graph", fwAD.unpack_dual(plain_grad))


@case("Reverse-over-forward: backward through a tangent gives its gradient with respect to the tangent "
      "given to make_dual, and with respect to the primal (a second derivative)", doc=docs.FORWARD_AD,
      features=("non-scalar", "forward-ad"))
def reverse_over_forward(torch, rec):
    fwAD = torch.autograd.forward_ad
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    v = torch.tensor([1.0, -1.0], requires_grad=True, device=rec.device)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        tangent = rec("tangent of dual ** 3", fwAD.unpack_dual(dual ** 3).tangent)
        tangent.sum().backward()
    rec("x.grad: d/dx of sum(3 x**2 v)", x.grad)
    rec("v.grad: d/dv of sum(3 x**2 v)", v.grad)


@case("A module's parameters replaced by dual tensors (delattr, setattr) give the Jacobian-vector product "
      "with respect to the parameters", doc=docs.note("usage-with-modules", "Usage with Modules",
                                                      page=docs.FORWARD_AD_TUTORIAL),
      features=("non-scalar", "forward-ad", "nn", "grad-mode", "in-place"))
def module_parameters_as_dual_tensors(torch, rec):
    fwAD = torch.autograd.forward_ad
    model = torch.nn.Linear(3, 2).to(rec.device)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]], device=rec.device))
        model.bias.copy_(torch.tensor([0.5, -0.5], device=rec.device))
    inputs = torch.tensor([[1.0, 1.0, 1.0], [2.0, 0.0, -1.0]], device=rec.device)
    params = dict(model.named_parameters())
    with fwAD.dual_level():
        for name, param in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(param, torch.ones_like(param)))
        rec("unpack_dual(model(inputs))", fwAD.unpack_dual(model(inputs)))


@case("A tangent requires grad where torch's forward formula reads a primal that requires grad: x * 2 (the zero "
      "tangent of 2 times x), x / c, hardsigmoid, relu, a convolution with a constant weight, std and norm (masked "
      "where they are 0); not where it reads tangents alone (sum, clamp, where, floor)",
      doc=MAKE_DUAL, tolerances=ELEMENTARY.per_dtype(), features=("non-scalar", "forward-ad", "nn"))
def tangents_that_require_grad(torch, rec):
    fwAD, F = torch.autograd.forward_ad, torch.nn.functional
    x = torch.tensor([[-0.2, -2.0, -0.1], [1.7, 0.6, -0.8]], device=rec.device, requires_grad=True)
    ops = {
        "x * 2": lambda a: a * 2, "x / c": lambda a: a / torch.ones(3, device=rec.device),
        "hardsigmoid": F.hardsigmoid, "relu": F.relu,
        "conv1d": lambda a: F.conv1d(a.unsqueeze(0), torch.ones(1, 2, 2, device=rec.device)),
        "std(0)": lambda a: a.std(0), "norm()": lambda a: a.norm(),
        "sum()": lambda a: a.sum(), "clamp": lambda a: a.clamp(-0.5, 0.5),
        "where": lambda a: torch.where(a > 0, a, 0.0), "floor": torch.floor,
    }
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([[-0.4, -0.1, -0.2], [0.7, -0.8, -0.9]], device=rec.device))
        for name, op in ops.items():
            rec(f"tangent of {name}", fwAD.unpack_dual(op(dual)).tangent)
