"""``retain_graph``: when backward frees the saved tensors of a graph, and how to keep them."""

from .. import docs
from ..case import case


@case("Second backward through a graph whose saved tensors were freed raises",
      doc=docs.TENSOR_BACKWARD, tags=("error", "seed"),
      features=("non-scalar", "retain-graph"))
def second_backward_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    y.backward()
    rec("x.grad", x.grad)
    y.backward()


@case("retain_graph=True keeps the graph for one more backward, which accumulates; after a plain "
      "backward a third one raises", doc=docs.TENSOR_BACKWARD, tags=("error", "seed"),
      features=("non-scalar", "retain-graph"))
def retain_graph_keeps_graph_for_next_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    rec("x.grad after retained backward", x.grad)
    y.backward()
    rec("x.grad after plain backward", x.grad)
    y.backward()


@case("A graph that saves no tensors (x + 1, sum) can be backpropagated twice without retain_graph",
      doc=docs.SAVED_TENSORS, tags=("hard",),
      features=("non-scalar", "retain-graph"))
def graph_without_saved_tensors_backward_twice(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    rec("x.grad", x.grad)


@case("Advanced indexing and index_put_ save their index tensors, so a second backward through them raises "
      "though the gradients need no values (found by the fuzzer)",
      doc=docs.SAVED_TENSORS, tags=("error", "hard"),
      features=("non-scalar", "retain-graph", "in-place"))
def indexing_saves_its_indices(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    index = torch.tensor([0, 1, 1], device=rec.device)
    picked = x[index, [1, 2, 2]]
    picked.sum().backward()
    rec("x.grad", x.grad)
    with rec.attempt("x[index, [1, 2, 2]] backpropagated again"):
        picked.sum().backward()
    put = x.clone().index_put_((index,), torch.tensor(9.0, device=rec.device))
    put.sum().backward()
    put.sum().backward()


@case("Reading a saved tensor of a node after backward freed it raises the same error",
      doc=docs.SAVED_TENSORS, tags=("error",),
      features=("non-scalar", "retain-graph", "graph-introspection"))
def saved_tensor_access_after_free_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.pow(2)
    rec("y.grad_fn._saved_self before backward", y.grad_fn._saved_self)
    y.sum().backward()
    rec("y.grad_fn._saved_self after backward", y.grad_fn._saved_self)


@case("A new output built on an intermediate of a graph already backpropagated fails on its backward",
      doc=docs.TENSOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar", "retain-graph"))
def shared_subgraph_freed_by_first_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    h = x * x
    h.sum().backward()
    rec("x.grad", x.grad)
    later = (h * 3).sum()
    later.backward()


@case("torch.autograd.grad frees the graph too: a second call on it raises", doc=docs.AUTOGRAD_GRAD,
      tags=("error",),
      features=("non-scalar", "autograd.grad", "retain-graph"))
def autograd_grad_twice_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    rec("first grad", torch.autograd.grad(y, x))
    torch.autograd.grad(y, x)


@case("retain_graph defaults to create_graph: with create_graph=True a second grad call works, unless "
      "retain_graph=False is given explicitly", doc=docs.AUTOGRAD_GRAD, tags=("error", "hard"),
      features=("non-scalar", "autograd.grad", "higher-order", "retain-graph", "detach"))
def create_graph_implies_retain_graph(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    (first,) = torch.autograd.grad(y, x, create_graph=True)
    rec("first grad", first.detach())
    rec("first grad requires grad", first.requires_grad)
    rec("second grad", torch.autograd.grad(y, x))
    z = (x * x).sum()
    (kept,) = torch.autograd.grad(z, x, create_graph=True, retain_graph=False)
    rec("grad with retain_graph=False", kept.detach())
    torch.autograd.grad(z, x)


@case("backward(retain_graph=True) keeps the graph; a second backward through it adds to the leaf's .grad",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 000, block 1",
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


@case("backward() of y frees its part of the graph: a later backward of z = y * 3 through it raises",
      doc=docs.SAVED_TENSORS, tags=("seed", "error"),
      provenance="seed 003, example 1",
      features=("retain-graph", "printing"))
def backward_through_freed_graph_raises(torch, rec):
    a = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = a ** 2
    z = y * 3
    y.backward()
    print(a.grad)
    rec("a.grad", a.grad)
    z.backward(retain_graph=True)


@case("backward(retain_graph=True) of y lets z = y * 3 backpropagate through the same graph; "
      "the gradients add up", doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 003, example 2",
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


@case("backward() twice through mean (which saves no tensors) needs no retain_graph and accumulates; "
      "w1.grad.data.zero_() resets it", doc=docs.SAVED_TENSORS, tags=("seed",),
      provenance="seed 004, blocks 2, 3 and 4",
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


@case("A second backward through a graph whose saved tensors were freed raises (the old retain_variables)",
      doc=docs.SAVED_TENSORS, tags=("seed", "error"),
      provenance="seed 004, block 8",
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
