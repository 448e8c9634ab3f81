"""``SGD``: stochastic gradient descent with optional momentum, dampening, Nesterov momentum,
weight decay (L2 penalty) and maximization.

Per parameter with a gradient ``g`` (negated when maximizing)::

    g = g + weight_decay * p                              (if weight_decay != 0)
    b = clone(g) on the first step, else momentum * b + (1 - dampening) * g
    g = g + momentum * b if nesterov else b               (if momentum != 0)
    p = p - lr * g

The momentum buffer ``b`` is kept in ``state[p]["momentum_buffer"]``.
"""

from __future__ import annotations

from .optimizer import Optimizer, check_fused, no_grad_step


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
                    "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    @no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                buffer = self._update(param, group)
                if momentum != 0:
                    self.state[param]["momentum_buffer"] = buffer
        return loss

    def _update(self, param, group):
        """One parameter's update; returns its momentum buffer (None without momentum)."""
        grad = -param.grad if group["maximize"] else param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        momentum = group["momentum"]
        buffer = None
        if momentum != 0:
            buffer = self.state[param].get("momentum_buffer")
            if buffer is None:
                buffer = grad.clone().detach()
            else:
                buffer.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buffer, alpha=momentum) if group["nesterov"] else buffer
        param.add_(grad, alpha=-group["lr"])
        return buffer


__all__ = ["SGD"]
