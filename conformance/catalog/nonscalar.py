"""Backward from non-scalar outputs: implicit gradients, explicit ``gradient`` arguments and
their checks, ``torch.autograd.backward`` with several tensors."""

from .. import docs
from ..case import case


@case("backward() without a gradient works on a [1, 1] output: one element is enough, 0-dim is not needed",
      doc=docs.TENSOR_BACKWARD,
      features=("non-scalar",))
def implicit_grad_single_element_2d(torch, rec):
    x = torch.tensor([[3.0]], requires_grad=True, device=rec.device)
    y = x * x
    rec("y.shape", y.shape)
    y.backward()
    rec("x.grad", x.grad)


@case("backward() without a gradient on a vector output raises: it is only implicit for scalars",
      doc=docs.TENSOR_BACKWARD, tags=("error",),
      features=("non-scalar",))
def implicit_grad_vector_raises(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    y = x.exp()
    rec("y.shape", y.shape)
    y.backward()


@case("backward() without a gradient on a zero-element output raises",
      doc=docs.TENSOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar",))
def implicit_grad_empty_raises(torch, rec):
    x = torch.ones(0, requires_grad=True, device=rec.device)
    y = x * 2
    rec("y.shape", y.shape)
    y.backward()


@case("An explicit gradient makes backward compute the vector-Jacobian product",
      doc=docs.TENSOR_BACKWARD,
      features=("non-scalar",))
def explicit_gradient_vjp(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    w = torch.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, -1.0]], device=rec.device)
    y = w @ (x * x)
    rec("y", y)
    y.backward(torch.tensor([1.0, -2.0], device=rec.device))
    rec("x.grad", x.grad)


@case("A gradient must have exactly the output's shape: a broadcastable one or a 0-dim one for [1] is rejected",
      doc=docs.TENSOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar",))
def gradient_shape_mismatch_raises(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    y = x * 3
    with rec.attempt("y.backward(ones(4))"):
        y.backward(torch.ones(4, device=rec.device))
    with rec.attempt("y.backward(ones(1, 2))"):
        y.backward(torch.ones(1, 2, device=rec.device))
    s = torch.tensor([2.0], requires_grad=True, device=rec.device)
    t = s * s
    with rec.attempt("t.backward(tensor(1.0))"):
        t.backward(torch.tensor(1.0, device=rec.device))
    rec("x.grad", x.grad)
    rec("s.grad", s.grad)


@case("A gradient of another floating dtype is cast; the leaf's .grad keeps the leaf's dtype",
      doc=docs.TENSOR_BACKWARD, tags=("hard",),
      features=("non-scalar", "float64"))
def gradient_other_float_dtype_cast(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 4
    g = torch.tensor([0.5, 2.0], dtype=torch.float64, device=rec.device)
    y.backward(g)
    rec("x.grad", x.grad)


@case("A gradient given as a Python list or a Python float raises TypeError",
      doc=docs.TENSOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar",))
def non_tensor_gradient_raises_type_error(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    with rec.attempt("y.backward([1.0, 1.0])"):
        y.backward([1.0, 1.0])
    s = torch.tensor(2.0, requires_grad=True, device=rec.device)
    t = s * s
    with rec.attempt("t.backward(1.0)"):
        t.backward(1.0)
    rec("x.grad", x.grad)
    rec("s.grad", s.grad)


@case("backward() on a tensor that does not require grad raises",
      doc=docs.TENSOR_BACKWARD, tags=("error",),
      features=("non-scalar",))
def backward_without_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    y = (x * 2).sum()
    rec("y.requires_grad", y.requires_grad)
    y.backward()


@case("backward() called on a leaf itself fills its .grad with ones, or with the given gradient",
      doc=docs.TENSOR_BACKWARD, tags=("hard",),
      features=("non-scalar",))
def backward_on_leaf(torch, rec):
    s = torch.tensor(5.0, requires_grad=True, device=rec.device)
    s.backward()
    rec("s.grad", s.grad)
    v = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    v.backward(torch.tensor([7.0, -1.0], device=rec.device))
    rec("v.grad", v.grad)


@case("torch.autograd.backward takes lists of tensors and grad_tensors; None stands for a scalar's ones",
      doc=docs.AUTOGRAD_BACKWARD,
      features=("non-scalar",))
def autograd_backward_lists(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a = x * 3
    b = (x * x).sum()
    torch.autograd.backward([a, b], grad_tensors=[torch.tensor([1.0, 10.0], device=rec.device), None])
    rec("x.grad", x.grad)


@case("torch.autograd.backward raises when grad_tensors has fewer entries than tensors",
      doc=docs.AUTOGRAD_BACKWARD, tags=("error",),
      features=("non-scalar",))
def grad_tensors_length_mismatch_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a = (x * 2).sum()
    b = (x * 3).sum()
    torch.autograd.backward([a, b], grad_tensors=[torch.tensor(1.0, device=rec.device)])


@case("The 'does not require grad' error names the index of the offending tensor",
      doc=docs.AUTOGRAD_BACKWARD, tags=("error",),
      features=("non-scalar",))
def does_not_require_grad_names_element(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    c = torch.tensor([3.0, 4.0], device=rec.device)
    a = (x * 2).sum()
    b = (c * 2).sum()
    torch.autograd.backward([a, b])


@case("The deprecated grad_variables argument still works and emits a FutureWarning",
      doc=docs.AUTOGRAD_BACKWARD, tags=("warning",),
      features=("non-scalar",))
def grad_variables_deprecated(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 5
    torch.autograd.backward(y, grad_variables=torch.tensor([1.0, 2.0], device=rec.device))
    rec("x.grad", x.grad)


@case("A complex gradient for a real output raises", doc=docs.TENSOR_BACKWARD, tags=("error", "hard"),
      features=("non-scalar", "complex"))
def complex_gradient_for_real_output_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.backward(torch.tensor([1.0 + 1.0j, 1.0], device=rec.device))


@case("backward of several outputs checks each gradient's shape: a mismatch in the second raises",
      doc=docs.AUTOGRAD_BACKWARD, tags=("error", "hard"),
      features=("non-scalar",))
def several_outputs_second_gradient_shape_mismatch(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    a = x * 2
    b = x * 3
    torch.autograd.backward([a, b], [torch.ones(2, device=rec.device), torch.ones(3, device=rec.device)])


@case("backward(v) of a non-scalar view weights each element's gradient by v",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 001, In [15]; 004, block 7 (z.backward(gradient=grads))",
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


@case("torch.autograd.backward(y) does what y.backward() does; grad_tensors weights a non-scalar output",
      doc=docs.AUTOGRAD_BACKWARD, tags=("seed",),
      provenance="seed 002, text after In [2]: y.backward() is the same as torch.autograd.backward(y); 003, section 三",
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


@case("backward() without a gradient on a non-scalar output raises",
      doc=docs.TENSOR_BACKWARD, tags=("seed", "error"),
      provenance="seed 002, In [15]",
      features=("non-scalar",))
def nonscalar_backward_raises(torch, rec):
    x = torch.tensor([1., 2.], device=rec.device).requires_grad_()
    y = x + 1
    rec("y", y)
    y.backward()


@case("For a vector output, y.sum().backward() and y.backward(torch.ones_like(y)) give the same gradient",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 002, In [16] and In [17]",
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


@case("autograd.grad of a vector output takes grad_outputs; with ones it equals the grad of y.sum()",
      doc=docs.AUTOGRAD_GRAD, tags=("seed",),
      provenance="seed 002, In [18] and In [19]",
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
