"""How ``.grad`` is filled and accumulated, and how it is reset (by hand, by optimizers and modules)."""

from .. import docs
from ..case import case


@case(".grad is None until the first backward, which returns None and fills it with a tensor that does "
      "not require grad", doc=docs.TENSOR_GRAD,
      tags=("seed",),
      features=("non-scalar",))
def grad_is_none_until_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("x.grad before backward", x.grad)
    returned = (x * x).sum().backward()
    rec("backward() returned", returned)
    rec("x.grad after backward", x.grad)


@case("backward on fresh graphs adds into .grad instead of replacing it", doc=docs.TENSOR_GRAD,
      tags=("seed",),
      features=("non-scalar",))
def grad_accumulates_across_backward_calls(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * 3).sum().backward()
    rec("x.grad after one backward", x.grad)
    (x * 3).sum().backward()
    rec("x.grad after two backward", x.grad)


@case("A tensor used several times in one graph gets the sum of the contributions", doc=docs.TENSOR_BACKWARD,
      features=("non-scalar",))
def tensor_used_twice_sums_contributions(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x + x).sum()
    y.backward()
    rec("x.grad", x.grad)


@case("grad.zero_() zeroes .grad in place and grad = None resets it; the next backward starts afresh",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      features=("non-scalar", "in-place"))
def zero_grad_by_hand(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * 2).sum().backward()
    g = x.grad
    x.grad.zero_()
    rec("x.grad after zero_()", x.grad)
    rec.same("x.grad is g", x.grad, g)
    x.grad = None
    rec("x.grad after = None", x.grad)
    (x * 5).sum().backward()
    rec("x.grad after next backward", x.grad)


@case("Optimizer.zero_grad() sets .grad to None by default; set_to_none=False zeroes it in place",
      doc=docs.OPTIMIZER_ZERO_GRAD,
      features=("non-scalar", "nn", "optim"))
def optimizer_zero_grad(torch, rec):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0], device=rec.device))
    q = torch.nn.Parameter(torch.tensor([1.0, 2.0], device=rec.device))
    opt_p = torch.optim.SGD([p], lr=0.1)
    opt_q = torch.optim.SGD([q], lr=0.1)
    ((p + q) * 2).sum().backward()
    q_grad = q.grad
    opt_p.zero_grad()
    opt_q.zero_grad(set_to_none=False)
    rec("p.grad after zero_grad()", p.grad)
    rec("q.grad after zero_grad(set_to_none=False)", q.grad)
    rec.same("q.grad is the same tensor", q.grad, q_grad)


@case("Module.zero_grad() sets every parameter's .grad to None", doc=docs.MODULE_ZERO_GRAD,
      features=("non-scalar", "nn"))
def module_zero_grad_sets_none(torch, rec):
    layer = torch.nn.Linear(2, 1).to(rec.device)
    layer(torch.ones(1, 2, device=rec.device)).sum().backward()
    rec("layer.weight.grad", layer.weight.grad)
    rec("layer.bias.grad", layer.bias.grad)
    layer.zero_grad()
    rec("layer.weight.grad after zero_grad()", layer.weight.grad)
    rec("layer.bias.grad after zero_grad()", layer.bias.grad)


@case("Without create_graph, accumulation updates the existing .grad tensor in place",
      doc=docs.GRAD_LAYOUTS, tags=("hard",),
      features=("non-scalar",))
def accumulation_is_in_place(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * 3).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    rec.same("x.grad is first", x.grad, first)
    rec("first", first)


@case("With create_graph, accumulation makes a new .grad with a graph and leaves the old one unchanged",
      doc=docs.GRAD_LAYOUTS, tags=("hard",),
      features=("non-scalar", "higher-order"))
def create_graph_accumulation_is_out_of_place(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * x).sum().backward(create_graph=True)
    first = x.grad
    rec("x.grad after first backward", first)
    (x * x).sum().backward(create_graph=True)
    rec("x.grad after second backward", x.grad)
    rec.same("x.grad is first", x.grad, first)
    rec("first", first)


@case("A gradient passed to backward is copied into .grad, not aliased", doc=docs.TENSOR_BACKWARD,
      tags=("hard",),
      features=("non-scalar", "in-place"))
