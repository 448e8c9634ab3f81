"""Backward hooks: tensor hooks, post-accumulate-grad hooks, Node hooks, saved-tensor hooks."""

import weakref

from .. import docs
from ..case import case

# -- tensor hooks ------------------------------------------------------------------------------

@case("A tensor hook's return value replaces the gradient; after handle.remove() it no longer runs",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("non-scalar", "hooks"))
def hook_replaces_grad_until_removed(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    handle = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    rec("x.grad with hook", x.grad)
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    rec("x.grad after handle.remove()", x.grad)


@case("A tensor hook that returns None sees the gradient and leaves it unchanged",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("non-scalar", "hooks"))
def hook_returning_none_keeps_grad(torch, rec):
    x = torch.tensor([1.0, -1.0], requires_grad=True, device=rec.device)
    seen = []

    def observe(g):
        seen.append(g.clone())

    x.register_hook(observe)
    (x * 4).sum().backward()
    rec("grads seen by the hook", seen)
    rec("x.grad", x.grad)


@case("register_hook on a tensor that does not require grad raises",
      doc=docs.TENSOR_REGISTER_HOOK, tags=("error",),
      features=("non-scalar", "hooks"))
def register_hook_without_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], device=rec.device)
    rec("x.requires_grad", x.requires_grad)
    x.register_hook(lambda g: g)


@case("Several hooks on one tensor run in registration order, each seeing the previous result",
      doc=docs.BACKWARD_HOOKS,
      features=("hooks",))
def hooks_chain_in_registration_order(torch, rec):
    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    calls = []

    def add_one(g):
        calls.append(("add_one", g.item()))
        return g + 1

    def triple(g):
        calls.append(("triple", g.item()))
        return g * 3

    x.register_hook(add_one)
    x.register_hook(triple)
    (x * 2).sum().backward()
    rec("calls (name, incoming grad)", calls)
    rec("x.grad", x.grad)


@case("A hook on a non-leaf changes the gradient that flows on to the tensors it came from",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("non-scalar", "hooks"))
def nonleaf_hook_changes_upstream_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.register_hook(lambda g: g * 100)
    z = y * y
    z.sum().backward()
    rec("x.grad", x.grad)


@case("retain_grad stores the gradient after every tensor hook, whether registered before or after them",
      doc=docs.BACKWARD_HOOKS, tags=("hard",),
      features=("retain-grad", "hooks"))
def retain_grad_after_all_tensor_hooks(torch, rec):
    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    early = x * 2
    early.retain_grad()
    early.register_hook(lambda g: g * 5)
    late = x * 3
    late.register_hook(lambda g: g * 7)
    late.retain_grad()
    (early + late).sum().backward()
    rec("early.grad (retain_grad before the hook)", early.grad)
    rec("late.grad (retain_grad after the hook)", late.grad)
    rec("x.grad", x.grad)


@case("A tensor hook that returns a gradient of another shape raises, naming the hook",
      doc=docs.TENSOR_REGISTER_HOOK, tags=("error",),
      features=("non-scalar", "hooks"))
def hook_wrong_shape_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)

    def widen(g):
        return torch.cat([g, g])

    x.register_hook(widen)
    (x * 2).sum().backward()


@case("A tensor hook that returns a gradient of another dtype raises",
      doc=docs.TENSOR_REGISTER_HOOK, tags=("error",),
      features=("non-scalar", "float64", "hooks"))
def hook_wrong_dtype_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)

    def to_double(g):
        return g.double()

    x.register_hook(to_double)
    (x * 2).sum().backward()


@case("A tensor hook that returns something other than a tensor or None raises TypeError",
      doc=docs.TENSOR_REGISTER_HOOK, tags=("error",),
      features=("non-scalar", "hooks"))
def hook_non_tensor_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)

    def as_number(g):
        return 1.5

    x.register_hook(as_number)
    (x * 2).sum().backward()


@case("A hook on a leaf fires on every backward through a retained graph",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("retain-graph", "hooks"))
def leaf_hook_fires_every_backward(torch, rec):
    x = torch.tensor([3.0], requires_grad=True, device=rec.device)
    calls = []
    x.register_hook(lambda g: calls.append(g.item()))
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    rec("incoming grads per call", calls)
    rec("x.grad", x.grad)


