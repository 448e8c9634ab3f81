"""nn.Module hooks: the full backward hooks and pre-hooks, the deprecated ``register_backward_hook``, the
module-level global hooks of ``torch.nn.modules.module`` (removed at the end of each case: they are global
state), and forward hooks with ``with_kwargs``, ``always_call`` and ``prepend``."""

from .. import docs
from ..case import case

FULL_BACKWARD_HOOK = docs.docstring("torch.nn.Module.register_full_backward_hook")
FULL_BACKWARD_PRE_HOOK = docs.docstring("torch.nn.Module.register_full_backward_pre_hook")
BACKWARD_HOOK = docs.docstring("torch.nn.Module.register_backward_hook")
FORWARD_HOOK = docs.docstring("torch.nn.Module.register_forward_hook")
FORWARD_PRE_HOOK = docs.docstring("torch.nn.Module.register_forward_pre_hook")
GLOBAL_FULL_BACKWARD_HOOK = docs.docstring("torch.nn.modules.module.register_module_full_backward_hook")


def scale_module(torch):
    """``Scale``: ``forward(x, y=None)`` gives ``x * w`` (``w`` a parameter [2., 3.]), plus ``y`` when given."""

    class Scale(torch.nn.Module):
        def __init__(self, device):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor([2.0, 3.0], device=device))

        def forward(self, x, y=None):
            out = x * self.w
            return out if y is None else out + y

    return Scale


# -- full backward hooks ----------------------------------------------------------------------------

@case("A full backward hook gets (module, grad_input, grad_output): tuples of the gradients with respect to "
      "the module's positional inputs and its outputs; the handle's remove() stops it",
      doc=FULL_BACKWARD_HOOK,
      features=("non-scalar", "nn", "hooks"))
