"""Gradients at non-differentiable points, NaN and inf, conversions out of autograd, gradient layouts."""

import copy

from .. import docs
from ..case import case


@case("Ties in a full max() or amax() share the gradient evenly", doc=docs.docstring("torch.max"),
      features=("non-scalar",))
def max_ties_split_gradient(torch, rec):
    x = torch.tensor([1.0, 3.0, 3.0], requires_grad=True, device=rec.device)
    x.max().backward()
    rec("x.grad after x.max()", x.grad)
    v = torch.tensor([2.0, 2.0, 0.0, 2.0], requires_grad=True, device=rec.device)
    v.amax().backward()
    rec("v.grad after v.amax()", v.grad)


@case("With ties, max(dim) returns the first maximal index and sends the whole gradient there",
      doc=docs.docstring("torch.max"),
      features=("non-scalar",))
def max_dim_ties_pick_one(torch, rec):
    x = torch.tensor([[1.0, 3.0, 3.0], [4.0, 4.0, 0.0]], requires_grad=True, device=rec.device)
    values, indices = x.max(dim=1)
    rec("indices", indices)
    values.sum().backward()
    rec("x.grad", x.grad)


@case("At 0 the gradient of relu and abs is 0 and the gradient of sqrt is inf", doc=docs.NONDIFFERENTIABLE,
      features=("non-scalar",))
def gradients_at_zero(torch, rec):
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True, device=rec.device)
    torch.relu(x).sum().backward()
    rec("x.grad after relu", x.grad)
    a = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True, device=rec.device)
    a.abs().sum().backward()
    rec("a.grad after abs", a.grad)
    s = torch.tensor([0.0, 4.0], requires_grad=True, device=rec.device)
    s.sqrt().sum().backward()
    rec("s.grad after sqrt", s.grad)


@case("clamp passes the gradient at both bounds and blocks it outside them", doc=docs.NONDIFFERENTIABLE,
      features=("non-scalar",))
def clamp_at_bounds(torch, rec):
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.clamp(0.0, 1.0)
    y.sum().backward()
    rec("y", y)
    rec("x.grad", x.grad)


@case("The gradient of the norm at the zero vector is 0 (a subgradient), not NaN", doc=docs.NONDIFFERENTIABLE,
      features=("non-scalar",))
def norm_at_zero(torch, rec):
    x = torch.zeros(3, requires_grad=True, device=rec.device)
    x.norm().backward()
    rec("x.grad", x.grad)


@case("Outside the domain sqrt gives a NaN value and NaN gradient, while log(-1) gives NaN but gradient -1",
      doc=docs.NONDIFFERENTIABLE)
def sqrt_and_log_of_negative(torch, rec):
    x = torch.tensor([-1.0], requires_grad=True, device=rec.device)
    y = x.sqrt()
    y.backward()
    rec("y = x.sqrt()", y)
    rec("x.grad", x.grad)
    u = torch.tensor([-1.0], requires_grad=True, device=rec.device)
    z = u.log()
    z.backward()
    rec("z = u.log()", z)
    rec("u.grad", u.grad)


@case("torch.where does not stop a NaN gradient coming from the branch it did not select",
      doc=docs.docstring("torch.where"), tags=("hard",),
      features=("non-scalar",))
def where_keeps_nan_of_unselected_branch(torch, rec):
    x = torch.tensor([0.0, 4.0], requires_grad=True, device=rec.device)
    y = torch.where(x > 0, x.sqrt(), torch.zeros(2, device=rec.device))
    y.sum().backward()
    rec("y", y)
    rec("x.grad", x.grad)


@case("A leaf reached only through x * 0 gets a zero gradient, not None; an unused leaf keeps None",
      doc=docs.TENSOR_GRAD, tags=("hard",),
      features=("non-scalar",))
def leaf_through_zero_gets_zero_grad(torch, rec):
    x = torch.tensor([5.0, 6.0], requires_grad=True, device=rec.device)
    unused = torch.tensor([1.0], requires_grad=True, device=rec.device)
    (x * 0).sum().backward()
    rec("x.grad", x.grad)
    rec("unused.grad", unused.grad)


@case("float() of a tensor that requires grad warns, while .item(), .tolist() and int() are silent",
      doc=docs.TENSOR_ITEM, tags=("warning",),
      features=("detach",))
def scalar_conversions(torch, rec):
    x = torch.tensor([1.5], requires_grad=True, device=rec.device)
    rec("x.item()", x.item())
    rec("x.tolist()", x.tolist())
    rec("int(x)", int(x))
    rec("float(x)", float(x))
    rec("float(x.detach())", float(x.detach()))


