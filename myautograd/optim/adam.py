"""``Adam`` and ``AdamW``: adaptive moment estimation, with L2 (Adam) or decoupled (AdamW) weight
decay, AMSGrad and maximization.

Per parameter with a gradient ``g`` (negated when maximizing), at step ``t``::

    p = p * (1 - lr * weight_decay)                        (decoupled: AdamW)
    g = g + weight_decay * p                               (otherwise, if weight_decay != 0)
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
    v_max = max(v_max, v)                                  (amsgrad; used instead of v below)
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

State per parameter: ``step`` (a float tensor), ``exp_avg``, ``exp_avg_sq`` and, with amsgrad,
``max_exp_avg_sq``.
"""

from __future__ import annotations

import math

from .._ops.creation import zeros, zeros_like
from .._ops.pointwise import maximum
from .._ops.views import view_as_real
from .optimizer import PerParameterOptimizer, check_fused, scalar_dtype


class Adam(PerParameterOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def _state_of(self, param, amsgrad: bool) -> dict:
        state = self.state[param]
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_like(param)
        return state

    def _update(self, param, group) -> None:
        state = self._state_of(param, group["amsgrad"])
        grad = param.grad
        moments = [state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq")]
        if param.is_complex():  # each complex number stepped as a pair of reals, as torch's Adam does
            param, grad = view_as_real(param), view_as_real(grad)
            moments = [None if m is None else view_as_real(m) for m in moments]
        self._step(param, grad, state["step"], *moments, group)

    @staticmethod
    def _step(param, grad, step_t, exp_avg, exp_avg_sq, max_exp_avg_sq, group) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        step_t.add_(1)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        step_size = lr / (1 - beta1**step)
        correction2_sqrt = math.sqrt(1 - beta2**step)
        if group["amsgrad"]:
            max_exp_avg_sq.copy_(maximum(max_exp_avg_sq, exp_avg_sq))
            second = max_exp_avg_sq
        else:
            second = exp_avg_sq
        denom = (second.sqrt() / correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (default ``weight_decay=1e-2``)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


__all__ = ["Adam", "AdamW"]
