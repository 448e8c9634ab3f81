"""Leaf and non-leaf tensors: ``is_leaf``, ``grad_fn``, which tensors get ``.grad``, ``retain_grad``
and assigning ``.grad`` by hand."""

from .. import docs
from ..case import case


@case("A tensor created with requires_grad=True is a leaf without grad_fn", doc=docs.TENSOR_IS_LEAF,
      tags=("seed",),
      features=("non-scalar",))
def user_created_is_leaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("x", x)
    rec("x.grad_fn", x.grad_fn)


@case("An op result is a non-leaf with a grad_fn only when an input requires grad; otherwise it is a leaf",
      doc=docs.TENSOR_IS_LEAF,
      features=("non-scalar",))
def op_result_is_nonleaf_only_when_tracked(torch, rec):
    plain = torch.ones(2, device=rec.device)
    w = torch.ones(2, requires_grad=True, device=rec.device)
    untracked = plain * 2
    tracked = w + 2
    rec("untracked", untracked)
    rec("tracked", tracked)
    rec("tracked.grad_fn", tracked.grad_fn)


@case("Reading .grad of a non-leaf warns and gives None; the leaf gets its gradient",
      doc=docs.TENSOR_GRAD, tags=("warning", "seed"))
def nonleaf_grad_warns(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    c = b + 3
    c.backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("backward fills .grad of every leaf in the graph (zero through x*0) and leaves an unused leaf's .grad None",
      doc=docs.TENSOR_IS_LEAF,
      features=("non-scalar",))
def only_leaves_in_graph_get_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    z = torch.tensor([5.0, 6.0], requires_grad=True, device=rec.device)
    unused = torch.tensor([7.0, 8.0], requires_grad=True, device=rec.device)
    out = (x * 3 + z * 0).sum()
    out.backward()
    rec("x.grad", x.grad)
    rec("z.grad", z.grad)
    rec("unused.grad", unused.grad)


@case("retain_grad() makes a non-leaf keep its .grad and sets retains_grad; on a leaf it is a no-op",
      doc=docs.TENSOR_RETAIN_GRAD, tags=("seed",),
      features=("non-scalar", "retain-grad"))
def retain_grad_populates_nonleaf_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * x
    rec("y.retains_grad before", y.retains_grad)
    y.retain_grad()
    x.retain_grad()
    rec("y.retains_grad after", y.retains_grad)
    rec("x.retains_grad", x.retains_grad)
    (y * y).sum().backward()
    rec("y.grad", y.grad)
    rec("x.grad", x.grad)


@case("retain_grad() on a tensor that does not require grad raises", doc=docs.TENSOR_RETAIN_GRAD,
      tags=("error",),
      features=("non-scalar", "retain-grad"))
def retain_grad_without_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    x.retain_grad()


@case("A retained non-leaf .grad accumulates across backward calls, like a leaf's",
      doc=docs.TENSOR_RETAIN_GRAD,
      features=("retain-graph", "retain-grad"))
def retain_grad_accumulates_across_backward(torch, rec):
    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    y = x * x
    y.retain_grad()
    out = (y * 4).sum()
    out.backward(retain_graph=True)
    rec("y.grad after first backward", y.grad)
    out.backward()
    rec("y.grad after second backward", y.grad)


@case("With backward(create_graph=True) the leaf's .grad requires grad but a retained non-leaf's .grad does not",
      doc=docs.TENSOR_RETAIN_GRAD, tags=("hard",),
      features=("higher-order", "retain-grad"))
def retain_grad_with_create_graph(torch, rec):
    a = torch.tensor([3.0], requires_grad=True, device=rec.device)
    b = a * a
    b.retain_grad()
    b.sum().backward(create_graph=True)
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("A non-leaf's requires_grad cannot be changed: assignment raises either way (only False hints at "
      "detach()), requires_grad_(True) is a silent no-op and requires_grad_(False) raises",
      doc=docs.REQUIRES_GRAD, tags=("error", "hard"),
      features=("non-scalar",))
def set_requires_grad_on_nonleaf_raises(torch, rec):
    x = torch.ones(2, requires_grad=True, device=rec.device)
    y = x * 2
    with rec.attempt("y.requires_grad = True"):
        y.requires_grad = True
    rec.same("y.requires_grad_(True) is y", y.requires_grad_(True), y)
    with rec.attempt("y.requires_grad_(False)"):
        y.requires_grad_(False)
    rec("y", y)
    y.requires_grad = False


@case("Assigning .grad of a non-leaf is allowed, and reading it back gives the tensor without a warning",
      doc=docs.TENSOR_GRAD, tags=("hard",),
      features=("non-scalar",))
def assign_grad_on_nonleaf_allowed(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.grad = torch.tensor([0.5, 0.5], device=rec.device)
    rec("y.grad", y.grad)


@case("Assigning a .grad whose size or dtype differs from the tensor's raises", doc=docs.TENSOR_GRAD,
      tags=("error",),
      features=("non-scalar", "float64"))
def assign_grad_mismatch_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with rec.attempt("x.grad = torch.zeros(3)"):
        x.grad = torch.zeros(3, device=rec.device)
    rec("x.grad", x.grad)
    x.grad = torch.zeros(2, dtype=torch.float64, device=rec.device)


@case("Assigning something other than a tensor or None to .grad raises TypeError", doc=docs.TENSOR_GRAD,
      tags=("error",),
      features=("non-scalar",))
def assign_grad_non_tensor_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.grad = [0.0, 0.0]


@case("Assigning a tensor as its own .grad raises", doc=docs.TENSOR_GRAD, tags=("error",),
      features=("non-scalar",))
def assign_grad_itself_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.grad = x


@case("An nn.Parameter is a leaf that requires grad by default; requires_grad=False gives a plain leaf",
      doc=docs.PARAMETER,
      features=("non-scalar", "nn"))
def parameter_is_leaf(torch, rec):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0], device=rec.device))
    q = torch.nn.Parameter(torch.tensor([3.0], device=rec.device), requires_grad=False)
    rec("p", p)
    rec("type(p)", type(p))
    rec("q", q)
    (p * 2).sum().backward()
    rec("p.grad", p.grad)