def full_backward_hook_arguments(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    seen = []
    handle = module.register_full_backward_hook(lambda m, gi, go: seen.append((m is module, gi, go)))
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = module(x)
    rec("y.grad_fn", y.grad_fn)
    (y * torch.tensor([1.0, 10.0], device=rec.device)).sum().backward()
    rec("hook calls", seen)
    rec("x.grad", x.grad)
    rec("w.grad", module.w.grad)
    handle.remove()
    module(x).sum().backward()
    rec("hook calls after remove()", len(seen))


@case("A full backward hook may return a replacement grad_input, which flows on to the inputs; "
      "hooks run in registration order (prepend=True first), each seeing the previous one's result",
      doc=FULL_BACKWARD_HOOK,
      features=("non-scalar", "nn", "hooks"))
def full_backward_hook_replaces_grad_input(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    order = []

    def times_ten(m, grad_input, grad_output):
        order.append(("times_ten", grad_input))
        return (grad_input[0] * 10,)

    def plus_one(m, grad_input, grad_output):
        order.append(("plus_one", grad_input))
        return (grad_input[0] + 1,)

    module.register_full_backward_hook(times_ten)
    module.register_full_backward_hook(plus_one, prepend=True)
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    module(x).sum().backward()
    rec("order", order)
    rec("x.grad", x.grad)


@case("A full backward hook on a module whose input does not require grad fires with grad_input (None,) "
      "when the output's gradient is computed, and warns",
      doc=FULL_BACKWARD_HOOK, tags=("warning",),
      features=("non-scalar", "nn", "hooks"))
def full_backward_hook_input_without_grad(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    seen = []
    module.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    x = torch.tensor([1.0, 2.0], device=rec.device)
    module(x).sum().backward()
    rec("hook calls", seen)
    rec("w.grad", module.w.grad)


@case("A module called twice runs its full backward hook once per call, each with that call's gradients; "
      "an input that is not a tensor gets None in grad_input",
      doc=FULL_BACKWARD_HOOK,
      features=("non-scalar", "nn", "hooks"))
def full_backward_hook_module_used_twice(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    seen = []
    module.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = torch.tensor([1.0, 1.0], requires_grad=True, device=rec.device)
    first = module(x, y)
    second = module(first * 3, None)
    second.sum().backward()
    rec("hook calls", seen)
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)


@case("Modifying in place the output of a module with a full backward hook raises (it is the view a custom "
      "Function returned)",
      doc=FULL_BACKWARD_HOOK, tags=("error",),
      features=("non-scalar", "nn", "hooks", "in-place"))
def full_backward_hook_output_modified_in_place_raises(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    module.register_full_backward_hook(lambda m, gi, go: None)
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = module(x)
    y.add_(1)


@case("A full backward hook returning the wrong number of gradients raises",
      doc=FULL_BACKWARD_HOOK, tags=("error",),
      features=("non-scalar", "nn", "hooks"))
def full_backward_hook_wrong_count_raises(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    module.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    module(x).sum().backward()


@case("A full backward pre-hook gets (module, grad_output) before the module's backward and may replace "
      "grad_output, which the full backward hook and the inputs then see",
      doc=FULL_BACKWARD_PRE_HOOK,
      features=("non-scalar", "nn", "hooks"))
def full_backward_pre_hook_replaces_grad_output(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    order = []

    def pre_hook(m, grad_output):
        order.append(("pre", grad_output))
        return (grad_output[0] * 2,)

    module.register_full_backward_pre_hook(pre_hook)
    module.register_full_backward_hook(lambda m, gi, go: order.append(("hook", gi, go)))
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = module(x)
    rec("y.grad_fn", y.grad_fn)
    y.sum().backward()
    rec("order", order)
    rec("x.grad", x.grad)
    rec("w.grad", module.w.grad)


@case("register_backward_hook (deprecated) hooks the grad_fn of the module's output: it sees that node's "
      "gradients; mixing it with a full backward hook on one module raises",
      doc=BACKWARD_HOOK, tags=("error",),
      features=("non-scalar", "nn", "hooks"))
def deprecated_backward_hook(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    seen = []
    module.register_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    module(x).sum().backward()
    rec("hook calls", seen)
    rec("x.grad", x.grad)
    module.register_full_backward_hook(lambda m, gi, go: None)


# -- global hooks -------------------------------------------------------------------------------------

@case("The global module hooks (register_module_forward_pre_hook, _forward_hook, _full_backward_pre_hook, "
      "_full_backward_hook) run for every module, before the module's own hooks, until removed",
      doc=GLOBAL_FULL_BACKWARD_HOOK,
      features=("non-scalar", "nn", "hooks"))
def global_module_hooks(torch, rec):
    hooks = torch.nn.modules.module
    Scale = scale_module(torch)
    module = Scale(rec.device)
    events = []
    module.register_forward_hook(lambda m, args, out: events.append("own forward"))
    module.register_full_backward_hook(lambda m, gi, go: events.append(("own backward", gi)))
    handles = [
        hooks.register_module_forward_pre_hook(lambda m, args: events.append(("global forward pre", args))),
        hooks.register_module_forward_hook(lambda m, args, out: events.append(("global forward", out))),
        hooks.register_module_full_backward_pre_hook(lambda m, go: events.append(("global backward pre", go))),
        hooks.register_module_full_backward_hook(lambda m, gi, go: events.append(("global backward", gi, go))),
    ]
    try:
        x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
        module(x).sum().backward()
        rec("events", events)
        rec("x.grad", x.grad)
    finally:
        for handle in handles:
            handle.remove()
    events.clear()
    module(x).sum().backward()
    rec("events after remove()", events)


@case("register_module_backward_hook (deprecated, global) hooks every module's output grad_fn as "
      "register_backward_hook does",
      doc=docs.docstring("torch.nn.modules.module.register_module_backward_hook"),
      features=("non-scalar", "nn", "hooks"))
def global_module_backward_hook(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    seen = []
    handle = torch.nn.modules.module.register_module_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    try:
        x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
        module(x).sum().backward()
        rec("hook calls", seen)
        rec("x.grad", x.grad)
    finally:
        handle.remove()


# -- forward hooks ------------------------------------------------------------------------------------

@case("Forward pre-hooks and hooks with with_kwargs=True get the keyword arguments and may replace "
      "(args, kwargs) and the output; prepend=True runs a hook first",
      doc=FORWARD_PRE_HOOK,
      features=("non-scalar", "nn", "hooks"))
def forward_hooks_with_kwargs(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    order = []

    def pre_hook(m, args, kwargs):
        order.append(("pre", args, kwargs))
        return args, {"y": kwargs["y"] * 10}

    def hook(m, args, kwargs, output):
        order.append(("hook", kwargs, output))
        return output + 1

    module.register_forward_pre_hook(pre_hook, with_kwargs=True)
    module.register_forward_hook(hook, with_kwargs=True)
    module.register_forward_hook(lambda m, args, output: order.append(("first", output)), prepend=True)
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    out = module(x, y=torch.tensor([1.0, 1.0], device=rec.device))
    rec("out", out)
    rec("order", order)
    with rec.attempt("a pre-hook with kwargs returning one value"):
        module.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)
        module(x, y=torch.tensor([1.0, 1.0], device=rec.device))


@case("A forward hook with always_call=True runs even when forward raises, and the error propagates",
      doc=FORWARD_HOOK, tags=("error",),
      features=("non-scalar", "nn", "hooks"))
def forward_hook_always_call(torch, rec):
    Scale = scale_module(torch)
    module = Scale(rec.device)
    calls = []
    module.register_forward_hook(lambda m, args, output: calls.append(("always", output)), always_call=True)
    module.register_forward_hook(lambda m, args, output: calls.append(("normal", output)))
    x = torch.tensor([1.0, 2.0], device=rec.device)
    with rec.attempt("forward raising (shapes that do not broadcast)"):
        module(x, torch.tensor([1.0, 2.0, 3.0], device=rec.device))
    rec("calls", calls)