@case("With create_graph=True a hook receives a gradient that requires grad; without it, one that does not",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("autograd.grad", "higher-order", "hooks"))
def hook_grad_requires_grad_in_create_graph(torch, rec):
    x = torch.tensor([2.0], requires_grad=True, device=rec.device)
    flags = []
    x.register_hook(lambda g: flags.append(g.requires_grad))
    torch.autograd.grad((x * x).sum(), x, create_graph=True)
    torch.autograd.grad((x * x).sum(), x)
    rec("g.requires_grad (create_graph=True, then False)", flags)


@case("register_hook on a leaf leaves it a leaf with grad_fn None",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("non-scalar", "hooks"))
def register_hook_keeps_leaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.register_hook(lambda g: g * 2)
    rec("x", x)
    rec("x.grad_fn", x.grad_fn)


@case("A tensor hook fires for a tensor passed as an input to autograd.grad",
      doc=docs.BACKWARD_HOOKS, tags=("hard",),
      features=("non-scalar", "autograd.grad", "hooks"))
def hook_fires_for_autograd_grad_input(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    calls = []
    y.register_hook(lambda g: calls.append(g.clone()))
    (gy,) = torch.autograd.grad((y * 3).sum(), y)
    rec("grads seen by y's hook", calls)
    rec("dz/dy", gy)


@case("autograd.grad returns a non-leaf input's gradient after its tensor hooks when the backward stops there, "
      "but as it arrived, before them, when the backward must go on through it to reach another input "
      "(found by the fuzzer)",
      doc=docs.BACKWARD_HOOKS, tags=("hard",),
      features=("non-scalar", "autograd.grad", "hooks", "retain-graph"))
def autograd_grad_captures_before_the_hooks_of_a_node_that_runs(torch, rec):
    x = torch.tensor([1.0, -2.0], requires_grad=True, device=rec.device)
    y = x * 3
    z = y * y
    z.register_hook(lambda g: g * 10)
    out = (z * torch.tensor([1.0, 2.0], device=rec.device)).sum()
    rec("d out / d z alone", torch.autograd.grad(out, [z], retain_graph=True))
    rec("d out / d z and d out / d y", torch.autograd.grad(out, [z, y], retain_graph=True))
    rec("d out / d y and d out / d x", torch.autograd.grad(out, [y, x]))


@case("A hook registered before an in-place op stays with the old grad_fn and gets the gradient "
      "of the value before the in-place op",
      doc=docs.HOOKS_INPLACE, tags=("hard",),
      features=("non-scalar", "in-place", "hooks"))
def hook_before_inplace_stays_with_old_grad_fn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    calls = []
    y.register_hook(lambda g: calls.append(("registered before mul_", g.clone())))
    y.mul_(3)
    y.register_hook(lambda g: calls.append(("registered after mul_", g.clone())))
    y.sum().backward()
    rec("calls in firing order", calls)
    rec("x.grad", x.grad)


# -- post-accumulate-grad hooks ---------------------------------------------------------------

@case("A post-accumulate-grad hook runs after .grad is updated and receives the tensor itself",
      doc=docs.TENSOR_POST_ACCUMULATE_HOOK,
      features=("non-scalar", "in-place", "hooks"))
def post_accumulate_hook_sees_updated_grad(torch, rec):
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    seen = []

    def step(p):
        seen.append((p is w, p.grad.clone()))
        p.sub_(p.grad * 0.5)

    w.register_post_accumulate_grad_hook(step)
    (w * w).sum().backward()
    rec("(param is w, param.grad) per call", seen)
    rec("w after the hook's update", w)


@case("register_post_accumulate_grad_hook on a non-leaf raises",
      doc=docs.TENSOR_POST_ACCUMULATE_HOOK, tags=("error",),
      features=("hooks",))
def post_accumulate_hook_on_nonleaf_raises(torch, rec):
    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.register_post_accumulate_grad_hook(lambda p: None)


@case("register_post_accumulate_grad_hook on a tensor that does not require grad raises",
      doc=docs.TENSOR_POST_ACCUMULATE_HOOK, tags=("error",),
      features=("hooks",))
def post_accumulate_hook_without_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0], device=rec.device)
    x.register_post_accumulate_grad_hook(lambda p: None)


