"""``checkpointing``: activation checkpointing, ``torch.utils.checkpoint``.

A checkpointed function runs without keeping its intermediate tensors; backward runs it again to
get them. Two variants: reentrant (``use_reentrant=True``, a custom Function whose backward
recomputes and runs a backward of its own) and non-reentrant (saved-tensor hooks that recompute on
the first unpack, with a check that the recomputation saved tensors of the same shapes, dtypes and
devices). The cases check that gradients equal those of the plain run, the warnings and errors
with their exact texts, RNG state preservation, ``checkpoint_sequential``, nesting, ``context_fn``,
early stop, the debug switch and selective checkpointing's policies.

Left out: ``debug=True``'s full message (it holds stack traces of the operators torch ran, which
no other engine can reproduce: the cases check its type and first line), and ``CUDA`` RNG state
with ``pin_memory``-like device specifics (the cases run on every device, and compare gradients).
"""

import contextlib

from .. import docs
from ..case import case

CHECKPOINT = docs.docstring("torch.utils.checkpoint.checkpoint")
CHECKPOINT_SEQUENTIAL = docs.docstring("torch.utils.checkpoint.checkpoint_sequential")
DEBUG_SWITCH = docs.docstring("torch.utils.checkpoint.set_checkpoint_debug_enabled")
SELECTIVE = docs.docstring("torch.utils.checkpoint.create_selective_checkpoint_contexts")
POLICY = docs.docstring("torch.utils.checkpoint.CheckpointPolicy")
POLICY_CONTEXT = docs.docstring("torch.utils.checkpoint.SelectiveCheckpointContext")


def _sin_exp(a):
    return (a.sin() * a).exp()


@case("A reentrant checkpoint gives the gradients of the plain run through a node of its own, "
      "CheckpointFunctionBackward", doc=CHECKPOINT,
      features=("non-scalar", "checkpoint", "graph-introspection"))
def reentrant_gradients_equal_plain_run(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    y = torch.utils.checkpoint.checkpoint(_sin_exp, x, use_reentrant=True)
    rec("y", y)
    rec("y.grad_fn.name()", y.grad_fn.name())
    y.sum().backward()
    rec("x.grad through the checkpoint", x.grad)
    x.grad = None
    _sin_exp(x).sum().backward()
    rec("x.grad of the plain run", x.grad)


@case("A non-reentrant checkpoint gives the gradients of the plain run; its output's grad_fn is the "
      "function's last op, and autograd.grad works through it", doc=CHECKPOINT,
      features=("non-scalar", "checkpoint", "graph-introspection", "autograd.grad"))
def non_reentrant_gradients_equal_plain_run(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    y = torch.utils.checkpoint.checkpoint(_sin_exp, x, use_reentrant=False)
    rec("y.grad_fn.name()", y.grad_fn.name())
    rec("autograd.grad through the checkpoint", torch.autograd.grad(y.sum(), x))
    rec("autograd.grad of the plain run", torch.autograd.grad(_sin_exp(x).sum(), x))


@case("Without use_reentrant, checkpoint warns that it should be passed explicitly and runs the reentrant "
      "variant (torch.autograd.grad through it then raises)", doc=CHECKPOINT, tags=("warning", "error"),
      features=("non-scalar", "checkpoint", "graph-introspection", "autograd.grad"))
def use_reentrant_not_given_warns(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    y = torch.utils.checkpoint.checkpoint(_sin_exp, x)
    rec("y.grad_fn.name()", y.grad_fn.name())
    torch.autograd.grad(y.sum(), x)


@case("A reentrant checkpoint refuses torch.autograd.grad and backward(inputs=...) with one error",
      doc=CHECKPOINT, tags=("error",),
      features=("non-scalar", "checkpoint", "autograd.grad", "backward-inputs", "retain-graph"))
def reentrant_refuses_autograd_grad(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    y = torch.utils.checkpoint.checkpoint(_sin_exp, x, use_reentrant=True)
    with rec.attempt("torch.autograd.grad"):
        torch.autograd.grad(y.sum(), x, retain_graph=True)
    with rec.attempt("backward(inputs=[x])"):
        y.sum().backward(inputs=[x])
    rec("x.grad", x.grad)


@case("A module's parameters inside a checkpoint: non-reentrant gives them the plain run's gradients; "
      "reentrant with no input requiring grad warns and its output does not require grad",
      doc=CHECKPOINT, tags=("warning",),
      features=("non-scalar", "checkpoint", "nn"))
def module_parameters_inside(torch, rec):
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2).to(rec.device)
    inputs = torch.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]], device=rec.device)
    out = torch.utils.checkpoint.checkpoint(layer, inputs, use_reentrant=False)
    out.tanh().sum().backward()
    rec("weight.grad through the checkpoint", layer.weight.grad)
    rec("bias.grad through the checkpoint", layer.bias.grad)
    layer.zero_grad()
    layer(inputs).tanh().sum().backward()
    rec("weight.grad of the plain run", layer.weight.grad)
    rec("bias.grad of the plain run", layer.bias.grad)
    reentrant = torch.utils.checkpoint.checkpoint(layer, inputs, use_reentrant=True)
    rec("reentrant output requires grad", reentrant.requires_grad)


