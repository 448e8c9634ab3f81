"""Mutants of the numbers: optimizers' update rules, precision (float64 work done in float32),
reductions over dims and broadcasting, and the losses and layers of nn."""

from __future__ import annotations

import math

import numpy as np

from myautograd._autograd import formula_math
from myautograd._ops import creation, losses, norm_math, reduction, window_math
from myautograd._ops import formula_helpers as H
from myautograd._ops import formula_helpers_nn as HN
from myautograd._tensor import Tensor
from myautograd.nn.modules import loss as loss_modules
from myautograd.optim import adam, optimizer, sgd

from ._registry import formula, mutant, op, replace


# -- optimizers -------------------------------------------------------------------------------------------------------
def _sgd_update(first_buffer=None, decay_sign=1, nesterov_uses_buffer=False, dampening_ignored=False):
    """SGD's update with one bug switched on."""
    def update(self, param, group):
        grad = -param.grad if group["maximize"] else param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=decay_sign * group["weight_decay"])
        momentum = group["momentum"]
        buffer = None
        if momentum != 0:
            buffer = self.state[param].get("momentum_buffer")
            dampening = 0 if dampening_ignored else group["dampening"]
            if buffer is None:
                buffer = first_buffer(grad, dampening) if first_buffer else grad.clone().detach()
            else:
                buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
            if group["nesterov"]:
                grad = buffer * (1 + momentum) if nesterov_uses_buffer else grad.add(buffer, alpha=momentum)
            else:
                grad = buffer
        param.add_(grad, alpha=-group["lr"])
        return buffer

    return update


@mutant("optimizers", "SGD's first momentum buffer damped: (1 - dampening) g instead of g")
def sgd_first_buffer_damped():
    replace(sgd.SGD, "_update", lambda original: _sgd_update(
        first_buffer=lambda grad, dampening: (grad * (1 - dampening)).detach()))


@mutant("optimizers", "SGD's weight decay subtracted: g - wd p")
def sgd_weight_decay_sign():
    replace(sgd.SGD, "_update", lambda original: _sgd_update(decay_sign=-1))


@mutant("optimizers", "SGD's Nesterov step from the buffer alone")
def sgd_nesterov():
    replace(sgd.SGD, "_update", lambda original: _sgd_update(nesterov_uses_buffer=True))


@mutant("optimizers", "SGD's dampening ignored")
def sgd_dampening():
    replace(sgd.SGD, "_update", lambda original: _sgd_update(dampening_ignored=True))


def _adam_update(bias_correction1=True, bias_correction2=True, eps_inside=False, coupled=False, amsgrad_max=True):
    def update(self, param, group):
        grad = param.grad
        state = self._state_of(param, group["amsgrad"])
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            if group["decoupled_weight_decay"] and not coupled:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        state["step"].add_(1)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = state["step"].item()
        step_size = lr / (1 - beta1 ** step) if bias_correction1 else lr
        correction2_sqrt = math.sqrt(1 - beta2 ** step) if bias_correction2 else 1.0
        second = exp_avg_sq
        if group["amsgrad"]:
            largest = state["max_exp_avg_sq"]
            largest.copy_(adam.maximum(largest, exp_avg_sq) if amsgrad_max else exp_avg_sq)
            second = largest
        denom = ((second + eps).sqrt() / correction2_sqrt) if eps_inside else (second.sqrt() / correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)

    return update


@mutant("optimizers", "Adam without the bias correction of the first moment")
def adam_bias_correction1():
    replace(adam.Adam, "_update", lambda original: _adam_update(bias_correction1=False))


@mutant("optimizers", "Adam without the bias correction of the second moment")
def adam_bias_correction2():
    replace(adam.Adam, "_update", lambda original: _adam_update(bias_correction2=False))


@mutant("optimizers", "Adam's eps added inside the square root")
def adam_eps_inside():
    replace(adam.Adam, "_update", lambda original: _adam_update(eps_inside=True))


@mutant("optimizers", "AdamW's weight decay added to the gradient (L2), not decoupled")
def adamw_coupled():
    replace(adam.Adam, "_update", lambda original: _adam_update(coupled=True))


@mutant("optimizers", "AMSGrad keeping the current second moment, not the largest")
def amsgrad_no_max():
    replace(adam.Adam, "_update", lambda original: _adam_update(amsgrad_max=False))


