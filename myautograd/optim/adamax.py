"""``Adamax``: Adam with the second moment replaced by an exponentially weighted infinity norm.

Per parameter with a gradient ``g`` (negated when maximizing), at step ``t``::

    g = g + weight_decay * p                               (if weight_decay != 0)
    m = lerp(m, g, 1 - beta1)
    u = max(beta2 * u, |g| + eps)
    p = p - lr / (1 - beta1**t) * m / u

State per parameter: ``step``, ``exp_avg`` (m) and ``exp_inf`` (u).
"""

from __future__ import annotations

from .._ops.creation import zeros, zeros_like
from .._ops.pointwise import maximum
from .optimizer import PerParameterOptimizer, as_number, check_betas, check_lr, scalar_dtype


class Adamax(PerParameterOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False) -> None:
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param, group) -> None:
        state = self.state[param]
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            state["exp_avg"] = zeros_like(param)
            state["exp_inf"] = zeros_like(param)
        beta1, beta2 = group["betas"]
        grad = -param.grad if group["maximize"] else param.grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
        step_size = as_number(group["lr"]) / (1 - beta1 ** state["step"].item())
        param.addcdiv_(exp_avg, exp_inf, value=-step_size)


__all__ = ["Adamax"]
