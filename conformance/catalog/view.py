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


@case("A view made in inference mode of a normal tensor is a normal tensor: it requires grad as its base does, "
      "with no grad_fn; detach() and .data there are normal too; writing the view in normal mode raises "
      "(found by the fuzzer)", doc=docs.INFERENCE_MODE, tags=("error", "hard"),
      features=("non-scalar", "views", "inference-mode", "in-place", "detach"))
def views_made_in_inference_mode_of_normal_tensors(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    y = x * 2
    with torch.inference_mode():
        flat, row, first = x.flatten(), y[0], y.split(1)[0]
        detached, data = x.detach(), x.data
    for name, t in (("x.flatten()", flat), ("y[0]", row), ("y.split(1)[0]", first), ("x.detach()", detached),
                    ("x.data", data)):
        rec(f"{name}: requires_grad, is_leaf, grad_fn, is_inference()",
            [t.requires_grad, t.is_leaf, t.grad_fn, t.is_inference()])
    with rec.attempt("row.mul_(2) in normal mode"):
        row.mul_(2)
    with rec.attempt("first.mul_(2) in normal mode"):
        first.mul_(2)
    plain = torch.ones(3, device=rec.device)
    with torch.inference_mode():
        part = plain[:2]
    with rec.attempt("part.add_(w), w requiring grad (part's base does not)"):
        part.add_(torch.ones(2, requires_grad=True, device=rec.device))


@case("A view made under no_grad or in inference mode, whose base is then modified in place: its grad_fn "
      "cannot be rebuilt, and reading it raises; so does writing a view of it, or an output of split made "
      "from a tensor that does not require grad, with an operand that does (found by the fuzzer)",
      doc=docs.NO_GRAD_MODE, tags=("error", "hard"),
      features=("non-scalar", "views", "grad-mode", "inference-mode", "in-place", "graph-introspection"))
def views_made_without_grad_mode_after_their_base_changes(torch, rec):
    for mode in ("no_grad", "inference_mode"):
        x = torch.ones(4, requires_grad=True, device=rec.device)
        base = x * 1
        with getattr(torch, mode)():
            v = base[:3]
        w = v[:2]
        rec(f"{mode}: a view of v made with grad: grad_fn, requires_grad", [w.grad_fn, w.requires_grad])
        with rec.attempt(f"{mode}: w.mul_(2)"):
            w.mul_(2)
        base.mul_(2)
        with rec.attempt(f"{mode}: v.grad_fn after base.mul_(2)"):
            rec("v.grad_fn", v.grad_fn)
        with rec.attempt(f"{mode}: v * 2 after base.mul_(2)"):
            rec("v * 2", v * 2)
    a, _ = torch.ones(4, device=rec.device).split(2)
    with rec.attempt("a.add_(w): a from split of a tensor that does not require grad"):
        a.add_(torch.ones(2, requires_grad=True, device=rec.device))
    c, _ = (torch.ones(4, requires_grad=True, device=rec.device) * 1).split(2)
    with rec.attempt("c[:1].mul_(2): a view of an output of split"):
        c[:1].mul_(2)


@case("Backward through a view made under no_grad or in inference mode reaches no leaf: the view has no "
      "accumulator, and neither it nor its base's leaf gets .grad (found by the fuzzer)",
      doc=docs.NO_GRAD_MODE, features=("non-scalar", "views", "grad-mode", "inference-mode"))
def backward_through_a_view_made_without_grad_mode(torch, rec):
    for mode in ("no_grad", "inference_mode"):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
        with getattr(torch, mode)():
            v = x[1:]
        out = (v * 2).sum()
        rec(f"{mode}: out.grad_fn", out.grad_fn)
        out.backward()
        rec(f"{mode}: x.grad, v.grad", [x.grad, v.grad])


@case("A view requires grad when its base does, even when the base came to require grad after the view was "
      "taken: through an in-place op with an operand that requires grad the view gets a grad_fn and gradients "
      "flow; through requires_grad_() it has none and its gradient goes nowhere (found by the fuzzer)",
      doc=TENSOR_VIEWS, tags=("hard",), features=("non-scalar", "views", "in-place", "graph-introspection"))
def view_requires_grad_through_its_base(torch, rec):
    base = torch.tensor([[0.5], [0.25]], device=rec.device)
    view = base.t()
    w = torch.tensor(2.0, requires_grad=True, device=rec.device)
    base.add_(w * 1)
    rec("view after base.add_(w * 1)", view)
    out = torch.ones(3, 1, requires_grad=True, device=rec.device) @ view
    rec("out.grad_fn.next_functions", out.grad_fn.next_functions)
    out.sum().backward()
    rec("w.grad", w.grad)
    x = torch.tensor([1.0, 2.0, 3.0], device=rec.device)
    v = x[:2]
    x.requires_grad_()
    rec("v after x.requires_grad_()", v)
    y = v * 2
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)
    x.requires_grad_(False)
    rec("v.requires_grad after x.requires_grad_(False)", v.requires_grad)
