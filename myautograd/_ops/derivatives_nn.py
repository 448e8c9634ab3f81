"""The derivative table's entries for the layers: losses, activations' backward kernels, convolution, pooling
and normalization (one entry per backward node, as in ``derivatives.py``, which imports this module so that
every entry is in ``NODES`` before the forward-mode rules are installed).

Their longer formulas are in ``formula_helpers`` (``H``), ``margin_loss_math`` (``M``), ``window_math`` (``W``:
convolution, pooling) and ``norm_math`` (``N``: normalization), whose same functions also compute the forward
values.
"""

from __future__ import annotations

from .._autograd.formulas import derivative
from . import formula_helpers_nn as HN
from . import margin_loss_math as M
from . import norm_math as N
from . import window_math as W

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
           self=lambda grad, grad_output, self, reduction, F: HN.mse_double_backward(F, grad * grad_output, self,
                                                                                    reduction),
           target=lambda grad, grad_output, self, reduction, F: -HN.mse_double_backward(F, grad * grad_output, self,
                                                                                       reduction))
derivative("SmoothL1LossBackward0", "self target", saves="reduction beta",
           self=lambda grad, self, target, reduction, beta, F: F.backward_op(
               "SmoothL1LossBackwardBackward0", grad, self, target, reduction=reduction, beta=beta),
           target=lambda grad, self, target, reduction, beta, F: F.backward_op(
               "SmoothL1LossBackwardBackward0", grad, target, self, reduction=reduction, beta=beta))
derivative("SmoothL1LossBackwardBackward0", "grad_output self target", saves="reduction beta",
           grad_output=lambda grad, self, target, reduction, beta, F: F.backward_op(
               "SmoothL1LossBackwardBackward0", grad, self, target, reduction=reduction, beta=beta),
           self=lambda grad, grad_output, self, target, reduction, beta, F: HN.smooth_double_backward(
               F, grad * grad_output, self, target, reduction, beta, True),
           target=lambda grad, grad_output, self, target, reduction, beta, F: -HN.smooth_double_backward(
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
           self=lambda grad, grad_output, self, target, reduction, delta, F: HN.smooth_double_backward(
               F, grad * grad_output, self, target, reduction, delta, False),
           target=lambda grad, grad_output, self, target, reduction, delta, F: -HN.smooth_double_backward(
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
               self=HN.nll_formula(f"{_name}BackwardBackward0"))
    derivative(f"{_name}BackwardBackward0", "grad_output self", saves="target weight reduction ignore_index total_weight",
               grad_output=lambda grad, self, target, weight, reduction, ignore_index, total_weight, F:
               HN.nll_double_backward(F, grad, self, target, weight, reduction, ignore_index, total_weight),
               self=lambda grad, F: F.zeros_like(grad))
# binary cross entropy: its input gradient is a kernel of its own (with torch's clamp of (1 - p) p at
# 1e-12), recorded under create_graph as BinaryCrossEntropyBackwardBackward0, whose derivatives are
# torch's (with their own 1e-12); the target gradient is -logit(p). torch's target formulas take the
# target (for its size), so the node saves it whenever the target needs a gradient.
derivative("BinaryCrossEntropyBackward0", "self target", saves="weight reduction",
           self=lambda grad, self, target, weight, reduction, F: F.backward_op(
               "BinaryCrossEntropyBackwardBackward0", grad, self, target, weight=weight, reduction=reduction),
           target=lambda grad, self, target, weight, reduction, F: HN.loss_scaled(F,
               -F.log(self / (1 - self)) * grad, self, weight, reduction))
derivative("BinaryCrossEntropyBackwardBackward0", "grad_output self target", saves="weight reduction",
           grad_output=lambda grad, self, target, weight, reduction, F: F.backward_op(
               "BinaryCrossEntropyBackwardBackward0", grad, self, target, weight=weight, reduction=reduction),
           self=lambda grad, grad_output, self, target, weight, reduction, F:
           HN.bce_double_backward(F, grad, grad_output, self, target, weight, reduction),
           target=lambda grad, grad_output, self, target, weight, reduction, F:
           HN.bce_double_backward_target(F, grad, grad_output, self, weight, reduction))
derivative("BinaryCrossEntropyWithLogitsBackward0", "self target", saves="weight pos_weight reduction",
           self=lambda grad, self, target, weight, pos_weight, reduction, F:
           HN.bce_logits_backward(F, grad, self, target, weight, pos_weight, reduction),
           target=lambda grad, self, weight, pos_weight, reduction, F:
           HN.bce_logits_target_backward(F, grad, self, weight, pos_weight, reduction))
derivative("XlogyBackward0", "self other",
           self=lambda grad, self, other, F: F.masked_fill(F.xlogy(grad, other), (self == 0) & (other <= 0), 0),
           other=lambda grad, self, other: grad * self / other)
derivative("XlogyBackward1", "other", saves="self",  # xlogy(number, tensor)
           other=lambda grad, self, other: grad * self / other)
derivative("XlogyBackward2", "self", saves="other",
           self=lambda grad, self, other, F: F.xlogy(grad, other) if other > 0
           else F.where(self == 0, 0, F.xlogy(grad, other)))
derivative("ConstantPadNdBackward0", "self", saves="pad",
           self=lambda grad, pad, F: F.constant_pad(grad, tuple(-p for p in pad)))
for _mode in ("Reflection", "Replication"):
    for _dims in (1, 2, 3):
        derivative(f"{_mode}Pad{_dims}DBackward0", "self", saves="key",
                   self=HN.gather_pad_formula(f"{_mode}Pad{_dims}DBackwardBackward0"))
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
               F.matmul(HN.attention_score_gradient(F, grad, query, key, value, scale, bias), key), scale),
           key=lambda grad, query, key, value, bias, scale, F: F.mul_number(
               F.matmul(F.mT(HN.attention_score_gradient(F, grad, query, key, value, scale, bias)), query), scale),
           value=lambda grad, query, key, bias, scale, F: F.matmul(
               F.mT(HN.attention_probabilities(F, query, key, scale, bias)), grad))

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
               grad_output=lambda grad, indices, F: HN.max_pool_select(F, grad, indices, spatial),
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
               self=lambda grad, indices, F: HN.max_pool_select(F, grad, indices, spatial))


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
           HN.embedding_backward(F, grad, indices, weight_sym_size_0, padding_idx, scale_grad_by_freq))
derivative("NativeDropoutBackward0", "self", saves="mask scale", self=lambda grad, mask, scale: grad * mask * scale)
derivative("BernoulliBackward0", "self", self=lambda grad, F: F.zeros_like(grad))
derivative("GeluBackward0", "self", saves="approximate",
           self=lambda grad, self, approximate, F: F.backward_op("GeluBackwardBackward0", grad, self,
                                                                 approximate=approximate))
derivative("GeluBackwardBackward0", "grad_output self", saves="approximate",
           grad_output=lambda grad, self, approximate, F: F.backward_op("GeluBackwardBackward0", grad, self,
                                                                        approximate=approximate),
           self=lambda grad, grad_output, self, approximate, F:
           grad * grad_output * HN.gelu_second_derivative(F, self, approximate))