@case("After retain_grad() and before any backward, a non-leaf's .grad is None without a warning",
      doc=docs.TENSOR_RETAIN_GRAD, tags=("warning", "hard"),
      features=("non-scalar", "retain-grad"))
def retain_grad_before_backward_reads_none(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.retain_grad()
    rec("y.grad", y.grad)


@case("The non-leaf .grad warning fires on every read, not once per process",
      doc=docs.TENSOR_GRAD, tags=("warning", "hard"),
      features=("non-scalar",))
def nonleaf_grad_warns_every_time(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    rec("first y.grad", y.grad)
    rec("second y.grad", y.grad)
    rec("(x * 3).grad", (x * 3).grad)


@case("retain_grad() called twice is the same as once: one gradient, no double accumulation",
      doc=docs.TENSOR_RETAIN_GRAD,
      features=("non-scalar", "retain-grad"))
def retain_grad_twice(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.retain_grad()
    y.retain_grad()
    (y * 3).sum().backward()
    rec("y.grad", y.grad)


@case("A cast to the tensor's own dtype returns the tensor itself, still a leaf",
      doc=docs.docstring("torch.Tensor.to"),
      features=("non-scalar", "float64"))
def cast_to_own_dtype_is_identity(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec.same("x.to(x.dtype) is x", x.to(x.dtype), x)
    rec.same("x.float() is x", x.float(), x)
    rec("x.double()", x.double())


@case("A created tensor is a leaf with grad_fn None; results of operations carry a grad_fn",
      doc=docs.TENSOR_IS_LEAF, tags=("seed",),
      provenance="seed 001, In [7]",
      features=("non-scalar", "printing"))
def leaf_has_no_grad_fn(torch, rec):
    x = torch.ones(2, 2, requires_grad=True, device=rec.device)
    print(x)
    print(x.grad_fn)
    y = x + 2
    print(y)
    print(y.grad_fn)
    z = y * y * 3
    out = z.mean()
    print(z, out)
    rec("x.grad_fn", x.grad_fn)
    rec("y.grad_fn", y.grad_fn)
    rec("out", out)


@case("After backward() intermediate results require grad but are not leaves; only the leaf has .grad "
      "(reading theirs warns)", doc=docs.TENSOR_GRAD, tags=("seed", "warning"),
      provenance="seed 002, In [4]",
      features=("printing",))
def only_leaves_keep_grad(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    a = torch.add(x, 1)
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    y.backward()
    print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad, y.requires_grad)
    print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
    print("grad: ", x.grad, a.grad, b.grad, y.grad)
    rec("x", x)
    rec("y", y)


@case("backward() fills .grad of every leaf the output depends on",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 002, In [6]",
      features=("printing",))
def backward_fills_every_leaf(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward()
    print(x.grad, y.grad)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


@case("The .grad of an intermediate result is None after backward, with a warning; the leaf has its gradient",
      doc=docs.TENSOR_GRAD, tags=("seed", "warning"),
      provenance="seed 003, example 3 (and seed 000, block 3)",
      features=("retain-graph", "printing"))
def intermediate_grad_is_none(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = a ** 2
    z = y * 3
    z.backward(retain_graph=True)
    print(y.grad)
    print(a.grad)
    rec("a.grad", a.grad)


@case("retain_grad() makes an intermediate result keep its .grad; retains_grad turns True",
      doc=docs.TENSOR_RETAIN_GRAD, tags=("seed",),
      provenance="seed 003, example 4",
      features=("retain-graph", "retain-grad", "printing"))
def retain_grad_keeps_intermediate_grad(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = a ** 2
    print(y.retains_grad)
    y.retain_grad()
    print(y.retains_grad)
    z = y * 3
    z.backward(retain_graph=True)
    print(y.grad)
    print(a.grad)
    rec("y", y)
    rec("a.grad", a.grad)


@case("Variable(tensor, requires_grad=True) gives a tensor leaf whose .grad starts as None",
      doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      provenance="seed 004, block 1",
      features=("printing",))
def variable_grad_starts_none(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    w2 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    print(w1.grad)
    print(w2.grad)
    rec("w1", w1)
    rec("type(w1)", type(w1))


@case("retain_grad() follows the tensor through in-place ops: after y.mul_(3), y.grad is the gradient of y's new "
      "value; a view that retains its grad follows its base's in-place op (found by the fuzzer)",
      doc=docs.TENSOR_RETAIN_GRAD, tags=("hard",), features=("non-scalar", "in-place", "views", "retain-grad"))
def retained_grad_follows_in_place_ops(torch, rec):
    x = torch.tensor([1.0, -0.5, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.retain_grad()
    z = y * 1
    y.mul_(3)
    (y * 5 + z).sum().backward()
    rec("y.grad after y.mul_(3)", y.grad)
    b = x * 2
    v = b[:2]
    v.retain_grad()
    b.sin_()
    (v * 5).sum().backward()
    rec("v.grad after its base's sin_()", v.grad)
    u = x * 2
    u.retain_grad()
    u[0] = 1.0
    (u * 7).sum().backward()
    rec("u.grad after u[0] = 1.0", u.grad)


@case("Under create_graph a retained .grad is a recorded clone of the gradient (CloneBackward0) when the gradient "
      "has a graph, and later gradients are added to it out of place (AddBackward0); a plain backward adds "
      "without history (found by the fuzzer)", doc=docs.TENSOR_RETAIN_GRAD, tags=("hard", "warning"),
      features=("non-scalar", "higher-order", "retain-grad", "retain-graph"))
def retained_grad_under_create_graph(torch, rec):
    x = torch.tensor([1.5, 2.0], requires_grad=True, device=rec.device)
    for label, op in (("acosh", torch.acosh), ("y * 3", lambda t: t * 3)):
        y = x * 2
        y.retain_grad()
        op(y).sum().backward(create_graph=True)
        rec(f"y.grad after {label}", y.grad)
        op(y).sum().backward(create_graph=True)
        rec(f"y.grad after a second backward through {label}", y.grad)
        op(y).sum().backward(retain_graph=True)
        rec(f"y.grad after a plain backward through {label}", y.grad)
