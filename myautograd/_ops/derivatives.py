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

Formulas too long for a line are helpers over ``F``: ``formula_helpers`` (``H``), and for the
layers ``window_math`` (``W``: convolution, pooling) and ``norm_math`` (``N``), whose same
functions also compute the forward values. Where torch's backward is a kernel of its own with
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
from . import forward_rules
from . import margin_loss_math as M
from . import norm_math as N
from . import window_math as W

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
derivative("LeakyReluBackward0", "self", saves="negative_slope",
           self=lambda grad, self, negative_slope, F:
           F.masked_backward("LeakyReluBackwardBackward0", grad, self, self > 0, negative_slope))
derivative("LeakyReluBackward1", "self", saves="negative_slope",
           self=lambda grad, result, negative_slope, F:
           F.masked_backward("LeakyReluBackwardBackward0", grad, result, result > 0, negative_slope))
derivative("SiluBackward0", "self",
           self=lambda grad, self, F: grad * (1 / (1 + F.exp(-self))) * (1 + self * (1 - 1 / (1 + F.exp(-self)))))
derivative("MishBackward0", "self", self=lambda grad, self, F: H.mish_backward(F, grad, self))
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
           self=lambda grad, grad_output, self, F: H.log_sigmoid_double_backward(F, grad * grad_output, self))
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
           H.elu_double_backward(F, grad, grad_output, self_or_result, alpha, scale, input_scale, is_result))
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
# glu and prelu: composed over F (under create_graph torch records GluBackwardBackward0 and
# PreluKernelBackwardBackward0, single nodes, where these record their parts); prelu's weight is
# broadcast over the input, so the engine sums its gradient down to the weight's shape.
derivative("GluBackward0", "self", saves="dim", self=lambda grad, self, dim, F: H.glu_backward(F, grad, self, dim))
derivative("PreluKernelBackward0", "self weight",
           self=lambda grad, self, weight, F: F.where(self > 0, grad, weight * grad),
           weight=lambda grad, self, F: F.where(self > 0, 0, self * grad))
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
# cdist: each distance's gradient along the rows' difference (zero where the distance is 0); torch has
# no forward-mode formula for it (its kernel is _cdist_forward)
derivative("CdistBackward0", "x1 x2", saves="p", forward=None, forward_op="_cdist_forward",
           x1=lambda grad, x1, x2, result, p, F: F.sum(N.cdist_terms(F, grad, x1, x2, result, p), (-2,)),
           x2=lambda grad, x1, x2, result, p, F: -F.sum(N.cdist_terms(F, grad, x1, x2, result, p), (-3,)))
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

# -- reductions ------------------------------------------------------------------------------------
derivative("SumBackward0", "self", saves="self_sym_sizes",
           self=lambda grad, self_sym_sizes, F: F.expand(grad, self_sym_sizes))
derivative("SumBackward1", "self", saves="dim keepdim self_sym_sizes",
           self=lambda grad, dim, keepdim, self_sym_sizes, F: H.restore_dims(F, grad, dim, keepdim, self_sym_sizes))
derivative("MeanBackward0", "self", saves="self_sym_sizes self_sym_numel",
           self=lambda grad, self_sym_sizes, self_sym_numel, F: F.div_number(F.expand(grad, self_sym_sizes),
                                                                              self_sym_numel))
derivative("MeanBackward1", "self", saves="dim keepdim self_sym_sizes",
           self=lambda grad, dim, keepdim, self_sym_sizes, F:
           F.div_number(H.restore_dims(F, grad, dim, keepdim, self_sym_sizes), H.reduced_count(self_sym_sizes, dim)))
derivative("MaxBackward1", "self", self=lambda grad, self, result, F: H.evenly(F, grad, self, result))
derivative("MinBackward1", "self", self=lambda grad, self, result, F: H.evenly(F, grad, self, result))
for _name in ("MaxBackward0", "MinBackward0"):
    derivative(_name, "self", saves="dim keepdim indices self_sym_sizes", multi_output=True,
               self=lambda grads, dim, keepdim, indices, self_sym_sizes, F:
               H.value_selecting(F, grads[0], dim, indices, self_sym_sizes, keepdim))
