"""``RMSprop``: divides each step by a running root-mean-square of the gradients, with optional
momentum, centering (subtracting the running mean of the gradient) and weight decay.

Per parameter with a gradient ``g`` (negated when maximizing)::

    g = g + weight_decay * p                                (if weight_decay != 0)
    v = alpha * v + (1 - alpha) * g * g
    avg = sqrt(v - m * m) + eps, with m = lerp(m, g, 1 - alpha)   (centered)
    avg = sqrt(v) + eps                                     (otherwise)
    b = momentum * b + g / avg;  p = p - lr * b             (momentum > 0)
    p = p - lr * g / avg                                    (otherwise)

State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` / ``grad_avg`` when used.
"""

from __future__ import annotations

from .._ops.creation import zeros, zeros_like
from .optimizer import PerParameterOptimizer, scalar_dtype


class RMSprop(PerParameterOptimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False) -> None:
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _state_of(self, param, group) -> dict:
        state = self.state[param]
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            state["square_avg"] = zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = zeros_like(param)
        return state

    def _update(self, param, group) -> None:
        state = self._state_of(param, group)
        grad = -param.grad if group["maximize"] else param.grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        alpha = group["alpha"]
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(group["eps"]) if group["differentiable"] else avg.add_(group["eps"])
        if group["momentum"] > 0:
            buffer = state["momentum_buffer"]
            buffer.mul_(group["momentum"]).addcdiv_(grad, avg)
            param.add_(buffer, alpha=-group["lr"])
        else:
            param.addcdiv_(grad, avg, value=-group["lr"])


__all__ = ["RMSprop"]
