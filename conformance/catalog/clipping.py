"""Gradient clipping: ``torch.nn.utils.clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and
``clip_grads_with_norm_``.

The total norm is the norm of the gradients' norms, of any order (``inf`` and ``"inf"`` included);
the gradients are scaled in place by ``min(max_norm / (total + 1e-6), 1)``, so that small ones are
left exactly as they were; ``error_if_nonfinite`` refuses a NaN or infinite total; ``foreach``
picks an implementation, never a result. Parameters without a gradient are skipped, and the
parameters may come as one tensor, a list or a generator.
"""

from .. import docs
from ..case import case

CLIP_GRAD_NORM = docs.docstring("torch.nn.utils.clip_grad_norm_")
CLIP_GRAD_VALUE = docs.docstring("torch.nn.utils.clip_grad_value_")
CLIP_WITH_NORM = docs.docstring("torch.nn.utils.clip_grads_with_norm_")
GET_TOTAL_NORM = docs.docstring("torch.nn.utils.get_total_norm")
CLIP_GRAD_NORM_DEPRECATED = docs.docstring("torch.nn.utils.clip_grad_norm")


def parameters_with_gradients(torch, device, dtype=None):
    """Three parameters: two with gradients (norms 5 and 12), one without."""
    dtype = dtype or torch.float32
    a = torch.tensor([3.0, -4.0], requires_grad=True, device=device, dtype=dtype)
    b = torch.tensor([[1.0, 2.0]], requires_grad=True, device=device, dtype=dtype)
    c = torch.tensor([1.0], requires_grad=True, device=device, dtype=dtype)
    (a * torch.tensor([3.0, -4.0], device=device, dtype=dtype)).sum().backward()
    (b * torch.tensor([[12.0, 0.0]], device=device, dtype=dtype)).sum().backward()
    return [a, b, c]


@case("clip_grad_norm_ of norm types 1, 2, inf, 'inf', 0.5, 3, 0 and -inf: the total norm returned and the "
      "gradients scaled by max_norm / (total + 1e-6) when that is below 1", doc=CLIP_GRAD_NORM,
      features=("non-scalar", "nn", "in-place"))
def clip_grad_norm_of_each_norm_type(torch, rec):
    for norm_type in (1, 2, float("inf"), "inf", 0.5, 3, 0, float("-inf")):
        params = parameters_with_gradients(torch, rec.device)
        total = torch.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type)
        rec(f"norm_type={norm_type!r}: total", total)
        rec(f"norm_type={norm_type!r}: gradients", [p.grad for p in params])


@case("clip_grad_norm_ and clip_grad_value_ give the same results with foreach True, False and None",
      doc=CLIP_GRAD_NORM, features=("non-scalar", "nn", "in-place"))
def clip_grad_foreach_changes_nothing(torch, rec):
    for foreach in (None, True, False):
        params = parameters_with_gradients(torch, rec.device)
        total = torch.nn.utils.clip_grad_norm_(params, 2.0, norm_type=3, foreach=foreach)
        rec(f"foreach={foreach}: clip_grad_norm_", (total, [p.grad for p in params]))
        params = parameters_with_gradients(torch, rec.device)
        rec(f"foreach={foreach}: clip_grad_value_ returns", torch.nn.utils.clip_grad_value_(params, 2.5, foreach=foreach))
        rec(f"foreach={foreach}: clipped values", [p.grad for p in params])


@case("clip_grad_norm_ with error_if_nonfinite=True raises for a NaN or infinite total norm, naming its order; "
      "with False (the default) it returns it and scales the gradients by it", doc=CLIP_GRAD_NORM,
      tags=("error",), features=("non-scalar", "nn", "in-place"))
def clip_grad_norm_of_non_finite_gradients(torch, rec):
    for label, bad, norm_type in (("nan", float("nan"), 2.0), ("inf", float("inf"), "inf"), ("-inf", float("-inf"), 1)):
        params = parameters_with_gradients(torch, rec.device)
        params[0].grad[0] = bad
        with rec.attempt(f"{label} gradient, norm_type={norm_type!r}, error_if_nonfinite=True"):
            torch.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type, error_if_nonfinite=True)
        rec(f"{label}: gradients left alone by the error", [p.grad for p in params])
        total = torch.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type)
        rec(f"{label}: total without the check", total)
        rec(f"{label}: gradients scaled by it", [p.grad for p in params])


@case("clip_grad_norm_ takes one tensor, a list or a generator (an empty generator warns); parameters without "
      "a gradient are skipped, none at all give a total of 0; zero gradients stay exactly zero",
      doc=CLIP_GRAD_NORM, tags=("warning",), features=("non-scalar", "nn", "in-place"))
def clip_grad_norm_of_its_kinds_of_parameters(torch, rec):
    params = parameters_with_gradients(torch, rec.device)
    rec("one tensor", torch.nn.utils.clip_grad_norm_(params[0], 1.0))
    rec("its gradient", params[0].grad)
    params = parameters_with_gradients(torch, rec.device)
    rec("a generator", torch.nn.utils.clip_grad_norm_((p for p in params), 1.0))
    rec("its gradients", [p.grad for p in params])
    rec("an empty generator", torch.nn.utils.clip_grad_norm_((p for p in []), 1.0))
    rec("an empty list", torch.nn.utils.clip_grad_norm_([], 1.0))
    without = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    rec("parameters without gradients", torch.nn.utils.clip_grad_norm_([without], 1.0))
    rec("their grad", without.grad)
    params = parameters_with_gradients(torch, rec.device)
    for p in params[:2]:
        p.grad.zero_()
    rec("zero gradients: total", torch.nn.utils.clip_grad_norm_(params, 1.0))
    rec("zero gradients after", [p.grad for p in params])
    params = parameters_with_gradients(torch, rec.device)
    rec("max_norm above the total: total", torch.nn.utils.clip_grad_norm_(params, 100))
    rec("gradients left as they were", [p.grad for p in params])