def backward_gradient_is_not_aliased(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    g = torch.tensor([5.0, 6.0], device=rec.device)
    (x + 1).backward(g)
    rec.same("x.grad is g", x.grad, g)
    g.mul_(10)
    rec("x.grad after changing g", x.grad)


@case("A gradient that reaches a leaf as a view of the caller's gradient is adopted: .grad shares its memory",
      doc=docs.GRAD_LAYOUTS, tags=("hard",),
      features=("non-scalar", "in-place"))
def view_of_backward_gradient_is_adopted(torch, rec):
    # torch adopts a gradient that no other tensor object holds and that has the leaf's layout;
    # a view that reshape's backward makes of g is such an object, although its memory is g's
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    g = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], device=rec.device)
    x.reshape(6).backward(g)
    x.grad.mul_(10)
    rec("g after x.grad.mul_(10)", g)
    y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, device=rec.device)
    h = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=rec.device)
    y.t().backward(h)  # a transposed view has not y's layout: copied
    y.grad.mul_(10)
    rec("h after y.grad.mul_(10)", h)


@case("A hook that keeps no reference to the gradient it is shown leaves .grad free to adopt it; a hook that "
      "keeps one makes .grad a copy",
      doc=docs.GRAD_LAYOUTS, tags=("hard",),
      features=("non-scalar", "in-place", "hooks"))
def hooks_that_keep_the_gradient_stop_its_adoption(torch, rec):
    # torch adopts a gradient that no other tensor object holds: what a hook was shown counts only
    # if the hook kept it (the tensor, or the tuple of a node hook's arguments)
    kept = []
    hooks = {
        "a node post-hook that keeps nothing": lambda y, x: y.grad_fn.register_hook(lambda gi, go: None),
        "a node post-hook that keeps grad_inputs": lambda y, x: y.grad_fn.register_hook(lambda gi, go: kept.append(gi)),
        "a node pre-hook that keeps grad_outputs": lambda y, x: y.grad_fn.register_prehook(kept.append),
        "a leaf tensor hook that keeps nothing": lambda y, x: x.register_hook(lambda g: None),
        "a leaf tensor hook that keeps the gradient": lambda y, x: x.register_hook(kept.append),
    }
    for label, register in hooks.items():
        x = torch.zeros(2, 3, requires_grad=True, device=rec.device)
        g = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], device=rec.device)
        y = x.reshape(6)
        register(y, x)
        y.backward(g)  # reshape's backward makes a view of g: adopted unless a hook kept it
        x.grad.mul_(10)
        rec(f"g after x.grad.mul_(10), with {label}", g)


@case("0-d leaves stacked and summed get views of one element as .grad: changing one changes the other",
      doc=docs.GRAD_LAYOUTS, tags=("hard",),
      features=("non-scalar", "in-place"))
def stacked_scalar_leaves_share_their_grad(torch, rec):
    # sum's gradient is the root gradient expanded (every element is the same memory); stack's
    # backward selects a 0-d view for each leaf, and a 0-d view obeys the layout contract
    a = torch.tensor(1.5, requires_grad=True, device=rec.device)
    b = torch.tensor(2.5, requires_grad=True, device=rec.device)
    torch.stack([a, b]).sum().backward()
    a.grad.mul_(-0.5)
    rec("b.grad after a.grad.mul_(-0.5)", b.grad)
    torch.stack([a, b]).sum().backward()  # each accumulates in place into the shared element
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)
    c = torch.tensor(1.5, requires_grad=True, device=rec.device)
    d = torch.tensor(2.5, requires_grad=True, device=rec.device)
    torch.stack([c, d]).mean().backward()  # mean's gradient is a new tensor: c and d get separate elements
    c.grad.mul_(-0.5)
    rec("d.grad after c.grad.mul_(-0.5)", d.grad)


@case("A .grad assigned by hand is accumulated into by the next backward", doc=docs.TENSOR_GRAD,
      features=("non-scalar",))
