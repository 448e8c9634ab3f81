"""``backward(inputs=...)``: accumulating into chosen tensors only."""

from .. import docs
from ..case import case


@case("backward(inputs=[a]) accumulates into a only; other leaves keep grad None",
      doc=docs.TENSOR_BACKWARD,
      features=("non-scalar", "backward-inputs"))
def accumulates_only_into_inputs(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    y = (a * b).sum()
    y.backward(inputs=[a])
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)


@case("backward(inputs=[]) raises: the inputs sequence must not be empty",
      doc=docs.TENSOR_BACKWARD, tags=("error",),
      features=("non-scalar", "backward-inputs"))
def empty_inputs_raises(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (a * a).sum()
    y.backward(inputs=[])


@case("backward(inputs=[h]) with a non-leaf h fills h.grad and turns retains_grad on",
      doc=docs.TENSOR_BACKWARD, tags=("hard",),
      features=("non-scalar", "backward-inputs", "retain-grad"))
def nonleaf_input_gets_grad(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    h = a * 2
    y = (h * h).sum()
    rec("h.retains_grad before", h.retains_grad)
    y.backward(inputs=[h])
    rec("h.retains_grad after", h.retains_grad)
    rec("h.grad", h.grad)
    rec("a.grad", a.grad)


@case("A leaf in inputs that the output does not depend on is silently left with grad None",
      doc=docs.TENSOR_BACKWARD, tags=("hard",),
      features=("non-scalar", "backward-inputs"))
def unused_leaf_input_is_silent(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([5.0], requires_grad=True, device=rec.device)
    y = (a * 3).sum()
    y.backward(inputs=[a, w])
    rec("a.grad", a.grad)
    rec("w.grad", w.grad)


@case("An input that does not require grad raises the retain_grad error",
      doc=docs.TENSOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar", "backward-inputs"))
def input_not_requiring_grad_raises(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    c = torch.tensor([2.0, 2.0], device=rec.device)
    y = (a * c).sum()
    y.backward(inputs=[c])


@case("A single tensor is accepted as inputs, for Tensor.backward and torch.autograd.backward",
      doc=docs.AUTOGRAD_BACKWARD,
      features=("backward-inputs", "retain-graph"))
def single_tensor_as_inputs(torch, rec):
    a = torch.tensor(2.0, requires_grad=True, device=rec.device)
    b = torch.tensor(3.0, requires_grad=True, device=rec.device)
    y = a * b
    y.backward(inputs=a, retain_graph=True)
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)
    torch.autograd.backward(y, inputs=b)
    rec("a.grad after second", a.grad)
    rec("b.grad after second", b.grad)
