"""myautograd's forward-mode AD (``autograd.forward_ad``) against torch's: the same programs on both.

Each program runs with ``t`` the library and returns what it observed: tangents and primals by
value, errors by type and message. They cover the dual level's lifetime and errors, make_dual's
checks, tangents through unary, binary, reduction, matrix and in-place ops, forward-over-reverse,
reverse-over-forward, and the error of an op without a forward formula; with primals that require
grad and without, under no_grad, through views (which share their base's tangent), custom
Functions' ``jvp``, and values where a transposed rule would differ from torch's (``inf * 0``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd


def structure(value):
    if isinstance(value, (tuple, list)):
        return [structure(item) for item in value]
    if isinstance(value, (torch.Tensor, myautograd.Tensor)):
        return nan_named(np.round(np.asarray(value.detach().tolist(), dtype=np.float64), 5).tolist()), tuple(value.shape)
    return value


def nan_named(values):
    """Nested lists of numbers with each NaN as the string "nan", so that two NaNs compare equal."""
    if isinstance(values, list):
        return [nan_named(v) for v in values]
    return "nan" if values != values else values


def outcome(program, t):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "returned", structure(program(t))
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return "raised", type(error).__name__, str(error)


def tangent_of(t, fn, primal, tangent, requires_grad=False):
    fwAD = t.autograd.forward_ad
    x = t.tensor(primal, dtype=t.float64, requires_grad=requires_grad)
    with fwAD.dual_level():
        out = fn(fwAD.make_dual(x, t.tensor(tangent, dtype=t.float64)))
        return fwAD.unpack_dual(out)


W = [[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]
X = [0.5, -1.5, 2.0]
V = [1.0, 0.5, -2.0]


def _forward_over_reverse(t):
    fwAD = t.autograd.forward_ad
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t.tensor(V, dtype=t.float64))
        (grad,) = t.autograd.grad((dual ** 3).sum() * dual.sin().sum(), dual, create_graph=True)
        return fwAD.unpack_dual(grad)


def _reverse_over_forward(t):
    fwAD = t.autograd.forward_ad
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    v = t.tensor(V, dtype=t.float64, requires_grad=True)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fwAD.make_dual(x, v).exp() * 2).tangent
        tangent.sum().backward()
    return x.grad, v.grad


def _levels(t):
    fwAD = t.autograd.forward_ad
    x = t.tensor(X, requires_grad=True)
    with fwAD.dual_level() as level:
        out = fwAD.make_dual(x, t.tensor(V)) * 2
        inside = fwAD.unpack_dual(out).tangent
    with fwAD.dual_level():
        again = fwAD.unpack_dual(out).tangent
    return level, inside, again is None


def _error(call):
    def program(t):
        fwAD = t.autograd.forward_ad
        with fwAD.dual_level():
            return call(t, fwAD)

    return program


def _huber_forward_over_reverse(t):
    fwAD = t.autograd.forward_ad
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t.tensor(V, dtype=t.float64))
        return t.autograd.grad(t.nn.functional.huber_loss(dual, t.zeros(3, dtype=t.float64)), dual,
                               create_graph=True)


def _under_no_grad(t):
    fwAD = t.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(t.tensor(X, dtype=t.float64), t.tensor(V, dtype=t.float64))
        with t.no_grad():
            out = (dual * dual).exp()
            dual.mul_(3)
        return fwAD.unpack_dual(out).tangent, fwAD.unpack_dual(dual).tangent, out.requires_grad


def _views_share_tangents(t):
    fwAD = t.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(t.tensor([W[0], W[1]], dtype=t.float64), t.tensor([X, V], dtype=t.float64))
        row, column = dual[1], dual.t()[0]
        row.mul_(2)                 # the base's tangent changes in that row
        dual.add_(fwAD.make_dual(t.ones(2, 3, dtype=t.float64), t.ones(2, 3, dtype=t.float64)))
        plain = t.zeros(2, 3, dtype=t.float64)
        plain[0].copy_(dual[0])     # a view of a plain tensor written with a tangent: its base gets one
        return (fwAD.unpack_dual(row).tangent, fwAD.unpack_dual(column).tangent, fwAD.unpack_dual(dual).tangent,
                fwAD.unpack_dual(plain).tangent, fwAD.unpack_dual(row).tangent._is_view())


def _function(t, jvp, save_for_forward=True):
    class Cube(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            if save_for_forward:
                ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    if jvp is not None:
        Cube.jvp = staticmethod(jvp)

    def program(t):
        fwAD = t.autograd.forward_ad
        with fwAD.dual_level():
            dual = fwAD.make_dual(t.tensor(X, dtype=t.float64), t.tensor(V, dtype=t.float64))
            return fwAD.unpack_dual(Cube.apply(dual))

    return program(t)


def _cube_jvp(ctx, x_t):
    (x,) = ctx.saved_tensors
    return 3 * x ** 2 * x_t


def _gradient_without_create_graph(t):
    fwAD = t.autograd.forward_ad
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t.tensor(V, dtype=t.float64))
        (grad,) = t.autograd.grad((dual ** 3).sum(), dual)
        return fwAD.unpack_dual(grad).tangent, grad.requires_grad


PROGRAMS = {
    "plain_primal_sin": lambda t: tangent_of(t, lambda d: d.sin(), X, V),
    "plain_primal_matmul_softmax": lambda t: tangent_of(t, lambda d: (t.tensor(W, dtype=t.float64) @ d).softmax(0), X, V),
    "plain_primal_div_by_zero": lambda t: tangent_of(t, lambda d: t.tensor([1.0, 2.0, 3.0], dtype=t.float64)
                                                     / (d * t.tensor([0.0, 1.0, 1.0], dtype=t.float64)), X, V),
    "plain_primal_max_mean_std": lambda t: [tangent_of(t, lambda d: d.max(), X, V),
                                            tangent_of(t, lambda d: d[:0].mean(), X, V),
                                            tangent_of(t, lambda d: d.std(), [1.5, 1.5, 1.5], V)],
    "under_no_grad": _under_no_grad,
    "views_share_tangents": _views_share_tangents,
    "function_jvp_with_save_for_forward": lambda t: _function(t, _cube_jvp),
    "function_jvp_sees_only_save_for_forward": lambda t: _function(t, lambda ctx, x_t: len(ctx.saved_tensors) * x_t,
                                                                  save_for_forward=False),
    "function_without_jvp": lambda t: _function(t, None),
    "function_jvp_two_tangents": lambda t: _function(t, lambda ctx, x_t: (x_t, x_t)),
    "function_jvp_wrong_size": lambda t: _function(t, lambda ctx, x_t: x_t.sum()),
    "gradient_without_create_graph": _gradient_without_create_graph,
    "repr_with_tangent": _error(lambda t, fwAD: [repr(fwAD.make_dual(t.tensor([1.0, 2.0]), t.tensor([0.5, -1.0]))),
                                                 repr(fwAD.make_dual(t.tensor(1.5), t.tensor(2.0)))]),

    "sin": lambda t: tangent_of(t, lambda d: d.sin(), X, V, requires_grad=True),
    "sin_times_x_plus_exp_sum": lambda t: tangent_of(t, lambda d: d.sin() * d + d.exp().sum(), X, V, True),
    "tanh_requiring_grad": lambda t: tangent_of(t, lambda d: d.tanh(), X, V, requires_grad=True),
    "matmul": lambda t: tangent_of(t, lambda d: t.tensor(W, dtype=t.float64) @ d, X, V, requires_grad=True),
    "broadcast_mul_sum": lambda t: tangent_of(t, lambda d: (t.tensor(W, dtype=t.float64) * d).sum(0), X, V, True),
    "softmax": lambda t: tangent_of(t, lambda d: d.softmax(0), X, V, requires_grad=True),
    "inplace_sin_": lambda t: tangent_of(t, lambda d: d.clone().sin_(), X, V, requires_grad=True),
    "inplace_mul_": lambda t: tangent_of(t, lambda d: d.clone().mul_(d), X, V, requires_grad=True),
    "forward_over_reverse": _forward_over_reverse,
    "reverse_over_forward": _reverse_over_forward,
    "levels": _levels,
    "exit_without_level": lambda t: t.autograd.forward_ad.exit_dual_level(),
    "make_dual_outside_level": lambda t: t.autograd.forward_ad.make_dual(t.ones(2), t.ones(2)),
    "nested_level": _error(lambda t, fwAD: fwAD.enter_dual_level()),
    "tangent_of_another_shape": _error(lambda t, fwAD: fwAD.make_dual(t.ones(2, 2), t.ones(2))),
    "integer_primal": _error(lambda t, fwAD: fwAD.make_dual(t.tensor([1, 2]), t.ones(2))),
    "bool_tangent": _error(lambda t, fwAD: fwAD.make_dual(t.ones(2), t.tensor([True, False]))),
    "dual_of_dual": _error(lambda t, fwAD: fwAD.make_dual(fwAD.make_dual(t.ones(2), t.ones(2)), t.ones(2))),
    "unpacked_fields": _error(lambda t, fwAD: (type(fwAD.unpack_dual(t.ones(2))).__name__,
                                               fwAD.UnpackedDualTensor._fields, fwAD.unpack_dual(t.ones(2)).tangent)),
    "huber_loss_forward_over_reverse": _huber_forward_over_reverse,
    # the tangent is copied into memory laid out as the primal's: an expanded primal refuses one of another layout
    "expanded_primal": _error(lambda t, fwAD: fwAD.make_dual(t.ones(3, 1).expand(3, 4), t.ones(3, 4))),
    "expanded_primal_expanded_tangent": _error(lambda t, fwAD: fwAD.unpack_dual(
        fwAD.make_dual(t.ones(3, 1).expand(3, 4), t.ones(3, 1).expand(3, 4))).tangent.stride()),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_ad_matches_torch(name):
    program = PROGRAMS[name]
    expected = outcome(program, torch)
    assert outcome(program, myautograd) == expected


def _device_program(t, device):
    """Tangents through element-wise, written-out, transposed, view, in-place and custom-Function steps."""
    fwAD = t.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(t.tensor(X, dtype=t.float64, device=device), t.tensor(V, dtype=t.float64, device=device))
        w = t.tensor(W, dtype=t.float64, device=device)
        out = (w @ x.sin()).softmax(0) * x[:2].cumprod(0)
        written = x.clone()
        written[1:].mul_(x[:2])
        plain = t.zeros(3, dtype=t.float64, device=device)
        plain.add_(x * 2)
        return [fwAD.unpack_dual(o).tangent.cpu() for o in (out, written, plain)]


def test_tangents_on_each_device(mydevice):
    """The same tangents on the CPU, CUDA and the strict CuPy stand-in (every array op on the device)."""
    expected = structure(_device_program(torch, "cpu"))
    assert structure(_device_program(myautograd, mydevice)) == expected
