"""The cases the fake engines run (registry ``VERDICT_CASES``); every one passes on torch."""

from conformance import docs
from conformance.case import Registry, case

VERDICT_CASES = Registry()
ON_CPU = dict(devices=("cpu",), registry=VERDICT_CASES)


@case("A leaf made with requires_grad=True", doc=docs.TENSOR_BACKWARD, **ON_CPU)
def leaf_with_requires_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec("x", x)


@case("torch.autograd.grad of a square", doc=docs.AUTOGRAD_GRAD, features=("autograd.grad",), **ON_CPU)
def autograd_grad_of_square(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec("x * 2", x * 2)
    rec("grad", torch.autograd.grad((x * x).sum(), x))


@case("backward(inputs=...) accumulates only into the inputs", doc=docs.TENSOR_BACKWARD,
      features=("backward-inputs",), **ON_CPU)
def backward_with_inputs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward(inputs=[x])
    rec("x.grad", x.grad)


@case("Zeroing .grad in place after a backward", doc=docs.TENSOR_BACKWARD, **ON_CPU)
def zero_grad_in_place(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad.zero_()
    rec("x.grad", x.grad)


@case("A second backward through a freed graph raises", doc=docs.TENSOR_BACKWARD, tags=("error",), **ON_CPU)
def second_backward_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with rec.attempt("second backward"):
        y.backward()
    rec("x.grad", x.grad)


@case("The node of a product", doc=docs.TENSOR_BACKWARD, features=("graph-introspection",), **ON_CPU)
def node_of_a_product(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    rec("y.grad_fn", y.grad_fn)
    rec("y", y)


@case("retain_grad keeps a non-leaf's gradient", doc=docs.TENSOR_RETAIN_GRAD, features=("retain-grad",), **ON_CPU)
def retain_grad_of_a_product(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.sum().backward()
    rec("y.grad", y.grad)


@case("no_grad as a context manager", doc=docs.NO_GRAD_MODE, features=("grad-mode",), **ON_CPU)
def no_grad_block(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    rec("y", y)


@case("A gradient observed before a missing name is used", doc=docs.TENSOR_BACKWARD,
      features=("retain-grad",), **ON_CPU)
def gradient_then_missing_name(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    rec("x.grad", x.grad)
    y = x * 3
    y.retain_grad()


@case("The shape of a tensor is a torch.Size", doc=docs.TENSOR_BACKWARD, features=("non-scalar",), **ON_CPU)
def shape_is_a_size(torch, rec):
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    rec("x.shape", x.shape)


@case("float() of a one-element tensor", doc=docs.TENSOR_ITEM, **ON_CPU)
def float_of_a_tensor(torch, rec):
    x = torch.tensor([1.5])
    rec("float(x)", float(x))


def _once_differentiable_double(torch):
    """A helper beside the scenarios, as catalog modules have: its lookups are the case's own."""
    return torch.autograd.function.once_differentiable


@case("A helper of the case file looks a name up", doc=docs.EXTENDING_AUTOGRAD, features=("custom-function",),
      **ON_CPU)
def helper_looks_up_a_name(torch, rec):
    rec("found", _once_differentiable_double(torch) is not None)


@case("retain_grad() of a tensor that does not require grad raises", doc=docs.TENSOR_RETAIN_GRAD,
      features=("retain-grad",), tags=("error",), **ON_CPU)
def retain_grad_without_requires_grad(torch, rec):
    x = torch.tensor([1.0])
    x.retain_grad()


@case("A call spread over several lines, with a keyword", doc=docs.AUTOGRAD_GRAD, features=("autograd.grad",),
      **ON_CPU)
def call_over_several_lines(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec("grad",
        torch.autograd.grad((x * x).sum(), x,
                            materialize_grads=True))