@case("The total norm is a 0-dim tensor that does not require grad, of the gradients' dtype; with float32 "
      "and float64 gradients it is float64, and each gradient keeps its dtype",
      doc=CLIP_GRAD_NORM, features=("non-scalar", "nn", "float64", "in-place"))
def clip_grad_norm_dtypes(torch, rec):
    params = parameters_with_gradients(torch, rec.device, torch.float64)
    total = torch.nn.utils.clip_grad_norm_(params, 1.0)
    rec("float64 total", total)
    rec("float64 gradients", [p.grad for p in params])
    single = parameters_with_gradients(torch, rec.device)[:1]
    double = parameters_with_gradients(torch, rec.device, torch.float64)[1:2]
    mixed = torch.nn.utils.clip_grad_norm_(single + double, 1.0)
    rec("mixed total", mixed)
    rec("mixed gradients", [single[0].grad, double[0].grad])


@case("clip_grad_value_ clamps every gradient into [-clip_value, clip_value] in place and returns None; one "
      "tensor or a generator; with a negative clip_value every element becomes clip_value",
      doc=CLIP_GRAD_VALUE, features=("non-scalar", "nn", "in-place"))
def clip_grad_value_clamps(torch, rec):
    params = parameters_with_gradients(torch, rec.device)
    rec("returns", torch.nn.utils.clip_grad_value_(params, 3.5))
    rec("gradients", [p.grad for p in params])
    params = parameters_with_gradients(torch, rec.device)
    torch.nn.utils.clip_grad_value_(params[1], 1)
    rec("one tensor", params[1].grad)
    params = parameters_with_gradients(torch, rec.device)
    torch.nn.utils.clip_grad_value_((p for p in params), 0.5)
    rec("a generator", [p.grad for p in params])
    params = parameters_with_gradients(torch, rec.device)
    torch.nn.utils.clip_grad_value_(params, -1.0)
    rec("clip_value -1", [p.grad for p in params])


@case("get_total_norm computes clip_grad_norm_'s total from tensors (0 for none), with its error_if_nonfinite; "
      "clip_grads_with_norm_ scales by a given total, never up", doc=GET_TOTAL_NORM, tags=("error",),
      features=("non-scalar", "nn", "in-place"))
def get_total_norm_then_clip_grads_with_norm(torch, rec):
    params = parameters_with_gradients(torch, rec.device)
    grads = [p.grad for p in params if p.grad is not None]
    rec("get_total_norm(grads)", torch.nn.utils.get_total_norm(grads))
    rec("get_total_norm(grads, 3.0)", torch.nn.utils.get_total_norm(grads, 3.0))
    rec("get_total_norm(one tensor, 'inf')", torch.nn.utils.get_total_norm(grads[1], "inf"))
    rec("get_total_norm([])", torch.nn.utils.get_total_norm([]))
    infinite = torch.tensor([float("inf"), 1.0], device=rec.device)
    with rec.attempt("get_total_norm of an infinite tensor, error_if_nonfinite=True"):
        torch.nn.utils.get_total_norm([infinite], error_if_nonfinite=True)
    total = torch.nn.utils.get_total_norm(grads, 1.0)
    rec("clip_grads_with_norm_ returns", torch.nn.utils.clip_grads_with_norm_(params, 2.0, total))
    rec("gradients scaled by 2 / 17", [p.grad for p in params])
    params = parameters_with_gradients(torch, rec.device)
    torch.nn.utils.clip_grads_with_norm_(params, 10.0, torch.tensor(4.0, device=rec.device))
    rec("a coefficient above 1 is clamped to 1", [p.grad for p in params])
    torch.nn.utils.clip_grads_with_norm_(params, 1.0, torch.tensor(4.0, device=rec.device), foreach=False)
    rec("scaled by 1 / 4 without foreach", [p.grad for p in params])


@case("clip_grad_norm (without the underscore) is deprecated: it warns, and clips as clip_grad_norm_",
      doc=CLIP_GRAD_NORM_DEPRECATED, tags=("warning",), features=("non-scalar", "nn", "in-place"))
def clip_grad_norm_without_underscore_warns(torch, rec):
    params = parameters_with_gradients(torch, rec.device)
    rec("total", torch.nn.utils.clip_grad_norm(params, 1.0))
    rec("gradients", [p.grad for p in params])


@case("A training step with clipping: backward, clip_grad_norm_ of the model's parameters, SGD step; the loss "
      "over three steps", doc=CLIP_GRAD_NORM, features=("non-scalar", "nn", "optim", "in-place", "detach"))
def clip_grad_norm_in_a_training_loop(torch, rec):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2).to(rec.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], device=rec.device)
    target = torch.tensor([[10.0, -10.0], [5.0, 5.0]], device=rec.device)
    for step in range(3):
        optimizer.zero_grad()
        loss = ((model(inputs) - target) ** 2).mean()
        loss.backward()
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        rec(f"step {step}: loss, total norm before clipping", (loss.detach(), total))
    rec("weight", model.weight.detach())
