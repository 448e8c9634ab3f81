"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``, and how
backward itself runs with respect to grad mode."""

from .. import docs
from ..case import case


@case("Under no_grad results do not require grad and have no grad_fn; the leaf keeps requires_grad",
      doc=docs.NO_GRAD_MODE,
      features=("non-scalar", "grad-mode"))
def no_grad_results_not_tracked(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("is_grad_enabled() before", torch.is_grad_enabled())
    with torch.no_grad():
        rec("is_grad_enabled() inside", torch.is_grad_enabled())
        y = x * 2
    rec("is_grad_enabled() after", torch.is_grad_enabled())
    rec("y", y)
    rec("x", x)


@case("no_grad used as a decorator disables tracking inside the decorated function",
      doc=docs.NO_GRAD,
      features=("non-scalar", "grad-mode"))
def no_grad_as_decorator(torch, rec):
    @torch.no_grad()
    def double(t):
        rec("is_grad_enabled() in function", torch.is_grad_enabled())
        return t * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("double(x)", double(x))
    rec("is_grad_enabled() after", torch.is_grad_enabled())


@case("enable_grad inside no_grad turns tracking back on for its block",
      doc=docs.ENABLE_GRAD,
      features=("non-scalar", "grad-mode"))
def enable_grad_inside_no_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 3
        z = x * 3
    rec("y", y)
    rec("z", z)


@case("set_grad_enabled works as a context manager and as a plain function call",
      doc=docs.SET_GRAD_ENABLED,
      features=("non-scalar", "grad-mode"))
def set_grad_enabled_context_and_function(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.set_grad_enabled(False):
        a = x * 2
    rec("a.requires_grad", a.requires_grad)
    rec("is_grad_enabled() after block", torch.is_grad_enabled())
    torch.set_grad_enabled(False)
    try:
        rec("is_grad_enabled() after call", torch.is_grad_enabled())
        b = x * 2
    finally:
        torch.set_grad_enabled(True)
    rec("b.requires_grad", b.requires_grad)
    c = x * 2
    rec("c.requires_grad", c.requires_grad)


@case("set_grad_enabled with a non-bool argument raises TypeError",
      doc=docs.SET_GRAD_ENABLED, tags=("error",),
      features=("grad-mode",))
def set_grad_enabled_non_bool_raises(torch, rec):
    with rec.attempt("set_grad_enabled(0)"):
        torch.set_grad_enabled(0)
    rec("is_grad_enabled()", torch.is_grad_enabled())


@case("Tensors made under inference_mode are inference tensors that do not require grad",
      doc=docs.INFERENCE_MODE,
      features=("non-scalar", "grad-mode", "inference-mode"))
def inference_mode_makes_inference_tensors(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.inference_mode():
        rec("is_inference_mode_enabled() inside", torch.is_inference_mode_enabled())
        rec("is_grad_enabled() inside", torch.is_grad_enabled())
        y = x * 2
        z = torch.ones(2, device=rec.device)
    rec("is_inference_mode_enabled() after", torch.is_inference_mode_enabled())
    rec("y", y)
    rec("y.is_inference()", y.is_inference())
    rec("z.is_inference()", z.is_inference())
    rec("x.is_inference()", x.is_inference())


@case("An inference tensor that an autograd-recorded op must save raises outside inference mode",
      doc=docs.INFERENCE_MODE, tags=("error", "hard"),
      features=("non-scalar", "inference-mode"))
def inference_tensor_saved_for_backward_raises(torch, rec):
    with torch.inference_mode():
        t = torch.tensor([2.0, 3.0], device=rec.device)
    w = torch.tensor([1.0, 1.0], requires_grad=True, device=rec.device)
    w * t


@case("An inference tensor used by an op that saves nothing (add) works in autograd",
      doc=docs.INFERENCE_MODE, tags=("hard",),
      features=("non-scalar", "inference-mode"))
def inference_tensor_unsaved_use_works(torch, rec):
    with torch.inference_mode():
        t = torch.tensor([2.0, 3.0], device=rec.device)
    w = torch.tensor([1.0, 1.0], requires_grad=True, device=rec.device)
    y = w + t
    rec("y", y)
    y.sum().backward()
    rec("w.grad", w.grad)


@case("An in-place update of an inference tensor outside inference mode raises",
      doc=docs.INFERENCE_MODE_DOC, tags=("error",),
      features=("non-scalar", "inference-mode", "in-place"))
def inference_tensor_inplace_outside_raises(torch, rec):
    with torch.inference_mode():
        t = torch.ones(2, device=rec.device)
        t.add_(1)
    rec("t after in-place inside", t)
    t.add_(1)


@case("requires_grad_() on an inference tensor outside inference mode raises",
      doc=docs.INFERENCE_MODE_DOC, tags=("error",),
      features=("non-scalar", "inference-mode"))
def inference_tensor_requires_grad_raises(torch, rec):
    with torch.inference_mode():
        t = torch.ones(2, device=rec.device)
    t.requires_grad_()


@case("Inference tensors track no version counter: reading _version raises",
      doc=docs.INFERENCE_MODE, tags=("error", "hard"),
      features=("non-scalar", "inference-mode", "version-counter"))
def inference_tensor_version_raises(torch, rec):
    with torch.inference_mode():
        t = torch.ones(2, device=rec.device)
    rec("t.is_inference()", t.is_inference())
    rec("t._version", t._version)


@case("A clone of an inference tensor made outside inference mode is a normal tensor usable in autograd",
      doc=docs.INFERENCE_MODE,
      features=("non-scalar", "inference-mode", "version-counter"))
def inference_tensor_clone_is_normal(torch, rec):
    with torch.inference_mode():
        t = torch.tensor([3.0, 4.0], device=rec.device)
    c = t.clone()
    rec("c.is_inference()", c.is_inference())
    rec("c", c)
    rec("c._version", c._version)
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (w * c).sum().backward()
    rec("w.grad", w.grad)


@case("inference_mode(False) inside inference mode gives normal tensors again",
      doc=docs.INFERENCE_MODE_DOC,
      features=("non-scalar", "inference-mode"))
def inference_mode_false_inside(torch, rec):
    with torch.inference_mode():
        with torch.inference_mode(False):
            rec("is_inference_mode_enabled()", torch.is_inference_mode_enabled())
            u = torch.ones(2, device=rec.device)
        v = torch.ones(2, device=rec.device)
    rec("u.is_inference()", u.is_inference())
    rec("v.is_inference()", v.is_inference())


@case("An optimizer-style update w -= lr * w.grad under no_grad is not recorded; w stays a usable leaf",
      doc=docs.NO_GRAD_MODE,
      features=("non-scalar", "grad-mode", "in-place", "version-counter"))
def parameter_update_under_no_grad(torch, rec):
    w = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (w * w).sum().backward()
    with torch.no_grad():
        w -= 0.25 * w.grad
    rec("w", w)
    rec("w._version", w._version)
    w.grad = None
    (w * w).sum().backward()
    rec("w.grad after the next step's backward", w.grad)


@case("backward() called inside no_grad still computes and accumulates gradients",
      doc=docs.NO_GRAD, tags=("hard",),
      features=("non-scalar", "grad-mode"))
def backward_inside_no_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = (x * x).sum()
    with torch.no_grad():
        y.backward()
    rec("x.grad", x.grad)


@case("Hooks run with grad mode off during backward, and on when create_graph=True",
      doc=docs.TENSOR_POST_ACCUMULATE_HOOK, tags=("hard",),
      features=("non-scalar", "autograd.grad", "higher-order", "grad-mode", "hooks"))
def hooks_see_grad_mode(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    modes = []

    def hook(grad):
        modes.append(torch.is_grad_enabled())

    h = x * x
    h.register_hook(hook)
    torch.autograd.grad(h.sum(), x)
    h2 = x * x
    h2.register_hook(hook)
    torch.autograd.grad(h2.sum(), x, create_graph=True)
    rec("modes", modes)


@case("A result computed under no_grad does not require grad; backward through it reaches the other "
      "leaf but not the leaves behind it", doc=docs.NO_GRAD, tags=("seed",),
      provenance="seed 000, block 4",
      features=("grad-mode", "printing"))
def no_grad_intermediate_stops_backprop(torch, rec):
    a = torch.tensor([1.1], requires_grad=True, device=rec.device)
    b = a * 2
    with torch.no_grad():
        c = b + 2
    print(c.requires_grad)
    d = torch.tensor([10.0], requires_grad=True, device=rec.device)
    e = c * d
    print(e.requires_grad)
    rec("c", c)
    rec("e.grad_fn", e.grad_fn)
    e.backward()
    print(d.grad)
    print(a.grad)
    rec("d.grad", d.grad)
    rec("a.grad", a.grad)


@case("A term computed under no_grad is a constant: the gradient comes only from the tracked term",
      doc=docs.NO_GRAD, tags=("seed",),
      provenance="seed 001, In [18]",
      features=("grad-mode", "printing"))
def no_grad_term_is_constant(torch, rec):
    x = torch.tensor(1.0, requires_grad=True, device=rec.device)
    y1 = x ** 2
    with torch.no_grad():
        y2 = x ** 3
    y3 = y1 + y2
    print(x.requires_grad)
    print(y1, y1.requires_grad)
    print(y2, y2.requires_grad)
    print(y3, y3.requires_grad)
    rec("y2", y2)
    rec("y3", y3)
    y3.backward()
    print(x.grad)
    rec("x.grad", x.grad)


@case("An in-place op on an inference tensor outside inference_mode raises, after the values were written; "
      "a view of an inference tensor is one (found by the fuzzer)", doc=docs.INFERENCE_MODE, tags=("error", "hard"),
      features=("non-scalar", "grad-mode", "inference-mode", "in-place", "views"))
def inplace_on_inference_tensor_outside_the_mode(torch, rec):
    with torch.inference_mode():
        t = torch.ones(3, device=rec.device) * 2
    rec("t[1:].is_inference()", t[1:].is_inference())
    with rec.attempt("t.mul_(3)"):
        t.mul_(3)
    rec("t after mul_", t)
    with rec.attempt("t[0] = 5.0"):
        t[0] = 5.0
    rec("t after setitem", t)
    v = t[1:]
    with rec.attempt("v.add_(1) on a view made outside the mode"):
        v.add_(1)
    rec("t after v.add_(1)", t)
    x = torch.ones(2, requires_grad=True, device=rec.device)
    with rec.attempt("x * v saves the view for backward"):
        rec("x * v", x * v)


@case("A custom Function that saves an inference tensor for backward raises as a built-in op does; one that "
      "saves normal tensors runs (found by the fuzzer)", doc=docs.INFERENCE_MODE, tags=("error",),
      features=("non-scalar", "grad-mode", "inference-mode", "custom-function"))
def custom_function_cannot_save_an_inference_tensor(torch, rec):
    class Product(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * b, grad * a

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.inference_mode():
        frozen = torch.tensor([3.0, 4.0], device=rec.device)
    with rec.attempt("Product.apply(x, an inference tensor)"):
        rec("result", Product.apply(x, frozen))
    y = Product.apply(x, frozen.clone())
    y.sum().backward()
    rec("x.grad", x.grad)


@case("detach() and .data of an inference tensor are inference tensors, even made outside inference mode: "
      "an op that would save one for backward raises; one that saves nothing does not (found by the fuzzer)",
      doc=docs.INFERENCE_MODE, tags=("error", "hard"),
      features=("non-scalar", "inference-mode", "detach"))
def detached_inference_tensor_is_one(torch, rec):
    with torch.inference_mode():
        made = torch.tensor([1.0, 2.0, 3.0], device=rec.device) * 2
    detached, data = made.detach(), made.data
    rec("detach() and .data are inference tensors", [detached.is_inference(), data.is_inference()])
    w = torch.tensor([[1.5, -0.7, 1.2]], requires_grad=True, device=rec.device)
    rec("w + detached", w + detached)
    w * data


def _modes(torch):
    """The grad mode and the inference mode, as a pair."""
    return torch.is_grad_enabled(), torch.is_inference_mode_enabled()


@case("Nested no_grad, enable_grad, set_grad_enabled, inference_mode and inference_mode(False): each block "
      "sets its mode and its exit restores the enclosing one, level by level", doc=docs.GRAD_MODES,
      features=("non-scalar", "grad-mode", "inference-mode"))
def nested_grad_modes_restored(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with torch.no_grad():
        rec("no_grad", _modes(torch))
        with torch.enable_grad():
            rec("enable_grad inside it: x * 2 requires grad", (x * 2).requires_grad)
            with torch.set_grad_enabled(False):
                rec("set_grad_enabled(False) inside that", _modes(torch))
                with torch.inference_mode():
                    rec("inference_mode inside that", _modes(torch))
                    with torch.inference_mode(False):
                        rec("inference_mode(False) inside that", _modes(torch))
                    rec("after inference_mode(False)", _modes(torch))
                rec("after inference_mode", _modes(torch))
            rec("after set_grad_enabled(False)", _modes(torch))
        rec("after enable_grad", _modes(torch))
        rec("x * 2 after enable_grad requires grad", (x * 2).requires_grad)
    rec("after no_grad", _modes(torch))
    with torch.set_grad_enabled(False):
        torch.set_grad_enabled(True)
        rec("set_grad_enabled(True) called inside set_grad_enabled(False)", _modes(torch))
    rec("after that block", _modes(torch))
    torch.set_grad_enabled(False)
    with torch.enable_grad():
        rec("enable_grad after set_grad_enabled(False) as a call", _modes(torch))
    rec("its exit restores the call's mode", _modes(torch))
    torch.set_grad_enabled(True)


@case("A grad-mode block left by an exception restores the mode it found, at every level of nesting; so do "
      "no_grad, enable_grad, inference_mode and set_grad_enabled used as decorators, when the function raises",
      doc=docs.NO_GRAD, tags=("error",),
      features=("non-scalar", "grad-mode", "inference-mode"))
def grad_modes_restored_after_an_exception(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    with rec.attempt("an exception two blocks deep"):
        with torch.no_grad():
            with torch.enable_grad():
                with torch.inference_mode():
                    raise ValueError("inside inference_mode")
    rec("after the exception", _modes(torch))

    @torch.enable_grad()
    def tracked():
        rec("in the enable_grad function", _modes(torch))
        raise RuntimeError("raised with grad enabled")

    @torch.no_grad()
    def untracked():
        rec("in the no_grad function, x * 2 requires grad", (x * 2).requires_grad)
        tracked()

    with rec.attempt("a no_grad function calling an enable_grad function that raises"):
        untracked()
    rec("after it", _modes(torch))
    rec("x * 2 requires grad again", (x * 2).requires_grad)

    @torch.inference_mode()
    def inferring():
        rec("in the inference_mode function", _modes(torch))
        raise KeyError("inference")

    @torch.set_grad_enabled(False)
    def disabled():
        rec("in the set_grad_enabled(False) function", _modes(torch))
        inferring()

    with rec.attempt("set_grad_enabled(False) function calling an inference_mode function that raises"):
        disabled()
    rec("after them", _modes(torch))