derivative("SortBackward0", "self", saves="dim indices self_sym_sizes",
           self=lambda grad, dim, indices, self_sym_sizes, F: H.value_selecting(F, grad, dim, indices, self_sym_sizes,
                                                                               True))
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
derivative("SoftmaxBackward0", "self", saves="dim", self=H.softmax_input_gradient)
derivative("SafeSoftmaxBackward0", "self", saves="dim", self=H.softmax_input_gradient)  # zero rows give zero
derivative("SoftmaxBackwardDataBackward0", "grad_output output", saves="dim",
           grad_output=lambda grad, output, dim, F: F.backward_op("SoftmaxBackwardDataBackward0", grad, output, dim=dim),
           output=lambda grad, grad_output, output, dim, F: H.softmax_double_backward(F, grad, grad_output, output, dim))
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
for _name in ("SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward4"):
    derivative(_name, "self", saves="self_sym_sizes", self=lambda grad, self_sym_sizes, F: F.reshape(grad, self_sym_sizes))
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
derivative("CatBackward0", "tensors", saves="dim tensors_args_sizes",
           each=lambda grad, input_index, dim, tensors_args_sizes, F:
           H.cat_input_grad(F, grad, dim, tensors_args_sizes, input_index))
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
           F.index_put_zeros(self_sym_sizes, grad, H.at(dim, F.array(index)), grad, True))
derivative("GatherBackward0", "self", saves="dim index self_sym_sizes",
           self=lambda grad, dim, index, self_sym_sizes, F:
           F.index_put_zeros(self_sym_sizes, grad, H.along_dim_key(F.array(index), dim), grad, True))
derivative("RollBackward0", "self", saves="shifts dims",
           self=lambda grad, shifts, dims, F: F.roll(grad, tuple(-s for s in reversed(shifts)), tuple(reversed(dims))))
derivative("TraceBackward0", "self", saves="self_sym_sizes",  # torch: zeros(n m).index_fill_(0, diagonal, grad).view
           self=lambda grad, self_sym_sizes, F: F.reshape(F.index_put_zeros(
               (self_sym_sizes[0] * self_sym_sizes[1],), grad, H.trace_key(self_sym_sizes), grad, False,
               node="IndexFillBackward1"), self_sym_sizes))
derivative("IndexFillBackward1", "self value", saves="indices", frees="indices",
           self=lambda grad, indices, F: F.where(F.mask_at(grad, indices), 0, grad),
           value=lambda grad, indices, F: F.sum(F.index(grad, indices), None, False))
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

# -- losses and nn ------------------------------------------------------------------------------------
# mse, smooth_l1 and huber: backward kernels of their own (in the input, and with the operands
# swapped in the target), recorded under create_graph as torch's ...LossBackwardBackward0.
derivative("MseLossBackward0", "self target", saves="reduction",
           self=lambda grad, self, target, reduction, F: F.backward_op("MseLossBackwardBackward0", grad, self, target,
                                                                       reduction=reduction),
           target=lambda grad, self, target, reduction, F: F.backward_op("MseLossBackwardBackward0", grad, target, self,
                                                                         reduction=reduction))
derivative("MseLossBackwardBackward0", "grad_output self target", saves="reduction",
           grad_output=lambda grad, self, target, reduction, F: F.backward_op("MseLossBackwardBackward0", grad, self,
                                                                              target, reduction=reduction),
           self=lambda grad, grad_output, self, reduction, F: H.mse_double_backward(F, grad * grad_output, self,
                                                                                    reduction),
           target=lambda grad, grad_output, self, reduction, F: -H.mse_double_backward(F, grad * grad_output, self,
                                                                                       reduction))
