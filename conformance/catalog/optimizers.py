"""Optimizers over several steps: parameters and optimizer state after each step, float32 and float64.

A linear model with a quadratic loss gives gradients that change from step to step, so that the
momentum buffer, dampening, the Nesterov look-ahead, the sign of weight decay (coupled in SGD and
Adam, decoupled in AdamW), Adam's bias correction and amsgrad's running maximum all show in the
parameters. Several steps of sums, square roots and divisions compound: COMPOSITE tolerance.
"""

from .. import docs
from ..case import case
from ..operators.tolerances import COMPOSITE

BOTH = ("float32", "float64")
SGD = docs.docstring("torch.optim.SGD")
ADAM = docs.docstring("torch.optim.Adam")
ADAMW = docs.docstring("torch.optim.AdamW")
OPTIM = {"dtypes": BOTH, "tolerances": COMPOSITE.per_dtype(), "features": ("non-scalar", "nn", "optim")}
OPTIM_IN_PLACE = {**OPTIM, "features": ("non-scalar", "in-place", "nn", "optim")}


@case("SGD with momentum 0.9: the buffer starts as the first gradient, then buf = 0.9 buf + g",
      doc=SGD, **OPTIM)
def sgd_momentum(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=dtype, device=rec.device))
    b = torch.nn.Parameter(torch.tensor([0.1, -0.2], dtype=dtype, device=rec.device))
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=dtype, device=rec.device)
    opt = torch.optim.SGD([w, b], lr=0.1, momentum=0.9)
    for step in (1, 2, 3):
        opt.zero_grad()
        ((x @ w + b) ** 2).mean().backward()
        opt.step()
        rec(f"step {step}: w, b", (w, b))
        rec(f"step {step}: momentum buffer of w", opt.state[w]["momentum_buffer"])


@case("SGD with momentum and dampening 0.5: buf = 0.9 buf + (1 - 0.5) g after the first step",
      doc=SGD, **OPTIM)
def sgd_dampening(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=dtype, device=rec.device))
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=dtype, device=rec.device)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, dampening=0.5)
    for step in (1, 2, 3):
        opt.zero_grad()
        ((x @ w - 1) ** 2).mean().backward()
        opt.step()
        rec(f"step {step}: w", w)
        rec(f"step {step}: momentum buffer", opt.state[w]["momentum_buffer"])


@case("SGD with Nesterov momentum: the step uses g + 0.9 buf", doc=SGD, **OPTIM)
def sgd_nesterov(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=dtype, device=rec.device))
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=dtype, device=rec.device)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, nesterov=True)
    for step in (1, 2, 3):
        opt.zero_grad()
        ((x @ w - 1) ** 2).mean().backward()
        opt.step()
        rec(f"step {step}: w", w)
        rec(f"step {step}: momentum buffer", opt.state[w]["momentum_buffer"])


@case("SGD weight decay adds weight_decay * w to the gradient (it pulls weights toward zero), with and "
      "without momentum", doc=SGD, **OPTIM)
def sgd_weight_decay(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    v = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    x = torch.tensor([1.0, -2.0, 0.5], dtype=dtype, device=rec.device)
    plain = torch.optim.SGD([w], lr=0.1, weight_decay=0.1)
    heavy = torch.optim.SGD([v], lr=0.1, weight_decay=0.1, momentum=0.5)
    for step in (1, 2, 3):
        for p, opt in ((w, plain), (v, heavy)):
            opt.zero_grad()
            ((p * x).sum() ** 2).backward()
            opt.step()
        rec(f"step {step}: w (no momentum), v (momentum 0.5)", (w, v))


@case("Adam with default betas: exp_avg, exp_avg_sq and the bias-corrected step over three steps",
      doc=ADAM, **OPTIM)
def adam_default(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=dtype, device=rec.device))
    b = torch.nn.Parameter(torch.tensor([0.1, -0.2], dtype=dtype, device=rec.device))
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=dtype, device=rec.device)
    opt = torch.optim.Adam([w, b], lr=0.1)
    for step in (1, 2, 3):
        opt.zero_grad()
        ((x @ w + b) ** 2).mean().backward()
        opt.step()
        rec(f"step {step}: w, b", (w, b))
        rec(f"step {step}: exp_avg and exp_avg_sq of w", (opt.state[w]["exp_avg"], opt.state[w]["exp_avg_sq"]))


@case("Adam with amsgrad: the step divides by the running maximum of exp_avg_sq", doc=ADAM, **OPTIM)
def adam_amsgrad(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    targets = (1.0, -3.0, 0.5, 0.2)  # gradients that shrink, so the maximum differs from exp_avg_sq
    opt = torch.optim.Adam([w], lr=0.1, betas=(0.5, 0.6), amsgrad=True)
    for step, target in enumerate(targets, 1):
        opt.zero_grad()
        ((w * target - 1) ** 2).sum().backward()
        opt.step()
        rec(f"step {step}: w", w)
        rec(f"step {step}: exp_avg_sq and max_exp_avg_sq", (opt.state[w]["exp_avg_sq"], opt.state[w]["max_exp_avg_sq"]))


@case("Adam weight decay is added to the gradient (coupled), before the moments", doc=ADAM, **OPTIM)
def adam_weight_decay(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    x = torch.tensor([1.0, -2.0, 0.5], dtype=dtype, device=rec.device)
    opt = torch.optim.Adam([w], lr=0.1, weight_decay=0.5)
    for step in (1, 2, 3):
        opt.zero_grad()
        ((w * x).sum() ** 2).backward()
        opt.step()
        rec(f"step {step}: w", w)
        rec(f"step {step}: exp_avg", opt.state[w]["exp_avg"])


@case("AdamW decays the weights directly (w -= lr * weight_decay * w), apart from the moments; default "
      "weight_decay 0.01", doc=ADAMW, **OPTIM_IN_PLACE)
def adamw_decoupled_weight_decay(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    v = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    x = torch.tensor([1.0, -2.0, 0.5], dtype=dtype, device=rec.device)
    default = torch.optim.AdamW([w], lr=0.1)
    strong = torch.optim.AdamW([v], lr=0.1, weight_decay=0.5)
    rec("default weight_decay", default.param_groups[0]["weight_decay"])
    for step in (1, 2, 3):
        for p, opt in ((w, default), (v, strong)):
            opt.zero_grad()
            ((p * x).sum() ** 2).backward()
            opt.step()
        rec(f"step {step}: w (weight_decay 0.01), v (weight_decay 0.5)", (w, v))
        rec(f"step {step}: exp_avg of v", strong.state[v]["exp_avg"])


@case("AdamW with amsgrad: decoupled decay and the running maximum together", doc=ADAMW, **OPTIM)
def adamw_amsgrad(torch, rec):
    dtype = getattr(torch, rec.dtype)
    w = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0], dtype=dtype, device=rec.device))
    targets = (1.0, -3.0, 0.5, 0.2)
    opt = torch.optim.AdamW([w], lr=0.1, betas=(0.5, 0.6), weight_decay=0.1, amsgrad=True)
    for step, target in enumerate(targets, 1):
        opt.zero_grad()
        ((w * target - 1) ** 2).sum().backward()
        opt.step()
        rec(f"step {step}: w", w)
        rec(f"step {step}: max_exp_avg_sq", opt.state[w]["max_exp_avg_sq"])