# -- Node hooks ---------------------------------------------------------------------------------

@case("A Node pre-hook receives grad_outputs and can return replacements for them",
      doc=docs.NODE_REGISTER_PREHOOK,
      features=("non-scalar", "hooks"))
def node_prehook_replaces_grad_outputs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 3
    seen = []

    def pre(grad_outputs):
        seen.append(tuple(g.clone() for g in grad_outputs))
        return (grad_outputs[0] + 1,)

    y.grad_fn.register_prehook(pre)
    y.backward(torch.tensor([1.0, 10.0], device=rec.device))
    rec("grad_outputs seen", seen)
    rec("x.grad", x.grad)


@case("A Node post-hook receives (grad_inputs, grad_outputs), one grad_input per input of the node",
      doc=docs.NODE_REGISTER_HOOK,
      features=("non-scalar", "hooks"))
def node_posthook_arguments(torch, rec):
    a = torch.tensor([2.0, 3.0], requires_grad=True, device=rec.device)
    b = torch.tensor([5.0, 7.0], requires_grad=True, device=rec.device)
    c = a * b
    seen = []

    def post(grad_inputs, grad_outputs):
        seen.append(([g.clone() for g in grad_inputs], [g.clone() for g in grad_outputs]))

    c.grad_fn.register_hook(post)
    c.sum().backward()
    rec("[grad_inputs], [grad_outputs]", seen)


@case("A Node post-hook's return value replaces the grad_inputs passed on; handle.remove() undoes it",
      doc=docs.NODE_REGISTER_HOOK,
      features=("non-scalar", "retain-graph", "hooks"))
def node_posthook_replaces_grad_inputs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    handle = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 - 1, gi[1]))
    y.sum().backward(retain_graph=True)
    rec("x.grad with the hook", x.grad)
    handle.remove()
    x.grad = None
    y.sum().backward()
    rec("x.grad after handle.remove()", x.grad)


@case("The Node hooks of a leaf's AccumulateGrad run around the accumulation: the pre-hook before the "
      "gradient is added, the post-hook after, with no grad_inputs",
      doc=docs.NODE_REGISTER_HOOK,
      features=("non-scalar", "hooks", "graph-introspection", "retain-graph"))
def accumulate_grad_node_hooks_run_around_the_accumulation(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 3
    accumulator = y.grad_fn.next_functions[0][0]
    seen = []
    accumulator.register_prehook(lambda grad_outputs: seen.append(
        ("pre-hook", [g.clone() for g in grad_outputs], None if x.grad is None else x.grad.clone())))
    accumulator.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        ("post-hook", list(grad_inputs), [g.clone() for g in grad_outputs], x.grad.clone())))
    x.register_post_accumulate_grad_hook(lambda p: seen.append(("post-accumulate hook", p.grad.clone())))
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    rec("what the hooks saw, in order", seen)


@case("A pre-hook of a leaf's AccumulateGrad can replace the gradient that is accumulated",
      doc=docs.NODE_REGISTER_PREHOOK,
      features=("non-scalar", "hooks", "graph-introspection"))
def accumulate_grad_prehook_replaces_the_gradient(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 3
    y.grad_fn.next_functions[0][0].register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
    y.sum().backward()
    rec("x.grad", x.grad)


@case("Hooks fire in the order: tensor hook, Node pre-hook, Node post-hook, leaf tensor hook, "
      "post-accumulate-grad hook",
      doc=docs.BACKWARD_HOOKS, tags=("hard",),
      features=("hooks",))
def hook_firing_order(torch, rec):
    x = torch.tensor([1.0], requires_grad=True, device=rec.device)
    order = []
    x.register_post_accumulate_grad_hook(lambda p: order.append("leaf post-accumulate hook"))
    x.register_hook(lambda g: order.append("leaf tensor hook"))
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: order.append("node post-hook"))
    y.grad_fn.register_prehook(lambda go: order.append("node pre-hook"))
    y.register_hook(lambda g: order.append("tensor hook on y"))
    y.sum().backward()
    rec("order", order)


@case("register_multi_grad_hook calls its function once, with the gradients of all the tensors",
      doc=docs.MULTI_GRAD_HOOK,
      features=("non-scalar",))