@case("Non-reentrant: a recomputation whose saved tensors differ in shape raises CheckpointError "
      "naming each tensor's saved and recomputed metadata", doc=CHECKPOINT, tags=("error",),
      features=("non-scalar", "checkpoint"))
def determinism_check_metadata_differs(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    runs = []

    def shrinking(a):
        runs.append(len(runs))
        return a.sin() if len(runs) == 1 else a[:2].sin()

    y = torch.utils.checkpoint.checkpoint(shrinking, x, use_reentrant=False)
    try:
        y.sum().backward()
    except RuntimeError as error:
        rec("a CheckpointError", isinstance(error, torch.utils.checkpoint.CheckpointError))
        raise


@case("Non-reentrant: a recomputation that saves fewer tensors than the forward raises CheckpointError "
      "with both counts; one that saves more stops early and passes, or without early stop raises", doc=CHECKPOINT,
      tags=("error",), features=("non-scalar", "checkpoint"))
def determinism_check_counts_saved_tensors(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    runs = []

    def longer_when_recomputed(a):
        runs.append("run")
        b = a.sin()
        return b if len(runs) == 1 else b.sin()

    torch.utils.checkpoint.checkpoint(longer_when_recomputed, x, use_reentrant=False).sum().backward()
    rec("x.grad after a longer recomputation", x.grad)
    runs.clear()
    y = torch.utils.checkpoint.checkpoint(longer_when_recomputed, x, use_reentrant=False, early_stop=False)
    with rec.attempt("a longer recomputation without early stop"):
        y.sum().backward()
    runs.clear()

    def shorter_when_recomputed(a):
        runs.append("run")
        return a.sin().sin() if len(runs) == 1 else a.sin() * 1.0

    torch.utils.checkpoint.checkpoint(shorter_when_recomputed, x, use_reentrant=False).sum().backward()


@case("determinism_check compares only shapes, dtypes and devices: recomputed values that differ are used "
      "silently, as with determinism_check='none'; another value raises ValueError", doc=CHECKPOINT,
      tags=("error",), features=("non-scalar", "checkpoint"))
def determinism_check_none_and_values(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    scale = {"value": torch.tensor([1.0, 2.0, 3.0], device=rec.device)}

    def scaled(a):
        return (a * scale["value"]).sin()

    for check in ("default", "none"):
        scale.update(value=torch.tensor([1.0, 2.0, 3.0], device=rec.device))
        y = torch.utils.checkpoint.checkpoint(scaled, x, use_reentrant=False, determinism_check=check)
        scale.update(value=torch.tensor([3.0, 2.0, 1.0], device=rec.device))
        y.sum().backward()
        rec(f"x.grad with determinism_check={check!r}", x.grad)
        x.grad = None
    torch.utils.checkpoint.checkpoint(scaled, x, use_reentrant=False, determinism_check="shapes")


@case("preserve_rng_state=True (the default) replays the random numbers drawn inside (a rand_like mask) in the "
      "recomputation, so gradients equal the plain run's in both variants; with False the recomputation draws "
      "new ones", doc=CHECKPOINT,
      features=("non-scalar", "checkpoint"))
def preserve_rng_state_with_random_mask(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True, device=rec.device)

    def masked(a):
        return (a * 2 * (torch.rand_like(a) > 0.5)).sum()

    torch.manual_seed(1)
    masked(x).backward()
    rec("x.grad of the plain run", x.grad)
    for reentrant in (True, False):
        for preserve in (True, False):
            x.grad = None
            torch.manual_seed(1)
            out = torch.utils.checkpoint.checkpoint(masked, x, use_reentrant=reentrant, preserve_rng_state=preserve)
            torch.manual_seed(5)
            out.backward()
            rec(f"out, use_reentrant={reentrant}, preserve_rng_state={preserve}", out)
            rec(f"x.grad, use_reentrant={reentrant}, preserve_rng_state={preserve}", x.grad)
    rec("the generator's next draw, after all that", torch.rand(2, device=rec.device))


@case("checkpoint_sequential splits a Sequential into segments and gives the plain run's gradients in "
      "both variants; without use_reentrant it warns; unknown keywords raise ValueError",
      doc=CHECKPOINT_SEQUENTIAL, tags=("warning", "error"),
      features=("non-scalar", "checkpoint", "nn", "graph-introspection"))
def checkpoint_sequential_segments(torch, rec):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4), torch.nn.Tanh(),
                                torch.nn.Linear(4, 1)).to(rec.device)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], requires_grad=True, device=rec.device)
    model(x).sum().backward()
    rec("x.grad of the plain run", x.grad)
    rec("first weight's grad of the plain run", model[0].weight.grad)
    for reentrant in (True, False):
        for segments in (1, 2, 3):
            x.grad = None
            model.zero_grad()
            out = torch.utils.checkpoint.checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
            out.sum().backward()
            rec(f"x.grad, {segments} segments, use_reentrant={reentrant}", x.grad)
            rec(f"first weight's grad, {segments} segments, use_reentrant={reentrant}", model[0].weight.grad)
    out = torch.utils.checkpoint.checkpoint_sequential(list(model), 2, x)
    rec("output's grad_fn without use_reentrant", out.grad_fn.name())
    torch.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=False, keep=True)


