"""Leaf and non-leaf tensors: ``is_leaf``, ``grad_fn``, which tensors get ``.grad``."""

from .. import docs
from ..case import case


@case("A tensor created with requires_grad=True is a leaf without grad_fn", doc=docs.TENSOR_IS_LEAF)
def user_created_is_leaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("x", x)
    rec("x.grad_fn", x.grad_fn)


@case("Reading .grad of a non-leaf warns and gives None; the leaf gets its gradient",
      doc=docs.TENSOR_GRAD, tags=("warning", "seed"))
def nonleaf_grad_warns(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    c = b + 3
    c.backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("Setting requires_grad=False on a non-leaf raises, with a hint to use detach()",
      doc=docs.REQUIRES_GRAD)
def set_requires_grad_false_on_nonleaf_raises(torch, rec):
    x = torch.ones(2, requires_grad=True, device=rec.device)
    y = x * 2
    y.requires_grad = False
