"""``Muon``: momentum whose update is orthogonalised by a Newton-Schulz iteration, for 2-D
parameters only (torch refuses any other at construction), with decoupled weight decay.

Per parameter with a gradient ``g``::

    B = lerp(B, g, 1 - momentum)                        (the momentum buffer)
    u = lerp(g, B, momentum) if nesterov else B
    O = newton_schulz(u)                                (in bfloat16, see ``orthogonalize``)
    p = p * (1 - lr * weight_decay)
    p = p - adjusted_lr * O

``adjusted_lr`` scales ``lr`` by the matrix's shape ``(A, B)``: ``sqrt(max(1, A / B))`` for
``adjust_lr_fn`` None or ``"original"``, ``0.2 * sqrt(max(A, B))`` for ``"match_rms_adamw"``.
State per parameter: ``momentum_buffer``. As torch, complex parameters are refused when stepped.
"""

from __future__ import annotations

import math

from .._ops.creation import zeros_like
from .._ops.linalg import addmm
from .._tensor import Tensor
from .optimizer import Optimizer, as_number, no_grad_step

NEWTON_SCHULZ_COEFFICIENTS = (3.4445, -4.7750, 2.0315)  # torch's defaults, from Keller Jordan's Muon
NEWTON_SCHULZ_STEPS = 5
EPS = 1e-7
ADJUST_LR_FNS = ("original", "match_rms_adamw")


def orthogonalize(matrix, coefficients, steps: int, eps: float):
    """An approximately orthogonal matrix with ``matrix``'s singular vectors: the quintic Newton-Schulz
    iteration ``X = a X + (b G + c G G) X`` with ``G = X X^T``, from ``X`` the matrix divided by its
    Frobenius norm (at least ``eps``), all in bfloat16; a tall matrix is iterated transposed, so that
    ``G`` is the smaller Gram matrix."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if matrix.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = matrix.size(0) > matrix.size(1)
    x = matrix.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        x = addmm(x, addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * (0.2 * math.sqrt(max(rows, cols)))
    return lr


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=NEWTON_SCHULZ_COEFFICIENTS, eps=EPS, ns_steps=NEWTON_SCHULZ_STEPS,
                 adjust_lr_fn=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                if param.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{param.size()}")

    def _buffer_of(self, param):
        """``param``'s momentum buffer, made on its first step."""
        if param.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        state = self.state[param]
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = zeros_like(param.grad)
        return state["momentum_buffer"]

    @no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            stepped = [param for param in group["params"] if param.grad is not None]
            buffers = [self._buffer_of(param) for param in stepped]  # all checked before any is updated, as torch
            for param, buffer in zip(stepped, buffers, strict=True):
                self._update(param, buffer, group)
        return loss

    @staticmethod
    def _update(param, buffer, group) -> None:
        grad, momentum, lr = param.grad, group["momentum"], as_number(group["lr"])
        if grad.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buffer.lerp_(grad, 1 - momentum)
        update = grad.lerp(buffer, momentum) if group["nesterov"] else buffer
        update = orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(update, alpha=-adjusted_lr(lr, group["adjust_lr_fn"], param.shape))


__all__ = ["Muon"]
