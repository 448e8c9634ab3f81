"""The written-out forward rules of the non-linear entries (``myautograd/_ops/forward_rules_nonlinear.py``).

* none of these entries is left on the generic fallback (``forward.transposed``);
* each rule gives torch's tangents (``torch.autograd.forward_ad``), on random inputs and at the
  edges where a rule derived otherwise would not: ties of amax/max, products with one and two
  zeros, cumprod after zeros, logsumexp with -inf, norms at 0, xlogy at 0, the variance and
  standard deviation of empty and constant tensors with correction 0 and 1;
* forward-over-reverse (the tangent of a gradient taken with ``create_graph=True``) gives torch's
  values through the backward kernels these entries record (activations, losses, softmax, pooling).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import myautograd
from myautograd._autograd.formulas import NODES

NONLINEAR = """AmaxBackward0 AminBackward0 BinaryCrossEntropyBackward0 BinaryCrossEntropyBackwardBackward0
BinaryCrossEntropyWithLogitsBackward0 CumprodBackward0 EluBackwardBackward0 GeluBackward0 GeluBackwardBackward0
HardswishBackwardBackward0 HardtanhBackwardBackward0 HuberLossBackward0 LeakyReluBackwardBackward0
LinalgVectorNormBackward0 LogSigmoidBackwardBackward0 LogSoftmaxBackwardDataBackward0 LogsumexpBackward0 MaxBackward0
MaxPool2DWithIndicesBackward0 MinBackward0 MseLossBackward0 NativeBatchNormBackward0 NativeBatchNormBackwardBackward0
NativeGroupNormBackward0 NativeLayerNormBackward0 NativeLayerNormBackwardBackward0 NllLoss2DBackward0
NllLoss2DBackwardBackward0 NllLossBackward0 NllLossBackwardBackward0 ProdBackward0 ProdBackward1
SigmoidBackwardBackward0 SmoothL1LossBackward0 SmoothL1LossBackwardBackward0 SoftmaxBackwardDataBackward0
SoftplusBackwardBackward0 StdMeanBackward0 TanhBackwardBackward0 VarBackward0 VarMeanBackward0 XlogyBackward0
XlogyBackward2 GluBackward0 PreluKernelBackward0 HardshrinkBackwardBackward0 SoftshrinkBackwardBackward0""".split()


def test_no_nonlinear_entry_is_on_the_fallback():
    on_fallback = sorted(name for name in NONLINEAR if NODES[name].forward_rule == "transpose")
    assert on_fallback == []


RNG = np.random.default_rng(21)


def rand(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def tangents_of(t, fn, primals, tangents):
    """The output tangents of ``fn(t, *inputs)`` for ``tangents`` of its inputs (None: no tangent)."""
    fwAD = t.autograd.forward_ad
    with fwAD.dual_level():
        inputs = [t.tensor(p, dtype=t.float64) if v is None
                  else fwAD.make_dual(t.tensor(p, dtype=t.float64), t.tensor(v, dtype=t.float64))
                  for p, v in zip(primals, tangents)]
        out = fn(t, *inputs)
        outs = out if isinstance(out, tuple) else (out,)
        return [fwAD.unpack_dual(o).tangent for o in outs]


def gradient_tangents_of(t, fn, primals, tangents):
    """Forward-over-reverse: the tangents of the gradients of ``sum(fn(t, *inputs) * weights)``."""
    fwAD = t.autograd.forward_ad
    with fwAD.dual_level():
        inputs = [fwAD.make_dual(t.tensor(p, dtype=t.float64, requires_grad=True), t.tensor(v, dtype=t.float64))
                  for p, v in zip(primals, tangents)]
        out = fn(t, *inputs)
        weights = np.random.default_rng(5).uniform(-1, 1, tuple(out.shape))
        grads = t.autograd.grad((out * t.tensor(weights, dtype=t.float64)).sum(), inputs, create_graph=True)
        return [fwAD.unpack_dual(g).tangent for g in grads]


def assert_same(mine, theirs):
    assert len(mine) == len(theirs)
    for m, r in zip(mine, theirs):
        assert (m is None) == (r is None), (m, r)
        if r is not None:
            assert tuple(m.shape) == tuple(r.shape)
            np.testing.assert_allclose(np.asarray(m.detach().tolist(), dtype=np.float64),
                                       np.asarray(r.detach().tolist(), dtype=np.float64),
                                       rtol=1e-7, atol=1e-10, equal_nan=True)


def compare(run, fn, primals, tangents):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = run(torch, fn, primals, tangents)
        mine = run(myautograd, fn, primals, tangents)
    assert_same(mine, theirs)


def vector_norm(t):
    return t.linalg.vector_norm if t is torch else t.vector_norm


def targets(t, values):
    return t.tensor(values, dtype=t.int64)


TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
ZEROS_1 = np.array([[2.0, 0.0, 3.0, -1.5], [1.5, 2.0, -0.5, 4.0]])
ZEROS_2 = np.array([[2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 1.0, 2.0]])
NEG_INF = np.array([[-math.inf, 0.5, 1.0], [-math.inf, -math.inf, -math.inf]])
WITH_ZERO_ROW = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.0]])
EMPTY = np.zeros((0, 3))
CONSTANT = np.full((2, 3), 1.5)
PROBS = RNG.uniform(0.1, 0.9, (3, 4))

FIRST_ORDER = {
    "amax": (lambda t, x: t.amax(x, 1), [rand(2, 3)]),
    "amax ties": (lambda t, x: t.amax(x, 1), [TIES]),
    "amin ties all dims": (lambda t, x: t.amin(x, (0, 1), keepdim=True), [TIES]),
    "max dim ties": (lambda t, x: t.max(x, 1).values, [TIES]),
    "min dim keepdim": (lambda t, x: t.min(x, 0, keepdim=True).values, [rand(3, 2)]),
    "max dim of a 0-dim tensor": (lambda t, x: t.max(x, 0).values, [np.array(1.5)]),
    "logsumexp": (lambda t, x: t.logsumexp(x, 1), [rand(3, 4)]),
    "logsumexp -inf": (lambda t, x: t.logsumexp(x, -1, keepdim=True), [NEG_INF]),
    "norm 2 at 0": (lambda t, x: vector_norm(t)(x, 2, 1), [WITH_ZERO_ROW]),
    "norm 1 at 0": (lambda t, x: vector_norm(t)(x, 1), [WITH_ZERO_ROW]),
    "norm inf ties": (lambda t, x: vector_norm(t)(x, math.inf, 1), [np.array([[1.0, -3.0, 3.0], [0.0, 0.0, 0.0]])]),
    "norm 0": (lambda t, x: vector_norm(t)(x, 0, 1), [WITH_ZERO_ROW]),
    "norm 0.5 at 0": (lambda t, x: vector_norm(t)(x, 0.5, 1), [WITH_ZERO_ROW]),
    "norm 1.5 at 0": (lambda t, x: vector_norm(t)(x, 1.5, 1, keepdim=True), [WITH_ZERO_ROW]),
    "norm 3 at 0": (lambda t, x: vector_norm(t)(x, 3, 1), [WITH_ZERO_ROW]),
    "prod": (lambda t, x: t.prod(x), [rand(2, 3)]),
    "prod one zero": (lambda t, x: t.prod(x), [np.array([2.0, 0.0, 3.0])]),
    "prod two zeros": (lambda t, x: t.prod(x), [np.array([2.0, 0.0, 0.0])]),
    "prod dim zeros": (lambda t, x: t.prod(x, 1), [ZEROS_2]),
    "prod dim one zero keepdim": (lambda t, x: t.prod(x, -1, keepdim=True), [ZEROS_1]),
    "cumprod": (lambda t, x: t.cumprod(x, 1), [rand(2, 4)]),
    "cumprod one zero": (lambda t, x: t.cumprod(x, 1), [ZEROS_1]),
    "cumprod two zeros": (lambda t, x: t.cumprod(x, -1), [ZEROS_2]),
    "cumprod along dim 0": (lambda t, x: t.cumprod(x, 0), [ZEROS_2]),
    "cumprod of a 0-dim zero": (lambda t, x: t.cumprod(x, 0), [np.array(0.0)]),
    "var": (lambda t, x: t.var(x, 1), [rand(3, 4)]),
    "var correction 0": (lambda t, x: t.var(x, correction=0), [rand(3, 4)]),
    "var empty": (lambda t, x: t.var(x), [EMPTY]),
    "var empty correction 0": (lambda t, x: t.var(x, correction=0), [EMPTY]),
    "var of one element": (lambda t, x: t.var(x, 0), [np.array([[1.0, 2.0]])]),
    "std empty": (lambda t, x: t.std(x), [EMPTY]),
    "var_mean": (lambda t, x: t.var_mean(x, 1, keepdim=True), [rand(3, 4)]),
    "var_mean empty": (lambda t, x: t.var_mean(x), [EMPTY]),
    "var_mean empty correction 0": (lambda t, x: t.var_mean(x, correction=0), [EMPTY]),
    "var_mean empty dim": (lambda t, x: t.var_mean(x, 0), [EMPTY]),
    "std_mean": (lambda t, x: t.std_mean(x, 0, correction=0), [rand(3, 4)]),
    "std_mean constant": (lambda t, x: t.std_mean(x, 1), [CONSTANT]),
    "std_mean empty": (lambda t, x: t.std_mean(x), [EMPTY]),
    "std_mean empty correction 0": (lambda t, x: t.std_mean(x, correction=0), [EMPTY]),
    "xlogy at 0": (lambda t, x, y: t.xlogy(x, y), [np.array([0.0, 0.0, 1.5, 0.0]), np.array([0.0, -1.0, 2.0, 3.0])]),
    "xlogy scalar other": (lambda t, x: t.xlogy(x, 0.0), [np.array([0.0, 1.5])]),
    "xlogy scalar positive other": (lambda t, x: t.xlogy(x, 2.5), [np.array([0.0, 1.5])]),
    "gelu": (lambda t, x: t.nn.functional.gelu(x), [rand(5)]),
    "gelu tanh": (lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), [rand(5)]),
    "mse": (lambda t, x, y: t.nn.functional.mse_loss(x, y), [rand(3, 4), rand(3, 4)]),
    "mse none": (lambda t, x, y: t.nn.functional.mse_loss(x, y, reduction="none"), [rand(3, 4), rand(3, 4)]),
    "smooth_l1 sum": (lambda t, x, y: t.nn.functional.smooth_l1_loss(x, y, reduction="sum", beta=0.5),
                      [rand(3, 4), rand(3, 4)]),
    "huber": (lambda t, x, y: t.nn.functional.huber_loss(x, y, delta=0.7), [rand(3, 4), rand(3, 4)]),
    "binary_cross_entropy": (lambda t, x, y: t.nn.functional.binary_cross_entropy(x, y), [PROBS, PROBS[::-1].copy()]),
    "binary_cross_entropy weighted": (
        lambda t, x, y: t.nn.functional.binary_cross_entropy(x, y, weight=t.tensor([1.0, 2.0, 0.5, 3.0],
                                                                                   dtype=t.float64), reduction="sum"),
        [PROBS, PROBS[::-1].copy()]),
    "binary_cross_entropy_with_logits": (
        lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(
            x, y, pos_weight=t.tensor([1.0, 2.0, 0.5, 3.0], dtype=t.float64)), [rand(3, 4), PROBS]),
    "nll_loss": (lambda t, x: t.nn.functional.nll_loss(x, targets(t, [0, 2, 1])), [rand(3, 4)]),
    "nll_loss weighted ignore": (
        lambda t, x: t.nn.functional.nll_loss(x, targets(t, [0, 2, 1]), weight=t.tensor([1.0, 2.0, 0.5, 3.0],
                                                                                        dtype=t.float64),
                                              ignore_index=2, reduction="sum"), [rand(3, 4)]),
    "nll_loss 2d": (lambda t, x: t.nn.functional.nll_loss(x, targets(t, [[[0, 1], [2, 1]]])), [rand(1, 3, 2, 2)]),
    "max_pool2d": (lambda t, x: t.nn.functional.max_pool2d(x, 2), [rand(1, 2, 4, 4)]),
    "layer_norm": (lambda t, x, w, b: t.nn.functional.layer_norm(x, (4,), w, b), [rand(3, 4), rand(4), rand(4)]),
    "layer_norm 2 dims": (lambda t, x: t.nn.functional.layer_norm(x, (3, 4)), [rand(2, 3, 4)]),
    "batch_norm": (lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True),
                   [rand(4, 3, 2), rand(3), rand(3)]),
    "batch_norm eval": (lambda t, x, w: t.nn.functional.batch_norm(
        x, t.tensor([0.5, -0.2, 0.1], dtype=t.float64), t.tensor([1.5, 0.7, 2.0], dtype=t.float64), w),
        [rand(4, 3), rand(3)]),
    "group_norm": (lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b), [rand(2, 4, 3), rand(4), rand(4)]),
}

SECOND_ORDER = {
    "tanh": (lambda t, x: t.tanh(x), [rand(5)]),
    "sigmoid": (lambda t, x: t.sigmoid(x), [rand(5)]),
    "elu": (lambda t, x: t.nn.functional.elu(x, 0.7), [rand(5)]),
    "gelu": (lambda t, x: t.nn.functional.gelu(x), [rand(5)]),
    "hardswish": (lambda t, x: t.nn.functional.hardswish(x * 2), [rand(6)]),
    "hardtanh": (lambda t, x: t.nn.functional.hardtanh(x), [rand(6)]),
    "leaky_relu": (lambda t, x: t.nn.functional.leaky_relu(x, 0.2), [rand(6)]),
    "logsigmoid": (lambda t, x: t.nn.functional.logsigmoid(x), [rand(5)]),
    "softplus": (lambda t, x: t.nn.functional.softplus(x, beta=2.0), [rand(5)]),
    "softmax": (lambda t, x: t.softmax(x, 1), [rand(3, 4)]),
    "log_softmax": (lambda t, x: t.log_softmax(x, 0), [rand(3, 4)]),
    "mse": (lambda t, x, y: t.nn.functional.mse_loss(x, y, reduction="sum"), [rand(3, 4), rand(3, 4)]),
    "smooth_l1": (lambda t, x, y: t.nn.functional.smooth_l1_loss(x, y), [rand(3, 4), rand(3, 4)]),
    "binary_cross_entropy": (lambda t, x, y: t.nn.functional.binary_cross_entropy(x, y), [PROBS, PROBS[::-1].copy()]),
    "nll_loss": (lambda t, x: t.nn.functional.nll_loss(x, targets(t, [0, 2, 1])), [rand(3, 4)]),
    "nll_loss 2d": (lambda t, x: t.nn.functional.nll_loss(x, targets(t, [[[0, 1], [2, 1]]]), reduction="sum"),
                    [rand(1, 3, 2, 2)]),
    "max_pool2d": (lambda t, x: t.nn.functional.max_pool2d(x, 2), [rand(1, 2, 4, 4)]),
    "xlogy": (lambda t, x, y: t.xlogy(x, y), [rand(4), rand(4, low=0.5)]),
    "prod": (lambda t, x: t.prod(x, 1), [rand(2, 3)]),
    "var_mean": (lambda t, x: t.stack(t.var_mean(x, 1)), [rand(2, 3)]),
    "layer_norm": (lambda t, x, w, b: t.nn.functional.layer_norm(x, (4,), w, b), [rand(3, 4), rand(4), rand(4)]),
    "batch_norm": (lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True),
                   [rand(4, 3, 2), rand(3), rand(3)]),
    "batch_norm eval": (lambda t, x, w: t.nn.functional.batch_norm(
        x, t.tensor([0.5, -0.2, 0.1], dtype=t.float64), t.tensor([1.5, 0.7, 2.0], dtype=t.float64), w),
        [rand(4, 3), rand(3)]),
    "group_norm": (lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b), [rand(2, 4, 3), rand(4), rand(4)]),
}


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
def test_tangents_match_torch(name):
    fn, primals = FIRST_ORDER[name]
    tangents = [RNG.uniform(-1, 1, np.shape(p)) for p in primals]
    compare(tangents_of, fn, primals, tangents)
    for alone in range(len(primals) if len(primals) > 1 else 0):  # each input's tangent alone too
        compare(tangents_of, fn, primals, [v if i == alone else None for i, v in enumerate(tangents)])


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_forward_over_reverse_matches_torch(name):
    fn, primals = SECOND_ORDER[name]
    compare(gradient_tangents_of, fn, primals, [RNG.uniform(-1, 1, np.shape(p)) for p in primals])