derivative("SmoothL1LossBackward0", "self target", saves="reduction beta",
           self=lambda grad, self, target, reduction, beta, F: F.backward_op(
               "SmoothL1LossBackwardBackward0", grad, self, target, reduction=reduction, beta=beta),
           target=lambda grad, self, target, reduction, beta, F: F.backward_op(
               "SmoothL1LossBackwardBackward0", grad, target, self, reduction=reduction, beta=beta))
derivative("SmoothL1LossBackwardBackward0", "grad_output self target", saves="reduction beta",
           grad_output=lambda grad, self, target, reduction, beta, F: F.backward_op(
               "SmoothL1LossBackwardBackward0", grad, self, target, reduction=reduction, beta=beta),
           self=lambda grad, grad_output, self, target, reduction, beta, F: H.smooth_double_backward(
               F, grad * grad_output, self, target, reduction, beta, True),
           target=lambda grad, grad_output, self, target, reduction, beta, F: -H.smooth_double_backward(
               F, grad * grad_output, self, target, reduction, beta, True))
derivative("HuberLossBackward0", "self target", saves="reduction delta",
           self=lambda grad, self, target, reduction, delta, F: F.backward_op(
               "HuberLossBackwardBackward0", grad, self, target, reduction=reduction, delta=delta),
           target=lambda grad, self, target, reduction, delta, F: F.backward_op(
               "HuberLossBackwardBackward0", grad, target, self, reduction=reduction, delta=delta))
derivative("HuberLossBackwardBackward0", "grad_output self target", saves="reduction delta",
           forward=None, forward_op="huber_loss_backward",  # torch has no forward formula for it
           grad_output=lambda grad, self, target, reduction, delta, F: F.backward_op(
               "HuberLossBackwardBackward0", grad, self, target, reduction=reduction, delta=delta),
           self=lambda grad, grad_output, self, target, reduction, delta, F: H.smooth_double_backward(
               F, grad * grad_output, self, target, reduction, delta, False),
           target=lambda grad, grad_output, self, target, reduction, delta, F: -H.smooth_double_backward(
               F, grad * grad_output, self, target, reduction, delta, False))
# soft margin: its gradient is a kernel of its own, recorded under create_graph as
# SoftMarginLossBackwardBackward0; the target has no derivative (the forward refuses one that requires grad).
derivative("SoftMarginLossBackward0", "self", saves="target reduction",
           self=lambda grad, self, target, reduction, F: F.backward_op(
               "SoftMarginLossBackwardBackward0", grad, self, target=F.array(target), reduction=reduction))
derivative("SoftMarginLossBackwardBackward0", "grad_output self", saves="target reduction",
           forward=None, forward_op="soft_margin_loss_backward",  # torch has no forward formula for it
           grad_output=lambda grad, self, target, reduction, F: F.backward_op(
               "SoftMarginLossBackwardBackward0", grad, self, target=target, reduction=reduction),
           self=lambda grad, grad_output, self, target, reduction, F: M.soft_margin_double_backward(
               F, grad * grad_output, self, target, reduction))
# multi_margin and multilabel_margin: their gradients are kernels of their own (margin_loss_math), which torch
# cannot differentiate: under create_graph its NotImplemented node.
derivative("MultiMarginLossBackward0", "self", saves="target p margin weight reduction",
           forward=None, forward_op="multi_margin_loss",
           self=lambda grad, self, target, p, margin, weight, reduction, F: F.backward_op(
               "NotImplemented", grad, self, kernel="multi_margin_loss_backward", op="multi_margin_loss_backward",
               kernel_args={"target": F.array(target), "p": p, "margin": margin, "reduction": reduction,
                            "weight": None if weight is None else F.array(weight)}))
