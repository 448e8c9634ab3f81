"""Loss modules: their default arguments (reduction 'mean', ignore_index -100, beta and delta 1.0),
constructor options, and the legacy size_average/reduce arguments.

Each module's value and input gradient are compared with torch's, so a module that sums where
torch averages, or ignores a constructor argument, is caught.
"""

from .. import docs
from ..case import case
from ..operators.tolerances import COMPOSITE

BOTH = ("float32", "float64")
LOSS = {"dtypes": BOTH, "tolerances": COMPOSITE.per_dtype(), "features": ("non-scalar", "nn")}
LOSS_GRAD = {**LOSS, "features": ("non-scalar", "autograd.grad", "nn")}


@case("CrossEntropyLoss() averages over the batch by default (reduction 'mean', ignore_index -100, "
      "label_smoothing 0)", doc=docs.docstring("torch.nn.CrossEntropyLoss"), **LOSS_GRAD)
def cross_entropy_loss_defaults(torch, rec):
    dtype = getattr(torch, rec.dtype)
    criterion = torch.nn.CrossEntropyLoss()
    rec("reduction, ignore_index, label_smoothing", (criterion.reduction, criterion.ignore_index,
                                                     criterion.label_smoothing))
    logits = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 2.0, 1.0], [0.3, 0.1, -0.4]], dtype=dtype,
                          requires_grad=True, device=rec.device)
    target = torch.tensor([1, 2, 0, -100], device=rec.device)
    loss = rec("loss (the last target ignored)", criterion(logits, target))
    rec("gradient of the logits", torch.autograd.grad(loss, logits))
    summed = torch.nn.functional.cross_entropy(logits, target, reduction="sum")
    rec("the sum over the three kept targets, for comparison", summed)


@case("CrossEntropyLoss options given to the constructor: class weights, ignore_index, label_smoothing",
      doc=docs.docstring("torch.nn.CrossEntropyLoss"), **LOSS_GRAD)
def cross_entropy_loss_options(torch, rec):
    dtype = getattr(torch, rec.dtype)
    logits = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 2.0, 1.0]], dtype=dtype, requires_grad=True,
                          device=rec.device)
    target = torch.tensor([1, 2, 0], device=rec.device)
    weight = torch.tensor([0.2, 1.0, 3.0], dtype=dtype, device=rec.device)
    for criterion in (torch.nn.CrossEntropyLoss(weight=weight), torch.nn.CrossEntropyLoss(ignore_index=2),
                      torch.nn.CrossEntropyLoss(label_smoothing=0.2, reduction="sum")):
        loss = rec("loss", criterion(logits, target))
        rec("gradient of the logits", torch.autograd.grad(loss, logits))


@case("MSELoss, L1Loss, SmoothL1Loss (beta 1.0) and HuberLoss (delta 1.0) average by default",
      doc=docs.docstring("torch.nn.MSELoss"), **LOSS_GRAD)
def regression_loss_defaults(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.2, -0.4]], dtype=dtype, requires_grad=True, device=rec.device)
    t = torch.tensor([[0.0, 1.0, 2.5], [0.5, 0.2, 0.4]], dtype=dtype, device=rec.device)
    for name, criterion in (("MSELoss", torch.nn.MSELoss()), ("L1Loss", torch.nn.L1Loss()),
                            ("SmoothL1Loss", torch.nn.SmoothL1Loss()), ("HuberLoss", torch.nn.HuberLoss())):
        rec(f"{name}().reduction", criterion.reduction)
        loss = rec(f"{name}()(x, t)", criterion(x, t))
        rec(f"{name}: gradient of x", torch.autograd.grad(loss, x))
    rec("SmoothL1Loss().beta, HuberLoss().delta", (torch.nn.SmoothL1Loss().beta, torch.nn.HuberLoss().delta))


@case("NLLLoss, BCELoss, BCEWithLogitsLoss and KLDivLoss defaults: reduction 'mean' (KLDivLoss warns "
      "that 'mean' is not batchmean)", doc=docs.docstring("torch.nn.NLLLoss"), tags=("warning",), **LOSS_GRAD)
def classification_loss_defaults(torch, rec):
    dtype = getattr(torch, rec.dtype)
    scores = torch.tensor([[-1.0, -0.5, -2.0], [-0.1, -3.0, -1.5]], dtype=dtype, requires_grad=True, device=rec.device)
    nll = torch.nn.NLLLoss()
    rec("NLLLoss(): reduction and ignore_index", (nll.reduction, nll.ignore_index))
    loss = rec("NLLLoss()", nll(scores, torch.tensor([2, 0], device=rec.device)))
    rec("gradient", torch.autograd.grad(loss, scores))
    p = torch.tensor([0.2, 0.7, 0.9], dtype=dtype, requires_grad=True, device=rec.device)
    t = torch.tensor([0.0, 1.0, 0.5], dtype=dtype, device=rec.device)
    loss = rec("BCELoss()", torch.nn.BCELoss()(p, t))
    rec("gradient", torch.autograd.grad(loss, p))
    with_logits = torch.nn.BCEWithLogitsLoss()
    rec("BCEWithLogitsLoss().pos_weight", with_logits.pos_weight)
    loss = rec("BCEWithLogitsLoss()", with_logits(p, t))
    rec("gradient", torch.autograd.grad(loss, p))
    kl = torch.nn.KLDivLoss()
    rec("KLDivLoss(): reduction and log_target", (kl.reduction, kl.log_target))
    loss = rec("KLDivLoss()", kl(scores, torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=dtype,
                                                      device=rec.device)))
    rec("gradient", torch.autograd.grad(loss, scores))


@case("reduction given to a loss constructor, and the legacy size_average and reduce arguments, which warn",
      doc=docs.docstring("torch.nn.L1Loss"), tags=("warning",), **LOSS)
def loss_reduction_arguments(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([0.5, -1.0, 2.0], dtype=dtype, requires_grad=True, device=rec.device)
    t = torch.tensor([0.0, 1.0, 2.5], dtype=dtype, device=rec.device)
    for make in (lambda: torch.nn.L1Loss(reduction="sum"), lambda: torch.nn.L1Loss(reduction="none"),
                 lambda: torch.nn.L1Loss(size_average=False), lambda: torch.nn.L1Loss(reduce=False)):
        criterion = make()
        rec("reduction", criterion.reduction)
        rec("loss", criterion(x, t))
    with rec.attempt("L1Loss(reduction='average')(x, t)"):
        torch.nn.L1Loss(reduction="average")(x, t)
