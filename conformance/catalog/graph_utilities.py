"""``torch.autograd.graph``'s utilities: gradient edges, version bumps, saved-tensor contexts, multithreading.

``get_gradient_edge`` names where a tensor's gradient flows (a node and an input number), and
``autograd.grad`` and ``backward(inputs=)`` take such an edge where they take a tensor;
``increment_version`` bumps a version counter as an in-place op would, so that a later backward
refuses the stale saved value; ``allow_mutation_on_saved_tensors``, ``save_on_cpu`` and
``disable_saved_tensors_hooks`` are the saved-tensor contexts built on ``saved_tensors_hooks``
(whose pack and unpack order ``hooks`` checks); ``register_multi_grad_hook``'s "any" mode (its "all"
mode is in ``hooks``); ``set_multithreading_enabled``, which changes where backward runs, not what
it computes; ``region_activation_memory_budget``, which only torch.compile honours (eager mode refuses it).
"""

from .. import docs
from ..case import case

GET_GRADIENT_EDGE = docs.docstring("torch.autograd.graph.get_gradient_edge")
INCREMENT_VERSION = docs.docstring("torch.autograd.graph.increment_version")
ALLOW_MUTATION = docs.docstring("torch.autograd.graph.allow_mutation_on_saved_tensors")
SAVE_ON_CPU = docs.docstring("torch.autograd.graph.save_on_cpu")
DISABLE_HOOKS = docs.docstring("torch.autograd.graph.disable_saved_tensors_hooks")
MULTI_GRAD_HOOK = docs.docstring("torch.autograd.graph.register_multi_grad_hook")
MULTITHREADING = docs.docstring("torch.autograd.set_multithreading_enabled")
MEMORY_BUDGET = docs.docstring("torch.autograd.graph.region_activation_memory_budget")


# -- gradient edges ----------------------------------------------------------------------------

@case("autograd.grad with respect to get_gradient_edge(t) gives the gradient with respect to t, for a non-leaf "
      "(its grad_fn, output 0) and for a leaf (its AccumulateGrad); a GradientEdge is a named tuple",
      doc=GET_GRADIENT_EDGE,
      features=("non-scalar", "autograd.grad", "gradient-edges", "graph-introspection", "retain-graph", "higher-order"))
