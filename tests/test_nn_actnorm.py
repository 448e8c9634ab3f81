"""The normalization, activation and padding modules and Bilinear of myautograd.nn against torch.nn, beyond what
module_db's samples (catalog cases ``moduleinfo.*``) cover: reprs, the errors and messages of bad
arguments and inputs, and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd as mt
import myautograd.nn as mnn
from tests.support.nn_compare import outcome

MODULES = [
    lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.GroupNorm(1, 3, eps=1e-3, affine=False),
    lambda nn: nn.GroupNorm(2, 4, bias=False),
    lambda nn: nn.BatchNorm3d(3, momentum=None),
    lambda nn: nn.InstanceNorm1d(4),
    lambda nn: nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
    lambda nn: nn.InstanceNorm3d(4, 1e-3, 0.3, True, bias=False),
    lambda nn: nn.RMSNorm(3),
    lambda nn: nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False),
    lambda nn: nn.LocalResponseNorm(2),
    lambda nn: nn.LocalResponseNorm(3, 1e-3, 0.5, 2.0),
    lambda nn: nn.CELU(),
    lambda nn: nn.CELU(2.0, inplace=True),
    lambda nn: nn.SELU(inplace=True),
    lambda nn: nn.ReLU6(),
    lambda nn: nn.ReLU6(True),
    lambda nn: nn.Mish(True),
    lambda nn: nn.Hardswish(inplace=True),
    lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Softsign(),
    lambda nn: nn.Tanhshrink(),
    lambda nn: nn.Hardshrink(),
    lambda nn: nn.Softshrink(1),
    lambda nn: nn.Threshold(0.1, 20),
    lambda nn: nn.Threshold(0.1, 20, inplace=True),
    lambda nn: nn.GLU(),
    lambda nn: nn.Softmin(1),
    lambda nn: nn.Softmax2d(),
    lambda nn: nn.PReLU(),
    lambda nn: nn.PReLU(3, 0.1),
    lambda nn: nn.ZeroPad1d(2),
    lambda nn: nn.ZeroPad2d((1, 2, 3, 4)),
    lambda nn: nn.ZeroPad3d(1),
    lambda nn: nn.ConstantPad1d(2, 3.5),
    lambda nn: nn.ConstantPad2d([1, 2, 3, 4], -1),
    lambda nn: nn.ConstantPad3d(1, 0),
    lambda nn: nn.ReflectionPad1d((1, 2)),
    lambda nn: nn.ReflectionPad2d(1),
    lambda nn: nn.ReflectionPad3d(2),
    lambda nn: nn.ReplicationPad1d(1),
    lambda nn: nn.ReplicationPad2d((1, 0, 2, 0)),
    lambda nn: nn.ReplicationPad3d(1),
    lambda nn: nn.CircularPad1d(1),
    lambda nn: nn.CircularPad2d((1, 2, 2, 1)),
    lambda nn: nn.CircularPad3d(3),
    lambda nn: nn.Bilinear(2, 3, 4),
    lambda nn: nn.Bilinear(2, 3, 4, bias=False),
]


@pytest.mark.parametrize("factory", MODULES, ids=range(len(MODULES)))
def test_module_repr(factory):
    assert repr(factory(mnn)) == repr(factory(torch.nn))


ERRORS = [
    lambda torch, nn: nn.GroupNorm(3, 4),
    lambda torch, nn: nn.BatchNorm3d(3)(torch.ones(2, 3, 4)),
    lambda torch, nn: nn.InstanceNorm1d(5, affine=True)(torch.ones(2, 4, 3)),
    lambda torch, nn: nn.InstanceNorm2d(4)(torch.ones(2, 4)),
    lambda torch, nn: nn.functional.instance_norm(torch.ones(2, 3, 1)),
    lambda torch, nn: nn.functional.instance_norm(torch.ones(2, 3, 4), use_input_stats=False),
    lambda torch, nn: nn.RMSNorm(4)(torch.ones(2, 3)),
    lambda torch, nn: nn.RMSNorm([2, 3])(torch.ones(3)),
    lambda torch, nn: nn.functional.rms_norm(torch.ones(2, 3), [3], torch.ones(4)),
    lambda torch, nn: nn.LocalResponseNorm(2)(torch.ones(2, 3)),
    lambda torch, nn: nn.GLU(1)(torch.ones(2, 3)),
    lambda torch, nn: nn.GLU()(torch.ones(())),
    lambda torch, nn: nn.PReLU(3)(torch.ones(2, 4)),
    lambda torch, nn: nn.PReLU(4)(torch.ones(4)),
    lambda torch, nn: nn.PReLU(2)(torch.ones(())),
    lambda torch, nn: nn.functional.prelu(torch.ones(2, 4), torch.ones(2, 2)),
    lambda torch, nn: nn.Softshrink(-1.0)(torch.ones(2)),
    lambda torch, nn: nn.Softshrink(-0.5)(torch.ones(2, dtype=torch.float64)),
    lambda torch, nn: nn.Softmax2d()(torch.ones(2, 3)),
    lambda torch, nn: nn.CircularPad1d(1)(torch.ones(2, 3, 4, 5)),
    lambda torch, nn: nn.CircularPad3d(1)(torch.ones(2, 3, 4)),
    lambda torch, nn: nn.ReflectionPad1d(3)(torch.ones(2, 3)),
    lambda torch, nn: nn.ReflectionPad2d(1)(torch.ones(3, 3)),
    lambda torch, nn: nn.functional.pad(torch.ones(3, 3, 3, 3, 3, 3), (1, 1), "replicate"),
    lambda torch, nn: nn.functional.pad(torch.ones(3), (1, 1), "circular"),
    lambda torch, nn: nn.functional.pad(torch.ones(2, 3, 3), (1,) * 8, "reflect"),
    lambda torch, nn: nn.Bilinear(0, 3, 4),
    lambda torch, nn: nn.functional.group_norm(torch.ones(3), 1),
    lambda torch, nn: nn.functional.group_norm(torch.ones(()), 1),
    lambda torch, nn: nn.functional.group_norm(torch.ones(1, 2, 1), 2),
    lambda torch, nn: nn.functional.group_norm(torch.ones(2, 4), 3),
    lambda torch, nn: nn.functional.batch_norm(torch.ones(1, 3, 1), None, None, training=True),
    lambda torch, nn: nn.functional.batch_norm(torch.zeros(0, 3), None, None, torch.ones(0), training=False),
    lambda torch, nn: nn.functional.rms_norm(torch.ones(1, 2, 3), (), torch.ones(())),
    lambda torch, nn: nn.functional.rms_norm(torch.ones(()), []),
    lambda torch, nn: nn.functional.layer_norm(torch.ones(1, 2, 3), ()),
]


@pytest.mark.parametrize("make", ERRORS, ids=range(len(ERRORS)))
def test_errors(make):
    theirs = outcome(make, torch, torch.nn)
    assert theirs is not None
    assert outcome(make, mt, mnn) == theirs


def warnings_of(torch, nn, make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make(torch, nn)
    return [(w.category.__name__, str(w.message)) for w in caught]


def test_softmin_without_dim_warns():
    def make(torch, nn):
        return nn.functional.softmin(torch.ones(2, 3))

    theirs = warnings_of(torch, torch.nn, make)
    assert theirs
    assert warnings_of(mt, mnn, make) == theirs


def test_instance_norm_warns_of_a_channel_count_it_does_not_use():
    def make(torch, nn):
        return nn.InstanceNorm1d(5)(torch.ones(2, 4, 3))

    theirs = warnings_of(torch, torch.nn, make)
    assert theirs
    assert warnings_of(mt, mnn, make) == theirs


def test_instance_norm_running_statistics_and_their_use_in_eval():
    """Training moves the running statistics by the mean over the samples; eval normalizes with them."""
    def run(torch, nn):
        module = nn.InstanceNorm1d(2, momentum=0.5, track_running_stats=True)
        x = torch.arange(12.0).reshape(2, 2, 3) ** 1.5
        module(x)
        stats = module.running_mean.tolist() + module.running_var.tolist()
        module.eval()
        return stats, module(x).flatten().tolist()

    theirs, ours = run(torch, torch.nn), run(mt, mnn)
    assert ours[0] == pytest.approx(theirs[0])
    assert ours[1] == pytest.approx(theirs[1], abs=1e-5)


def test_prelu_of_a_scalar_and_threshold_in_place():
    """A 0-d input with one slope (the weight viewed to no dims); threshold_ records its own node, whose
    gradient reads the input as it was (the replaced values are above the threshold)."""
    def run(torch, nn):
        weight = torch.tensor([0.25], requires_grad=True)
        y = nn.functional.prelu(torch.tensor(-2.0), weight)
        y.backward()
        x = torch.tensor([-1.0, 0.5, 3.0], requires_grad=True)
        z = nn.functional.threshold(x * 1, 1.0, 5.0, inplace=True)
        z.sum().backward()
        return y.item(), weight.grad.tolist(), z.grad_fn.name(), z.tolist(), x.grad.tolist()

    assert run(mt, mnn) == run(torch, torch.nn)


def test_glu_and_prelu_forward_mode():
    def run(torch, nn):
        import torch.autograd.forward_ad as fwAD  # noqa: F401 - the same name in both namespaces
        x = torch.linspace(-2, 2, 12).reshape(2, 6)
        w = torch.tensor([0.3, -0.2])
        with torch.autograd.forward_ad.dual_level():
            dx = torch.autograd.forward_ad.make_dual(x, torch.ones_like(x) * 0.5)
            dw = torch.autograd.forward_ad.make_dual(w, torch.tensor([1.0, 2.0]))
            glu = torch.autograd.forward_ad.unpack_dual(nn.functional.glu(dx, 1)).tangent
            prelu = torch.autograd.forward_ad.unpack_dual(nn.functional.prelu(dx.reshape(3, 2, 2), dw)).tangent
        return glu.flatten().tolist() + prelu.flatten().tolist()

    assert run(mt, mnn) == pytest.approx(run(torch, torch.nn), abs=1e-6)


def test_prelu_derivatives_at_zero_and_its_backward_node():
    """prelu's backward kernel takes the weight's side at 0; the derivatives of that kernel (second order,
    forward-over-reverse) and prelu's forward mode take the input's (self >= 0). Its gradients are recorded as
    one PreluKernelBackwardBackward0 node, also where only the input requires grad (second order then zeros), and
    the input's gradient gets no tangent from the input's alone."""
    def run(torch, nn):
        fwAD = torch.autograd.forward_ad
        x = torch.tensor([0.0, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
        w = torch.tensor(0.25, dtype=torch.float64, requires_grad=True)
        grad_out = torch.tensor([0.5, 1.0, 1.5], dtype=torch.float64)
        grads = torch.autograd.grad(nn.functional.prelu(x, w), [x, w], grad_out, create_graph=True)
        second = torch.autograd.grad(grads, [x, w], [torch.tensor([-0.7, 0.3, 1.3], dtype=torch.float64),
                                                     torch.tensor(-0.7, dtype=torch.float64)])
        (only_x,) = torch.autograd.grad(nn.functional.prelu(x, w.detach()), [x], grad_out, create_graph=True)
        zeros = torch.autograd.grad(only_x, [x], grad_out)
        with fwAD.dual_level():
            dx = fwAD.make_dual(x, torch.tensor([0.7, 0.9, 1.1], dtype=torch.float64))
            dw = fwAD.make_dual(w, torch.tensor(-2.0, dtype=torch.float64))
            out = nn.functional.prelu(dx, dw)
            over = torch.autograd.grad(out, [dx, dw], grad_out, create_graph=True)
            tangents = [fwAD.unpack_dual(t).tangent.tolist() for t in (out, *over)]
            (from_x,) = torch.autograd.grad(nn.functional.prelu(dx, w.detach()), [dx], grad_out, create_graph=True)
            no_tangent = fwAD.unpack_dual(from_x).tangent is None
        return ([g.grad_fn.name() for g in (*grads, only_x)], [t.tolist() for t in (*grads, *second, *zeros)],
                tangents, no_tangent)

    assert run(mt, mnn) == run(torch, torch.nn)


def test_glu_gradient_is_one_node_with_its_derivatives():
    def run(torch, nn):
        fwAD = torch.autograd.forward_ad
        x = torch.tensor([[0.3, -1.2, 0.8, 2.0], [-0.5, 0.1, 1.5, -2.0]], dtype=torch.float64, requires_grad=True)
        grad_out = torch.tensor([[0.5, -1.5], [2.0, 0.25]], dtype=torch.float64, requires_grad=True)
        (grad,) = torch.autograd.grad(nn.functional.glu(x, 1), [x], grad_out, create_graph=True)
        vector = torch.tensor([[1.0, 2.0, -1.0, 0.5], [0.3, -0.2, 0.7, 1.1]], dtype=torch.float64)
        second = torch.autograd.grad(grad, [x, grad_out], vector)
        with fwAD.dual_level():
            dx = fwAD.make_dual(x, vector)
            dg = fwAD.make_dual(grad_out.detach(), torch.tensor([[0.3, -0.6], [0.9, 1.2]], dtype=torch.float64))
            (over,) = torch.autograd.grad(nn.functional.glu(dx, 1), [dx], dg, create_graph=True)
            tangent = fwAD.unpack_dual(over).tangent
        return grad.grad_fn.name(), [t.flatten().tolist() for t in (grad, *second, tangent)]

    (ours_name, ours), (theirs_name, theirs) = run(mt, mnn), run(torch, torch.nn)
    assert ours_name == theirs_name == "GluBackwardBackward0"
    for mine, reference in zip(ours, theirs, strict=True):
        assert mine == pytest.approx(reference, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("shape", [(2, 6, 5), (2, 6, 3, 4), (1, 5, 2, 2, 3)])
def test_local_response_norm_records_torchs_graph(shape):
    """torch pools a 4-d view with avg_pool2d for a 3-d input and a 5-d view with avg_pool3d otherwise; the graph
    below the output, node by node, and the gradient are torch's."""
    def names(node, depth=0):
        if node is None or depth > 9:
            return []
        return [node.name(), *(n for child, _ in node.next_functions for n in names(child, depth + 1))]

    values = np.random.default_rng(0).standard_normal(shape)
    seen = []
    for t in (torch, mt):
        x = t.tensor(values, requires_grad=True)
        out = t.nn.functional.local_response_norm(x, 3)
        (grad,) = t.autograd.grad(out.sum(), x)
        seen.append((names(out.grad_fn), grad.numpy()))
    assert seen[1][0] == seen[0][0]
    np.testing.assert_allclose(seen[1][1], seen[0][1], rtol=1e-12, atol=1e-14)


