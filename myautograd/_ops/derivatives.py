"""Every derivative formula of myautograd, one entry per backward node (cf. torch's derivatives.yaml).

``derivative(NodeName, "input names", input=formula, ...)`` defines the node torch would create
for the op and how to get each input's gradient. A formula is a lambda whose parameter names say
what it reads (see ``myautograd/_autograd/formulas.py``): ``grad``/``grads``, ``result``, the op's
inputs by name, saved non-tensor arguments, and ``F``, the math namespace that makes the same
formula work on arrays (plain backward) and on tensors (``create_graph=True``). What a node
saves is what the formulas of the inputs needing a gradient read, plus what torch always saves
(the outputs a formula reads, what the formulas of several inputs read).

Broadcasting and dtype casts need no formula: the engine sums each gradient down to its
input's shape and casts it to its input's dtype, as torch's engine does.

Formulas too long for a line are helpers over ``F``: ``formula_helpers`` (``H``; ``formula_helpers_nn``, ``HN``, for
the nn functions) and ``norm_math``
(``N``). The layers' entries (losses, convolution, pooling, normalization) are in ``derivatives_nn``,
imported below, with ``window_math`` and ``norm_math``, whose same functions also compute the forward
values. Where torch's backward is a kernel of its own with
its own derivative (``elu_backward``, the binary cross entropy's, pooling's), the formula calls
``F.backward_op``: on arrays the kernel (registered in ``formula_math.BACKWARD_KERNELS``), under
``create_graph`` a recorded node of this table (``...BackwardBackward0``), so that second
derivatives follow torch's conventions at kinks.

Forward mode derives each entry's tangent from these formulas (element-wise entries) or from a
rule written out in ``forward_rules.py``, which says which entry has which; ``forward=None`` marks
an op torch has no forward formula for.

To add an operator: add its entry here, then its forward in the matching ``_ops`` module,
which calls ``record(NODES["Name"], result, inputs, attrs)``; then an ``Op`` in the operator
tests (``tests/test_ops_against_torch.py``, ``tests/support/operators.py``) that produces its node
class: ``tests/test_derivative_table.py`` fails for a node no test produces, and
``tests/test_gradcheck.py`` checks every such ``Op`` against finite differences.
"""

from __future__ import annotations

import math

from .._autograd.formulas import NODES, derivative
from . import formula_helpers as H
from . import formula_helpers_nn as HN
from . import forward_rules, solve_math, svd_math
from . import norm_math as N

# -- pointwise, one input ----------------------------------------------------------------------
derivative("NegBackward0", "self", self=lambda grad: -grad)
derivative("ExpBackward0", "self", self=lambda grad, result: grad * result)
derivative("Exp2Backward0", "self", self=lambda grad, result, F: F.mul_number(grad * result, math.log(2.0)))
derivative("Expm1Backward0", "self", self=lambda grad, result: grad * (result + 1))
derivative("LogBackward0", "self", self=lambda grad, self: grad / self)
derivative("Log2Backward0", "self", self=lambda grad, self: grad / (self * math.log(2.0)))
derivative("Log10Backward0", "self", self=lambda grad, self: grad / (self * math.log(10.0)))
derivative("Log1PBackward0", "self", self=lambda grad, self: grad / (self + 1))
derivative("SinBackward0", "self", self=lambda grad, self, F: grad * F.cos(self))
derivative("CosBackward0", "self", self=lambda grad, self, F: grad * -F.sin(self))
derivative("TanBackward0", "self", self=lambda grad, result: grad * (1 + result * result))
derivative("SinhBackward0", "self", self=lambda grad, self, F: grad * F.cosh(self))
derivative("CoshBackward0", "self", self=lambda grad, self, F: grad * F.sinh(self))
# tanh_backward and sigmoid_backward conjugate inside their kernels (as torch's): these entries read the output as it is
derivative("TanhBackward0", "self", holomorphic=False, self=lambda grad, result, F: F.tanh_backward(grad, result))
derivative("AsinBackward0", "self", self=lambda grad, self, F: grad * F.rsqrt(1 - self * self))
derivative("AcosBackward0", "self", self=lambda grad, self, F: grad * -F.rsqrt(1 - self * self))
derivative("AtanBackward0", "self", self=lambda grad, self: grad / (self * self + 1))
derivative("SigmoidBackward0", "self", holomorphic=False, self=lambda grad, result, F: F.sigmoid_backward(grad, result))
derivative("ReluBackward0", "self",
           self=lambda grad, result, F: F.masked_backward("ThresholdBackwardBackward0", grad, result, ~(result <= 0), 0))
# Not holomorphic (complex input, real output): torch's backward as it is, grad * sgn(z); so angle and sgn
derivative("AbsBackward0", "self", holomorphic=False, self=lambda grad, self, F: grad * F.sgn(self))
derivative("AngleBackward0", "self", holomorphic=False, self=lambda grad, self, F: H.angle_backward(F, grad, self))
derivative("SqrtBackward0", "self", self=lambda grad, result: grad / (2 * result))
derivative("RsqrtBackward0", "self", self=lambda grad, result: -0.5 * grad * result * result * result)
derivative("ReciprocalBackward0", "self", holomorphic=False,  # the conjugate taken last, as torch's (see div)
           self=lambda grad, result, F: -grad * F.conj(result * result))
derivative("SignBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("SgnBackward0", "self", holomorphic=False,
           self=lambda grad, self, result, F: H.sgn_backward(F, grad, self, result))