derivative("MultilabelMarginLossBackward0", "self", saves="target reduction is_target",
           forward=None, forward_op="multilabel_margin_loss_forward",
           self=lambda grad, self, target, reduction, is_target, F: F.backward_op(
               "NotImplemented", grad, self, kernel="multilabel_margin_loss_backward",
               op="multilabel_margin_loss_backward",
               kernel_args={"target": F.array(target), "is_target": F.array(is_target), "reduction": reduction}))
# ctc_loss: its gradient is a kernel of its own (ctc_loss.py) that torch cannot differentiate (NotImplemented).
derivative("CtcLossBackward0", "log_probs", saves="targets input_lengths target_lengths blank zero_infinity",
           forward=None, forward_op="_ctc_loss",
           log_probs=lambda grad, log_probs, result, targets, input_lengths, target_lengths, blank, zero_infinity, F:
           F.backward_op("NotImplemented", grad, log_probs, kernel="ctc_loss_backward", op="_ctc_loss_backward",
                         kernel_args={"targets": targets, "input_lengths": input_lengths, "blank": blank,
                                      "target_lengths": target_lengths, "zero_infinity": zero_infinity,
                                      "nll": F.array(result)}))
# The NLL gradient is a kernel of its own, recorded under create_graph as NllLossBackwardBackward0 (on the
# incoming gradient and the input, as torch's), whose derivative in the incoming gradient is the loss itself.
for _name in ("NllLoss", "NllLoss2D"):
    derivative(f"{_name}Backward0", "self", saves="target weight reduction ignore_index total_weight",
               self=H.nll_formula(f"{_name}BackwardBackward0"))
    derivative(f"{_name}BackwardBackward0", "grad_output self", saves="target weight reduction ignore_index total_weight",
               grad_output=lambda grad, self, target, weight, reduction, ignore_index, total_weight, F:
               H.nll_double_backward(F, grad, self, target, weight, reduction, ignore_index, total_weight),
               self=lambda grad, F: F.zeros_like(grad))
# binary cross entropy: its input gradient is a kernel of its own (with torch's clamp of (1 - p) p at
# 1e-12), recorded under create_graph as BinaryCrossEntropyBackwardBackward0, whose derivatives are
# torch's (with their own 1e-12); the target gradient is -logit(p). torch's target formulas take the
# target (for its size), so the node saves it whenever the target needs a gradient.
derivative("BinaryCrossEntropyBackward0", "self target", saves="weight reduction",
           self=lambda grad, self, target, weight, reduction, F: F.backward_op(
               "BinaryCrossEntropyBackwardBackward0", grad, self, target, weight=weight, reduction=reduction),
           target=lambda grad, self, target, weight, reduction, F: H.loss_scaled(F,
               -F.log(self / (1 - self)) * grad, self, weight, reduction))
derivative("BinaryCrossEntropyBackwardBackward0", "grad_output self target", saves="weight reduction",
           grad_output=lambda grad, self, target, weight, reduction, F: F.backward_op(
               "BinaryCrossEntropyBackwardBackward0", grad, self, target, weight=weight, reduction=reduction),
           self=lambda grad, grad_output, self, target, weight, reduction, F:
           H.bce_double_backward(F, grad, grad_output, self, target, weight, reduction),
           target=lambda grad, grad_output, self, target, weight, reduction, F:
           H.bce_double_backward_target(F, grad, grad_output, self, weight, reduction))
derivative("BinaryCrossEntropyWithLogitsBackward0", "self target", saves="weight pos_weight reduction",
           self=lambda grad, self, target, weight, pos_weight, reduction, F:
           H.bce_logits_backward(F, grad, self, target, weight, pos_weight, reduction),
           target=lambda grad, self, weight, pos_weight, reduction, F:
           H.bce_logits_target_backward(F, grad, self, weight, pos_weight, reduction))
derivative("XlogyBackward0", "self other",
           self=lambda grad, self, other, F: F.where((self == 0) & (other <= 0), 0, F.xlogy(grad, other)),
           other=lambda grad, self, other: grad * self / other)