@mutant("optimizers", "zero_grad() fills .grad with zeros instead of setting it to None")
def zero_grad_zeros():
    def make(original):
        def broken(self, set_to_none=True):
            return original(self, set_to_none=False)
        return broken

    replace(optimizer.Optimizer, "zero_grad", make)


# -- precision ---------------------------------------------------------------------------------------------------------
@mutant("precision", "tensor(values, dtype=float64) built through float32")
def float64_through_float32():
    def make(original):
        def broken(values, dtype=None):
            array = original(values, None)
            return array.astype(np.dtype(dtype.np)) if dtype is not None else array
        return broken

    replace(creation, "_inferred", make)


@mutant("precision", "exp of a float64 tensor computed in float32")
def exp_in_float32():
    def make(original):
        def broken(input):
            out = original(input)
            if out._data.dtype == np.float64:
                out._data = np.exp(input._data.astype(np.float32)).astype(np.float64)
            return out
        return broken

    op("exp", make)


@mutant("precision", "item() of a float64 tensor rounded to float32")
def item_float32():
    def make(original):
        def broken(self):
            value = original(self)
            return float(np.float32(value)) if self._data.dtype == np.float64 else value
        return broken

    replace(Tensor, "item", make)


@mutant("precision", "float64 sums accumulated in float32")
def sum_float32():
    def make(original):
        def broken(input, dim=None, keepdim=False, *, dtype=None):
            out = original(input, dim, keepdim, dtype=dtype)
            if input._data.dtype == np.float64 and dtype is None:
                axes = reduction._dims_arg(dim, input._data.ndim)
                out._data = np.asarray(input._data.astype(np.float32).sum(
                    axis=axes, keepdims=keepdim if axes is not None else False)).astype(np.float64)
            return out
        return broken

    op("sum", make)


@mutant("precision", "float64 matrix products computed in float32")
def matmul_float32():
    def make(original):
        def broken(a, b):
            if a.dtype == np.float64:
                return original(a.astype(np.float32), b.astype(np.float32)).astype(np.float64)
            return original(a, b)
        return broken

    replace(np, "matmul", make)


# -- reductions and broadcasting -----------------------------------------------------------------------------------------
@mutant("reductions and broadcasting", "sum(dim) backward without putting back a dim removed by keepdim=False")
def sum_dim_not_restored():
    formula("SumBackward1", "self", lambda grad, dim, keepdim, self_sym_sizes, F: F.expand(grad, self_sym_sizes))


@mutant("reductions and broadcasting", "mean(dim) backward divided by every element, not the reduced ones")
def mean_dim_count():
    formula("MeanBackward1", "self", lambda grad, dim, keepdim, self_sym_sizes, F:
            H.restore_dims(F, grad, dim, keepdim, self_sym_sizes) / H.numel(self_sym_sizes))


@mutant("reductions and broadcasting", "amax's gradient to every tie in full")
def amax_ties():
    def broken(grad, self, result, dim, keepdim, F):
        if not keepdim:
            grad = F.unsqueeze_dims(grad, dim, self.ndim)
            result = F.unsqueeze_dims(result, dim, self.ndim)
        return F.where(self == result, grad, 0)

    formula("AmaxBackward0", "self", broken)