@case("A checkpoint inside a checkpoint (each variant inside itself) gives the plain run's gradients",
      doc=CHECKPOINT, features=("non-scalar", "checkpoint"))
def nested_checkpoints(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)

    def outer_of(reentrant):
        def outer(a):
            return torch.utils.checkpoint.checkpoint(_sin_exp, a.cos(), use_reentrant=reentrant).exp()
        return outer

    _sin_exp(x.cos()).exp().sum().backward()
    rec("x.grad of the plain run", x.grad)
    for reentrant in (True, False):
        x.grad = None
        y = torch.utils.checkpoint.checkpoint(outer_of(reentrant), x, use_reentrant=reentrant)
        y.sum().backward()
        rec(f"x.grad, use_reentrant={reentrant}", x.grad)


@case("Keyword arguments pass through a non-reentrant checkpoint to the function; the reentrant one "
      "refuses them with ValueError", doc=CHECKPOINT, tags=("error",),
      features=("non-scalar", "checkpoint"))
def keyword_arguments(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)

    def scaled(a, *, scale):
        return a.sin() * scale

    torch.utils.checkpoint.checkpoint(scaled, x, use_reentrant=False, scale=3.0).sum().backward()
    rec("x.grad", x.grad)
    torch.utils.checkpoint.checkpoint(scaled, x, use_reentrant=True, scale=3.0, shift=1.0)


@case("Outputs that do not require grad: non-reentrant returns them as they are; reentrant marks them as "
      "requiring grad and its backward raises", doc=CHECKPOINT, tags=("error",),
      features=("non-scalar", "checkpoint", "detach"))
def outputs_not_requiring_grad(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)

    def detached(a):
        return a.detach() * 2

    rec("non-reentrant output", torch.utils.checkpoint.checkpoint(detached, x, use_reentrant=False))
    y = torch.utils.checkpoint.checkpoint(detached, x, use_reentrant=True)
    rec("reentrant output requires grad", y.requires_grad)
    y.sum().backward()