derivative("XlogyBackward2", "self", saves="other",
           self=lambda grad, self, other, F: F.xlogy(grad, other) if other > 0
           else F.where(self == 0, 0, F.xlogy(grad, other)))
derivative("ConstantPadNdBackward0", "self", saves="pad",
           self=lambda grad, pad, F: F.constant_pad(grad, tuple(-p for p in pad)))
for _mode in ("Reflection", "Replication"):
    for _dims in (1, 2, 3):
        derivative(f"{_mode}Pad{_dims}DBackward0", "self", saves="key",
                   self=H.gather_pad_formula(f"{_mode}Pad{_dims}DBackwardBackward0"))
        derivative(f"{_mode}Pad{_dims}DBackwardBackward0", "grad_output self", saves="key",
                   grad_output=lambda grad, key, F: F.index(grad, key),
                   self=lambda grad, F: F.zeros_like(grad))
# torch._trilinear (bilinear's product): each gradient is a trilinear product of the incoming gradient
# and the other two operands, the gradient unsqueezed where the output lost dims, summed where the operand had none.
derivative("TrilinearBackward0", "i1 i2 i3", saves="expand1 expand2 expand3 sumdim", guarded=True,
           i1=lambda grad, i2, i3, expand1, expand2, expand3, sumdim, F:
           F.trilinear(grad, i2, i3, sumdim, expand2, expand3, expand1),
           i2=lambda grad, i1, i3, expand1, expand2, expand3, sumdim, F:
           F.trilinear(i1, grad, i3, expand1, sumdim, expand3, expand2),
           i3=lambda grad, i1, i2, expand1, expand2, expand3, sumdim, F:
           F.trilinear(i1, i2, grad, expand1, expand2, sumdim, expand3))
# scaled_dot_product_attention on the CPU (torch's flash kernel); torch has no forward formula for it, and refuses
# its second derivative, which these formulas give
derivative("ScaledDotProductFlashAttentionForCpuBackward0", "query key value", saves="bias scale",
           forward=None, forward_op="_scaled_dot_product_flash_attention_for_cpu",
           query=lambda grad, query, key, value, bias, scale, F: F.mul_number(
               F.matmul(H.attention_score_gradient(F, grad, query, key, value, scale, bias), key), scale),
           key=lambda grad, query, key, value, bias, scale, F: F.mul_number(
               F.matmul(F.mT(H.attention_score_gradient(F, grad, query, key, value, scale, bias)), query), scale),
           value=lambda grad, query, key, bias, scale, F: F.matmul(
               F.mT(H.attention_probabilities(F, query, key, scale, bias)), grad))

# -- convolution and pooling (window_math: the same functions give the values and the gradients) --------
# Each gradient of a convolution is a kernel of its own (window_math.convolution_grads), recorded under
# create_graph as torch's ConvolutionBackwardBackward0 on (grad_output, input, weight), output_mask saying which
# gradient it is. Its derivatives: in grad_output, the convolution itself applied to the incoming gradient; an
# input gradient's in the weight, and a weight gradient's in the input, the other gradient of a convolution
# (of the incoming gradient as the input, or as the weight); none in the others (as torch's, undefined).
derivative("ConvolutionBackward0", "input weight bias",
           saves="stride padding dilation transposed output_padding groups",
           input=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding, groups, F:
           W.convolution_backward(F, grad, input, weight, 0, stride, padding, dilation, transposed, output_padding,
                                  groups),
           weight=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding, groups, F:
           W.convolution_backward(F, grad, input, weight, 1, stride, padding, dilation, transposed, output_padding,
                                  groups),
           bias=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding, groups, F:
           W.convolution_backward(F, grad, input, weight, 2, stride, padding, dilation, transposed, output_padding,
                                  groups))
