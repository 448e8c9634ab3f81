"""detach(), detach_() and .data: what they share with the original tensor and what they cut."""

from .. import docs
from ..case import case


@case("detach() returns a leaf that does not require grad and shares storage with the original",
      doc=docs.TENSOR_DETACH,
      features=("non-scalar", "in-place", "version-counter", "detach"))
def detach_shares_storage(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    d = x.detach()
    rec("d = x.detach()", d)
    rec("d.grad_fn", d.grad_fn)
    d[0] = 10.0
    rec("x after d[0] = 10.0", x, version=True)


@case("detach() shares the version counter: an in-place op through it makes backward raise",
      doc=docs.TENSOR_DETACH, tags=("error",),
      features=("non-scalar", "in-place", "version-counter", "detach"))
def detach_shares_version_counter(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.exp()
    d = y.detach()
    d.zero_()
    rec("y after d.zero_()", y, version=True)
    y.sum().backward()


@case("Backward does not flow through detach(): a detached factor acts as a constant", doc=docs.TENSOR_DETACH,
      features=("non-scalar", "detach"))
def backward_stops_at_detach(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * x.detach()
    rec("y", y)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("detach_() on a non-leaf turns it, in place, into a leaf that does not require grad",
      doc=docs.TENSOR_DETACH_,
      features=("non-scalar", "in-place", "detach"))
def detach_inplace_on_nonleaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    rec("y before", y)
    same = y.detach_()
    rec.same("y.detach_() is y", same, y)
    rec("y after", y)


@case("detach_() keeps the retains_grad flag that retain_grad() set: the leaf it makes still reports it "
      "(found by the fuzzer)", doc=docs.TENSOR_DETACH_, tags=("hard",),
      features=("in-place", "detach", "retain-grad"))
def detach_inplace_keeps_retains_grad(torch, rec):
    x = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y = x * 2
    y.retain_grad()
    y.detach_()
    rec("y", y)
    rec("y.retains_grad", y.retains_grad)
    y.requires_grad_()
    (y * 3).backward()
    rec("y.grad", y.grad)
    rec("y.retains_grad after backward", y.retains_grad)


@case("detach_() on a leaf that requires grad makes it stop requiring grad", doc=docs.TENSOR_DETACH_,
      features=("non-scalar", "in-place", "detach"))
def detach_inplace_on_leaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.detach_()
    rec("x", x)
    rec("(x * 2).requires_grad", (x * 2).requires_grad)


@case("detach_() on a view raises", doc=docs.TENSOR_DETACH_, tags=("error",),
      features=("non-scalar", "in-place", "detach"))
def detach_inplace_on_view_raises(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    head = (x * 2)[:2]
    head.detach_()


@case(".data does not require grad, shares storage and does not share the version counter",
      doc=docs.VARIABLE_DEPRECATED,
      features=("non-scalar", "in-place", "version-counter", "detach"))
def data_shares_storage_not_version(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    d = x.data
    rec("d = x.data", d)
    d.mul_(2.0)
    rec("d after d.mul_(2.0)", d, version=True)
    rec("x after d.mul_(2.0)", x, version=True)


@case("Modifying a saved tensor through .data raises nothing and silently gives a wrong gradient",
      doc=docs.TENSOR_DETACH, tags=("hard",),
      features=("non-scalar", "in-place", "version-counter", "detach"))
def data_modification_gives_wrong_gradient(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.exp()
    y.data.zero_()
    rec("y", y, version=True)
    y.sum().backward()
    rec("x.grad", x.grad)


@case("Changing a leaf through .data after using it leaves the recorded gradient unchanged",
      doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      features=("in-place", "detach"))
def data_update_not_recorded(torch, rec):
    x = torch.ones(1, requires_grad=True, device=rec.device)
    rec("x.data.requires_grad", x.data.requires_grad)
    y = 2 * x
    x.data *= 100
    y.backward()
    rec("x", x)


@case("Assigning .data replaces the tensor's contents (even its shape) and keeps it a leaf requiring grad",
      doc=docs.VARIABLE_DEPRECATED,
      features=("non-scalar", "detach"))
def assign_data(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.data = torch.tensor([5.0, 6.0, 7.0], device=rec.device)
    rec("x", x)
    (x * 2).sum().backward()
    rec("x.grad", x.grad)


@case("detach() shares storage but is not a view: _is_view() is False and _base is None",
      doc=docs.TENSOR_DETACH, tags=("hard",),
      features=("non-scalar", "views", "detach"))
def detach_is_not_a_view(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    d = x.detach()
    rec("d._is_view()", d._is_view())
    rec("d._base", d._base)


@case("detach_() on a non-leaf that a later op saved makes that op's backward raise",
      doc=docs.TENSOR_DETACH_, tags=("error", "hard"),
      features=("non-scalar", "in-place", "detach"))
def detach_inplace_of_saved_nonleaf_breaks_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    z = y * y
    y.detach_()
    rec("y", y)
    z.sum().backward()


@case("Changing x.data in place is not tracked: x keeps its leaf status and the gradient uses the graph",
      doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      provenance="seed 001, In [19]",
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


@case("detach() cuts a path: the detached factor is a leaf that does not require grad, and the gradient "
      "flows only through the other path", doc=docs.TENSOR_DETACH, tags=("seed",),
      provenance="seed 002, section 使用detach()切断 (and the fragment input_B = output_A.detach())",
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


@case("Updating weights through w1.data.sub_() changes the values without recording the update: "
      "w1 stays a leaf and its version counter does not move", doc=docs.VARIABLE_DEPRECATED, tags=("seed",),
      provenance="seed 004, block 5",
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


@case("detach_() on a tensor a node saved: a built-in op's backward refuses it, a custom Function's backward "
      "unpacks it as it is now, without history (found by the fuzzer)", doc=docs.docstring("torch.Tensor.detach_"),
      tags=("error", "hard"), features=("detach", "custom-function", "in-place"))
def detach_in_place_of_a_saved_tensor(torch, rec):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a * a

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            rec("the saved input, unpacked", a)
            return grad * 3 * a * a

    x = torch.tensor(0.7, requires_grad=True, device=rec.device)
    y = x.sum()
    out = Cube.apply(y)
    y.detach_()
    out.backward()
    rec("x.grad", x.grad)
    y = x.sum()
    z = y * y
    y.detach_()
    with rec.attempt("backward through y * y after y.detach_()"):
        z.backward()


@case("A custom Function still unpacks a saved input that was detached in place (a built-in node refuses): "
      "when that input was also modified in place, the version error names the Function, since the tensor "
      "has no grad_fn left to name (found by the fuzzer)",
      doc=docs.EXTENDING_AUTOGRAD, tags=("error", "hard"),
      features=("non-scalar", "custom-function", "detach", "in-place", "version-counter", "autograd.grad"))
def function_input_detached_in_place_names_the_function(torch, rec):
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b + a

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * (b + 1), grad * a

    x = torch.tensor([[0.5, -1.0, -0.5]], requires_grad=True, device=rec.device)
    a = x * 2
    y = Scale.apply(a, x)
    a.add_(1)
    a.detach_()
    torch.autograd.grad(y.sum(), [x])
