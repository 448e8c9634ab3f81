"""``NAdam`` (Adam with Nesterov momentum and a momentum schedule) and ``RAdam`` (Adam with the
variance of its adaptive step rectified, plain momentum while that variance is intractable).

Both take L2 weight decay added to the gradient, or decoupled (``decoupled_weight_decay=True``:
``p = p * (1 - lr * weight_decay)``), and negate the gradient when maximizing. At step ``t``, with
``m = lerp(m, g, 1 - beta1)`` and ``v = beta2 * v + (1 - beta2) * g * g``:

NAdam, with ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))`` and ``P_t`` the product of
``mu_1 .. mu_t`` (state ``mu_product``)::

    d = sqrt(v / (1 - beta2**t)) + eps
    p = p - lr * (1 - mu_t) / (1 - P_t) * g / d - lr * mu_{t+1} / (1 - P_t * mu_{t+1}) * m / d

RAdam, with ``rho_inf = 2 / (1 - beta2) - 1`` and ``rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)``::

    m_hat = m / (1 - beta1**t)
    p = p - lr * m_hat * r_t * sqrt(1 - beta2**t) / (sqrt(v) + eps)   (rho_t > 5)
    p = p - lr * m_hat                                                (otherwise)

where ``r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.
"""

from __future__ import annotations

from .._ops.creation import tensor, zeros_like
from .optimizer import PerParameterOptimizer, as_number, check_betas, check_lr, scalar_dtype


def _checked_defaults(lr, betas, eps, weight_decay) -> None:
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    check_betas(betas)
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _decayed_gradient(param, group, lr):
    grad = -param.grad if group["maximize"] else param.grad
    if group["weight_decay"] != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * group["weight_decay"])
        else:
            grad = grad.add(param, alpha=group["weight_decay"])
    return grad


class NAdam(PerParameterOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False) -> None:
        _checked_defaults(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param, group) -> None:
        state = self.state[param]
        if not state:
            state["step"] = tensor(0.0, dtype=scalar_dtype())
            state["mu_product"] = tensor(1.0, dtype=scalar_dtype())
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        lr, eps, momentum_decay = as_number(group["lr"]), group["eps"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        grad = _decayed_gradient(param, group, lr)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]
        mu_product.mul_(mu)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        product = mu_product.item()
        product_next = product * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - product)))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - product_next))


class RAdam(PerParameterOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False) -> None:
        _checked_defaults(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, param, group) -> None:
        state = self.state[param]
        if not state:
            state["step"] = tensor(0.0, dtype=scalar_dtype())
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        lr, eps = as_number(group["lr"]), group["eps"]
        beta1, beta2 = group["betas"]
        state["step"].add_(1)
        step = state["step"].item()
        grad = _decayed_gradient(param, group, lr)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
            param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)


__all__ = ["NAdam", "RAdam"]