@mutant("reductions and broadcasting", "a broadcast size-1 dim's gradient taken from its first copy, not summed")
def broadcast_not_summed():
    def sum_to(x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        lead, kept = formula_math._reduced_axes(x.shape, shape)
        if lead:
            x = x.sum(axis=lead)
        for axis in kept:
            x = np.take(x, [0], axis=axis)
        return x.reshape(shape)

    replace(formula_math.ArrayMath, "sum_to", lambda original: staticmethod(sum_to))


@mutant("reductions and broadcasting", "reductions over a negative dim differentiated over the first dim")
def negative_dim_backward():
    def unsqueeze_dims(x, dims, ndim):
        return np.expand_dims(x, tuple(d if d >= 0 else 0 for d in dims)) if ndim else x

    replace(formula_math.ArrayMath, "unsqueeze_dims", lambda original: staticmethod(unsqueeze_dims))


# -- losses and layers ----------------------------------------------------------------------------------------------------
@mutant("losses and layers", "binary cross entropy's target gradient with the wrong sign")
def bce_target_sign():
    formula("BinaryCrossEntropyBackward0", "target", lambda grad, self, weight, reduction, F:
            HN.loss_scaled(F, F.log(self / (1 - self)) * grad, self, weight, reduction))


@mutant("losses and layers", "binary cross entropy with logits: the target gradient +x instead of -x")
def bce_logits_target_sign():
    formula("BinaryCrossEntropyWithLogitsBackward0", "target", lambda grad, self, weight, pos_weight, reduction, F:
            HN.loss_scaled(F, self * grad, self, weight, reduction))


@mutant("losses and layers", "mse_loss's gradient without the factor 2")
def mse_factor():
    formula("MseLossBackward0", "self", lambda grad, self, target, reduction:
            (1.0 / H.numel(self.shape) if reduction == 1 else 1.0) * (self - target) * grad)


@mutant("losses and layers", "CrossEntropyLoss() sums by default")
def cross_entropy_default_sum():
    def make(original):
        def init(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="sum",
                 label_smoothing=0.0):
            original(self, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
        return init

    replace(loss_modules.CrossEntropyLoss, "__init__", make)


@mutant("losses and layers", "nll_loss's gradient divided by the number of targets, not their total weight")
def nll_mean_count():
    def make(original):
        def broken(grad, x, target, weight, reduction, ignore_index, total_weight):
            kept = np.asarray((target != ignore_index).sum(), dtype=x.dtype)
            return original(grad, x, target=target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                            total_weight=kept)
        return broken

    kernels = formula_math.BACKWARD_KERNELS
    kernels["nll_loss_backward"] = make(kernels["nll_loss_backward"])


@mutant("losses and layers", "smooth_l1_loss's gradient curved up to and including the boundary (second derivative)")
def smooth_l1_boundary():
    def broken(grad, self, target, reduction, beta, F):
        x = self - target
        norm = HN.loss_norm(self, reduction)
        return F.where(x < -beta, -norm * grad, F.where(x > beta, norm * grad, norm * x * grad / beta))

    formula("SmoothL1LossBackward0", "self", broken)


@mutant("losses and layers", "huber_loss's gradient clipped at 1 whatever delta")
def huber_delta():
    formula("HuberLossBackward0", "self", lambda grad, self, target, reduction, delta, F:
            HN.huber_backward(F, grad, self, target, reduction, 1.0))


@mutant("losses and layers", "kl_div's batchmean divided by every element")
def kl_batchmean():
    def make(original):
        def broken(input, target, reduction="mean", log_target=False):
            if reduction == "batchmean":
                return original(input, target, "mean", log_target) * 1
            return original(input, target, reduction, log_target)
        return broken

    replace(losses, "kl_div", make)


@mutant("losses and layers", "convolution's input gradient ignoring dilation")
def conv_dilation():
    def make(original):
        def broken(F, grad, w, sizes, stride, padding, dilation, groups):
            return original(F, grad, w, sizes, stride, padding, (1,) * len(sizes), groups)
        return broken

    replace(window_math, "conv_input_grad", make)


@mutant("losses and layers", "batch norm's running variance updated with the biased variance")
def batch_norm_biased():
    def update(data, running_mean, running_var, momentum):
        from myautograd._ops.inplace import set_values_without_grad

        dims = norm_math.batch_dims(data.ndim)
        wide = data.astype(np.float64)
        mean, var = wide.mean(axis=dims), wide.var(axis=dims)
        set_values_without_grad(running_mean, (momentum * mean + (1 - momentum) * running_mean._data).astype(
            running_mean._data.dtype))
        set_values_without_grad(running_var, (momentum * var + (1 - momentum) * running_var._data).astype(
            running_var._data.dtype))

    from myautograd._ops import normalization

    replace(normalization, "_update_running", lambda original: update)


@mutant("losses and layers", "embedding's padding row gets a gradient")
def embedding_padding():
    formula("EmbeddingBackward0", "weight", lambda grad, indices, weight_sym_size_0, padding_idx, scale_grad_by_freq, F:
            HN.embedding_backward(F, grad, indices, weight_sym_size_0, -1, scale_grad_by_freq))


@mutant("losses and layers", "F.dropout in eval mode returns a copy with history, not the input itself")
def dropout_eval_copy():
    from myautograd._ops import nn_ops

    def make(original):
        def broken(input, p=0.5, training=True, inplace=False):
            if not training:
                return input * 1
            return original(input, p, training, inplace)
        return broken

    replace(nn_ops, "dropout", make)
