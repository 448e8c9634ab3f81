"""``Adagrad``: divides each step by the root of the sum of all squared gradients so far, with a
decaying learning rate and weight decay.

Per parameter with a gradient ``g`` (negated when maximizing), at step ``t``::

    g = g + weight_decay * p                                (if weight_decay != 0)
    s = s + g * g
    p = p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)

State per parameter, made when the optimizer is built (as torch does): ``step`` and ``sum``
(starting at ``initial_accumulator_value``).
"""

from __future__ import annotations

from .._ops.creation import full_like, tensor
from .optimizer import PerParameterOptimizer, scalar_dtype


class Adagrad(PerParameterOptimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None) -> None:
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = tensor(0.0, dtype=scalar_dtype())
                value = group["initial_accumulator_value"]
                state["sum"] = full_like(param, complex(value, value) if param.is_complex() else value)

    def _update(self, param, group) -> None:
        state = self.state[param]
        state["step"].add_(1)
        step = state["step"].item()
        grad = -param.grad if group["maximize"] else param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        rate = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt() + group["eps"] if group["differentiable"] else state["sum"].sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-rate)


__all__ = ["Adagrad"]
