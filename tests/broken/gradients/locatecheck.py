"""Small cases on which each planted gradient bug shows at one node among several (registry
``LOCATE_CHECK``, topic ``locatecheck``). Every one passes with torch, and with myautograd, on both sides.

Graph positions (``conformance.locate``) are written beside each graph: the path of
``next_functions`` indices from the tensor ``backward`` starts from.
"""

from conformance import docs
from conformance.case import Registry, case

LOCATE_CHECK = Registry()
BROADCASTING = docs.note("general-semantics", "General semantics", page=f"{docs.DOCS_ROOT}/notes/broadcasting.html")


@case("The second operand of a product gets the first operand times the incoming gradient",
      doc=docs.TENSOR_BACKWARD, devices=("cpu",), features=("non-scalar",), registry=LOCATE_CHECK)
def product_between_other_nodes(torch, rec):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([1.5, 2.0, -0.5], requires_grad=True, device=rec.device)
    # SumBackward0 0, ExpBackward0 0.0, MulBackward0 0.0.0, SinBackward0 0.0.0.0, x 0.0.0.0.0, w 0.0.0.1
    y = (x.sin() * w).exp().sum()
    y.backward()
    rec("x.grad", x.grad)
    rec("w.grad", w.grad)


@case("A broadcast operand of an addition gets the incoming gradient summed over the broadcast dimension",
      doc=BROADCASTING, devices=("cpu",), features=("non-scalar",), registry=LOCATE_CHECK)
def broadcast_addition_between_other_nodes(torch, rec):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    b = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]], requires_grad=True, device=rec.device)
    # SumBackward0 0, PowBackward0 0.0, AddBackward0 0.0.0, TanhBackward0 0.0.0.0, b 0.0.0.0.0, a 0.0.0.1
    y = (b.tanh() + a).pow(2).sum()
    y.backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("A second backward adds into the .grad one leaf already has, and fills the other's",
      doc=docs.TENSOR_GRAD, devices=("cpu",), features=("non-scalar",), registry=LOCATE_CHECK)
def second_backward_accumulates_into_one_leaf(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, -1.0], requires_grad=True, device=rec.device)
    (a * 2).sum().backward()
    rec("a.grad after the first backward", a.grad)
    # SumBackward0 0, MulBackward0 0.0, a 0.0.0, b 0.0.1
    (a * b).sum().backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)