def test_normalizing_an_empty_batch():
    """batch_norm of an empty input is torch's clone times the weight's first element plus the bias's, before any
    check of the running statistics; group_norm of no samples gives no samples, with zero gradients for its
    parameters, also in second order."""
    def run(torch, nn):
        x = torch.zeros((0, 3), requires_grad=True)
        weight, bias = torch.tensor([1.5, 2.0, 0.5], requires_grad=True), torch.ones(3, requires_grad=True)
        out = nn.functional.batch_norm(x, torch.zeros(2), None, weight, bias, training=False)
        nodes = [out.grad_fn.name()] + [node.name() for node, _ in out.grad_fn.next_functions]
        grads = torch.autograd.grad(out, [x, weight, bias], torch.zeros(0, 3))
        x = torch.zeros((0, 2, 3), requires_grad=True)
        grouped = nn.functional.group_norm(x, 2, weight[:2], bias[:2])
        first = torch.autograd.grad(grouped, [x, weight], torch.zeros(0, 2, 3), create_graph=True)
        second = torch.autograd.grad(first, [x, weight], [torch.zeros(0, 2, 3), torch.ones(3)], materialize_grads=True)
        return nodes, [(tuple(t.shape), t.tolist()) for t in (out, grouped, *grads, *first, *second)]

    assert run(mt, mnn) == run(torch, torch.nn)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_weight_gradient_of_a_constant_row_is_torchs_rounding_error(dtype):
    """torch's CPU kernel normalizes for the weight's gradient as one fused multiply-add, rstd * x + (-rstd * mean):
    a row of one element gives the rounding error of rstd * x, not 0 (bit for bit)."""
    def run(torch, nn):
        x = torch.tensor([[-4.3228044509887695], [2.5], [0.1]], dtype=getattr(torch, dtype), requires_grad=True)
        weight = torch.tensor([-8.478373527526855], dtype=x.dtype, requires_grad=True)
        out = nn.functional.layer_norm(x, (1,), weight, torch.ones(1, dtype=x.dtype))
        (grad,) = torch.autograd.grad(out, [weight], torch.tensor([[0.37], [-1.25], [2.0]], dtype=x.dtype))
        return grad.tolist()

    theirs = run(torch, torch.nn)
    assert theirs != [0.0]
    assert run(mt, mnn) == theirs


def test_layer_norm_gradients_of_an_empty_input_have_no_tangent():
    def run(torch, nn):
        fwAD = torch.autograd.forward_ad
        primals = [torch.zeros((0, 3), requires_grad=True), torch.ones(3, requires_grad=True),
                   torch.ones(3, requires_grad=True)]
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, torch.ones_like(p)) for p in primals]
            out = nn.functional.layer_norm(duals[0], (3,), duals[1], duals[2])
            grads = torch.autograd.grad(out, duals, torch.zeros(0, 3), create_graph=True)
            return [fwAD.unpack_dual(g).tangent is None for g in grads], fwAD.unpack_dual(out).tangent.shape

    assert run(mt, mnn) == run(torch, torch.nn)
