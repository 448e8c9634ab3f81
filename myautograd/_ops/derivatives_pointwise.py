"""The derivative formulas of the pointwise math ops of ``pointwise_math.py`` (deg2rad, logaddexp, hypot,
copysign, fmax, sinc, logit...), written as torch's derivatives.yaml writes them, so that the nodes recorded
under ``create_graph`` are torch's (``hypot``'s gradient ends in DivBackward0, ``fmax``'s in
MaskedFillBackward0, ``sinc``'s and ``logit``'s in WhereBackward0).

Each entry's forward-mode rule is ``"elementwise"`` (its backward formulas with the tangents in place of the
gradient), as torch's ``auto_element_wise``, except ``fmax`` and ``fmin``, whose rule torch writes out: at a
tie the tangent is the other operand's (the backward gives the gradient to ``self``).
"""

from __future__ import annotations

import math

from .._autograd.formulas import NODES, derivative

DEGREES_PER_RADIAN = 180.0 / math.pi
LOG_2 = math.log(2.0)


def _copysign_self(F, grad, self, result):
    """torch's ``copysign_tensor_self_backward``: ``grad * result / self``, 0 where ``self`` is 0."""
    return grad * F.masked_fill(result / self, self == 0, 0)


def _keeps_self(F, self, other, compare):
    """Where ``fmax`` (``compare``: ``>=``) or ``fmin`` (``<=``) takes ``self``: it wins, or ``other`` is NaN."""
    return compare(self, other) | F.isnan(other)


def _ge(a, b):
    return a >= b


def _le(a, b):
    return a <= b


def _sinc_backward(F, grad, self):
    """torch's ``sinc_backward``: ``grad * (pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 where ``pi x^2`` is 0."""
    self_pi = F.mul_number(self, math.pi)
    self_squared_pi = F.mul_number(self * self, math.pi)
    out = grad * (self_pi * F.cos(self_pi) - F.sin(self_pi)) / self_squared_pi
    return F.where(self_squared_pi == 0.0, 0, out)


def _logit_backward(F, grad, self, eps):
    """torch's ``infinitely_differentiable_logit_backward``: ``grad / (x (1 - x))`` inside [eps, 1 - eps]
    (0 outside), or without ``eps`` inside [0, 1] (NaN outside)."""
    if eps is None:
        return F.where((self >= 0) & (self <= 1), grad / (self * (1 - self)), math.nan)
    return F.where((self >= eps) & (self <= 1 - eps), grad / (self * (1 - self)), 0)


derivative("Deg2RadBackward0", "self", self=lambda grad, F: F.mul_number(grad, 1 / DEGREES_PER_RADIAN))
derivative("Rad2DegBackward0", "self", self=lambda grad, F: F.mul_number(grad, DEGREES_PER_RADIAN))
derivative("LogaddexpBackward0", "self other",
           self=lambda grad, self, other, F: grad / (1 + F.exp(other - self)),
           other=lambda grad, self, other, F: grad / (1 + F.exp(self - other)))
derivative("Logaddexp2Backward0", "self other",
           self=lambda grad, self, other, F: grad / (1 + F.exp(F.mul_number(other - self, LOG_2))),
           other=lambda grad, self, other, F: grad / (1 + F.exp(F.mul_number(self - other, LOG_2))))
derivative("HypotBackward0", "self other",
           self=lambda grad, self, result: grad * self / result,
           other=lambda grad, other, result: grad * other / result)
derivative("CopysignBackward0", "self other",
           self=lambda grad, self, result, F: _copysign_self(F, grad, self, result),
           other=lambda grad, other, F: F.zeros_like(other))
derivative("CopysignBackward1", "self", self=lambda grad, self, result, F: _copysign_self(F, grad, self, result))
derivative("FmaxBackward0", "self other",
           self=lambda grad, self, other, F: F.masked_fill(grad, ~_keeps_self(F, self, other, _ge), 0),
           other=lambda grad, self, other, F: F.masked_fill(grad, _keeps_self(F, self, other, _ge), 0))
derivative("FminBackward0", "self other",
           self=lambda grad, self, other, F: F.masked_fill(grad, ~_keeps_self(F, self, other, _le), 0),
           other=lambda grad, self, other, F: F.masked_fill(grad, _keeps_self(F, self, other, _le), 0))
derivative("SincBackward0", "self", self=lambda grad, self, F: _sinc_backward(F, grad, self))
derivative("LogitBackward0", "self", saves="eps", self=lambda grad, self, eps, F: _logit_backward(F, grad, self, eps))


def _select_tangent(strictly):
    """torch's forward rule of ``fmax`` (``strictly``: ``>``) and ``fmin`` (``<=``): ``self``'s tangent
    where ``self`` is taken by ``strictly`` or ``other`` is NaN, else ``other``'s."""

    def rule(tangents, values, F):
        self, other = values["self"], values["other"]
        self_t, other_t = (t if t is not None else F.zeros_like(v) for t, v in zip(tangents, (self, other)))
        return other_t + F.where(strictly(self, other) | F.isnan(other), self_t - other_t, 0)

    return rule


ELEMENTWISE = ("Deg2RadBackward0", "Rad2DegBackward0", "LogaddexpBackward0", "Logaddexp2Backward0", "HypotBackward0",
               "CopysignBackward0", "CopysignBackward1", "SincBackward0", "LogitBackward0")
for _name in ELEMENTWISE:
    NODES[_name].forward_rule = "elementwise"
NODES["FmaxBackward0"].forward_rule = _select_tangent(lambda a, b: a > b)
NODES["FminBackward0"].forward_rule = _select_tangent(_le)
