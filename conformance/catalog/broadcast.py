"""Broadcasting and autograd: the gradient of a broadcast operand is summed back to its shape."""

from .. import docs
from ..case import case

BROADCASTING = docs.note(
    "general-semantics", "General semantics", page=f"{docs.DOCS_ROOT}/notes/broadcasting.html"
)


@case("Broadcast add: each operand's gradient is summed back to that operand's shape",
      doc=BROADCASTING,
      features=("non-scalar",))
def add_grads_summed_to_operand_shape(torch, rec):
    a = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True, device=rec.device)
    b = torch.tensor([[10.0, 20.0, 30.0, 40.0]], requires_grad=True, device=rec.device)
    y = a + b
    rec("y.shape", y.shape)
    y.sum().backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("Broadcast mul with a missing leading dimension: the 1-D operand gets column sums",
      doc=BROADCASTING,
      features=("non-scalar",))
def mul_leading_dim_expansion(torch, rec):
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=rec.device)
    y = x * w
    y.sum().backward()
    rec("w.grad", w.grad)


@case("A 0-dim tensor broadcast against a 2-D tensor gets a 0-dim gradient",
      doc=BROADCASTING,
      features=("non-scalar",))
def zero_dim_against_2d(torch, rec):
    s = torch.tensor(2.0, requires_grad=True, device=rec.device)
    m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    y = s * m
    y.sum().backward()
    rec("s.grad", s.grad)
    rec("m.grad", m.grad)


@case("Python scalar operands broadcast over a tensor whose gradient keeps the tensor's shape",
      doc=BROADCASTING,
      features=("non-scalar",))
def python_scalar_operand(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    p = x * 3.0
    y = p + 1.5
    rec("p.grad_fn", p.grad_fn)
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("With a non-uniform upstream gradient, each operand receives the sums over its broadcast dimensions",
      doc=BROADCASTING,
      features=("non-scalar",))
def nonuniform_upstream_gradient(torch, rec):
    a = torch.tensor([[1.0], [2.0]], requires_grad=True, device=rec.device)
    b = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True, device=rec.device)
    y = a + b
    g = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=rec.device)
    y.backward(g)
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("backward through expand() sums the gradient over the expanded dimensions",
      doc=docs.docstring("torch.Tensor.expand"),
      features=("non-scalar", "views"))
def expand_then_backward(torch, rec):
    x = torch.tensor([[1.0], [2.0]], requires_grad=True, device=rec.device)
    e = x.expand(2, 3)
    rec("e", e)
    (e * torch.tensor([[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]], device=rec.device)).sum().backward()
    rec("x.grad", x.grad)
