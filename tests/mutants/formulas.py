"""Mutants of the derivative table: a sign, a missing factor or transpose, a convention at a kink,
each the kind of slip a formula gets when written by hand."""

from __future__ import annotations

import math

from myautograd._ops import formula_helpers as H
from myautograd._ops import formula_helpers_nn as HN
from myautograd._ops import norm_math as N

from ._registry import formula, mutant


@mutant("formulas", "sin's derivative with the wrong sign: -cos(x)")
def sin_sign():
    formula("SinBackward0", "self", lambda grad, self, F: grad * -F.cos(self))


@mutant("formulas", "cos's derivative without its minus sign: sin(x)")
def cos_sign():
    formula("CosBackward0", "self", lambda grad, self, F: grad * F.sin(self))


@mutant("formulas", "tanh's derivative as 1 - tanh(x) (the square forgotten)")
def tanh_square():
    formula("TanhBackward0", "self", lambda grad, result: grad * (1 - result))


@mutant("formulas", "exp's gradient passed through unscaled")
def exp_unscaled():
    formula("ExpBackward0", "self", lambda grad, result, F: grad * 1)


@mutant("formulas", "log's derivative as x instead of 1/x")
def log_inverted():
    formula("LogBackward0", "self", lambda grad, self, F: grad * self)


@mutant("formulas", "sqrt's derivative as 1/sqrt(x) (the factor 1/2 forgotten)")
def sqrt_half():
    formula("SqrtBackward0", "self", lambda grad, result: grad / result)


@mutant("formulas", "sigmoid's derivative as s instead of s (1 - s)")
def sigmoid_factor():
    formula("SigmoidBackward0", "self", lambda grad, result: grad * result)


@mutant("formulas", "mm's input gradient without the transpose of the other operand")
def mm_transpose():
    formula("MmBackward0", "self", lambda grad, mat2, F: F.matmul(grad, F.conj(mat2)))


@mutant("formulas", "bmm's second operand gradient with the operands swapped")
def bmm_swapped():
    formula("BmmBackward0", "mat2", lambda grad, self, F: F.matmul(self, grad))


@mutant("formulas", "the divisor's gradient of a / b with a + sign")
def div_divisor_sign():
    formula("DivBackward0", "other", lambda grad, self, other, F: grad * F.conj((self / other) / other))


@mutant("formulas", "x ** n differentiated as n x ** n (the exponent not lowered)")
def pow_exponent():
    formula("PowBackward0", "self", lambda grad, self, exponent, F: F.zeros_like(grad) if exponent == 0
            else grad * (exponent * F.pow(self, exponent)))


@mutant("formulas", "atan2's two partial derivatives swapped")
def atan2_swapped():
    formula("Atan2Backward0", "self", lambda grad, self, other: -grad * self / (self * self + other * other))
    formula("Atan2Backward0", "other", lambda grad, self, other: grad * other / (self * self + other * other))


@mutant("formulas", "abs at 0 with gradient 1 (the sign taken as x >= 0)")
def abs_at_zero():
    formula("AbsBackward0", "self", lambda grad, self, F: F.where(self >= 0, grad, -grad))


@mutant("formulas", "relu's mask taken as output >= 0, which every output is")
def relu_mask():
    formula("ReluBackward0", "self", lambda grad, result, F:
            F.masked_backward("ThresholdBackwardBackward0", grad, result, result >= 0, 0))


@mutant("formulas", "clamp's gradient 0 at its bounds (strict comparisons)")
def clamp_bounds():
    formula("ClampBackward1", "self", lambda grad, self, min, max, F: F.where(
        ((self > min) if min is not None else self == self) & ((self < max) if max is not None else self == self),
        grad, 0))


@mutant("formulas", "maximum's ties giving the whole gradient to both operands")
def maximum_ties():
    formula("MaximumBackward0", "self", lambda grad, self, other, F: F.where(self < other, 0, grad))
    formula("MaximumBackward0", "other", lambda grad, self, other, F: F.where(self > other, 0, grad))


@mutant("formulas", "a full max's gradient to every tied element in full (not split)")
def max_ties_full():
    formula("MaxBackward1", "self", lambda grad, self, result, F: F.where(self == result, grad, 0))


@mutant("formulas", "var's gradient dividing by N, ignoring the correction")
def var_correction():
    formula("VarBackward0", "self", lambda grad, self, dim, correction, keepdim, F:
            H.var_backward(F, grad, self, dim, 0, keepdim))


@mutant("formulas", "std's gradient without the 1 / (2 std) factor's 2")
def std_factor():
    formula("StdBackward0", "self", lambda grad, self, result, dim, correction, keepdim, F:
            H.var_backward(F, F.where(result == 0, 0, grad / result), self, dim, correction, keepdim))


@mutant("formulas", "log_softmax's backward with the output where its exp belongs")
def log_softmax_exp():
    formula("LogSoftmaxBackward0", "self", lambda grad, result, dim, F:
            grad - result * F.sum(grad, H.dims_of(dim, result), True))


@mutant("formulas", "softmax's backward without subtracting the weighted sum")
def softmax_sum():
    formula("SoftmaxBackward0", "self", lambda grad, result, dim, F: grad * result)


@mutant("formulas", "cumsum's gradient as a forward cumulative sum (not reversed)")
def cumsum_direction():
    formula("CumsumBackward0", "self", lambda grad, dim, F: F.cumsum(grad, dim) if grad.ndim else grad * 1)


