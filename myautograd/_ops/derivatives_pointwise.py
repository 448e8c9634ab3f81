"""The derivative formulas of the pointwise math ops of ``pointwise_math.py`` (deg2rad, logaddexp, hypot,
copysign, fmax, sinc, logit...) and of the special functions of ``special_math.py`` (lgamma, digamma,
polygamma, mvlgamma, erfinv, the Bessel functions, torch.special's), written as torch's derivatives.yaml
writes them, so that the nodes recorded under ``create_graph`` are torch's (``hypot``'s gradient ends in
DivBackward0, ``fmax``'s in MaskedFillBackward0, ``sinc``'s and ``logit``'s in WhereBackward0, ``lgamma``'s
in MulBackward0 after DigammaBackward0).

Each entry's forward-mode rule is ``"elementwise"`` (its backward formulas with the tangents in place of the
gradient), as torch's ``auto_element_wise``, except ``fmax`` and ``fmin``, whose rule torch writes out: at a
tie the tangent is the other operand's (the backward gives the gradient to ``self``).
"""

from __future__ import annotations

import math

import numpy as np

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


def _mvlgamma_backward(F, grad, self, p):
    """torch's ``mvlgamma_backward``: ``grad`` times the sum over i < p of digamma(self - i / 2)."""
    offsets = F.constant(np.arange(-p / 2 + 0.5, 0.5, 0.5), self)
    return grad * F.sum(F.digamma(offsets + F.unsqueeze(self, -1)), (-1,))


def _bessel_i1_backward(F, grad, self, result, scaled: bool):
    """torch's ``i1_backward`` (``scaled``: ``i1e_backward``): ``I0(x) - I1(x) / x`` (of the scaled functions,
    ``I0e(x) - I1e(x) (sgn(x) + 1 / x)``), 1/2 where |x| is within the dtype's epsilon of 0."""
    eps = float(np.finfo(F.array(self).dtype).eps)
    not_tiny = F.abs(self) > eps
    safe_self = F.where(not_tiny, self, eps)
    if scaled:
        gradx = F.i0e(safe_self) - result * (F.sgn(safe_self) + F.reciprocal(safe_self))
    else:
        gradx = F.i0(safe_self) - result * F.reciprocal(safe_self)
    return grad * F.where(not_tiny, gradx, 0.5)


def _xlog1py_number_backward(F, grad, self, other):
    """``grad * log1p(other)`` for a number ``other``; where it is -1 or below, 0 where ``self`` is 0."""
    if other > -1:
        return F.mul_number(grad, math.log1p(other))
    return F.masked_fill(F.mul_number(grad, -math.inf if other == -1 else math.nan), self == 0, 0)


derivative("LgammaBackward0", "self", self=lambda grad, self, F: grad * F.digamma(self))
derivative("DigammaBackward0", "self", self=lambda grad, self, F: grad * F.polygamma(1, self))
derivative("PolygammaBackward0", "self", saves="n", self=lambda grad, self, n, F: grad * F.polygamma(n + 1, self))
derivative("MvlgammaBackward0", "self", saves="p", self=lambda grad, self, p, F: _mvlgamma_backward(F, grad, self, p))
derivative("ErfinvBackward0", "self",
           self=lambda grad, self, F: F.mul_number(F.exp(F.pow(F.erfinv(self), 2)), 0.5 * math.sqrt(math.pi)) * grad)
derivative("I0Backward0", "self", self=lambda grad, self, F: grad * F.i1(self))
derivative("SpecialI0EBackward0", "self",
           self=lambda grad, self, result, F: grad * (F.i1e(self) - F.sgn(self) * result))
derivative("SpecialI1Backward0", "self",
           self=lambda grad, self, result, F: _bessel_i1_backward(F, grad, self, result, scaled=False))
derivative("SpecialI1EBackward0", "self",
           self=lambda grad, self, result, F: _bessel_i1_backward(F, grad, self, result, scaled=True))
derivative("SpecialEntrBackward0", "self", self=lambda grad, self, F: grad * -(1 + F.log(self)))
derivative("SpecialLogNdtrBackward0", "self",
           self=lambda grad, self, result, F:
           F.div_number(grad, math.sqrt(2 * math.pi)) * F.exp(-(result + F.div_number(F.pow(self, 2), 2))))
