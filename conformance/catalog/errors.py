"""Bad input: the exception type and message torch gives for common mistakes."""

from .. import docs
from ..case import case

BROADCASTING = docs.note("general-semantics", "General semantics", page=f"{docs.DOCS_ROOT}/notes/broadcasting.html")


@case("Operands whose shapes do not broadcast raise, naming the sizes and the dimension",
      doc=BROADCASTING, tags=("error",),
      features=("non-scalar", "views"))
def shapes_that_do_not_broadcast(torch, rec):
    a = torch.ones(2, 3, device=rec.device)
    b = torch.ones(4, device=rec.device)
    with rec.attempt("ones(2, 3) + ones(4)"):
        a + b
    with rec.attempt("ones(2, 3).expand(4, 3)"):
        a.expand(4, 3)


@case("Matrix products of incompatible shapes raise, each product with its own message",
      doc=docs.docstring("torch.matmul"), tags=("error",),
      features=("non-scalar",))
def matmul_shape_mismatch(torch, rec):
    m = torch.ones(2, 3, device=rec.device)
    with rec.attempt("ones(2, 3) @ ones(2, 3)"):
        m @ torch.ones(2, 3, device=rec.device)
    with rec.attempt("mv(ones(2, 3), ones(2))"):
        torch.mv(m, torch.ones(2, device=rec.device))
    with rec.attempt("dot(ones(3), ones(2))"):
        torch.dot(torch.ones(3, device=rec.device), torch.ones(2, device=rec.device))
    with rec.attempt("batched ones(2, 2, 3) @ ones(3, 3, 2)"):
        torch.ones(2, 2, 3, device=rec.device) @ torch.ones(3, 3, 2, device=rec.device)
    with rec.attempt("ones(()) @ ones(2)"):
        torch.ones((), device=rec.device) @ torch.ones(2, device=rec.device)


@case("A matrix product of float32 and float64 matrices raises instead of promoting",
      doc=docs.docstring("torch.matmul"), tags=("error",),
      features=("non-scalar", "float64"))
def matmul_dtype_mismatch(torch, rec):
    a = torch.ones(2, 2, device=rec.device)
    b = torch.ones(2, 2, dtype=torch.float64, device=rec.device)
    a @ b


@case("item() of a tensor of several elements raises", doc=docs.TENSOR_ITEM, tags=("error",),
      features=("non-scalar",))
def item_of_several_elements(torch, rec):
    x = torch.ones(3, device=rec.device)
    rec("ones(1).item()", torch.ones(1, device=rec.device).item())
    x.item()


@case("view() of a transposed tensor raises, pointing to reshape(); a wrong size raises too",
      doc=docs.docstring("torch.Tensor.view"), tags=("error",),
      features=("non-scalar", "views"))
def view_incompatible(torch, rec):
    t = torch.ones(2, 3, device=rec.device).t()
    with rec.attempt("t.view(6)"):
        t.view(6)
    rec("t.reshape(6)", t.reshape(6))
    with rec.attempt("ones(2, 3).reshape(4)"):
        torch.ones(2, 3, device=rec.device).reshape(4)


@case("Indexing out of range raises IndexError naming the index, the dimension and the size",
      doc=docs.docstring("torch.Tensor.select"), tags=("error",),
      features=("non-scalar",))
def index_out_of_range(torch, rec):
    x = torch.ones(2, 3, device=rec.device)
    with rec.attempt("x[5]"):
        x[5]
    with rec.attempt("x[0, 7]"):
        x[0, 7]
    with rec.attempt("x[None, 0, 9]"):
        x[None, 0, 9]
    with rec.attempt("x.select(0, 5)"):
        x.select(0, 5)


@case("Indices must be integer or boolean tensors", doc=docs.docstring("torch.Tensor.index_select"), tags=("error",),
      features=("non-scalar",))
def float_index_raises(torch, rec):
    x = torch.ones(3, device=rec.device)
    x[torch.tensor([0.5], device=rec.device)]


@case("cat and stack check the sizes of their inputs", doc=docs.docstring("torch.cat"), tags=("error",),
      features=("non-scalar",))
def cat_and_stack_sizes(torch, rec):
    with rec.attempt("cat([ones(2, 3), ones(2, 4)])"):
        torch.cat([torch.ones(2, 3, device=rec.device), torch.ones(2, 4, device=rec.device)])
    rec("cat(..., dim=1).shape",
        torch.cat([torch.ones(2, 3, device=rec.device), torch.ones(2, 4, device=rec.device)], dim=1).shape)
    with rec.attempt("stack([ones(2), ones(3)])"):
        torch.stack([torch.ones(2, device=rec.device), torch.ones(3, device=rec.device)])


@case("A dimension out of range raises IndexError with the valid range", doc=docs.docstring("torch.sum"),
      tags=("error",),
      features=("non-scalar",))
def dimension_out_of_range(torch, rec):
    x = torch.ones(2, 3, device=rec.device)
    with rec.attempt("x.sum(2)"):
        x.sum(2)
    with rec.attempt("x.transpose(0, 5)"):
        x.transpose(0, 5)


@case("Boolean tensors refuse subtraction and negation, pointing to logical operators",
      doc=docs.docstring("torch.sub"), tags=("error",),
      features=("non-scalar",))
def bool_arithmetic_raises(torch, rec):
    t = torch.tensor([True, False], device=rec.device)
    with rec.attempt("bool - bool"):
        t - t
    with rec.attempt("-bool"):
        _ = -t
    rec("~bool", ~t)


@case("Integer tensors refuse negative integer powers and mean()", doc=docs.docstring("torch.mean"),
      tags=("error",),
      features=("non-scalar",))
def integer_arithmetic_limits(torch, rec):
    t = torch.tensor([2, 4], device=rec.device)
    with rec.attempt("int ** -1"):
        t ** -1
    rec("int / int", t / t)
    with rec.attempt("int.mean()"):
        t.mean()


@case("torch.tensor refuses ragged nested lists and factories refuse negative sizes",
      doc=docs.docstring("torch.tensor"), tags=("error",),
      features=("non-scalar",))
def bad_construction(torch, rec):
    with rec.attempt("tensor([[1., 2.], [3.]])"):
        torch.tensor([[1.0, 2.0], [3.0]], device=rec.device)
    with rec.attempt("tensor([[1., 2.], 3.])"):
        torch.tensor([[1.0, 2.0], 3.0], device=rec.device)
    with rec.attempt("zeros(-1)"):
        torch.zeros(-1, device=rec.device)
    with rec.attempt("ones(-1)"):
        torch.ones(-1, device=rec.device)
