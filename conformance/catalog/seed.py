"""The behaviours the seed tutorials show, one case per snippet (or per behaviour a snippet shows).

Each scenario follows its snippet closely and keeps its ``print`` calls: what a snippet prints
(tensors, grad_fn reprs, flags, ``None``) is compared exactly. The comment above each case names
the seed document (``000`` to ``004``, the five seed tutorials) and the snippet it comes from;
``tests/seed_snippets/`` holds the snippets themselves, verbatim.

Where a snippet cannot be deterministic (the uninitialised CUDA tensor of seed 004, random
values) the case shows the same behaviour on fixed values.
"""

from .. import docs
from ..case import case

# -- seed 000: gradients, zero_grad, non-leaf .grad, no_grad ---------------------------------


# 000, block 1
@case("backward(retain_graph=True) keeps the graph; a second backward through it adds to the leaf's .grad",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("retain-graph", "printing"))
def retain_graph_then_accumulate(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    print(b)
    c = b + 3
    print(c)
    b.backward(retain_graph=True)
    print(a.grad)
    rec("a.grad after b.backward", a.grad.clone())
    c.backward()
    print(a.grad)
    rec("a.grad after c.backward", a.grad)


# 000, block 2
@case("Zeroing .grad in place between two backward calls keeps only the second gradient",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("retain-graph", "in-place", "printing"))
def zero_grad_between_backwards(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    c = b + 3
    b.backward(retain_graph=True)
    print(a.grad)
    a.grad.zero_()
    rec("a.grad after zero_", a.grad.clone())
    c.backward()
    print(a.grad)
    rec("a.grad", a.grad)


# 000, block 2 (the comment: 所以也可以a.grad=torch.tensor([0.0]))
@case("Assigning a zero tensor to .grad by hand also resets it: the next backward adds to it",
      doc=docs.TENSOR_GRAD, tags=("seed",),
      features=("retain-graph", "printing"))
def assign_grad_by_hand(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    c = b + 3
    b.backward(retain_graph=True)
    print(a.grad)
    a.grad = torch.tensor([0.0], device=rec.device)
    c.backward()
    print(a.grad)
    rec("a.grad", a.grad)


# 000, list item 1; 002, note on requires_grad defaults
@case("A created tensor does not require grad by default, a result of a tracked input does, and the "
      "weights of an nn module do", doc=docs.REQUIRES_GRAD, tags=("seed",),
      features=("non-scalar", "printing", "nn"))
def requires_grad_defaults(torch, rec):
    a = torch.tensor([1.1], device=rec.device)
    print(a.requires_grad)
    w = torch.tensor([1.1], requires_grad=True, device=rec.device)
    print((w * a).requires_grad)
    net = torch.nn.Linear(2, 1).to(rec.device)  # weight values are never observed
    print(net.weight.requires_grad, net.weight.is_leaf)
    rec("a", a)
    rec("w * a", w * a)


# 000, block 4
@case("A result computed under no_grad does not require grad; backward through it reaches the other "
      "leaf but not the leaves behind it", doc=docs.NO_GRAD, tags=("seed",),
      features=("grad-mode", "printing"))
def no_grad_intermediate_stops_backprop(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    with torch.no_grad():
        c = b + 2
    print(c.requires_grad)
    d = torch.tensor([10.0], requires_grad=True, device=rec.device)
    e = c * d
    print(e.requires_grad)
    rec("c", c)
    rec("e.grad_fn", e.grad_fn)
    e.backward()
    print(d.grad)
    print(a.grad)
    rec("d.grad", d.grad)
    rec("a.grad", a.grad)


# -- seed 001: leaves and grad_fn, requires_grad_, accumulation, backward(v), no_grad, .data --


# 001, In [7]
@case("A created tensor is a leaf with grad_fn None; results of operations carry a grad_fn",
      doc=docs.TENSOR_IS_LEAF, tags=("seed",),
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


# 001, In [8]
@case("requires_grad_(True) turns tracking on for a tensor computed without it; later ops record a grad_fn",
      doc=docs.TENSOR_REQUIRES_GRAD_, tags=("seed",),
      features=("non-scalar", "printing"))
def requires_grad_switched_in_place(torch, rec):
    a = torch.randn(2, 2, device=rec.device)  # values are never observed
    a = ((a * 3) / (a - 1))
    print(a.requires_grad)
    returned = a.requires_grad_(True)
    print(a.requires_grad)
    b = (a * a).sum()
    print(b.grad_fn)
    rec.same("requires_grad_ returns the tensor itself", returned, a)
    rec("a.is_leaf", a.is_leaf)
    rec("b.grad_fn", b.grad_fn)


# 001, In [11]
@case("Gradients of successive backward calls accumulate in .grad until it is zeroed through .grad.data",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("non-scalar", "in-place", "detach", "printing"))
def grad_accumulates_until_zeroed_through_data(torch, rec):
    x = torch.ones(2, 2, requires_grad=True, device=rec.device)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()
    print(x.grad)
    rec("x.grad after out.backward", x.grad.clone())
    out2 = x.sum()
    out2.backward()
    print(x.grad)
    rec("x.grad after out2.backward", x.grad.clone())
    out3 = x.sum()
    x.grad.data.zero_()
    out3.backward()
    print(x.grad)
    rec("x.grad after zeroing and out3.backward", x.grad)


# 001, In [15]; 004, block 7 (z.backward(gradient=grads))
@case("backward(v) of a non-scalar view weights each element's gradient by v",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("non-scalar", "views", "printing"))
def nonscalar_backward_with_weights(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=rec.device)
    y = 2 * x
    z = y.view(2, 2)
    print(z)
    v = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float, device=rec.device)
    z.backward(v)
    print(x.grad)
    rec("z.grad_fn", z.grad_fn)
    rec("x.grad", x.grad)


# 001, In [18]
@case("A term computed under no_grad is a constant: the gradient comes only from the tracked term",
      doc=docs.NO_GRAD, tags=("seed",),
      features=("grad-mode", "printing"))
def no_grad_term_is_constant(torch, rec):
    x = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y1 = x ** 2
    with torch.no_grad():
        y2 = x ** 3
    y3 = y1 + y2
    print(x.requires_grad)
    print(y1, y1.requires_grad)
    print(y2, y2.requires_grad)
    print(y3, y3.requires_grad)
    rec("y2", y2)
    rec("y3", y3)
    y3.backward()
    print(x.grad)
    rec("x.grad", x.grad)


# 001, In [19]
@case("Changing x.data in place is not tracked: x keeps its leaf status and the gradient uses the graph",
      doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      features=("in-place", "version-counter", "detach", "printing"))
def data_changes_are_not_tracked(torch, rec):
    x = torch.ones(1, requires_grad=True, device=rec.device)
    print(x.data)
    print(x.data.requires_grad)
    y = 2 * x
    x.data *= 100
    y.backward()
    print(x)
    print(x.grad)
    rec("x", x, version=True)


# -- seed 002: backward() and torch.autograd.grad, higher order, non-scalar outputs, detach ---


# 002, In [2]
@case("requires_grad_() on a created tensor and requires_grad=True at creation both give a tracked leaf",
      doc=docs.TENSOR_REQUIRES_GRAD_, tags=("seed",))
def requires_grad_two_ways(torch, rec):
    x = torch.tensor(1., device=rec.device).requires_grad_()
    rec("torch.tensor(1.).requires_grad_()", x)
    x = torch.tensor(1., requires_grad=True, device=rec.device)
    rec("torch.tensor(1., requires_grad=True)", x)


# 002, In [3]
@case("backward() sums the gradients of every path from the output to the leaf (chain rule)",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("printing",))
def chain_rule_sums_over_paths(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    a = torch.add(x, 1)
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    y.backward()
    print(x.grad)
    rec("x.grad", x.grad)


# 002, text after In [2]: y.backward() is the same as torch.autograd.backward(y); 003, section 三
@case("torch.autograd.backward(y) does what y.backward() does; grad_tensors weights a non-scalar output",
      doc=docs.AUTOGRAD_BACKWARD, tags=("seed",),
      features=("non-scalar", "printing"))
def autograd_backward_equals_tensor_backward(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    a = torch.add(x, 1)
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    torch.autograd.backward(y)
    print(x.grad)
    rec("x.grad", x.grad)

    v = torch.tensor([1., 2.], requires_grad=True, device=rec.device)
    z = v * v
    torch.autograd.backward(z, grad_tensors=torch.tensor([1.0, 0.1], device=rec.device))
    print(v.grad)
    rec("v.grad", v.grad)


# 002, In [4]
@case("After backward() intermediate results require grad but are not leaves; only the leaf has .grad "
      "(reading theirs warns)", doc=docs.TENSOR_GRAD, tags=("seed", "warning"),
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


# 002, In [5] and In [7]
@case("torch.autograd.grad returns the gradients as a tuple and leaves .grad untouched",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      features=("autograd.grad", "printing"))
def autograd_grad_returns_tuple(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    a = torch.add(x, 1)
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    grad = torch.autograd.grad(outputs=y, inputs=x)
    print(grad[0])
    rec("grad", grad)
    rec("x.grad", x.grad)


# 002, In [6]
@case("backward() fills .grad of every leaf the output depends on",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("printing",))
def backward_fills_every_leaf(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward()
    print(x.grad, y.grad)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


# 002, In [8]
@case("autograd.grad with retain_graph=True keeps the graph for a second autograd.grad to another input",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      features=("autograd.grad", "retain-graph", "printing"))
def autograd_grad_retain_graph(torch, rec):
    x = torch.tensor(2., device=rec.device).requires_grad_()
    y = torch.tensor(3., device=rec.device).requires_grad_()
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
    grad_y = torch.autograd.grad(outputs=z, inputs=y)
    print(grad_x[0], grad_y[0])
    rec("grad_x", grad_x)
    rec("grad_y", grad_y)


# 002, text before In [8]: the graph is freed after one autograd.grad
@case("A second autograd.grad through a graph freed by the first one raises",
      doc=docs.AUTOGRAD_GRAD, tags=("seed", "error"),
      features=("autograd.grad", "printing"))
def autograd_grad_frees_graph(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x)
    print(grad_x[0])
    rec("grad_x", grad_x)
    torch.autograd.grad(outputs=z, inputs=y)


# 003, section 四: autograd.grad differentiates only the given inputs (only_inputs)
@case("autograd.grad with only_inputs=False warns that the argument is deprecated and ignored: "
      "other leaves still get no .grad", doc=docs.AUTOGRAD_GRAD, tags=("seed", "warning"),
      features=("autograd.grad", "printing"))
def autograd_grad_only_inputs_ignored(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, only_inputs=False)
    print(grad_x[0])
    rec("grad_x", grad_x)
    rec("y.grad", y.grad)


# 002, In [9]
@case("The grad of a gradient computed without create_graph raises: it has no grad_fn",
      doc=docs.AUTOGRAD_GRAD, tags=("seed", "error"),
      features=("autograd.grad", "retain-graph"))
def grad_of_grad_without_create_graph_raises(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, retain_graph=True)
    rec("grad_x", grad_x)
    torch.autograd.grad(outputs=grad_x, inputs=x)


# 002, In [10]
@case("autograd.grad with create_graph=True gives a differentiable gradient: a second autograd.grad "
      "gives the second derivative", doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      features=("autograd.grad", "higher-order", "printing"))
def second_derivative_with_create_graph(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad_x = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
    rec("grad_x", grad_x)
    grad_xx = torch.autograd.grad(outputs=grad_x, inputs=x)
    print(grad_xx[0])
    rec("grad_xx", grad_xx)


# 002, In [11]
@case("backward() of a gradient made with create_graph=True puts the second derivative in .grad",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      features=("autograd.grad", "higher-order", "printing"))
def create_graph_grad_then_backward(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    grad = torch.autograd.grad(outputs=z, inputs=x, create_graph=True)
    grad[0].backward()
    print(x.grad)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


# 002, In [12]
@case("backward(create_graph=True) warns about a reference cycle and makes x.grad differentiable: "
      "autograd.grad of it gives the second derivative", doc=docs.TENSOR_BACKWARD, tags=("seed", "warning"),
      features=("autograd.grad", "higher-order", "printing"))
def backward_create_graph_then_grad(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward(create_graph=True)
    rec("x.grad", x.grad)
    grad_xx = torch.autograd.grad(outputs=x.grad, inputs=x)
    print(grad_xx[0])
    rec("grad_xx", grad_xx)


# 002, In [13]
@case("backward() of x.grad made with create_graph=True adds the second derivative to the first one",
      doc=docs.TENSOR_BACKWARD, tags=("seed", "warning"),
      features=("higher-order", "detach", "printing"))
def backward_of_grad_accumulates(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward(create_graph=True)
    rec("x.grad after z.backward", x.grad.detach().clone())
    x.grad.backward()
    print(x.grad)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


# 002, In [14]
@case("Zeroing x.grad through .data before backward() of it leaves only the second derivative",
      doc=docs.TENSOR_BACKWARD, tags=("seed", "warning"),
      features=("higher-order", "in-place", "detach", "printing"))
def backward_of_zeroed_grad(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    y = torch.tensor(3., requires_grad=True, device=rec.device)
    z = x * x * y
    z.backward(create_graph=True)
    x.grad.data.zero_()
    x.grad.backward()
    print(x.grad)
    rec("x.grad", x.grad)


# 002, In [15]
@case("backward() without a gradient on a non-scalar output raises",
      doc=docs.TENSOR_BACKWARD, tags=("seed", "error"),
      features=("non-scalar",))
def nonscalar_backward_raises(torch, rec):
    x = torch.tensor([1., 2.], device=rec.device).requires_grad_()
    y = x + 1
    rec("y", y)
    y.backward()


# 002, In [16] and In [17]
@case("For a vector output, y.sum().backward() and y.backward(torch.ones_like(y)) give the same gradient",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("non-scalar", "printing"))
def vector_output_sum_or_ones_gradient(torch, rec):
    x = torch.tensor([1., 2.], device=rec.device).requires_grad_()
    y = x * x
    y.sum().backward()
    print(x.grad)
    rec("x.grad via y.sum().backward()", x.grad)

    x = torch.tensor([1., 2.], device=rec.device).requires_grad_()
    y = x * x
    y.backward(torch.ones_like(y))
    print(x.grad)
    rec("x.grad via y.backward(ones_like(y))", x.grad)


# 002, In [18] and In [19]
@case("autograd.grad of a vector output takes grad_outputs; with ones it equals the grad of y.sum()",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      features=("non-scalar", "autograd.grad", "printing"))
def autograd_grad_vector_output(torch, rec):
    x = torch.tensor([1., 2.], device=rec.device).requires_grad_()
    y = x * x
    grad_x = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=torch.ones_like(y))
    print(grad_x[0])
    rec("grad_x with grad_outputs", grad_x)

    x = torch.tensor([1., 2.], device=rec.device).requires_grad_()
    y = x * x
    grad_x = torch.autograd.grad(outputs=y.sum(), inputs=x)
    print(grad_x[0])
    rec("grad_x of y.sum()", grad_x)


# 002, section 使用detach()切断 (and the fragment input_B = output_A.detach())
@case("detach() cuts a path: the detached factor is a leaf that does not require grad, and the gradient "
      "flows only through the other path", doc=docs.TENSOR_DETACH, tags=("seed",),
      features=("detach", "printing"))
def detach_cuts_path(torch, rec):
    x = torch.tensor([2.], requires_grad=True, device=rec.device)
    a = torch.add(x, 1).detach()
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    y.backward()
    print("requires_grad: ", x.requires_grad, a.requires_grad, b.requires_grad, y.requires_grad)
    print("is_leaf: ", x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
    print("grad: ", x.grad, a.grad, b.grad, y.grad)
    rec("a", a)
    rec("x", x)


# 002, section 原位操作 in-place: 叶子节点不可执行 in-place 操作
@case("An in-place operation on a leaf that requires grad raises",
      doc=docs.INPLACE_PAGE, tags=("seed", "error"),
      features=("in-place", "version-counter"))
def inplace_on_leaf_raises(torch, rec):
    x = torch.tensor([2.], requires_grad=True, device=rec.device)
    rec("x", x, version=True)
    x.add_(1)


# -- seed 003: freed graphs, retain_graph, non-leaf .grad, retain_grad -----------------------


# 003, example 1
@case("backward() of y frees its part of the graph: a later backward of z = y * 3 through it raises",
      doc=docs.SAVED_TENSORS, tags=("seed", "error"),
      features=("retain-graph", "printing"))
def backward_through_freed_graph_raises(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = a ** 2
    z = y * 3
    y.backward()
    print(a.grad)
    rec("a.grad", a.grad)
    z.backward(retain_graph=True)


# 003, example 2
@case("backward(retain_graph=True) of y lets z = y * 3 backpropagate through the same graph; "
      "the gradients add up", doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("retain-graph", "printing"))
def retain_graph_allows_second_backward(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = a ** 2
    z = y * 3
    y.backward(retain_graph=True)
    print(a.grad)
    rec("a.grad after y.backward", a.grad.clone())
    z.backward(retain_graph=True)
    print(a.grad)
    rec("a.grad after z.backward", a.grad)


# 003, example 3 (and seed 000, block 3)
@case("The .grad of an intermediate result is None after backward, with a warning; the leaf has its gradient",
      doc=docs.TENSOR_GRAD, tags=("seed", "warning"),
      features=("retain-graph", "printing"))
def intermediate_grad_is_none(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = a ** 2
    z = y * 3
    z.backward(retain_graph=True)
    print(y.grad)
    print(a.grad)
    rec("a.grad", a.grad)


# 003, example 4
@case("retain_grad() makes an intermediate result keep its .grad; retains_grad turns True",
      doc=docs.TENSOR_RETAIN_GRAD, tags=("seed",),
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


# -- seed 004: Variable, repeated backward, .data updates, torch.optim, partial use -----------


# 004, block 1
@case("Variable(tensor, requires_grad=True) gives a tensor leaf whose .grad starts as None",
      doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      features=("printing",))
def variable_grad_starts_none(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    w2 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    print(w1.grad)
    print(w2.grad)
    rec("w1", w1)
    rec("type(w1)", type(w1))


# 004, blocks 2, 3 and 4
@case("backward() twice through mean (which saves no tensors) needs no retain_graph and accumulates; "
      "w1.grad.data.zero_() resets it", doc=docs.SAVED_TENSORS, tags=("seed",),
      features=("retain-graph", "in-place", "detach", "printing"))
def repeated_backward_without_saved_tensors(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    d = torch.mean(w1)
    d.backward()
    print(w1.grad)
    rec("w1.grad after the first backward", w1.grad.clone())
    d.backward()
    print(w1.grad)
    rec("w1.grad after the second backward", w1.grad.clone())
    w1.grad.data.zero_()
    print(w1.grad)
    rec("w1.grad after zero_", w1.grad)


# 004, block 5
@case("Updating weights through w1.data.sub_() changes the values without recording the update: "
      "w1 stays a leaf and its version counter does not move", doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      features=("in-place", "version-counter", "detach", "printing"))
def manual_update_through_data(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    d = torch.mean(w1)
    d.backward()
    learning_rate = 0.1
    w1.data.sub_(learning_rate * w1.grad.data)
    print(w1)
    rec("w1", w1, version=True)


# 004, block 6 (and seed 002's fragment optimizer.zero_grad())
@case("In an SGD training loop optimizer.zero_grad() resets the grads to None and step() updates the "
      "parameters from the fresh gradients", doc=docs.OPTIMIZER_ZERO_GRAD, tags=("seed",),
      features=("non-scalar", "grad-mode", "in-place", "nn", "optim"))
def optimizer_zero_grad_then_step(torch, rec):
    optim = torch.optim
    net = torch.nn.Linear(3, 1).to(rec.device)
    with torch.no_grad():
        net.weight.copy_(torch.tensor([[0.5, -1.0, 2.0]], device=rec.device))
        net.bias.copy_(torch.tensor([0.25], device=rec.device))
    criterion = torch.nn.MSELoss()
    input = torch.tensor([[1.0, 2.0, 3.0]], device=rec.device)
    target = torch.tensor([[4.0]], device=rec.device)
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    steps = 2
    for i in range(steps):
        optimizer.zero_grad()
        rec(f"net.weight.grad after zero_grad, step {i}", net.weight.grad)
        output = net(input)
        loss = criterion(output, target)
        loss.backward()
        rec(f"loss, step {i}", loss)
        rec(f"net.weight.grad, step {i}", net.weight.grad)
        optimizer.step()
    rec("net.weight", net.weight)
    rec("net.bias", net.bias)


# 004, block 8
@case("A second backward through a graph whose saved tensors were freed raises (the old retain_variables)",
      doc=docs.SAVED_TENSORS, tags=("seed", "error"),
      features=("retain-graph",))
def backward_twice_with_saved_tensors_raises(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    w2 = Variable(torch.Tensor([1.0, 2.0, 3.0]).to(rec.device), requires_grad=True)
    z = w1 * w2 + w1
    res = torch.mean(z)
    res.backward()
    rec("w1.grad", w1.grad)
    rec("w2.grad", w2.grad)
    res.backward()


# 004, block 9 (on fixed values instead of an uninitialised CUDA tensor)
@case("Backward of the mean of one row of a leaf gives the other rows a zero gradient",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("non-scalar", "printing"))
def partial_use_gives_zero_grad_elsewhere(torch, rec):
    Variable = torch.autograd.Variable
    w1 = Variable(torch.ones(2, 3, device=rec.device), requires_grad=True)
    res = torch.mean(w1[1])
    res.backward()
    print(w1.grad)
    rec("w1.grad", w1.grad)
