"""``Adafactor``: Adam-like steps whose second moment of a matrix is kept factored, as one row
vector and one column vector, with a relative step size, update clipping and decoupled weight decay.

Per parameter with a gradient ``g`` (negated when maximizing), at step ``t``::

    beta2_complement = t ** beta2_decay                    (1 - beta2 at step t)
    rho = min(lr, 1 / sqrt(t));  alpha = max(eps2, rms(p)) * rho
    p = p * (1 - lr * weight_decay)                        (if weight_decay != 0)
    for g of two or more dims (factored over its last two):
        R = lerp(R, mean(g * g, dim=-1), beta2_complement)      (row factor, last dim kept as 1)
        C = lerp(C, mean(g * g, dim=-2), beta2_complement)      (column factor, dim -2 kept as 1)
        V = (R @ C) / max(mean(R, dim=-2), eps1)
    otherwise:
        V = lerp(V, g * g, beta2_complement)
    u = g / sqrt(max(V, eps1 * eps1))
    p = p - alpha / max(1, rms(u) / d) * u

``rms(x)`` is ``norm(x) / sqrt(numel(x))``; ``eps1`` defaults to the machine epsilon of the
parameter's dtype. State per parameter: ``step`` (a float tensor) and either ``row_var`` and
``col_var`` (a gradient of two or more dims) or ``variance``. As torch, complex parameters are
refused when stepped.
"""

from __future__ import annotations

from .._dtype import finfo
from .._ops.creation import zeros, zeros_like
from .._ops.reduction import norm
from .._tensor import Tensor
from .optimizer import Optimizer, as_number, no_grad_step, scalar_dtype


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not beta2_decay <= 0.0:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _state_of(self, param) -> dict:
        """``param``'s state, made on its first step (the second moment shaped by its gradient's dims)."""
        if param.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        state, grad = self.state[param], param.grad
        if not state:
            state["step"] = zeros((), dtype=scalar_dtype())
            if grad.dim() > 1:
                state["row_var"] = grad.new_zeros([*grad.shape[:-1], 1])
                state["col_var"] = grad.new_zeros([*grad.shape[:-2], 1, grad.shape[-1]])
            else:
                state["variance"] = zeros_like(grad)
        return state

    @no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            stepped = [param for param in group["params"] if param.grad is not None]
            states = [self._state_of(param) for param in stepped]  # all checked before any is updated, as torch
            eps1 = group["eps"][0]
            for param, state in zip(stepped, states, strict=True):
                if eps1 is None:  # torch fixes it from the first stepped parameter's dtype for the whole group
                    eps1 = finfo(param.dtype).eps
                self._update(param, state, group, eps1)
        return loss

    @staticmethod
    def _update(param, state, group, eps1) -> None:
        lr = as_number(group["lr"])
        grad = -param.grad if group["maximize"] else param.grad
        state["step"].add_(1)
        step = state["step"].item()
        beta2_complement = step ** group["beta2_decay"]
        relative_step = min(lr, 1 / step**0.5)
        alpha = max(group["eps"][1], root_mean_square(param)) * relative_step
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(mean_square(grad, -1), beta2_complement)
            col_var.lerp_(mean_square(grad, -2), beta2_complement)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, beta2_complement)
            var_estimate = state["variance"].clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        clipping = max(1.0, root_mean_square(update, group["d"]))
        param.add_(update, alpha=-alpha / clipping)


def mean_square(grad, dim: int):
    """The mean of ``grad * grad`` over ``dim`` (kept as a dim of size 1), from the norm as torch takes it."""
    return norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim))


def root_mean_square(tensor, per: float = 1.0) -> float:
    """``norm(tensor) / sqrt(numel)`` (divided by ``per`` too), rounded in torch's order."""
    return tensor.norm(2).item() / (tensor.numel() ** 0.5 * per)


__all__ = ["Adafactor"]
