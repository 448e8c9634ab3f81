"""Views and autograd: _is_view/_base, the grad_fn of view ops, gradients through views."""

from .. import docs
from ..case import case

TENSOR_VIEWS = docs.note("tensor-views", "Tensor Views", page=f"{docs.DOCS_ROOT}/tensor_view.html")
INPLACE_ON_BASE = docs.INPLACE


@case("view() of a leaf that requires grad is a non-leaf view with ViewBackward0 and the leaf as _base",
      doc=docs.docstring("torch.Tensor.view"),
      features=("non-scalar", "views"))
def view_of_leaf(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=rec.device)
    v = x.view(2, 2)
    rec("v", v)
    rec("v._is_view()", v._is_view())
    rec.same("v._base is x", v._base, x)
    rec("x._is_view()", x._is_view())
    rec("x._base", x._base)


@case("Reordering and indexing views record TransposeBackward0, TBackward0, PermuteBackward0, "
      "SelectBackward0, SliceBackward0 (slicing and narrow) and DiagonalBackward0", doc=TENSOR_VIEWS,
      features=("non-scalar",))
def reordering_and_indexing_view_grad_fns(torch, rec):
    m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    rec("m.transpose(0, 1).grad_fn", m.transpose(0, 1).grad_fn)
    rec("m.t().grad_fn", m.t().grad_fn)
    rec("m.permute(1, 0).grad_fn", m.permute(1, 0).grad_fn)
    rec("m[0].grad_fn", m[0].grad_fn)
    rec("m[:, 1:].grad_fn", m[:, 1:].grad_fn)
    rec("m.narrow(1, 0, 2).grad_fn", m.narrow(1, 0, 2).grad_fn)
    rec("m.diagonal().grad_fn", m.diagonal().grad_fn)


@case("Shape views record UnsqueezeBackward0, SqueezeBackward1, ExpandBackward0 and, for flatten, ViewBackward0",
      doc=TENSOR_VIEWS,
      features=("non-scalar", "views"))
def shape_view_grad_fns(torch, rec):
    m = torch.tensor([[1.0], [2.0]], requires_grad=True, device=rec.device)
    rec("m.unsqueeze(0).grad_fn", m.unsqueeze(0).grad_fn)
    rec("m.squeeze(1).grad_fn", m.squeeze(1).grad_fn)
    rec("m.expand(2, 3).grad_fn", m.expand(2, 3).grad_fn)
    rec("m.flatten().grad_fn", m.flatten().grad_fn)


@case("reshape of a contiguous tensor is a view (ViewBackward0); of a non-contiguous one a copy "
      "(UnsafeViewBackward0)", doc=docs.docstring("torch.Tensor.reshape"),
      features=("non-scalar", "views"))
def reshape_view_or_copy(torch, rec):
    m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    flat = m.reshape(6)
    rec("flat = m.reshape(6)", flat)
    rec("flat._is_view()", flat._is_view())
    flat_t = m.t().reshape(6)
    rec("flat_t = m.t().reshape(6)", flat_t)
    rec("flat_t._is_view()", flat_t._is_view())


@case("A view of a view has the root tensor as its _base", doc=TENSOR_VIEWS,
      features=("non-scalar", "views"))
def view_of_view_base_is_root(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    v1 = x.view(4)
    v2 = v1[1:]
    rec("v2._is_view()", v2._is_view())
    rec.same("v2._base is x", v2._base, x)
    rec.same("v2._base is v1", v2._base, v1)


@case("Advanced indexing returns a copy, not a view; basic slicing returns a view", doc=TENSOR_VIEWS,
      features=("non-scalar", "in-place", "views"))
def advanced_indexing_is_copy(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    picked = x[[0, 2]]
    rec("picked = x[[0, 2]]", picked)
    rec("picked._is_view()", picked._is_view())
    rec("picked._base", picked._base)
    picked.mul_(10.0)
    rec("x after picked.mul_(10.0)", x)
    rec("x[0:2]._is_view()", x[0:2]._is_view())


@case("The gradient through a chain of views lands back in the base's layout", doc=docs.AUTOGRAD_GRAPH,
      features=("non-scalar", "views"))
def gradient_through_views_in_base_layout(torch, rec):
    x = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True, device=rec.device)
    y = x.view(2, 3).t()
    weights = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], device=rec.device)
    (y * weights).sum().backward()
    rec("x.grad", x.grad)


@case("backward on a non-scalar view with a gradient argument weights each element",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("non-scalar", "views"))
def view_backward_with_gradient(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=rec.device)
    z = (2 * x).view(2, 2)
    rec("z", z)
    z.backward(torch.tensor([[1.0, 0.1], [0.01, 0.001]], device=rec.device))
    rec("x.grad", x.grad)


@case("A view of a tensor that does not require grad is a view without grad_fn", doc=TENSOR_VIEWS,
      features=("non-scalar", "views"))
def view_of_plain_tensor(torch, rec):
    a = torch.tensor([1.0, 2.0, 3.0], device=rec.device)
    v = a[1:]
    rec("v", v)
    rec("v._is_view()", v._is_view())
    rec.same("v._base is a", v._base, a)


@case("An in-place op on a base after a view was taken replaces the view's grad_fn (AsStridedBackward0), and "
      "gradients through the view see the change", doc=INPLACE_ON_BASE, tags=("hard",),
      features=("non-scalar", "in-place"))
def inplace_on_base_regenerates_view_grad_fn(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    y = x * 2
    v = y[1:]
    rec("v.grad_fn before y.mul_(2)", v.grad_fn)
    y.mul_(2)
    rec("v.grad_fn after", v.grad_fn)
    rec("v", v)
    v.sum().backward()
    rec("x.grad", x.grad)


@case("Backward of the mean of one row of a leaf gives the other rows a zero gradient",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 004, block 9 (on fixed values instead of an uninitialised CUDA tensor)",
      features=("non-scalar", "printing"))
def partial_use_gives_zero_grad_elsewhere(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.ones(2, 3, device=rec.device), requires_grad=True)
    res = torch.mean(w1[1])
    res.backward()
    print(w1.grad)
    rec("w1.grad", w1.grad)


@case("A view that requires grad, of a leaf, cannot be modified in place even after the leaf stopped requiring "
      "grad (detach_); a no_grad view says why it is refused first (found by the fuzzer)",
      doc=docs.INPLACE, tags=("error", "hard"),
      features=("non-scalar", "in-place", "views", "detach", "grad-mode"))
def view_of_detached_leaf_modified_in_place(torch, rec):
    x = torch.tensor([-2.0, -2.0, -2.0], requires_grad=True, device=rec.device)
    v = x[1:]
    x.detach_()
    rec("v", v)
    with rec.attempt("v.mul_(1.5)"):
        v.mul_(1.5)
    b = torch.ones(3, requires_grad=True, device=rec.device)
    with torch.no_grad():
        w = b[1:]
    with rec.attempt("w.mul_(2) (w made under no_grad)"):
        w.mul_(2)
