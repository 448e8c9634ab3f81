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