def grad_with_respect_to_a_gradient_edge(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 3
    z = (y * y).sum()
    edge = torch.autograd.graph.get_gradient_edge(y)
    rec("edge.node", edge.node)
    rec("edge.output_nr", edge.output_nr)
    rec("edge.ownership_token", edge.ownership_token)
    rec("edge is a tuple", isinstance(edge, tuple))
    rec("edge.node is y.grad_fn", edge.node is y.grad_fn)
    leaf_edge = torch.autograd.graph.get_gradient_edge(x)
    rec("leaf edge", (leaf_edge.node.name(), leaf_edge.output_nr))
    rec("grad with respect to y's edge", torch.autograd.grad(z, edge, retain_graph=True))
    rec("grad with respect to y", torch.autograd.grad(z, y, retain_graph=True))
    rec("grad with respect to [x's edge, y's edge]", torch.autograd.grad(z, [leaf_edge, edge], retain_graph=True))
    rec("x.grad untouched", x.grad)
    made = torch.autograd.graph.GradientEdge(y.grad_fn, 0)
    rec("grad with respect to GradientEdge(y.grad_fn, 0)", torch.autograd.grad(z, made, create_graph=True))


@case("The gradient edges of the outputs of a multi-output node (split, unbind) are the same node with "
      "output_nr 0, 1, ...; autograd.grad with respect to each gives that output's gradient",
      doc=GET_GRADIENT_EDGE,
      features=("non-scalar", "autograd.grad", "gradient-edges", "graph-introspection", "retain-graph"))
def gradient_edges_of_a_multi_output_node(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True, device=rec.device)
    first, second = x.split(2)
    edges = [torch.autograd.graph.get_gradient_edge(t) for t in (first, second)]
    rec("nodes", [e.node for e in edges])
    rec("output_nrs", [e.output_nr for e in edges])
    rec("the same node", edges[0].node is edges[1].node)
    out = (first * 2 + second * second).sum()
    rec("grads", torch.autograd.grad(out, edges, retain_graph=True))
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    u, v = m.unbind(0)
    total = (u * v).sum()
    rec("unbind edges", [torch.autograd.graph.get_gradient_edge(t).output_nr for t in (u, v)])
    rec("grads through unbind", torch.autograd.grad(total, [torch.autograd.graph.get_gradient_edge(v), m]))


@case("A gradient edge as autograd.grad's output needs its grad_outputs; a custom Function's output has an "
      "ownership token (a view node); errors: a tensor that does not require grad, an unused edge, "
      "materialize_grads with an edge", doc=GET_GRADIENT_EDGE, tags=("error",),
      features=("non-scalar", "autograd.grad", "gradient-edges", "graph-introspection", "custom-function",
                "retain-graph"))
def gradient_edges_as_outputs_and_their_errors(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 3
    edge = torch.autograd.graph.get_gradient_edge(y)
    ones = torch.ones(2, device=rec.device)
    rec("grad of the edge y with respect to x", torch.autograd.grad(edge, x, grad_outputs=ones, retain_graph=True))
    with rec.attempt("grad of the edge y without grad_outputs"):
        torch.autograd.grad(edge, x, retain_graph=True)

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    doubled = Double.apply(x)
    function_edge = torch.autograd.graph.get_gradient_edge(doubled)
    rec("a Function's edge: node and ownership token", (function_edge.node, function_edge.ownership_token))
    rec("grad with respect to it", torch.autograd.grad((doubled * doubled).sum(), function_edge))
    with rec.attempt("the edge of a tensor that does not require grad"):
        torch.autograd.graph.get_gradient_edge(torch.tensor([1.0], device=rec.device))
    unrelated = (x * 5).sum()
    with rec.attempt("an edge the output does not depend on"):
        torch.autograd.grad(unrelated, edge, retain_graph=True)
    rec("the same with allow_unused", torch.autograd.grad(unrelated, edge, allow_unused=True, retain_graph=True))
    with rec.attempt("materialize_grads with an edge"):
        torch.autograd.grad(unrelated, edge, materialize_grads=True)


@case("backward(inputs=[edge]): a leaf's edge accumulates into that leaf alone; a non-leaf's edge stops "
      "backward there (its hooks see the gradient, nothing is accumulated behind it)",
      doc=docs.AUTOGRAD_BACKWARD, features=("non-scalar", "backward-inputs", "gradient-edges", "hooks", "retain-graph"))
def backward_inputs_as_gradient_edges(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    y = x * 3
    z = (y.pow(2) * w).sum()
    z.backward(inputs=[torch.autograd.graph.get_gradient_edge(x)], retain_graph=True)
    rec("x.grad, w.grad after inputs=[x's edge]", (x.grad, w.grad))
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()))
    z.backward(inputs=[torch.autograd.graph.get_gradient_edge(y), w])
    rec("x.grad, w.grad after inputs=[y's edge, w]", (x.grad, w.grad))
    rec("y's hook saw", seen)


# -- version counters --------------------------------------------------------------------------

@case("increment_version(t) makes a later backward through a node that saved t raise the in-place error, "
      "as an in-place op would; it takes a tensor or a list; a node that saved only the result is unaffected",
      doc=INCREMENT_VERSION, tags=("error",), features=("non-scalar", "version-counter"))
def increment_version_fails_a_later_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 1
    squared = y.pow(2)
    exponential = y.exp()  # saves its result, not y
    torch.autograd.graph.increment_version(y)
    rec("y._version", y._version)
    rec("x._version", x._version)
    exponential.sum().backward()
    rec("x.grad through exp", x.grad)
    with rec.attempt("backward through pow after increment_version(y)"):
        squared.sum().backward()
    a = x * 1
    b = x * 2
    product = a * b
    torch.autograd.graph.increment_version([a, b])
    rec("versions after increment_version([a, b])", (a._version, b._version))
    product.sum().backward()


@case("increment_version leaves an inference tensor alone (it has no version counter)",
      doc=INCREMENT_VERSION, features=("non-scalar", "inference-mode", "version-counter"))
def increment_version_of_an_inference_tensor(torch, rec):
    with torch.inference_mode():
        t = torch.ones(2, device=rec.device)
    rec("increment_version(inference tensor)", torch.autograd.graph.increment_version(t))
    rec("t.is_inference()", t.is_inference())
    rec("t", t)


# -- saved-tensor contexts ---------------------------------------------------------------------

@case("allow_mutation_on_saved_tensors: a saved tensor changed in place inside it gives the gradient of the "
      "value it had when saved (also after a write through .data), where outside it backward raises; a saved "
      "tensor left alone comes back as it was",
      doc=ALLOW_MUTATION, tags=("error",),
      features=("non-scalar", "in-place", "saved-tensor-hooks", "graph-introspection", "detach"))
def allow_mutation_on_saved_tensors_uses_the_saved_values(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        a = x.clone()
        out = (a * a).sum()
        a.sin_()
        rec("a after sin_", a)
        out.backward()
        rec("x.grad", x.grad)
        b = x * 1
        kept = b.pow(2)
        rec("an unchanged saved tensor, unpacked", kept.grad_fn._saved_self)
        x.grad = None
        d = x.clone()
        squares = (d * d).sum()
        d.data.mul_(10)  # a write no version counter sees
        squares.backward()
        rec("x.grad after a write through .data", x.grad)
    with rec.attempt("the same without allow_mutation_on_saved_tensors"):
        c = x.clone()
        again = (c * c).sum()
        c.sin_()
        again.backward()


@case("allow_mutation_on_saved_tensors: backward after the context is left raises an AssertionError, and "
      "contexts cannot be nested", doc=ALLOW_MUTATION, tags=("error",),
      features=("non-scalar", "in-place", "saved-tensor-hooks", "autograd.grad"))
def allow_mutation_on_saved_tensors_errors(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        a = x.clone()
        out = a.sin()
        a.mul_(2)
    with rec.attempt("backward after leaving the context"):
        out.sum().backward()
    with rec.attempt("a context inside a context"):
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            with torch.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    b = x.clone()
    rec("after both, a plain backward", torch.autograd.grad(b.sin().sum(), x))


@case("save_on_cpu: gradients equal to the plain run; the saved tensors come back on their device (on the CPU, "
      "the input itself); with pin_memory each is packed as a new CPU copy (pinned where CUDA is available)",
      doc=SAVE_ON_CPU, features=("non-scalar", "saved-tensor-hooks", "graph-introspection", "autograd.grad", "detach"))
def save_on_cpu_keeps_values_and_places(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True, device=rec.device)
    plain = (x.pow(3) * w).sum()
    rec("plain grads", torch.autograd.grad(plain, [x, w]))
    with torch.autograd.graph.save_on_cpu():
        cubed = x.pow(3)
        moved = (cubed * w).sum()
    rec("_saved_self", cubed.grad_fn._saved_self)
    rec("_saved_self is x", cubed.grad_fn._saved_self is x)
    rec("grads under save_on_cpu", torch.autograd.grad(moved, [x, w]))
    hooks = torch.autograd.graph.save_on_cpu(pin_memory=True)
    with hooks:
        pinned = (x.pow(3) * w).sum()
    rec("grads under save_on_cpu(pin_memory=True)", torch.autograd.grad(pinned, [x, w]))
    device, packed = hooks.pack_hook(x)
    rec("packed on the CPU, as a copy of x", (packed.device.type, packed is not x, packed.detach()))
    rec("packed requires grad (copied into under grad mode)", packed.requires_grad)
    rec("the device kept is x's", device == x.device)
    unpacked = hooks.unpack_hook((device, packed))
    rec("unpacked on x's device", (unpacked.device == x.device, unpacked.detach()))
    rec("packed.is_pinned() (True where CUDA is available)", packed.is_pinned())


@case("disable_saved_tensors_hooks: entering saved-tensor hooks (save_on_cpu too) inside it raises its message; "
      "nested, the innermost message holds until it ends; entering it while hooks are active raises; plain "
      "saving is unaffected", doc=DISABLE_HOOKS, tags=("error",),
      features=("non-scalar", "saved-tensor-hooks"))
def disable_saved_tensors_hooks_refuses_hooks(torch, rec):
    graph = torch.autograd.graph

    def enter(hooks):
        with hooks:
            return "entered"

    with graph.disable_saved_tensors_hooks("saved-tensor hooks are off here"):
        with rec.attempt("saved_tensors_hooks inside"):
            enter(graph.saved_tensors_hooks(lambda t: t, lambda t: t))
        with graph.disable_saved_tensors_hooks("inner message"):
            with rec.attempt("save_on_cpu inside the inner one"):
                enter(graph.save_on_cpu())
        with rec.attempt("saved_tensors_hooks after the inner one ended"):
            enter(graph.saved_tensors_hooks(lambda t: t, lambda t: t))
        x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
        y = x.pow(2)
    y.sum().backward()
    rec("x.grad of a graph recorded inside", x.grad)
    rec("hooks after it ended", enter(graph.saved_tensors_hooks(lambda t: t, lambda t: t)))
    with rec.attempt("disable_saved_tensors_hooks while hooks are active"):
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with graph.disable_saved_tensors_hooks("refused: hooks are active"):
                pass
    rec("hooks after that", enter(graph.saved_tensors_hooks(lambda t: t, lambda t: t)))


# -- hooks and threads -------------------------------------------------------------------------

@case("register_multi_grad_hook(mode='any') calls its function once per backward, with the first gradient "
      "computed among the tensors (a tensor, not a tuple); removing the handle stops it; an unknown mode raises",
      doc=MULTI_GRAD_HOOK, tags=("error",), features=("non-scalar", "hooks"))
def multi_grad_hook_any_mode(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, 4.0], requires_grad=True, device=rec.device)
    calls = []
    handle = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: calls.append(g.clone()), mode="any")
    (a * b).sum().backward()
    rec("calls after the first backward", calls)
    (b * 5).sum().backward()
    rec("calls after a backward that reaches b only", calls)
    handle.remove()
    (a * b).sum().backward()
    rec("calls after remove", len(calls))
    every = []
    torch.autograd.graph.register_multi_grad_hook((a, b), lambda gs: every.append([g is None for g in gs]))
    (a * b).sum().backward()
    (a * 2).sum().backward()
    rec("mode 'all' over two backward passes: which gradients were None", every)
    with rec.attempt("mode='some'"):
        torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: None, mode="some")


