"""Small cases for the harness's self-tests, each tripping one of the broken implementations.

They live in their own registry (``SELF_CHECK``), not in the catalog; their topic is
``selfcheck``. Every one passes with torch on both sides.
"""

from conformance import docs
from conformance.case import Registry, case

SELF_CHECK = Registry()


@case("Reading .grad of a non-leaf warns", doc=docs.TENSOR_GRAD, devices=("cpu",), registry=SELF_CHECK)
def nonleaf_grad_warns(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    (b + 3).backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("A second backward through a freed graph raises", doc=docs.TENSOR_BACKWARD, devices=("cpu",),
      registry=SELF_CHECK)
def second_backward_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    y.backward()
    rec("x.grad", x.grad)
    with rec.attempt("y.backward() again"):
        y.backward()
    rec("x.grad after", x.grad)


@case("Gradients accumulate into .grad across backward calls", doc=docs.TENSOR_BACKWARD, devices=("cpu",),
      registry=SELF_CHECK)
def grad_accumulates(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * x).sum().backward()
    rec("x.grad", x.grad)
    (x * 3).sum().backward()
    rec("x.grad after the second backward", x.grad)


@case("retain_grad() keeps the .grad of a non-leaf", doc=docs.TENSOR_RETAIN_GRAD, devices=("cpu",),
      registry=SELF_CHECK)
def retain_grad_keeps_nonleaf_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    rec("y", y)
    y.retain_grad()
    y.sum().backward()
    rec("y.grad", y.grad)


@case("print() of a tensor", doc=docs.SET_PRINTOPTIONS, devices=("cpu",), registry=SELF_CHECK)
def print_tensor(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    print(x)
    rec("x", x)


@case("No autograd at all: no broken implementation trips here", doc=docs.TENSOR_IS_LEAF, devices=("cpu",),
      registry=SELF_CHECK)
def plain_values(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    rec("x + 1", x + 1)
