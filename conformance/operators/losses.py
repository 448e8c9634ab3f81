"""Operator table: the loss functions of torch.nn.functional.

Each loss is sampled with every reduction, with a target that requires grad wherever torch
differentiates the target too (mse, l1, smooth_l1, huber, the binary cross entropies, kl_div,
probability targets of cross_entropy), at the points where the derivative is a convention
(zero difference for l1, the beta/delta boundary of smooth_l1/huber), and with the options that
change the formula (class weights, ignore_index, label_smoothing, pos_weight, log_target, the elementwise weight of
mse, l1 and huber).
Losses reduce through logs and means: COMPOSITE class. Torch has no forward-over-reverse for
huber_loss (its backward has no forward formula) and raises in it for mse_loss's mean with a
target without tangent (pytorch/pytorch#123996): those steps check the same exception.
"""

from __future__ import annotations

from .spec import E, I, R, S, V, op
from .tolerances import COMPOSITE

PROBABILITY = {"low": 0.05, "high": 0.95}


def _regression(name: str, extra: list, torch_raises: tuple[str, ...] = ()) -> object:
    # mse_loss with a target that has no tangent: torch's forward-over-reverse raises "ZeroTensors are
    # immutable" (pytorch/pytorch#123996, mean reduction only): the same exception is what is checked
    zero_tensor_bug = ("forward-over-reverse",) if name == "mse_loss" else ()
    # weight= (not smooth_l1_loss's): torch's Python path, whose mean divides by the weights' sum for mse and l1
    # and by the element count for huber
    weighted = [] if name == "smooth_l1_loss" else [
        S(f"F.{name}(x, t, weight=w)", "weighted, mean", x=R(3, 4), t=R(3, 4), w=R(3, 4, low=0.2, high=2.0)),
        S(f"F.{name}(x, t, reduction='sum', weight=w)", "weighted, sum", x=R(3), t=R(3), w=R(3, low=0.2, high=2.0)),
        E(f"F.{name}(x, t, weight=w)", "weights of another size than the input", x=R(3), t=R(3), w=R(4, grad=False)),
    ]
    return op(name, f"torch.nn.functional.{name}", COMPOSITE, torch_raises=torch_raises,
              default=[
                  S(f"F.{name}(x, t)", "mean, a target that requires grad", x=R(3, 4), t=R(3, 4)),
                  S(f"F.{name}(x, t, reduction='sum')", "sum", x=R(3, 4), t=R(3, 4)),
                  S(f"F.{name}(x, t, reduction='none')", "none, transposed input", x=R(2, 3, layout="transposed"),
                    t=R(2, 3)),
                  S(f"F.{name}(x, t)", "a target that does not require grad, 0-dim", x=R(), t=R(grad=False),
                    torch_raises=zero_tensor_bug),
                  S(f"F.{name}(x, t)", "a broadcast target: a warning", x=R(3), t=R(3, 1)),
                  *extra,
                  *weighted,
                  E(f"F.{name}(x, t, reduction='average')", "an unknown reduction", x=R(3), t=R(3)),
                  E(f"F.{name}(x, t)", "shapes that do not broadcast", x=R(3), t=R(4)),
              ])