def assigned_grad_is_accumulated_into(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.grad = torch.tensor([10.0, 10.0], device=rec.device)
    (x * 3).sum().backward()
    rec("x.grad", x.grad)


@case("An SGD step updates parameters that have a .grad and skips those whose .grad is None",
      doc=docs.OPTIMIZER_ZERO_GRAD,
      features=("non-scalar", "nn", "optim"))
def sgd_step_skips_params_without_grad(torch, rec):
    p = torch.nn.Parameter(torch.tensor([1.0, 1.0], device=rec.device))
    q = torch.nn.Parameter(torch.tensor([1.0, 1.0], device=rec.device))
    opt = torch.optim.SGD([p, q], lr=0.5)
    (p * 2).sum().backward()
    opt.step()
    rec("p", p)
    rec("q", q)


@case("Zeroing .grad in place between two backward calls keeps only the second gradient",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 000, block 2",
      features=("retain-graph", "in-place", "printing"))
def zero_grad_between_backwards(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    c = b + 3
    b.backward(retain_graph=True)
    print(a.grad)
    a.grad.zero_()
    rec("a.grad after zero_", a.grad.clone())
    c.backward()
    print(a.grad)
    rec("a.grad", a.grad)


@case("Assigning a zero tensor to .grad by hand also resets it: the next backward adds to it",
      doc=docs.TENSOR_GRAD, tags=("seed",),
      provenance="seed 000, block 2 (the comment: 所以也可以a.grad=torch.tensor([0.0]))",
      features=("retain-graph", "printing"))
def assign_grad_by_hand(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    c = b + 3
    b.backward(retain_graph=True)
    print(a.grad)
    a.grad = torch.tensor([0.0], device=rec.device)
    c.backward()
    print(a.grad)
    rec("a.grad", a.grad)


@case("Gradients of successive backward calls accumulate in .grad until it is zeroed through .grad.data",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 001, In [11]",
      features=("non-scalar", "in-place", "detach", "printing"))
def grad_accumulates_until_zeroed_through_data(torch, rec):
    x = torch.ones(2, 2, requires_grad=True, device=rec.device)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()
    print(x.grad)
    rec("x.grad after out.backward", x.grad.clone())
    out2 = x.sum()
    out2.backward()
    print(x.grad)
    rec("x.grad after out2.backward", x.grad.clone())
    out3 = x.sum()
    x.grad.data.zero_()
    out3.backward()
    print(x.grad)
    rec("x.grad after zeroing and out3.backward", x.grad)


@case("backward() sums the gradients of every path from the output to the leaf (chain rule)",
      doc=docs.TENSOR_BACKWARD, tags=("seed",),
      provenance="seed 002, In [3]",
      features=("printing",))
def chain_rule_sums_over_paths(torch, rec):
    x = torch.tensor(2., requires_grad=True, device=rec.device)
    a = torch.add(x, 1)
    b = torch.add(x, 2)
    y = torch.mul(a, b)
    y.backward()
    print(x.grad)
    rec("x.grad", x.grad)


@case("In an SGD training loop optimizer.zero_grad() resets the grads to None and step() updates the "
      "parameters from the fresh gradients", doc=docs.OPTIMIZER_ZERO_GRAD, tags=("seed",),
      provenance="seed 004, block 6 (and seed 002's fragment optimizer.zero_grad())",
      features=("non-scalar", "grad-mode", "in-place", "nn", "optim"))
def optimizer_zero_grad_then_step(torch, rec):
    optim = torch.optim
    net = torch.nn.Linear(3, 1).to(rec.device)
    with torch.no_grad():
        net.weight.copy_(torch.tensor([[0.5, -1.0, 2.0]], device=rec.device))
        net.bias.copy_(torch.tensor([0.25], device=rec.device))
    criterion = torch.nn.MSELoss()
    input = torch.tensor([[1.0, 2.0, 3.0]], device=rec.device)
    target = torch.tensor([[4.0]], device=rec.device)
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    steps = 2
    for i in range(steps):
        optimizer.zero_grad()
        rec(f"net.weight.grad after zero_grad, step {i}", net.weight.grad)
        output = net(input)
        loss = criterion(output, target)
        loss.backward()
        rec(f"loss, step {i}", loss)
        rec(f"net.weight.grad, step {i}", net.weight.grad)
        optimizer.step()
    rec("net.weight", net.weight)
    rec("net.bias", net.bias)


@case("A transposed leaf's first gradient is laid out as the leaf (the gradient layout contract); under "
      "enforce_grad_layout_policy(False) a gradient the engine owns keeps its own layout, and the policy "
      "comes back after the block", doc=docs.docstring("torch.autograd.enforce_grad_layout_policy"),
      features=("non-scalar", "views"))
def gradient_layout_policy(torch, rec):
    c = torch.ones(2, 3, device=rec.device)
    for enable in (True, False):
        w = torch.ones(3, 2, device=rec.device).t().requires_grad_()
        with torch.autograd.enforce_grad_layout_policy(enable):
            (w * c).sum().backward()
            rec(f"enable={enable}: w.grad.stride()", w.grad.stride())
            (w * c).sum().backward()
            rec(f"enable={enable}: after accumulating", w.grad.stride())
    w = torch.ones(3, 2, device=rec.device).t().requires_grad_()
    (w * c).sum().backward()
    rec("after the block: w.grad.stride()", w.grad.stride())