derivative("ConvolutionBackwardBackward0", "grad_output input weight",
           saves="output_mask stride padding dilation transposed output_padding groups",
           grad_output=lambda grad, grad_output, input, weight, output_mask, stride, padding, dilation, transposed,
           output_padding, groups, F: W.double_backward_grad_output(
               F, grad, grad_output, input, weight, output_mask, stride, padding, dilation, transposed, output_padding,
               groups),
           input=lambda grad, grad_output, input, output_mask, stride, padding, dilation, transposed, output_padding,
           groups, F: W.convolution_backward(F, grad_output, input, grad, 0, stride, padding, dilation, transposed,
                                             output_padding, groups) if output_mask[1] else None,
           weight=lambda grad, grad_output, weight, output_mask, stride, padding, dilation, transposed, output_padding,
           groups, F: W.convolution_backward(F, grad_output, grad, weight, 1, stride, padding, dilation, transposed,
                                             output_padding, groups) if output_mask[0] else None)
derivative("Im2ColBackward0", "self", saves="kernel_size stride dilation self_sym_sizes",
           self=lambda grad, kernel_size, stride, dilation, self_sym_sizes, F:
           F.col2im(grad, tuple(self_sym_sizes[2:]), kernel_size, stride, dilation))
derivative("Col2ImBackward0", "self", saves="kernel_size stride dilation",
           self=lambda grad, kernel_size, stride, dilation, F: F.im2col(grad, kernel_size, stride, dilation))
# Pooling and padding: linear, their gradients kernels of their own, recorded under create_graph on the
# incoming gradient and the input (as torch's); the derivative in the incoming gradient is the op itself.


def _max_by_indices(name: str, spatial: int) -> None:
    """A max pooling of ``spatial`` dims whose gradient goes to the elements its indices name."""
    derivative(f"{name}Backward0", "self", saves="indices",
               self=lambda grad, self, indices, F: F.backward_op(
                   f"{name}BackwardBackward0", grad, self, kernel=f"max_pool{spatial}d_backward", indices=indices))
    derivative(f"{name}BackwardBackward0", "grad_output self", saves="indices",
               grad_output=lambda grad, indices, F: H.max_pool_select(F, grad, indices, spatial),
               self=lambda grad, F: F.zeros_like(grad))


def _avg_pools(spatial: int) -> None:
    """Average pooling and adaptive average pooling of ``spatial`` dims."""
    avg, adaptive = f"AvgPool{spatial}DBackward", f"AdaptiveAvgPool{spatial}DBackward"
    derivative(f"{avg}0", "self", saves="kernel_size stride counts pad divisors",
               self=lambda grad, self, kernel_size, stride, counts, pad, divisors, F: F.backward_op(
                   f"{avg}Backward0", grad, self, kernel="avg_pool_backward", kernel_size=kernel_size, stride=stride,
                   counts=counts, pad=pad, divisors=divisors))
    derivative(f"{avg}Backward0", "grad_output self", saves="kernel_size stride counts pad divisors",
               grad_output=lambda grad, kernel_size, stride, counts, pad, divisors, F:
               W.avg_pool(F, grad, kernel_size, stride, counts, pad, divisors),
               self=lambda grad, F: F.zeros_like(grad))
    derivative(f"{adaptive}0", "self", saves="matrices",
               self=lambda grad, self, matrices, F: F.backward_op(
                   f"{adaptive}Backward0", grad, self, kernel="adaptive_avg_backward", matrices=matrices))
    derivative(f"{adaptive}Backward0", "grad_output self", saves="matrices",
               grad_output=lambda grad, matrices, F: W.adaptive_avg(F, grad, matrices),
               self=lambda grad, F: F.zeros_like(grad))


def _max_unpool(spatial: int) -> None:
    """Max unpooling: its gradient is the incoming gradient's elements at the indices (a gather)."""
    derivative(f"MaxUnpool{spatial}DBackward0", "self", saves="indices",
               self=lambda grad, indices, F: H.max_pool_select(F, grad, indices, spatial))