@mutant("formulas", "prod's gradient zero everywhere as soon as one factor is zero")
def prod_zero():
    def broken(grad, self, result, F):
        if F.item(F.sum(self == 0)) == 0 or self.ndim == 0:
            return H.prod_backward(F, grad, self, result)
        return F.zeros_like(self)

    formula("ProdBackward0", "self", broken)


@mutant("formulas", "permute's gradient permuted by the same dims, not the inverse")
def permute_inverse():
    formula("PermuteBackward0", "self", lambda grad, dims, F: F.permute(grad, dims))


@mutant("formulas", "where's gradient sent to the wrong branch")
def where_branches():
    formula("WhereBackward0", "self", lambda grad, condition, F: F.where(condition, 0, grad))
    formula("WhereBackward0", "other", lambda grad, condition, F: F.where(condition, grad, 0))


@mutant("formulas", "addmm's first matrix gradient ignoring alpha")
def addmm_alpha():
    formula("AddmmBackward0", "mat1", lambda grad, mat2, alpha, F: F.matmul(grad, F.mT(mat2)))


@mutant("formulas", "lerp's gradients with the weight and 1 - weight swapped")
def lerp_weights():
    formula("LerpBackward0", "self", lambda grad, weight: grad * weight)
    formula("LerpBackward0", "end", lambda grad, weight: grad * (1 - weight))


@mutant("formulas", "gelu's tanh approximation differentiated as the exact gelu")
def gelu_approximation():
    formula("GeluBackward0", "self", lambda grad, self, approximate, F: HN.gelu_backward(F, grad, self, "none"))


@mutant("formulas", "leaky_relu's gradient with the default slope 0.01 whatever the slope")
def leaky_relu_slope():
    formula("LeakyReluBackward0", "self", lambda grad, self, negative_slope, F:
            F.masked_backward("LeakyReluBackwardBackward0", grad, self, self > 0, 0.01))


@mutant("formulas", "elu's second derivative at 0 taken from the exponential branch (x <= 0)")
def elu_kink():
    def broken(grad, grad_output, self_or_result, alpha, scale, input_scale, is_result, F):
        inner = F.backward_op("EluBackwardBackward0", grad * grad_output * input_scale, self_or_result, alpha=alpha,
                              scale=scale, input_scale=input_scale, is_result=False)
        return F.where(self_or_result <= 0, inner, 0)

    formula("EluBackwardBackward0", "self_or_result", broken)


@mutant("formulas", "a repeated index's gradient written, not accumulated")
def index_repeats():
    formula("IndexBackward0", "self", lambda grad, indices, self_sym_sizes, F:
            F.index_put_zeros(self_sym_sizes, grad, indices, grad, False))


@mutant("formulas", "gather's gradient written, not accumulated, at repeated indices")
def gather_repeats():
    formula("GatherBackward0", "self", lambda grad, dim, index, self_sym_sizes, F:
            F.scatter_into_zeros(self_sym_sizes, grad, dim, F.array(index), grad, False))


@mutant("formulas", "erf's derivative without the 2 / sqrt(pi) factor")
def erf_factor():
    formula("ErfBackward0", "self", lambda grad, self, F: grad * F.exp(-(self * self)))


@mutant("formulas", "layer norm's input gradient without the projection on the normalized values")
def layer_norm_projection():
    def broken(grad, input, weight, normalized_count, eps, F):
        dims = tuple(range(input.ndim - normalized_count, input.ndim))
        xhat, rstd = N.normalized(F, input, dims, eps)
        g = grad * weight if weight is not None else grad
        return rstd * (g - F.sum(g, dims, True) / math.prod(input.shape[d] for d in dims))

    formula("NativeLayerNormBackward0", "input", broken)


# -- what a node saves: the same values from other saved tensors ----------------------------------------------------
@mutant("formulas", "exp's derivative recomputed from the input (saving the input, not the output)")
def exp_saves_input():
    formula("ExpBackward0", "self", lambda grad, self, F: grad * F.exp(self))


@mutant("formulas", "sigmoid's derivative recomputed from the input (saving the input, not the output)")
def sigmoid_saves_input():
    formula("SigmoidBackward0", "self", lambda grad, self, F: grad * (1 - F.sigmoid(self)) * F.sigmoid(self))


@mutant("formulas", "relu's mask taken from the input (saving the input, not the output)")
def relu_saves_input():
    formula("ReluBackward0", "self", lambda grad, self, F:
            F.masked_backward("ThresholdBackwardBackward0", grad, self, self > 0, 0))


@mutant("formulas", "x * y saving both operands for each gradient")
def mul_saves_both():
    formula("MulBackward0", "self", lambda grad, self, other, F: grad * F.conj(other) + 0 * F.zeros_like(grad))


# -- the same values, rounded differently ---------------------------------------------------------------------------
@mutant("formulas", "a / b's divisor gradient grouped as -g a / (b b) instead of -g (a / b) / b")
def div_divisor_grouping():
    formula("DivBackward0", "other", lambda grad, self, other, F: -grad * F.conj(self / (other * other)))


@mutant("formulas", "sum's gradient spread by multiplying with ones instead of expanding")
def sum_times_ones():
    formula("SumBackward0", "self", lambda grad, self_sym_sizes, F: F.zeros(self_sym_sizes, grad) + grad)