derivative("SpecialErfcxBackward0", "self",
           self=lambda grad, self, result, F: (F.mul_number(self, 2.0) * result - 2.0 / math.sqrt(math.pi)) * grad)
# xlog1py: self's gradient is 0 where self is 0 and other <= -1 (log1p(other) is not finite there)
derivative("SpecialXlog1PyBackward0", "self other",
           self=lambda grad, self, other, F: F.masked_fill(F.xlog1py(grad, other), (self == 0) & (other <= -1), 0),
           other=lambda grad, self, other: grad * self / (other + 1))
derivative("SpecialXlog1PyBackward1", "other", saves="self",  # xlog1py(number, tensor)
           other=lambda grad, self, other: grad * self / (other + 1))
derivative("SpecialXlog1PyBackward2", "self", saves="other",  # xlog1py(tensor, number)
           self=lambda grad, self, other, F: _xlog1py_number_backward(F, grad, self, other))


def _input_not_differentiable(what: str):
    """torch's refusal of a gradient its table leaves out (``not_implemented("igamma: input")``)."""
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


def _gamma_density(F, self, other):
    """other^(self - 1) e^-other / Gamma(self): the derivative of igamma in ``other``."""
    return F.exp((self - 1) * F.log(other) - other - F.lgamma(self))


derivative("FrexpBackward0", "self", saves="exponent", self=lambda grad, exponent, F: grad / F.exp2(exponent))
derivative("LdexpBackward0", "self other",
           self=lambda grad, other, F: grad * F.exp2(other),
           other=lambda grad, self, other, F: F.mul_number(grad * self * F.exp2(other), LOG_2))
derivative("NextafterBackward0", "self other",  # the gradient passes to self, but where self equals other
           self=lambda grad, self, other, F: F.where(self != other, grad, 0),
           other=lambda grad, other, F: F.zeros_like(other))
# torch has no forward-mode formula for igamma and igammac
derivative("IgammaBackward0", "self other", forward=None,
           self=lambda grad: _input_not_differentiable("igamma: input"),
           other=lambda grad, self, other, F: grad * _gamma_density(F, self, other))
derivative("IgammacBackward0", "self other", forward=None,
           self=lambda grad: _input_not_differentiable("igammac: input"),
           other=lambda grad, self, other, F: -grad * _gamma_density(F, self, other))


def _select_tangent(strictly):
    """torch's forward rule of ``fmax`` (``strictly``: ``>``) and ``fmin`` (``<=``): ``self``'s tangent
    where ``self`` is taken by ``strictly`` or ``other`` is NaN, else ``other``'s."""

    def rule(tangents, values, F):
        self, other = values["self"], values["other"]
        self_t, other_t = (t if t is not None else F.zeros_like(v) for t, v in zip(tangents, (self, other)))
        return other_t + F.where(strictly(self, other) | F.isnan(other), self_t - other_t, 0)

    return rule


ELEMENTWISE = ("Deg2RadBackward0", "Rad2DegBackward0", "LogaddexpBackward0", "Logaddexp2Backward0", "HypotBackward0",
               "CopysignBackward0", "CopysignBackward1", "SincBackward0", "LogitBackward0", "LgammaBackward0",
               "DigammaBackward0", "PolygammaBackward0", "MvlgammaBackward0", "ErfinvBackward0", "I0Backward0",
               "SpecialI0EBackward0", "SpecialI1Backward0", "SpecialI1EBackward0", "SpecialEntrBackward0",
               "SpecialLogNdtrBackward0", "SpecialErfcxBackward0", "SpecialXlog1PyBackward0", "SpecialXlog1PyBackward1",
               "SpecialXlog1PyBackward2", "FrexpBackward0", "LdexpBackward0", "NextafterBackward0")
for _name in ELEMENTWISE:
    NODES[_name].forward_rule = "elementwise"
NODES["FmaxBackward0"].forward_rule = _select_tangent(lambda a, b: a > b)
NODES["FminBackward0"].forward_rule = _select_tangent(_le)