derivative("RoundBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("FloorBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("CeilBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("TruncBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("FracBackward0", "self", self=lambda grad: grad)
derivative("ErfBackward0", "self",
           self=lambda grad, self, F: grad * (2.0 / math.sqrt(math.pi)) * F.exp(-(self * self)))
derivative("ErfcBackward0", "self",
           self=lambda grad, self, F: -2.0 / math.sqrt(math.pi) * F.exp(-(self * self)) * grad)
derivative("AsinhBackward0", "self", self=lambda grad, self, F: grad * F.rsqrt(self * self + 1))
# sqrt(z * z - 1) = sqrt(z - 1) sqrt(z + 1) for real z > 1 only: complex numbers take the product (as torch)
derivative("AcoshBackward0", "self",
           self=lambda grad, self, F: grad * (F.rsqrt(self + 1) * F.rsqrt(self - 1) if H.is_complex(self)
                                              else F.rsqrt(self * self - 1)))
derivative("AtanhBackward0", "self", self=lambda grad, self: grad / (1 - self * self))
derivative("RoundBackward1", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("PowBackward0", "self", saves="exponent",
           self=lambda grad, self, exponent, F: F.zeros_like(grad) if exponent == 0
           else grad * (exponent * F.pow(self, exponent - 1)))
derivative("PowBackward1", "self exponent",
           self=lambda grad, self, exponent, F: F.where(exponent == 0, 0, grad * (exponent * F.pow(self, exponent - 1))),
           exponent=lambda grad, self, exponent, result, F:
           grad * F.where((self == 0) & H.real_nonnegative(F, exponent), 0, result * F.log(self)))
derivative("PowBackward2", "exponent", saves="self",
           exponent=lambda grad, self, exponent, result, F:
           grad * F.where(H.real_nonnegative(F, exponent), 0, result * -math.inf)
           if self == 0 else grad * (result * math.log(self)))
derivative("ClampBackward1", "self", saves="min max",
           self=lambda grad, self, min, max, F: F.where(H.between(self, min, max), grad, 0))
derivative("ClampMinBackward0", "self", saves="min", self=lambda grad, self, min, F: F.where(self >= min, grad, 0))
derivative("ClampMaxBackward0", "self", saves="max", self=lambda grad, self, max, F: F.where(self <= max, grad, 0))
derivative("ClampMinBackward1", "self min",  # clamp_min with a tensor bound: the bound's gradient where it clamped
           self=lambda grad, self, min, F: F.where(self >= min, grad, 0),
           min=lambda grad, self, min, F: F.where(self < min, grad, 0))
derivative("ClampMaxBackward1", "self max",
           self=lambda grad, self, max, F: F.where(self <= max, grad, 0),
           max=lambda grad, self, max, F: F.where(self > max, grad, 0))
derivative("LeakyReluBackward0", "self", saves="negative_slope",
           self=lambda grad, self, negative_slope, F:
           F.masked_backward("LeakyReluBackwardBackward0", grad, self, self > 0, negative_slope))
derivative("LeakyReluBackward1", "self", saves="negative_slope",
           self=lambda grad, result, negative_slope, F:
           F.masked_backward("LeakyReluBackwardBackward0", grad, result, result > 0, negative_slope))
derivative("SiluBackward0", "self",
           self=lambda grad, self, F: grad * (1 / (1 + F.exp(-self))) * (1 + self * (1 - 1 / (1 + F.exp(-self)))))
derivative("MishBackward0", "self", self=lambda grad, self, F: HN.mish_backward(F, grad, self))
# softplus, logsigmoid, softmax and log_softmax: backward kernels of their own, recorded under
# create_graph as torch's ...BackwardBackward0 / ...BackwardDataBackward0 nodes.
derivative("SoftplusBackward0", "self", saves="beta threshold",
           self=lambda grad, self, beta, threshold, F: F.backward_op("SoftplusBackwardBackward0", grad, self,
                                                                     beta=beta, threshold=threshold))
derivative("SoftplusBackwardBackward0", "grad_output self", saves="beta threshold",
           grad_output=lambda grad, self, beta, threshold, F: F.backward_op("SoftplusBackwardBackward0", grad, self,
                                                                            beta=beta, threshold=threshold),
           self=lambda grad, grad_output, self, beta, threshold, F:
           F.sigmoid_backward(grad * grad_output, F.sigmoid(self * beta)) * (self * beta < threshold) * beta)
derivative("LogSigmoidBackward0", "self",
           self=lambda grad, self, F: F.backward_op("LogSigmoidBackwardBackward0", grad, self))
derivative("LogSigmoidBackwardBackward0", "grad_output self",
           grad_output=lambda grad, self, F: F.backward_op("LogSigmoidBackwardBackward0", grad, self),
           self=lambda grad, grad_output, self, F: HN.log_sigmoid_double_backward(F, grad * grad_output, self))
# elu and its kin: elu_backward is a kernel of its own, recorded under create_graph as
# EluBackwardBackward0, whose derivative is zero where x >= 0 (the convention at 0).
derivative("EluBackward0", "self", saves="alpha scale input_scale",
           self=lambda grad, self, alpha, scale, input_scale, F: F.backward_op(
               "EluBackwardBackward0", grad, self, alpha=alpha, scale=scale, input_scale=input_scale, is_result=False))
derivative("EluBackward1", "self", saves="alpha scale input_scale",
           self=lambda grad, result, alpha, scale, input_scale, F: F.backward_op(
               "EluBackwardBackward0", grad, result, alpha=alpha, scale=scale, input_scale=input_scale, is_result=True))
derivative("CeluBackward0", "self", saves="alpha",
           self=lambda grad, self, alpha, F: F.backward_op(
               "EluBackwardBackward0", grad, self, alpha=alpha, scale=1.0, input_scale=1.0 / alpha, is_result=False))
derivative("EluBackwardBackward0", "grad_output self_or_result", saves="alpha scale input_scale is_result",
           grad_output=lambda grad, self_or_result, alpha, scale, input_scale, is_result, F: F.backward_op(
               "EluBackwardBackward0", grad, self_or_result, alpha=alpha, scale=scale, input_scale=input_scale,
               is_result=is_result),
           self_or_result=lambda grad, grad_output, self_or_result, alpha, scale, input_scale, is_result, F:
           HN.elu_double_backward(F, grad, grad_output, self_or_result, alpha, scale, input_scale, is_result))
derivative("HardtanhBackward0", "self", saves="min_val max_val",
           self=lambda grad, self, min_val, max_val, F:
           F.masked_backward("HardtanhBackwardBackward0", grad, self, ~((self <= min_val) | (self >= max_val)), 0))
derivative("HardsigmoidBackward0", "self",
           self=lambda grad, self, F: F.backward_op("NotImplemented", grad, self, kernel="hardsigmoid_backward",
                                                    op="hardsigmoid_backward"))
derivative("NotImplemented", "grad_output self", saves="op", cpp_name=True,
           grad_output=lambda grad, op: H.not_implemented(op),
           self=lambda grad, op: H.not_implemented(op))
derivative("HardswishBackward0", "self",
           self=lambda grad, self, F: F.backward_op("HardswishBackwardBackward0", grad, self))
derivative("HardswishBackwardBackward0", "grad_output self",
           grad_output=lambda grad, self, F: F.backward_op("HardswishBackwardBackward0", grad, self),
           self=lambda grad, grad_output, self, F: F.where((self > -3) & (self < 3), grad * grad_output / 3.0, 0))
# hardshrink, softshrink and threshold: the gradient passes outside the band (above the threshold), as relu's
derivative("HardshrinkBackward0", "self", saves="lambd",
           self=lambda grad, self, lambd, F:
           F.masked_backward("HardshrinkBackwardBackward0", grad, self, ~((self >= -lambd) & (self <= lambd)), 0))
derivative("SoftshrinkBackward0", "self", saves="lambd",
           self=lambda grad, self, lambd, F:
           F.masked_backward("SoftshrinkBackwardBackward0", grad, self, ~((self >= -lambd) & (self <= lambd)), 0))
for _name in ("ThresholdBackward0", "ThresholdBackward1"):  # threshold, threshold_ (which saves the input's copy)
    derivative(_name, "self", saves="threshold",
               self=lambda grad, self, threshold, F:
               F.masked_backward("ThresholdBackwardBackward0", grad, self, ~(self <= threshold), 0))
# glu and prelu: backward kernels of their own, recorded under create_graph as torch's GluBackwardBackward0 and
# PreluKernelBackwardBackward0 (``which``: 0 the input's gradient, 1 the weight's). prelu's weight is broadcast
# over the input, so the engine sums its gradient down to the weight's shape. The derivatives of prelu's backward
# take self >= 0 as the positive side, where its kernel takes self > 0 (torch's conventions, measured at 0).
derivative("GluBackward0", "self", saves="dim",
           self=lambda grad, self, dim, F: F.backward_op("GluBackwardBackward0", grad, self, dim=dim))
derivative("GluBackwardBackward0", "grad_output self", saves="dim",
           grad_output=lambda grad, self, dim, F: HN.glu_backward_in_grad_output(F, grad, self, dim),
           self=lambda grad, grad_output, self, dim, F: HN.glu_backward_in_self(F, grad, grad_output, self, dim))
derivative("PreluKernelBackward0", "self weight",
           self=lambda grad, self, weight, F: F.backward_op("PreluKernelBackwardBackward0", grad, self, weight, which=0),
           weight=lambda grad, self, weight, F: F.backward_op("PreluKernelBackwardBackward0", grad, self, weight,
                                                              which=1))
derivative("PreluKernelBackwardBackward0", "grad_output self weight", saves="which",
           grad_output=lambda grad, self, weight, which, F:
           F.where(self >= 0, grad, grad * weight) if which == 0 else F.where(self >= 0, 0, grad * self),
           self=lambda grad, grad_output, self, which, F:
           F.zeros_like(self) if which == 0 else F.where(self >= 0, 0, grad * grad_output),
           weight=lambda grad, grad_output, self, which, F:
           F.where(self >= 0, 0, grad * grad_output) if which == 0 else F.zeros_like(self))
derivative("ConjBackward0", "self", self=lambda grad, F: F.conj(grad))
derivative("ConjPhysicalBackward0", "self", self=lambda grad, F: F.conj(grad))
derivative("ConjPhysicalBackward1", "self", self=lambda grad, F: F.conj(grad))  # conj_physical_, in place
derivative("NanToNumBackward0", "self", self=lambda grad, self, F: grad * F.isfinite(self))

# Backward ops that torch records with the forward input as an input too (so, under create_graph,
# their result requires grad whenever that input does): the gradient kept where ``mask`` holds,
# scaled by ``scale`` elsewhere.
for _name in ("ThresholdBackwardBackward0", "LeakyReluBackwardBackward0", "HardtanhBackwardBackward0",
              "HardshrinkBackwardBackward0", "SoftshrinkBackwardBackward0"):
    derivative(_name, "grad_output self", saves="mask scale",
               grad_output=lambda grad, mask, scale, F: F.where(mask, grad, grad * scale),
               self=lambda grad, F: F.zeros_like(grad))

# torch's tanh_backward and sigmoid_backward: one recorded op each under create_graph
derivative("TanhBackwardBackward0", "grad_output output", holomorphic=False,
           grad_output=lambda grad, output, F: F.tanh_backward(grad, F.conj(output)),
           output=lambda grad, output, grad_output, F: F.conj(grad) * (-2 * grad_output * F.conj(output)))
derivative("SigmoidBackwardBackward0", "grad_output output", holomorphic=False,
           grad_output=lambda grad, output, F: F.sigmoid_backward(grad, F.conj(output)),
           output=lambda grad, output, grad_output, F: F.conj(grad) * grad_output * (-2 * F.conj(output) + 1))

# -- pointwise, several inputs ------------------------------------------------------------------
derivative("AddBackward0", "self other", saves="alpha",
           self=lambda grad: grad,
           other=lambda grad, alpha: grad if alpha == 1 else grad * alpha)
derivative("SubBackward0", "self other", saves="alpha",
           self=lambda grad: grad,
           other=lambda grad, alpha: -grad if alpha == 1 else -grad * alpha)
derivative("AddBackward1", "self", self=lambda grad: grad)  # C++ add(Tensor, Scalar)
derivative("SubBackward1", "self", self=lambda grad: grad)  # C++ sub(Tensor, Scalar)
derivative("RsubBackward0", "self other", saves="alpha",
           self=lambda grad, alpha: -grad if alpha == 1 else -grad * alpha,
           other=lambda grad: grad)
derivative("RsubBackward1", "self", saves="alpha", self=lambda grad, alpha: -grad if alpha == 1 else -grad * alpha)
derivative("MulBackward0", "self other",
           self=lambda grad, other: grad * other,
           other=lambda grad, self: grad * self)
# Written with its conjugates as torch writes it (the conjugate taken last in other's): the graph a second-order
# backward records, and its non-finite values at a division by zero, are torch's
derivative("DivBackward0", "self other", holomorphic=False,
           self=lambda grad, other, F: grad / F.conj(other),
           other=lambda grad, self, other, F: -grad * F.conj((self / other) / other))
derivative("DivBackward1", "self", saves="other", self=lambda grad, other: grad / other)
derivative("MulBackward1", "self", saves="other", self=lambda grad, other, F: F.mul_number(grad, other))
# A rounded quotient has zero gradients: fresh zeros, as torch's new_zeros (not grad * 0, NaN where grad is inf)
derivative("DivBackward2", "self other", saves="rounding_mode",
           self=lambda grad, other, rounding_mode, F: F.zeros_like(grad),
           other=lambda grad, self, other, rounding_mode, F: F.zeros_like(grad))
derivative("RemainderBackward0", "self", self=lambda grad: grad)
derivative("RemainderBackward1", "self other",
           self=lambda grad: grad,
           other=lambda grad, self, other, F: -grad * F.div_rounded(self, other, "floor"))
derivative("FmodBackward0", "self", self=lambda grad: grad)
derivative("FmodBackward1", "self other",
           self=lambda grad: grad,
           other=lambda grad, self, other, F: -grad * F.div_rounded(self, other, "trunc"))
# maximum/minimum: ties share the gradient; where either operand is NaN both get all of it.
derivative("MaximumBackward0", "self other",
           self=lambda grad, self, other, F: F.where(self < other, 0, F.where(self == other, grad / 2, grad)),
           other=lambda grad, self, other, F: F.where(self > other, 0, F.where(self == other, grad / 2, grad)))
derivative("MinimumBackward0", "self other",
           self=lambda grad, self, other, F: F.where(self > other, 0, F.where(self == other, grad / 2, grad)),
           other=lambda grad, self, other, F: F.where(self < other, 0, F.where(self == other, grad / 2, grad)))
derivative("Atan2Backward0", "self other",
           self=lambda grad, self, other, F: grad * other * H.atan2_reciprocal(F, self, other),
           other=lambda grad, self, other, F: grad * -self * H.atan2_reciprocal(F, self, other))
derivative("WhereBackward0", "self other", saves="condition",
           self=lambda grad, condition, F: F.where(condition, grad, 0),
           other=lambda grad, condition, F: F.where(condition, 0, grad))
derivative("MaskedFillBackward0", "self", saves="mask", self=lambda grad, mask, F: F.where(mask, 0, grad))
derivative("LerpBackward0", "self end", saves="weight",
           self=lambda grad, weight: grad * (1 - weight),
           end=lambda grad, weight: grad * weight)
derivative("LerpBackward1", "self end weight",
           self=lambda grad, weight: grad * (1 - weight),
           end=lambda grad, weight: grad * weight,
           weight=lambda grad, self, end: grad * (end - self))
derivative("AddcmulBackward0", "self tensor1 tensor2", saves="value",
           self=lambda grad: grad,
           tensor1=lambda grad, tensor2, value: grad * (tensor2 * value),
           tensor2=lambda grad, tensor1, value: grad * (tensor1 * value))
derivative("AddcdivBackward0", "self tensor1 tensor2", saves="value",
           self=lambda grad: grad,
           tensor1=lambda grad, tensor2, value: grad * (value / tensor2),
           tensor2=lambda grad, tensor1, tensor2, value: -grad * (value * tensor1 / (tensor2 * tensor2)))
# clamp with tensor bounds: x keeps its gradient within the bounds (inclusive); a bound gets it
# where it clamped, min only while min < max (above that max wins).
derivative("ClampBackward0", "self min max",
           self=lambda grad, self, min, max, F: F.where(H.between(self, min, max), grad, 0),
           min=lambda grad, self, min, max, F: F.where((self < min) & (min < max) if max is not None else self < min,
                                                        grad, 0),
           max=lambda grad, self, min, max, F: F.where((self > max) | (max < min) if min is not None else self > max,
                                                        grad, 0))

# -- linear algebra ---------------------------------------------------------------------------------
derivative("MmBackward0", "self mat2", saves="self_column_major mat2_column_major",
           self=lambda grad, mat2, self_column_major, F: H.mm_mat1_backward(F, grad, mat2, self_column_major, 1),
           mat2=lambda grad, self, mat2_column_major, F: H.mm_mat2_backward(F, grad, self, mat2_column_major, 1))
derivative("BmmBackward0", "self mat2",
           self=lambda grad, mat2, F: F.bmm(grad, F.transpose(mat2, 1, 2)),
           mat2=lambda grad, self, F: F.bmm(F.transpose(self, 1, 2), grad))
derivative("BaddbmmBackward0", "self batch1 batch2", saves="beta alpha",
           self=lambda grad, beta: grad if beta == 1 else grad * beta,
           batch1=lambda grad, batch2, alpha, F: H.times(F, F.bmm(grad, F.transpose(batch2, 1, 2)), alpha),
           batch2=lambda grad, batch1, alpha, F: H.times(F, F.bmm(F.transpose(batch1, 1, 2), grad), alpha))
derivative("MvBackward0", "self vec",
           self=lambda grad, vec, F: F.outer(grad, vec),
           vec=lambda grad, self, F: F.matmul(F.mT(self), grad))
# cdist: each distance's gradient along the rows' difference (zero where the distance is 0), x2's as x1's
# with the operands swapped (as torch's: a zero stays +0); torch has no forward-mode formula for it (its
# kernel is _cdist_forward)
derivative("CdistBackward0", "x1 x2", saves="p", forward=None, forward_op="_cdist_forward",
           x1=lambda grad, x1, x2, result, p, F: F.sum(N.cdist_terms(F, grad, x1, x2, result, p), (-2,)),
           x2=lambda grad, x1, x2, result, p, F: F.sum(N.cdist_terms(F, F.mT(grad), x2, x1, F.mT(result), p), (-2,)))
derivative("LinalgSvdBackward0", "A", multi_output=True, holomorphic=False,  # the reduced SVD (nuclear norm)
           A=lambda grads, result0, result1, result2, F: svd_math.svd_backward(
               F, H.output_grad(grads, 0), H.output_grad(grads, 1), H.output_grad(grads, 2), result0, result1, result2))
derivative("DotBackward0", "self tensor",
           self=lambda grad, tensor: grad * tensor,
           tensor=lambda grad, self: grad * self)
derivative("AddmmBackward0", "self mat1 mat2", saves="beta alpha mat1_column_major mat2_column_major",
           self=lambda grad, beta: grad if beta == 1 else grad * beta,
           mat1=lambda grad, mat2, mat1_column_major, alpha, F: H.mm_mat1_backward(F, grad, mat2, mat1_column_major,
                                                                                   alpha),
           # for linear (mat2 = weight.t(), column-major) (grad^T mat1)^T: the weight's gradient comes
           # out row-major, as the weight is
           mat2=lambda grad, mat1, mat2_column_major, alpha, F: H.mm_mat2_backward(F, grad, mat1, mat2_column_major,
                                                                                   alpha))
derivative("AddmvBackward0", "self mat vec", saves="beta alpha",
           self=lambda grad, beta, F: H.times(F, grad, beta),
           mat=lambda grad, vec, alpha, F: H.times(F, F.outer(grad, F.conj(vec)), alpha),
           vec=lambda grad, mat, alpha, F: H.times(F, F.matmul(F.conj(F.t(mat)), grad), alpha))
# addbmm: the gradient of the sum of the batch's products is the gradient of each, grad expanded over the batch
derivative("AddbmmBackward0", "self batch1 batch2", saves="beta alpha",
           self=lambda grad, beta, F: H.times(F, grad, beta),
           batch1=lambda grad, batch2, alpha, F: H.times(
               F, F.bmm(F.expand(F.unsqueeze(grad, 0), (batch2.shape[0],) + tuple(grad.shape)),
                        F.conj(F.transpose(batch2, 1, 2))), alpha),
           batch2=lambda grad, batch1, alpha, F: H.times(
               F, F.bmm(F.conj(F.transpose(batch1, 1, 2)),
                        F.expand(F.unsqueeze(grad, 0), (batch1.shape[0],) + tuple(grad.shape))), alpha))
derivative("AddrBackward0", "self vec1 vec2", saves="beta alpha",
           self=lambda grad, beta, F: H.times(F, grad, beta),
           vec1=lambda grad, vec2, alpha, F: H.times(F, F.matmul(grad, F.conj(vec2)), alpha),
           vec2=lambda grad, vec1, alpha, F: H.times(F, F.matmul(F.t(grad), F.conj(vec1)), alpha))
derivative("LinalgCrossBackward0", "self other", saves="dim",
           self=lambda grad, other, dim, F: F.cross(F.conj(other), grad, dim),
           other=lambda grad, self, dim, F: F.cross(grad, F.conj(self), dim))
derivative("LinalgInvExBackward0", "A", A=lambda grad, result, F: solve_math.inv_backward(F, grad, result))
derivative("LinalgSolveExBackward0", "A B", saves="vector_case",
           A=lambda grad, A, result, vector_case, F: solve_math.solve_backward_A(F, grad, A, result, vector_case),
           B=lambda grad, A, vector_case, F: solve_math.solve_backward_B(F, grad, A, vector_case))
derivative("LinalgDetBackward0", "A", A=lambda grad, result, A, F: solve_math.det_backward(F, grad, result, A))
derivative("LinalgSlogdetBackward0", "A", multi_output=True,  # the sign's gradient is zero for real matrices
           A=lambda grads, A, F: solve_math.slogdet_backward(F, H.output_grad(grads, 1), A))

# -- reductions ------------------------------------------------------------------------------------
derivative("SumBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.expand(grad, self_sym_sizes))
derivative("SumBackward1", "self", saves="dim keepdim self_sym_sizes",
           self=lambda grad, dim, keepdim, self_sym_sizes, F: H.restore_dims(F, grad, dim, keepdim, self_sym_sizes))
derivative("NansumBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, dim, keepdim, F: H.nansum_backward(F, grad, self, dim, keepdim))
derivative("MeanBackward0", "self", saves="self_sym_sizes self_sym_numel",
           self=lambda grad, self_sym_sizes, self_sym_numel, F: F.div_number(F.expand(grad, self_sym_sizes),
                                                                              self_sym_numel))
derivative("MeanBackward1", "self", saves="dim keepdim self_sym_sizes",
           self=lambda grad, dim, keepdim, self_sym_sizes, F:
           F.div_number(H.restore_dims(F, grad, dim, keepdim, self_sym_sizes), H.reduced_count(self_sym_sizes, dim)))
derivative("MaxBackward1", "self", self=lambda grad, self, result, F: H.evenly(F, grad, self, result))
derivative("MinBackward1", "self", self=lambda grad, self, result, F: H.evenly(F, grad, self, result))
for _name in ("MedianBackward0", "NanmedianBackward0"):
    derivative(_name, "self", self=lambda grad, self, result, F: H.evenly(F, grad, self, result))
for _name in ("MaxBackward0", "MinBackward0", "KthvalueBackward0", "MedianBackward1", "NanmedianBackward1",
              "ModeBackward0"):
    derivative(_name, "self", saves="dim keepdim indices self_sym_sizes", multi_output=True,
               self=lambda grads, dim, keepdim, indices, self_sym_sizes, F:
               H.value_selecting(F, grads[0], dim, indices, self_sym_sizes, keepdim))
for _name in ("SortBackward0", "SortBackward1", "TopkBackward0"):  # sort without and with its stable= argument
    derivative(_name, "self", saves="dim indices self_sym_sizes",
               self=lambda grad, dim, indices, self_sym_sizes, F: H.value_selecting(F, grad, dim, indices,
                                                                                   self_sym_sizes, True))
for _name in ("CummaxBackward0", "CumminBackward0"):
    derivative(_name, "self", saves="dim indices",
               self=lambda grad, self, dim, indices, F: H.cumulative_extreme_backward(F, grad, self, dim, indices))
derivative("LogcumsumexpBackward0", "self", saves="dim",
           self=lambda grad, self, result, dim, F: H.logcumsumexp_backward(F, grad, self, result, dim))
derivative("AminmaxBackward0", "self", saves="dim keepdim", multi_output=True,
           self=lambda grads, self, result0, result1, dim, keepdim, F: H.aminmax_backward(
               F, H.output_grad(grads, 0), H.output_grad(grads, 1), self, result0, result1, dim, keepdim))
derivative("AmaxBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F: H.evenly_dims(F, grad, self, result, dim, keepdim))
derivative("AminBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F: H.evenly_dims(F, grad, self, result, dim, keepdim))
derivative("ProdBackward0", "self", self=lambda grad, self, result, F: H.prod_backward(F, grad, self, result))
derivative("ProdBackward1", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F: H.prod_dim_backward(F, grad, self, result, dim, keepdim))
derivative("VarBackward0", "self", saves="dim correction keepdim", holomorphic=False,
           self=lambda grad, self, dim, correction, keepdim, F: H.var_backward(F, grad, self, dim, correction, keepdim))
derivative("StdBackward0", "self", saves="dim correction keepdim", holomorphic=False,
           self=lambda grad, self, result, dim, correction, keepdim, F:
           H.var_backward(F, F.where(result == 0, 0, grad / (2 * result)), self, dim, correction, keepdim))
derivative("VarMeanBackward0", "self", saves="dim correction keepdim", multi_output=True, holomorphic=False,
           self=lambda grads, self, dim, correction, keepdim, F:
           H.var_mean_backward(F, grads[0], H.output_grad(grads, 1), self, dim, correction, keepdim))
derivative("StdMeanBackward0", "self", saves="dim correction keepdim", multi_output=True, holomorphic=False,
           self=lambda grads, self, result0, dim, correction, keepdim, F: H.var_mean_backward(
               F, None if grads[0] is None else F.where(result0 == 0, 0, grads[0] / (2 * result0)),
               H.output_grad(grads, 1), self, dim, correction, keepdim))
derivative("LogsumexpBackward0", "self", saves="dim keepdim",
           self=lambda grad, self, result, dim, keepdim, F:
           (grad if keepdim else F.unsqueeze_dims(grad, dim, self.ndim))
           * F.exp(self - (result if keepdim else F.unsqueeze_dims(result, dim, self.ndim))))
derivative("LinalgVectorNormBackward0", "self", saves="ord dim keepdim", holomorphic=False,
           self=lambda grad, self, result, ord, dim, keepdim, F: H.norm_backward(F, grad, self, result, ord, dim, keepdim))
derivative("SoftmaxBackward0", "self", saves="dim", self=HN.softmax_input_gradient)
derivative("SafeSoftmaxBackward0", "self", saves="dim", self=HN.softmax_input_gradient)  # zero rows give zero
derivative("SoftmaxBackwardDataBackward0", "grad_output output", saves="dim",
           grad_output=lambda grad, output, dim, F: F.backward_op("SoftmaxBackwardDataBackward0", grad, output, dim=dim),
           output=lambda grad, grad_output, output, dim, F: HN.softmax_double_backward(F, grad, grad_output, output, dim))
derivative("LogSoftmaxBackward0", "self", saves="dim",
           self=lambda grad, result, dim, F: F.backward_op("LogSoftmaxBackwardDataBackward0", grad, result, dim=dim))
derivative("LogSoftmaxBackwardDataBackward0", "grad_output output", saves="dim",
           grad_output=lambda grad, output, dim, F: grad - F.sum(grad * F.exp(output), H.dims_of(dim, output), True),
           output=lambda grad, grad_output, output, dim, F:
           -grad * F.exp(output) * F.sum(grad_output, H.dims_of(dim, output), True))
derivative("CumsumBackward0", "self", saves="dim", self=lambda grad, dim, F: H.reversed_cumsum(F, grad, dim))
derivative("CumprodBackward0", "self", saves="dim",
           self=lambda grad, self, result, dim, F: H.cumprod_backward(F, grad, self, result, dim))

# -- shape and views ---------------------------------------------------------------------------------
derivative("ViewBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
derivative("ReshapeAliasBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
derivative("UnsafeViewBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
derivative("ExpandBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.sum_to(grad, self_sym_sizes))
derivative("TBackward0", "self", self=lambda grad, F: F.t(grad))
derivative("TransposeBackward0", "self", saves="dim0 dim1", self=lambda grad, dim0, dim1, F: F.transpose(grad, dim0, dim1))
derivative("PermuteBackward0", "self", saves="dims", self=lambda grad, dims, F: F.permute(grad, H.inverse_permutation(dims)))
derivative("SqueezeBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: H.unsqueeze_to(F, grad, H.ones_of(self_sym_sizes), self_sym_sizes))
for _name in ("SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward4"):  # squeeze(dim), squeeze(dims), squeeze_(dim)
    derivative(_name, "self", saves="dim self_sym_sizes",
               self=lambda grad, dim, self_sym_sizes, F: H.unsqueeze_to(F, grad, dim, self_sym_sizes))
derivative("UnsqueezeBackward0", "self", saves="dim", self=lambda grad, dim, F: F.squeeze_dim(grad, dim))
# A view's gradient is placed in zeros of the base's size: one op of its own (slice_backward, ...), recorded
# under create_graph as torch's ...BackwardBackward0, whose derivative takes the view of the incoming gradient.
derivative("SelectBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.backward_op("SelectBackwardBackward0", grad, kernel="placed", sizes=self_sym_sizes, key=H.at(dim, index)))
derivative("SliceBackward0", "self", saves="dim start end step self_sym_sizes",
           self=lambda grad, dim, start, end, step, self_sym_sizes, F:
           F.backward_op("SliceBackwardBackward0", grad, kernel="placed", sizes=self_sym_sizes,
                         key=H.at(dim, slice(start, end, step))))
for _name in ("SelectBackwardBackward0", "SliceBackwardBackward0", "DiagonalBackwardBackward0"):
    derivative(_name, "grad_output", saves="sizes key", grad_output=lambda grad, sizes, key, F: F.index(grad, key))
for _name in ("IndexPutBackward0", "IndexPutImplBackward0"):  # index_put_, and _index_put_impl_ (index's gradient)
    derivative(_name, "self values", saves="indices accumulate", frees="indices",
               self=lambda grad, indices, accumulate, F: grad if accumulate else F.where(F.mask_at(grad, indices), 0,
                                                                                          grad),
               values=lambda grad, indices, F: F.index(grad, indices))
# An index key stands for the index tensors torch saves: it is freed with the graph (frees=)
derivative("IndexBackward0", "self", saves="indices self_sym_sizes", frees="indices",
           self=lambda grad, indices, self_sym_sizes, F: F.index_put_zeros(self_sym_sizes, grad, indices, grad, True,
                                                                            node="IndexPutImplBackward0"))
derivative("DiagonalBackward0", "self", saves="offset dim1 dim2 self_sym_sizes",
           self=lambda grad, offset, dim1, dim2, self_sym_sizes, F:
           H.diagonal_backward(F, grad, self_sym_sizes, offset, dim1, dim2))
derivative("AsStridedBackward0", "self", saves="positions self_sym_sizes",
           self=lambda grad, positions, self_sym_sizes, F: H.scatter_positions(F, grad, positions, self_sym_sizes))
derivative("UnfoldBackward0", "self", saves="positions self_sym_sizes",
           self=lambda grad, positions, self_sym_sizes, F: H.scatter_positions(F, grad, positions, self_sym_sizes))
derivative("UnbindBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.stack(H.fill_zeros(F, grads, result_shapes), dim))
derivative("SplitBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.cat(H.fill_zeros(F, grads, result_shapes), dim))
derivative("SplitWithSizesBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.cat(H.fill_zeros(F, grads, result_shapes), dim))
derivative("UnsafeSplitBackward0", "self", saves="dim result_shapes", multi_output=True,
           self=lambda grads, dim, result_shapes, F: F.cat(H.fill_zeros(F, grads, result_shapes), dim))
derivative("Rot90Backward0", "self", saves="k dims", self=lambda grad, k, dims, F: F.rot90(grad, -k, dims))
derivative("CatBackward0", "tensors", saves="dim tensors_args_sizes",
           each=lambda grad, input_index, dim, tensors_args_sizes, F:
           H.cat_input_grad(F, grad, dim, tensors_args_sizes, input_index))
derivative("BlockDiagBackward0", "tensors", saves="tensors_args_sizes",
           each=lambda grad, input_index, tensors_args_sizes, F:
           H.block_diag_input_grad(F, grad, tensors_args_sizes, input_index))
derivative("StackBackward0", "tensors", saves="dim", each=lambda grad, input_index, dim, F: F.select(grad, dim, input_index))
derivative("CloneBackward0", "self", self=lambda grad: grad)
derivative("AliasBackward0", "self", self=lambda grad: grad)
# forward_ad.unpack_dual's primal, a view: a C++-only node in torch, whose Python class is CppFunction
derivative("Identity", "self", cpp_name=True, self=lambda grad: grad).__name__ = "CppFunction"
derivative("ToCopyBackward0", "self", saves="self_device", self=lambda grad, self_device, F: F.to_device(grad, self_device))
derivative("CopyBackwards", "self src", cpp_name=True,
           self=lambda grad, F: F.zeros_like(grad),
           src=lambda grad: grad)
derivative("FillBackward2", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("FillBackward3", "self value", self=lambda grad, F: F.zeros_like(grad), value=lambda grad, F: F.sum(grad))
derivative("ZeroBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("RepeatBackward0", "self", saves="repeats self_sym_sizes",
           self=lambda grad, repeats, self_sym_sizes, F: H.repeat_backward(F, grad, repeats, self_sym_sizes))
derivative("FlipBackward0", "self", saves="dims", self=lambda grad, dims, F: F.flip(grad, dims))
derivative("IndexSelectBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, H.index_select_key(dim, F.array(index), self_sym_sizes), grad, True))
derivative("GatherBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.scatter_into_zeros(self_sym_sizes, grad, dim, F.array(index), grad, True))
derivative("RollBackward0", "self", saves="shifts dims",
           self=lambda grad, shifts, dims, F: F.roll(grad, tuple(-s for s in reversed(shifts)), tuple(reversed(dims))))
derivative("TraceBackward0", "self", saves="self_sym_sizes",  # torch: zeros(n m).index_fill_(0, diagonal, grad).view
           self=lambda grad, self_sym_sizes, F: F.reshape(F.index_put_zeros(
               (self_sym_sizes[0] * self_sym_sizes[1],), grad, H.trace_key(self_sym_sizes), grad, False,
               node="IndexFillBackward1"), self_sym_sizes))
derivative("IndexFillBackward1", "self value", saves="indices", frees="indices",
           self=lambda grad, indices, F: F.where(F.mask_at(grad, indices), 0, grad),
           value=lambda grad, indices, F: F.sum(F.index(grad, indices), None, False))
derivative("IndexFillBackward0", "self", saves="indices",
           self=lambda grad, indices, F: F.where(F.mask_at(grad, indices), 0, grad))
derivative("IndexAddBackward0", "self source", saves="dim index alpha source_dim",
           self=lambda grad: grad,
           source=lambda grad, dim, index, alpha, source_dim, F:
           H.times_alpha(F, H.source_of_index_write(F, grad, dim, index, source_dim), alpha))
derivative("IndexCopyBackward0", "self source", saves="dim index source_dim",
           self=lambda grad, dim, index, F: F.where(F.mask_at(grad, H.index_select_key(dim, F.array(index),
                                                                                        tuple(grad.shape))), 0, grad),
           source=lambda grad, dim, index, source_dim, F: H.source_of_index_write(F, grad, dim, index, source_dim))
derivative("PutBackward0", "self source", saves="index accumulate source_sym_sizes",
           self=lambda grad, index, accumulate, F: grad if accumulate else H.put_zeros(F, grad, index),
           source=lambda grad, index, source_sym_sizes, F: F.reshape(
               F.index(F.reshape(grad, (-1,)), (F.array(index).reshape(-1),)), source_sym_sizes))
derivative("MaskedScatterBackward0", "self source", saves="mask self_sym_sizes source_sym_sizes",
           self=lambda grad, mask, self_sym_sizes, F: F.sum_to(F.where(mask, 0, grad), self_sym_sizes),
           source=lambda grad, mask, source_sym_sizes, F: H.masked_scatter_source_backward(F, grad, mask,
                                                                                          source_sym_sizes))
derivative("DiagEmbedBackward0", "self", saves="offset dim1 dim2",
           self=lambda grad, offset, dim1, dim2, F: F.diagonal(grad, offset, dim1, dim2))
derivative("DiagonalBackward0_copy", "self", saves="offset dim1 dim2 self_sym_sizes",
           self=lambda grad, offset, dim1, dim2, self_sym_sizes, F:
           H.diagonal_backward(F, grad, self_sym_sizes, offset, dim1, dim2))
derivative("TakeBackward0", "self", saves="index self_sym_sizes",
           self=lambda grad, index, self_sym_sizes, F: F.reshape(F.index_put_zeros(
               (H.numel(self_sym_sizes),), grad, (F.array(index),), grad, True), self_sym_sizes))
derivative("ScatterBackward0", "self src", saves="dim index",
           self=lambda grad, dim, index, F: F.scatter_zeros(grad, dim, F.array(index)),
           src=lambda grad, dim, index, F: F.gather(grad, dim, F.array(index)))
derivative("ScatterBackward1", "self", saves="dim index",
           self=lambda grad, dim, index, F: F.scatter_zeros(grad, dim, F.array(index)))
derivative("ScatterAddBackward0", "self src", saves="dim index",
           self=lambda grad: grad,
           src=lambda grad, dim, index, F: F.gather(grad, dim, F.array(index)))
derivative("MaskedFillBackward1", "self value", saves="mask",
           self=lambda grad, mask, F: F.where(mask, 0, grad),
           value=lambda grad, mask, F: F.sum(F.where(mask, grad, 0)))
derivative("MaskedSelectBackward0", "self", saves="mask",
           self=lambda grad, self, mask, F: H.masked_select_backward(F, grad, self, mask))
derivative("TrilBackward0", "self", saves="diagonal", self=lambda grad, diagonal, F: F.tril(grad, diagonal))
derivative("TriuBackward0", "self", saves="diagonal", self=lambda grad, diagonal, F: F.triu(grad, diagonal))
derivative("ViewAsRealBackward0", "self", self=lambda grad, F: F.view_as_complex(grad))
derivative("ViewAsComplexBackward0", "self", self=lambda grad, F: F.view_as_real(grad))
derivative("ComplexBackward0", "real imag",
           real=lambda grad, F: F.real(grad),
           imag=lambda grad, F: F.imag(grad))

# torch.fft's three primitives (fourier.py): c2c's gradient is c2c the other way; r2c's, the real part of an
# inverse c2c of the gradient, zero-padded to the whole spectrum when one-sided; c2r's, a one-sided r2c of the
# gradient with the frequencies that stand for two of the whole spectrum doubled.
derivative("FftC2CBackward0", "self", saves="dim normalization forward",
           self=lambda grad, dim, normalization, forward, F: F.fft_c2c(grad, dim, normalization, not forward))
derivative("FftR2CBackward0", "self", saves="dim normalization onesided last_size",
           self=lambda grad, dim, normalization, onesided, last_size, F:
           F.real(F.fft_c2c(H.whole_spectrum(F, grad, dim, last_size) if onesided else grad, dim, normalization, False)))
derivative("FftC2RBackward0", "self", saves="dim normalization",
           self=lambda grad, dim, normalization, F: H.c2r_backward(F, grad, dim, normalization))
polar_formula = lambda grad, result, input_index, F: H.polar_backward(F, grad, result, input_index)  # noqa: E731
derivative("PolarBackward0", "abs angle", holomorphic=False, each=polar_formula)
derivative("VdotBackward0", "self other", holomorphic=False,
           self=lambda grad, other, F: F.conj(grad) * other,
           other=lambda grad, self: grad * self)

from . import (  # noqa: E402, F401 - imported for their entries
    derivatives_nn,  # the layers' (losses, convolution, pooling, normalization)
    derivatives_pointwise,  # the pointwise math of pointwise_math.py
)

__all__ = ["NODES"]

forward_rules.install()  # each entry's forward-mode rule (forward_rules.py)