@case("context_fn's two context managers wrap the forward and the recomputation; the reentrant variant and "
      "debug=True refuse a context_fn", doc=CHECKPOINT, tags=("error",),
      features=("non-scalar", "checkpoint"))
def context_fn_wraps_forward_and_recomputation(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    events = []

    class Marker:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            events.append(f"enter {self.name}")

        def __exit__(self, *exc):
            events.append(f"exit {self.name}")

    def contexts():
        return Marker("forward"), Marker("recomputation")

    def traced(a):
        events.append("run")
        return a.sin() * a

    y = torch.utils.checkpoint.checkpoint(traced, x, use_reentrant=False, context_fn=contexts)
    rec("events after the forward", list(events))
    y.sum().backward()
    rec("events after backward", list(events))
    rec("x.grad", x.grad)
    rec("noop_context_fn()", [type(c).__name__ for c in torch.utils.checkpoint.noop_context_fn()])
    with rec.attempt("debug=True with a context_fn"):
        torch.utils.checkpoint.checkpoint(traced, x, use_reentrant=False, context_fn=contexts, debug=True)
    torch.utils.checkpoint.checkpoint(traced, x, use_reentrant=True, context_fn=contexts)


@case("early_stop (default True) stops the recomputation once every saved tensor is recomputed; "
      "set_checkpoint_early_stop(False) and early_stop=False run the whole function again", doc=CHECKPOINT,
      features=("non-scalar", "checkpoint"))
def early_stop_recomputation(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    events = []

    def traced(a):
        events.append("start")
        b = a.sin() * a
        events.append("after the last saved tensor")
        return b + 1

    for label, keyword, switch in (("default", True, None), ("early_stop=False", False, None),
                                   ("set_checkpoint_early_stop(False)", True, False)):
        events.clear()
        if switch is None:
            y = torch.utils.checkpoint.checkpoint(traced, x, use_reentrant=False, early_stop=keyword)
        else:
            with torch.utils.checkpoint.set_checkpoint_early_stop(switch):
                y = torch.utils.checkpoint.checkpoint(traced, x, use_reentrant=False, early_stop=keyword)
        y.sum().backward()
        rec(f"events, {label}", list(events))
    rec("x.grad", x.grad)


@case("set_checkpoint_debug_enabled(True) turns a determinism error into the debug report, as debug=True "
      "does; the reentrant variant refuses debug=True", doc=DEBUG_SWITCH, tags=("error",),
      features=("non-scalar", "checkpoint"))
def debug_mode_reports(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    runs = []

    def shrinking(a):
        runs.append("run")
        return a.sin() if len(runs) == 1 else a[:2].sin()

    for label in ("set_checkpoint_debug_enabled(True)", "debug=True"):
        runs.clear()
        if label == "debug=True":
            y = torch.utils.checkpoint.checkpoint(shrinking, x, use_reentrant=False, debug=True)
        else:
            with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):
                y = torch.utils.checkpoint.checkpoint(shrinking, x, use_reentrant=False)
        try:
            y.sum().backward()
        except torch.utils.checkpoint.CheckpointError as error:
            rec(f"second line of the error, {label}", error.args[0].splitlines()[1])
    with torch.utils.checkpoint.set_checkpoint_debug_enabled(False):
        runs.clear()
        y = torch.utils.checkpoint.checkpoint(shrinking, x, use_reentrant=False, debug=True)
        with rec.attempt("set_checkpoint_debug_enabled(False) overrides debug=True"):
            y.sum().backward()
    torch.utils.checkpoint.checkpoint(_sin_exp, x, use_reentrant=True, debug=True)


@case("After backward(retain_graph=True) through a non-reentrant checkpoint, a second backward recomputes "
      "again and accumulates", doc=CHECKPOINT,
      features=("non-scalar", "checkpoint", "retain-graph"))
def second_backward_recomputes(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    runs = []

    def traced(a):
        runs.append("run")
        return _sin_exp(a)

    y = torch.utils.checkpoint.checkpoint(traced, x, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    rec("x.grad after one backward", x.grad.clone())
    y.backward()
    rec("x.grad after two", x.grad)
    rec("runs of the function", len(runs))


@case("A second derivative through a non-reentrant checkpoint (create_graph=True) equals the plain run's; "
      "the reentrant variant's gradients do not require grad, so a second derivative raises", doc=CHECKPOINT,
      tags=("error",), features=("non-scalar", "checkpoint", "autograd.grad", "higher-order", "detach"))
def second_derivative_through_checkpoint(torch, rec):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True, device=rec.device)
    (first,) = torch.autograd.grad(_sin_exp(x).sum(), x, create_graph=True)
    rec("second derivative of the plain run", torch.autograd.grad(first.sum(), x))
    y = torch.utils.checkpoint.checkpoint(_sin_exp, x, use_reentrant=False).sum()
    (first,) = torch.autograd.grad(y, x, create_graph=True)
    rec("first derivative, non-reentrant", first.detach())
    rec("it requires grad", first.requires_grad)
    rec("second derivative, non-reentrant", torch.autograd.grad(first.sum(), x))
    y = torch.utils.checkpoint.checkpoint(_sin_exp, x, use_reentrant=True).sum()
    y.backward(create_graph=True)
    rec("x.grad, reentrant, requires grad", x.grad.requires_grad)
    torch.autograd.grad(x.grad.sum(), x)


@case("Under one GraphExecGroup, backward calls over separate parts of a non-reentrant checkpoint share one "
      "recomputation; groups cannot be nested", doc=docs.docstring("torch.utils.checkpoint.GraphExecGroup"),
      tags=("error",), features=("non-scalar", "checkpoint", "autograd.grad"))
def graph_exec_group_recomputes_once(torch, rec):
    a = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    b = torch.tensor([2.0, 3.0], requires_grad=True, device=rec.device)
    runs = []

    def both(p, q):
        runs.append("run")
        return p.sin() * p, q.sin() * q

    for grouped in (True, False):
        runs.clear()
        first, second = torch.utils.checkpoint.checkpoint(both, a, b, use_reentrant=False)
        with torch.utils.checkpoint.GraphExecGroup() if grouped else contextlib.nullcontext():
            rec(f"grad of the first, grouped={grouped}", torch.autograd.grad(first.sum(), a))
            rec(f"grad of the second, grouped={grouped}", torch.autograd.grad(second.sum(), b))
        rec(f"runs of the function, grouped={grouped}", len(runs))
    with torch.utils.checkpoint.GraphExecGroup():
        with torch.utils.checkpoint.GraphExecGroup():
            pass


@case("The helpers of torch.utils.checkpoint: detach_variable, check_backward_validity's warning, "
      "CheckpointFunction.apply, device states of CPU tensors, DefaultDeviceType", doc=CHECKPOINT,
      tags=("warning", "error"), features=("non-scalar", "checkpoint", "graph-introspection"))
def helpers(torch, rec):
    x = torch.tensor([0.5, 1.0], requires_grad=True, device=rec.device)
    detached = torch.utils.checkpoint.detach_variable((x, 3))
    rec("detach_variable((x, 3))", detached)
    rec("detached input is a new leaf", detached[0].is_leaf)
    torch.utils.checkpoint.check_backward_validity([torch.ones(2, device=rec.device), 1.0])
    rec("after check_backward_validity", True)
    y = torch.utils.checkpoint.CheckpointFunction.apply(_sin_exp, True, x)
    rec("CheckpointFunction.apply grad_fn", y.grad_fn.name())
    y.sum().backward()
    rec("x.grad", x.grad)
    rec("get_device_states of CPU tensors", torch.utils.checkpoint.get_device_states(x.cpu()))
    torch.utils.checkpoint.set_device_states([], [])
    rec("DefaultDeviceType.get_device_type()", torch.utils.checkpoint.DefaultDeviceType.get_device_type())
    with rec.attempt("detach_variable of a list"):
        torch.utils.checkpoint.detach_variable([x])


@case("CheckpointPolicy's members and values; SelectiveCheckpointContext's attributes; "
      "create_selective_checkpoint_contexts refuses what is neither a function nor a list of ops",
      doc=POLICY, tags=("error",), features=("checkpoint",))
def selective_checkpoint_policy_api(torch, rec):
    policy = torch.utils.checkpoint.CheckpointPolicy
    rec("members", [(member.name, member.value) for member in policy])
    context = torch.utils.checkpoint.SelectiveCheckpointContext(is_recompute=False)
    rec("is_recompute, op_output", (context.is_recompute, context.op_output))
    torch.utils.checkpoint.create_selective_checkpoint_contexts(3)


@case("A selective-checkpoint policy that recomputes every op is plain checkpointing: the plain run's "
      "gradients", doc=SELECTIVE, features=("non-scalar", "checkpoint"))
def selective_checkpoint_recompute_everything(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    w = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True, device=rec.device)

    def recompute(ctx, op, *args, **kwargs):
        return torch.utils.checkpoint.CheckpointPolicy.PREFER_RECOMPUTE

    def contexts():
        return torch.utils.checkpoint.create_selective_checkpoint_contexts(recompute)

    y = torch.utils.checkpoint.checkpoint(lambda a, b: torch.mm(a, b).sin().sum(), x, w, use_reentrant=False,
                                          context_fn=contexts)
    y.backward()
    rec("x.grad", x.grad)
    rec("w.grad", w.grad)
    x.grad = w.grad = None
    torch.mm(x, w).sin().sum().backward()
    rec("x.grad of the plain run", x.grad)
    rec("w.grad of the plain run", w.grad)


@case("Selective checkpointing calls the policy with each aten op of the forward (and not again in "
      "backward); a list of ops saves those; gradients equal the plain run's; a second backward raises",
      doc=SELECTIVE, tags=("error",), features=("non-scalar", "checkpoint", "op-dispatch", "retain-graph"))
def selective_checkpoint_policy_sees_ops(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    w = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True, device=rec.device)
    seen = []

    def save_mm(ctx, op, *args, **kwargs):
        seen.append(op.__name__)
        if op == torch.ops.aten.mm.default:
            return torch.utils.checkpoint.CheckpointPolicy.MUST_SAVE
        return torch.utils.checkpoint.CheckpointPolicy.PREFER_RECOMPUTE

    def region(a, b):
        return torch.mm(a, b).sin().sum()

    y = torch.utils.checkpoint.checkpoint(
        region, x, w, use_reentrant=False,
        context_fn=lambda: torch.utils.checkpoint.create_selective_checkpoint_contexts(save_mm))
    rec("ops seen in the forward", list(seen))
    y.backward()
    rec("ops seen after backward", list(seen))
    rec("x.grad", x.grad)
    x.grad = w.grad = None
    y = torch.utils.checkpoint.checkpoint(
        region, x, w, use_reentrant=False,
        context_fn=lambda: torch.utils.checkpoint.create_selective_checkpoint_contexts([torch.ops.aten.mm.default]))
    y.backward(retain_graph=True)
    rec("x.grad with a list of ops", x.grad)
    rec("aten.detach is ignored", torch.ops.aten.detach.default in torch.utils.checkpoint.SAC_IGNORED_OPS)
    y.backward()


# CPU only: on CUDA torch's dropout is one fused kernel (native_dropout), which fills nothing in place
@case("Selective checkpointing refuses a saved op output that a later in-place op mutated: dropout under a "
      "save-every-op policy (its mask is filled in place) raises in backward", doc=SELECTIVE, tags=("error",),
      features=("non-scalar", "checkpoint", "op-dispatch", "nn"), devices=("cpu",))
def selective_checkpoint_saved_output_mutated(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True, device=rec.device)

    def save_all(ctx, op, *args, **kwargs):
        return torch.utils.checkpoint.CheckpointPolicy.MUST_SAVE

    def dropped(a):
        return torch.nn.functional.dropout(a * 2, p=0.5, training=True).sum()

    torch.manual_seed(1)
    y = torch.utils.checkpoint.checkpoint(
        dropped, x, use_reentrant=False,
        context_fn=lambda: torch.utils.checkpoint.create_selective_checkpoint_contexts(save_all))
    with rec.attempt("backward"):
        y.backward()
    rec("x.grad", x.grad)
