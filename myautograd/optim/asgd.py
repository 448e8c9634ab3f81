"""``ASGD`` (averaged SGD, with a decaying step size and a running average of the parameters) and
``Rprop`` (resilient backpropagation: per-element step sizes grown or shrunk by the sign of
successive gradients).

ASGD, per parameter with a gradient ``g`` (negated when maximizing), at step ``t``::

    g = g + weight_decay * p                               (if weight_decay != 0)
    p = p * (1 - lambd * eta) - eta * g
    ax = p (while mu == 1), else ax = ax + mu * (p - ax)
    eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

State: ``step``, ``eta``, ``mu`` (0-dim tensors) and ``ax``.

Rprop, per parameter (gradient negated when maximizing), with ``s`` the sign of ``g * prev``::

    step_size = clamp(step_size * (etaplus if s > 0, etaminus if s < 0, 1 if s == 0), *step_sizes)
    g = 0 where s < 0;  p = p - sign(g) * step_size;  prev = g

State: ``step``, ``prev`` and ``step_size`` (starting at ``lr`` everywhere).
"""

from __future__ import annotations

from .._ops.creation import full_like, ones, tensor, zeros, zeros_like
from .optimizer import PerParameterOptimizer, as_number, check_lr, scalar_dtype


class ASGD(PerParameterOptimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False) -> None:
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param, group) -> None:
        state = self.state[param]
        lr = as_number(group["lr"])
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            state["eta"] = tensor(lr, dtype=scalar_dtype())
            state["mu"] = ones((), dtype=scalar_dtype())
            state["ax"] = zeros_like(param)
        lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
        grad = -param.grad if group["maximize"] else param.grad
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        eta.copy_(tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(tensor(1 / max(1, step - t0)))


class Rprop(PerParameterOptimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, param, group) -> None:
        state = self.state[param]
        grad = -param.grad if group["maximize"] else param.grad
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(grad, as_number(group["lr"]))
        etaminus, etaplus = group["etas"]
        smallest, largest = group["step_sizes"]
        state["step"].add_(1)
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev).sign()
        factor = sign.masked_fill(sign.gt(0), etaplus).masked_fill_(sign.lt(0), etaminus).masked_fill_(sign.eq(0), 1)
        step_size.mul_(factor).clamp_(smallest, largest)
        grad = grad.masked_fill(factor.eq(etaminus), 0)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


__all__ = ["ASGD", "Rprop"]