def multi_grad_hook_fires_once(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    calls = []

    def fn(grads):
        calls.append([None if g is None else g.clone() for g in grads])

    torch.autograd.graph.register_multi_grad_hook((a, b), fn)
    (a * b).sum().backward()
    rec("calls", calls)


@case("register_multi_grad_hook passes None for a tensor whose gradient was not computed",
      doc=docs.MULTI_GRAD_HOOK,
      features=("non-scalar", "backward-inputs"))
def multi_grad_hook_none_for_excluded_input(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    calls = []

    def fn(grads):
        calls.append([None if g is None else g.clone() for g in grads])

    torch.autograd.graph.register_multi_grad_hook((a, b), fn)
    (a * b).sum().backward(inputs=(a,))
    rec("calls", calls)
    rec("b.grad", b.grad)


# -- saved-tensor hooks -------------------------------------------------------------------------

@case("saved_tensors_hooks: pack runs when the forward saves a tensor, unpack when backward uses it",
      doc=docs.SAVED_TENSOR_HOOKS,
      features=("non-scalar", "saved-tensor-hooks"))
def saved_tensors_hooks_pack_then_unpack(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    events = []

    def pack(t):
        events.append(("pack", t.tolist()))
        return t

    def unpack(t):
        events.append(("unpack", t.tolist()))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.pow(2)
    events.append("forward done")
    y.sum().backward()
    rec("events", events)
    rec("x.grad", x.grad)


@case("saved_tensors_hooks over two backwards: pack runs once per saved tensor in the forward, unpack once per "
      "use in each backward (retain_graph=True, then a plain one); a third backward raises without unpacking; "
      "autograd.grad alike", doc=docs.SAVED_TENSOR_HOOKS, tags=("error",),
      features=("non-scalar", "saved-tensor-hooks", "retain-graph", "autograd.grad"))
def saved_tensors_hooks_over_two_backwards(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    events = []

    def pack(t):
        events.append(("pack", t.tolist()))
        return t

    def unpack(t):
        events.append(("unpack", t.tolist()))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).exp().sum()
        z = (x ** 3).sum()
    rec("forward: packed", events)
    events.clear()
    y.backward(retain_graph=True)
    rec("first backward (retain_graph=True): unpacked", events)
    events.clear()
    y.backward()
    rec("second backward: unpacked", events)
    rec("x.grad after both", x.grad)
    events.clear()
    with rec.attempt("third backward"):
        y.backward()
    rec("third backward: unpacked", events)
    events.clear()
    rec("autograd.grad(z, x, retain_graph=True)", torch.autograd.grad(z, x, retain_graph=True))
    rec("autograd.grad(z, x)", torch.autograd.grad(z, x))
    rec("unpacked by the two calls", events)


@case("What a pack hook returned is kept while the graph can still run backward, and freed with the graph: after "
      "a backward without retain_graph, or when the graph's output is deleted (a weak reference to it dies)",
      doc=docs.SAVED_TENSOR_HOOKS,
      features=("non-scalar", "saved-tensor-hooks", "retain-graph"))
def saved_tensors_hooks_packed_values_freed_with_the_graph(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    packed = []

    class Box:
        def __init__(self, tensor):
            self.tensor = tensor

    def pack(t):
        box = Box(t)
        packed.append(weakref.ref(box))
        return box

    def unpack(box):
        return box.tensor

    def alive():
        return [ref() is not None for ref in packed]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).exp().sum()
    rec("packed values after the forward", alive())
    y.backward(retain_graph=True)
    rec("after backward(retain_graph=True)", alive())
    y.backward()
    rec("after a plain backward", alive())
    packed.clear()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        z = x.sin() * x
    rec("packed by z = x.sin() * x", alive())
    del z
    rec("after del z", alive())


@case("Registering hooks a second time on the same saved tensor raises",
      doc=docs.SAVED_TENSOR_HOOKS, tags=("error",),
      features=("non-scalar",))
def saved_tensor_register_hooks_twice_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.pow(2)
    saved = y.grad_fn._raw_saved_self
    saved.register_hooks(lambda t: t, lambda t: t)
    rec("first register_hooks", "ok")
    saved.register_hooks(lambda t: t, lambda t: t)


@case("A Node post-hook gets None among grad_inputs for an operand that needs no gradient",
      doc=docs.NODE_REGISTER_HOOK, tags=("hard",),
      features=("non-scalar", "hooks"))
def node_posthook_none_for_operand_without_grad(torch, rec):
    a = torch.tensor([2.0, 3.0], requires_grad=True, device=rec.device)
    b = torch.tensor([5.0, 7.0], device=rec.device)
    c = a * b
    seen = []

    def post(grad_inputs, grad_outputs):
        seen.append([None if g is None else g.clone() for g in grad_inputs])

    c.grad_fn.register_hook(post)
    c.sum().backward()
    rec("[grad_inputs]", seen)


@case("Removing a hook handle twice is harmless, and each handle has its own id",
      doc=docs.TENSOR_REGISTER_HOOK,
      features=("non-scalar", "hooks"))
def hook_handle_remove_twice(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    first = x.register_hook(lambda g: g * 2)
    second = x.register_hook(lambda g: g * 3)
    rec("first.id != second.id", first.id != second.id)
    first.remove()
    first.remove()
    (x * 1).sum().backward()
    rec("x.grad", x.grad)


@case("A leaf detached (detach_) after the graph was built gets no .grad from it; its post-accumulate hook "
      "still runs, and sees .grad None (found by the fuzzer)", doc=docs.TENSOR_DETACH_, tags=("hard",),
      features=("hooks", "in-place", "detach"))
def post_accumulate_hook_of_a_leaf_detached_later(torch, rec):
    x = torch.tensor(-2.0, requires_grad=True, device=rec.device)
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad))
    y = x * 2
    x.detach_()
    y.backward()
    rec("seen", seen)
    rec("x.grad", x.grad)
    rec("x.requires_grad", x.requires_grad)


@case("Gradient accumulators that are ready together run in the order of torch's ready queue, a binary heap in "
      "which they all tie: (a + b) reaches a first, the leaves of a stack of five run as 0, 2, 4, 1, 3, and each "
      "post-accumulate hook fires in that order (found by the fuzzer)", doc=docs.TENSOR_POST_ACCUMULATE_HOOK,
      tags=("hard",), features=("non-scalar", "hooks"))
def accumulators_run_in_the_ready_queue_order(torch, rec):
    def leaves(count):
        made = [torch.tensor([float(i)], requires_grad=True, device=rec.device) for i in range(count)]
        for i, leaf in enumerate(made):
            leaf.register_post_accumulate_grad_hook(lambda p, i=i: order.append(i))
        return made

    for label, count, output in (("a + b", 2, lambda xs: xs[0] + xs[1]),
                                 ("torch.stack of 5 leaves", 5, lambda xs: torch.stack(xs)),
                                 ("torch.stack of 8 leaves", 8, lambda xs: torch.stack(xs)),
                                 ("a sum of 4 leaves", 4, lambda xs: xs[0] + xs[1] + xs[2] + xs[3])):
        order = []
        output(leaves(count)).sum().backward()
        rec(f"post-accumulate hooks of {label}", order)



@case("autograd.grad of one output with respect to an input it does not depend on (allow_unused): the output's "
      "hooks and retain_grad() still see the gradient it was given, deeper ones do not; with two outputs "
      "neither does (found by the fuzzer)", doc=docs.TENSOR_REGISTER_HOOK, tags=("hard",),
      features=("non-scalar", "hooks", "autograd.grad", "retain-grad"))
def lone_output_hooks_run_without_a_path_to_the_inputs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    unrelated = torch.tensor([3.0], requires_grad=True, device=rec.device)
    seen = []
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: seen.append(("y", g.tolist())))
    z = y * 3
    z.retain_grad()
    z.register_hook(lambda g: seen.append(("z", g.tolist())))
    ones = torch.ones(2, device=rec.device)
    rec("grad of z", torch.autograd.grad(z, [unrelated], grad_outputs=ones, allow_unused=True))
    rec("hooks that ran", seen)
    rec("y.grad", y.grad)
    rec("z.grad", z.grad)
    w = x * 4
    w.retain_grad()
    rec("grad of z and w", torch.autograd.grad([z, w], [unrelated], grad_outputs=[ones, ones], allow_unused=True))
    rec("w.grad", w.grad)