@case("set_multithreading_enabled works as a function, a context manager and a decorator, and changes no "
      "gradient", doc=MULTITHREADING, features=("non-scalar",))
def set_multithreading_enabled_leaves_results_alone(torch, rec):
    def gradient():
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, device=rec.device)
        (x.sin() * x).sum().backward()
        return x.grad

    rec("default", gradient())
    with torch.autograd.set_multithreading_enabled(False):
        rec("inside set_multithreading_enabled(False)", gradient())
    rec("the context object's class is the function", isinstance(torch.autograd.set_multithreading_enabled(True),
                                                                torch.autograd.set_multithreading_enabled))
    torch.autograd.set_multithreading_enabled(False)
    rec("after the call set_multithreading_enabled(False)", gradient())
    torch.autograd.set_multithreading_enabled(True)

    @torch.autograd.set_multithreading_enabled(False)
    def decorated():
        return gradient()

    rec("in a decorated function", decorated())


@case("region_activation_memory_budget outside torch.compile raises RuntimeError (it has no effect in eager mode), "
      "after checking its budget: TypeError for a bool or a string, ValueError outside [0, 1]",
      doc=MEMORY_BUDGET, tags=("error",))
def region_activation_memory_budget_refused_in_eager_mode(torch, rec):
    for budget in (0.4, 0, True, "0.5", 1.5, -0.1):
        with rec.attempt(f"region_activation_memory_budget({budget!r})"):
            with torch.autograd.graph.region_activation_memory_budget(budget):
                x = torch.tensor(2.0, requires_grad=True, device=rec.device)
                (x * x).backward()