@case(".numpy() of a tensor that requires grad raises, pointing to detach()", doc=docs.TENSOR_NUMPY,
      devices=("cpu",), tags=("error",),
      features=("non-scalar", "detach", "numpy-interop"))
def numpy_of_requires_grad_raises(torch, rec):
    x = torch.tensor([1.5, 2.5], requires_grad=True, device=rec.device)
    rec("x.detach().numpy()", x.detach().numpy())
    x.numpy()


@case("deepcopy of a leaf gives a new leaf with the same values, requires_grad and .grad; deepcopy of "
      "a non-leaf raises", doc=docs.TENSOR_IS_LEAF, tags=("error",),
      features=("non-scalar",))
def deepcopy_leaf_and_nonleaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * 3).sum().backward()
    c = copy.deepcopy(x)
    rec("c = deepcopy(x)", c)
    rec.same("c is x", c, x)
    rec.same("c.grad is x.grad", c.grad, x.grad)
    y = x * 2
    copy.deepcopy(y)


@case("The gradient of a leaf with transposed strides gets the same strides", doc=docs.GRAD_LAYOUTS,
      features=("non-scalar", "detach"))
def transposed_leaf_grad_follows_strides(torch, rec):
    p = torch.arange(12.0, device=rec.device).reshape(3, 4).t().detach().requires_grad_()
    rec("p.stride()", p.stride())
    w = torch.arange(12.0, device=rec.device).reshape(4, 3)
    (p * w).sum().backward()
    rec("p.grad", p.grad)
    rec("p.grad.stride()", p.grad.stride())


@case("An expanded leaf (overlapping memory) gets a contiguous gradient", doc=docs.GRAD_LAYOUTS,
      features=("non-scalar", "views", "detach"))
def expanded_leaf_gets_contiguous_grad(torch, rec):
    p = torch.tensor([1.0, 2.0, 3.0], device=rec.device).expand(2, 3).detach().requires_grad_()
    rec("p.stride()", p.stride())
    (p * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=rec.device)).sum().backward()
    rec("p.grad", p.grad)
    rec("p.grad.stride()", p.grad.stride())


@case("The warning of float() on a tensor that requires grad fires once per process",
      doc=docs.TENSOR_ITEM, tags=("warning", "hard"))
def float_conversion_warns_once(torch, rec):
    x = torch.tensor([1.5], requires_grad=True, device=rec.device)
    rec("first float(x)", float(x))
    rec("second float(x)", float(x))
    rec("float(x * 2)", float(x * 2))


@case("The 0-norm counts the non-zero elements and has no gradient at all, not a zero one: backward leaves "
      "x.grad None, and autograd.grad finds x unused (found by the fuzzer)",
      doc=docs.docstring("torch.linalg.vector_norm"), tags=("hard",),
      features=("non-scalar", "autograd.grad", "retain-graph"))
def zero_norm_has_no_gradient(torch, rec):
    x = torch.tensor([0.0, 1.5, -2.0], requires_grad=True, device=rec.device)
    count = x.norm(p=0)
    rec("count and its grad_fn", [count, count.grad_fn])
    rec("autograd.grad(allow_unused=True)", torch.autograd.grad(count, x, retain_graph=True, allow_unused=True))
    (count * 2).backward(retain_graph=True)
    rec("x.grad after backward", x.grad)
    torch.autograd.grad(x.norm(p=0, dim=0), x)


@case("div with a rounding_mode has zero gradients, made as fresh zeros: zero even where the incoming gradient "
      "is infinite (a division by zero), and under create_graph they do not require grad (found by the fuzzer)",
      doc=docs.docstring("torch.div"), tags=("hard",),
      features=("non-scalar", "autograd.grad", "higher-order"))
def rounded_division_gradients_are_fresh_zeros(torch, rec):
    a = torch.tensor([-2.7, 1.0], requires_grad=True, device=rec.device)
    b = torch.tensor([0.0, 2.0], requires_grad=True, device=rec.device)
    q = torch.div(a, b, rounding_mode="floor")
    rec("q", q)
    ga, gb = torch.autograd.grad((q ** 2).sum(), [a, b], create_graph=True)
    rec("the gradients of q ** 2, and whether they require grad", [ga, gb, ga.requires_grad, gb.requires_grad])
    rec("trunc", torch.autograd.grad(torch.div(a, b, rounding_mode="trunc").sum(), [a, b]))