for _spatial in (2, 3):
    _max_unpool(_spatial)
    for _name in (f"MaxPool{_spatial}DWithIndices", f"AdaptiveMaxPool{_spatial}D", f"FractionalMaxPool{_spatial}D"):
        _max_by_indices(_name, _spatial)
    _avg_pools(_spatial)
# -- normalization (norm_math: the same functions give the values and the gradients) --------------------
# Layer and batch norm: each gradient (``which``: 0 input, 1 weight, 2 bias) one op, recorded under create_graph as
# torch's Native...BackwardBackward0 on (grad_output, input, weight), whose derivatives are the composite's.
derivative("NativeLayerNormBackward0", "input weight bias", saves="normalized_count eps",
           input=lambda grad, input, weight, normalized_count, eps, F:
           N.layer_norm_backward(F, grad, input, weight, normalized_count, eps, 0),
           weight=lambda grad, input, weight, normalized_count, eps, F:
           N.layer_norm_backward(F, grad, input, weight, normalized_count, eps, 1),
           bias=lambda grad, input, weight, normalized_count, eps, F:
           N.layer_norm_backward(F, grad, input, weight, normalized_count, eps, 2))
derivative("NativeLayerNormBackwardBackward0", "grad_output input weight", saves="which normalized_count eps",
           each=lambda grad, grad_output, input, weight, which, normalized_count, eps, input_index, F:
           N.layer_norm_double_backward(F, grad, grad_output, input, weight, normalized_count, eps, which, input_index))
derivative("NativeBatchNormBackward0", "input weight bias", saves="running_mean running_var training eps",
           input=lambda grad, input, weight, running_mean, running_var, training, eps, F:
           N.batch_norm_backward(F, grad, input, weight, running_mean, running_var, training, eps, 0),
           weight=lambda grad, input, weight, running_mean, running_var, training, eps, F:
           N.batch_norm_backward(F, grad, input, weight, running_mean, running_var, training, eps, 1),
           bias=lambda grad, input, weight, running_mean, running_var, training, eps, F:
           N.batch_norm_backward(F, grad, input, weight, running_mean, running_var, training, eps, 2))
derivative("NativeBatchNormBackwardBackward0", "grad_output input weight",
           saves="which running_mean running_var training eps",
           each=lambda grad, grad_output, input, weight, which, running_mean, running_var, training, eps, input_index, F:
           N.batch_norm_double_backward(F, grad, grad_output, input, weight, running_mean, running_var, training, eps,
                                        which, input_index))
# One formula for the three inputs, as torch's: every saved tensor is saved whichever input needs a gradient.
derivative("NativeGroupNormBackward0", "input weight bias", saves="groups", multi_output=True,
           each=lambda grads, input, weight, result1, result2, groups, input_index, F:
           N.group_norm_backward(F, grads, input, weight, result1, result2, groups, input_index))
derivative("EmbeddingBackward0", "weight", saves="indices weight_sym_size_0 padding_idx scale_grad_by_freq",
           weight=lambda grad, indices, weight_sym_size_0, padding_idx, scale_grad_by_freq, F:
           H.embedding_backward(F, grad, indices, weight_sym_size_0, padding_idx, scale_grad_by_freq))
derivative("NativeDropoutBackward0", "self", saves="mask scale", self=lambda grad, mask, scale: grad * mask * scale)
derivative("BernoulliBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("GeluBackward0", "self", saves="approximate",
           self=lambda grad, self, approximate, F: F.backward_op("GeluBackwardBackward0", grad, self,
                                                                 approximate=approximate))
derivative("GeluBackwardBackward0", "grad_output self", saves="approximate",
           grad_output=lambda grad, self, approximate, F: F.backward_op("GeluBackwardBackward0", grad, self,
                                                                        approximate=approximate),
           self=lambda grad, grad_output, self, approximate, F:
           grad * grad_output * H.gelu_second_derivative(F, self, approximate))



__all__ = ["NODES"]

forward_rules.install()  # each entry's forward-mode rule (forward_rules.py)