OPERATORS = [
    _regression("mse_loss", []),
    _regression("l1_loss", [
        S("F.l1_loss(x, t)", "zero differences: gradient 0", x=V([1.0, 2.0, 3.0]), t=V([1.0, 0.0, 3.0])),
    ]),
    _regression("smooth_l1_loss", [
        S("F.smooth_l1_loss(x, t, beta=0.5)", "beta 0.5", x=R(3, 4), t=R(3, 4)),
        S("F.smooth_l1_loss(x, t)", "at the boundary |x - t| = beta", x=V([1.0, -1.0, 0.0]), t=V([0.0, 0.0, 0.0])),
        S("F.smooth_l1_loss(x, t, beta=0.0)", "beta 0: l1", x=R(4), t=R(4)),
    ]),
    _regression("huber_loss", [
        S("F.huber_loss(x, t, delta=0.5)", "delta 0.5", x=R(3, 4), t=R(3, 4)),
        S("F.huber_loss(x, t)", "at the boundary |x - t| = delta", x=V([1.0, -1.0, 0.0]), t=V([0.0, 0.0, 0.0])),
    ], torch_raises=("forward-over-reverse",)),  # huber_loss_backward has no forward formula
    op("cross_entropy", "torch.nn.functional.cross_entropy", COMPOSITE,
       default=[
           S("F.cross_entropy(x, t)", "class indices, mean", x=R(3, 4), t=I([0, 3, 1])),
           S("F.cross_entropy(x, t, reduction='sum')", "sum", x=R(3, 4), t=I([2, 2, 0])),
           S("F.cross_entropy(x, t, reduction='none')", "none, transposed logits", x=R(3, 4, layout="transposed"),
             t=I([1, 0, 3])),
           S("F.cross_entropy(x, t)", "one sample without a batch dim", x=R(4), t=I(2)),
           S("F.cross_entropy(x, t)", "a spatial dim: (N, C, d)", x=R(2, 3, 4), t=I([[0, 2, 1, 1], [2, 2, 0, 1]])),
           S("F.cross_entropy(x, t)", "large logits", x=V([[100.0, 0.0, -100.0], [50.0, 50.0, 0.0]]), t=I([2, 1])),
           E("F.cross_entropy(x, t)", "a class out of range", x=R(2, 3), t=I([0, 5])),
           E("F.cross_entropy(x, t)", "batch sizes that differ", x=R(3, 4), t=I([0, 1])),
       ],
       options=[
           S("F.cross_entropy(x, t, weight=w)", "class weights", x=R(3, 4), t=I([0, 3, 3]),
             w=R(4, low=0.2, high=2.0, grad=False)),
           S("F.cross_entropy(x, t, ignore_index=1)", "ignore_index", x=R(3, 4), t=I([1, 3, 0])),
           S("F.cross_entropy(x, t)", "the default ignore_index -100", x=R(3, 4), t=I([-100, 3, 0])),
           S("F.cross_entropy(x, t, weight=w, ignore_index=0, reduction='mean')", "weights and ignore_index: the mean "
             "divides by the weights of the classes kept", x=R(4, 3), t=I([0, 2, 1, 2]),
             w=R(3, low=0.2, high=2.0, grad=False)),
           S("F.cross_entropy(x, t, label_smoothing=0.1)", "label smoothing", x=R(3, 4), t=I([0, 1, 2])),
           S("F.cross_entropy(x, t)", "probabilities as target (the target gets a gradient too)", x=R(3, 4),
             t=R(3, 4, low=0.0, high=1.0)),
           S("F.cross_entropy(x, t, label_smoothing=0.2, reduction='sum')", "probabilities with label smoothing",
             x=R(2, 3), t=R(2, 3, low=0.0, high=1.0)),
           E("F.cross_entropy(x, t, label_smoothing=1.5)", "label smoothing above 1", x=R(2, 3), t=I([0, 1])),
       ]),
    op("nll_loss", "torch.nn.functional.nll_loss", COMPOSITE, gradgrad=False,
       default=[
           S("F.nll_loss(x, t)", "mean", x=R(3, 4), t=I([0, 3, 1])),
           S("F.nll_loss(x, t, reduction='sum')", "sum", x=R(3, 4), t=I([2, 2, 0])),
           S("F.nll_loss(x, t, reduction='none')", "none", x=R(3, 4), t=I([1, 0, 3])),
           S("F.nll_loss(x, t, weight=w)", "class weights", x=R(3, 4), t=I([0, 3, 3]),
             w=R(4, low=0.2, high=2.0, grad=False)),
           S("F.nll_loss(x, t, ignore_index=3)", "ignore_index", x=R(3, 4), t=I([3, 1, 3])),
           S("F.nll_loss(x, t)", "a spatial dim", x=R(2, 3, 2), t=I([[0, 2], [1, 1]])),
           S("F.nll_loss(x, t)", "every target ignored: NaN", x=R(2, 3), t=I([-100, -100])),
           E("F.nll_loss(x, t)", "a class out of range", x=R(2, 3), t=I([0, 3])),
           E("F.nll_loss(x, t)", "float targets", x=R(2, 3), t=V([0.0, 1.0])),
           E("F.nll_loss(x, t, weight=w)", "class weights that require grad (not differentiable)", requires_grad=True,
             x=R(3, 4), t=I([0, 3, 3]), w=R(4, low=0.2, high=2.0)),
           E("F.nll_loss(x, t, weight=w)", "class weights that require grad, a spatial dim (nll_loss2d)",
             requires_grad=True, x=R(2, 3, 2), t=I([[0, 2], [1, 1]]), w=R(3, low=0.2, high=2.0)),
       ]),
    op("binary_cross_entropy", "torch.nn.functional.binary_cross_entropy", COMPOSITE,
       default=[
           S("F.binary_cross_entropy(p, t)", "mean, a target that requires grad", p=R(3, 4, **PROBABILITY),
             t=R(3, 4, low=0.0, high=1.0)),
           S("F.binary_cross_entropy(p, t, reduction='sum')", "sum", p=R(5, **PROBABILITY), t=R(5, low=0.0, high=1.0)),
           S("F.binary_cross_entropy(p, t, reduction='none')", "none, transposed", p=R(2, 3, layout="transposed",
                                                                                    **PROBABILITY),
             t=R(2, 3, low=0.0, high=1.0)),
           S("F.binary_cross_entropy(p, t, weight=w)", "weights", p=R(4, **PROBABILITY), t=R(4, low=0.0, high=1.0),
             w=R(4, low=0.2, high=2.0, grad=False)),
           S("F.binary_cross_entropy(p, t)", "probabilities 0 and 1: the log is clamped at -100",
             p=V([0.0, 1.0, 0.0, 1.0]), t=V([0.0, 1.0, 1.0, 0.0]), gradgrad=False),
           E("F.binary_cross_entropy(p, t)", "an input above 1", p=V([0.5, 1.5]), t=V([0.0, 1.0])),
           E("F.binary_cross_entropy(p, t)", "sizes that differ", p=R(3, **PROBABILITY), t=R(2, low=0.0, high=1.0)),
           E("F.binary_cross_entropy(p, t, weight=w)", "weights that require grad (not differentiable)",
             requires_grad=True, p=R(4, **PROBABILITY), t=R(4, low=0.0, high=1.0), w=R(4, low=0.2, high=2.0)),
       ]),
    op("binary_cross_entropy_with_logits", "torch.nn.functional.binary_cross_entropy_with_logits", COMPOSITE,
       default=[
           S("F.binary_cross_entropy_with_logits(x, t)", "mean, a target that requires grad", x=R(3, 4),
             t=R(3, 4, low=0.0, high=1.0)),
           S("F.binary_cross_entropy_with_logits(x, t, reduction='sum')", "sum", x=R(5), t=R(5, low=0.0, high=1.0)),
           S("F.binary_cross_entropy_with_logits(x, t, reduction='none')", "none", x=R(2, 3), t=R(2, 3, low=0.0, high=1.0)),
           S("F.binary_cross_entropy_with_logits(x, t, pos_weight=pw)", "pos_weight per class", x=R(3, 4),
             t=R(3, 4, low=0.0, high=1.0), pw=R(4, low=0.5, high=3.0, grad=False)),
           S("F.binary_cross_entropy_with_logits(x, t, weight=w)", "weights", x=R(4), t=R(4, low=0.0, high=1.0),
             w=R(4, low=0.2, high=2.0, grad=False)),
           S("F.binary_cross_entropy_with_logits(x, t)", "large logits stay finite",
             x=V([100.0, -100.0, 30.0]), t=V([0.0, 1.0, 1.0])),
           E("F.binary_cross_entropy_with_logits(x, t)", "sizes that differ", x=R(3), t=R(2, low=0.0, high=1.0)),
           E("F.binary_cross_entropy_with_logits(x, t, weight=w)", "weights that require grad (not differentiable)",
             requires_grad=True, x=R(4), t=R(4, low=0.0, high=1.0), w=R(4, low=0.2, high=2.0)),
           E("F.binary_cross_entropy_with_logits(x, t, pos_weight=pw)", "a pos_weight that requires grad",
             requires_grad=True, x=R(3, 4), t=R(3, 4, low=0.0, high=1.0), pw=R(4, low=0.5, high=3.0)),
       ]),
    op("kl_div", "torch.nn.functional.kl_div", COMPOSITE,
       default=[
           S("F.kl_div(x, t, reduction='batchmean')", "batchmean, log-probabilities against probabilities",
             x=R(3, 4, low=-3.0, high=-0.1), t=R(3, 4, low=0.0, high=1.0)),
           S("F.kl_div(x, t, reduction='sum')", "sum", x=R(3, 4, low=-3.0, high=-0.1), t=R(3, 4, low=0.0, high=1.0)),
           S("F.kl_div(x, t, reduction='none')", "none", x=R(2, 3, low=-3.0, high=-0.1), t=R(2, 3, low=0.0, high=1.0)),
           S("F.kl_div(x, t, reduction='mean')", "mean", x=R(2, 3, low=-3.0, high=-0.1), t=R(2, 3, low=0.0, high=1.0)),
           S("F.kl_div(x, t, reduction='batchmean', log_target=True)", "log_target",
             x=R(3, 4, low=-3.0, high=-0.1), t=R(3, 4, low=-3.0, high=-0.1)),
           S("F.kl_div(x, t, reduction='sum')", "zero target probabilities contribute 0", x=R(3, low=-3.0, high=-0.1),
             t=V([0.0, 0.5, 0.5])),
       ]),
]

