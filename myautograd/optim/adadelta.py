"""``Adadelta``: steps scaled by the ratio of running root-mean-squares of past updates and of
gradients, so the learning rate (default 1.0) only rescales them.

Per parameter with a gradient ``g`` (negated when maximizing)::

    g = g + weight_decay * p                               (if weight_decay != 0)
    v = rho * v + (1 - rho) * g * g
    delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta

State per parameter: ``step``, ``square_avg`` (v) and ``acc_delta`` (u).
"""

from __future__ import annotations

from .._ops.creation import zeros, zeros_like
from .optimizer import PerParameterOptimizer, as_number, check_lr, scalar_dtype


class Adadelta(PerParameterOptimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param, group) -> None:
        state = self.state[param]
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            state["square_avg"] = zeros_like(param)
            state["acc_delta"] = zeros_like(param)
        rho, eps = group["rho"], group["eps"]
        state["step"].add_(1)
        grad = -param.grad if group["maximize"] else param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-as_number(group["lr"]))


__all__ = ["Adadelta"]
