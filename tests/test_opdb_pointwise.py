"""The pointwise math of ``myautograd/_ops/pointwise_math.py`` against torch, where op_db's samples do not look:
NaN and infinite operands, ties, invalid dtypes and calls; and its mutants (``tests/mutants/opdb_pointwise.py``),
each killed by an opinfo item."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import myautograd
from conformance.implementations import REFERENCE, resolve
from tests.test_opdb import REGISTRY, judged, mutant_record

NAN, INF = math.nan, math.inf


def both(fn):
    """``fn`` run on torch and on myautograd: (torch's result, myautograd's)."""
    return fn(torch), fn(myautograd)


def assert_same_tensor(expected, actual):
    assert str(actual.dtype) == str(expected.dtype)
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-6, equal_nan=True)


def raised(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("call", [
    lambda t: t.logaddexp(t.tensor([INF, -INF, INF, NAN, 1.0]), t.tensor([INF, -INF, -INF, 1.0, 1000.0])),
    lambda t: t.logaddexp2(t.tensor([INF, -INF, 3.0, -50.0]), t.tensor([INF, -INF, 3.0, 50.0])),
    lambda t: t.fmax(t.tensor([NAN, 1.0, NAN, -0.0]), t.tensor([2.0, NAN, NAN, 0.0])),
    lambda t: t.fmin(t.tensor([NAN, 1.0, NAN]), t.tensor([2.0, NAN, NAN])),
    lambda t: t.hypot(t.tensor([3.0, INF, 0.0]), t.tensor([4.0, NAN, 0.0])),
    lambda t: t.copysign(t.tensor([1, -2, 3]), t.tensor([-0.0, 1.0, -1.0])),
    lambda t: t.copysign(t.tensor([1.0, -2.0]), -0.0),
    lambda t: t.heaviside(t.tensor([-1.0, 0.0, 2.0, NAN]), t.tensor([0.5])),
    lambda t: t.heaviside(t.tensor([-1, 0, 2]), t.tensor([7])),
    lambda t: t.sinc(t.tensor([0.0, 1.0, 0.5, -2.5, 1e-20])),
    lambda t: t.sinc(t.tensor([0, 1, 2])),
    lambda t: t.logit(t.tensor([0.0, 1.0, 0.5, -0.1, 1.1])),
    lambda t: t.logit(t.tensor([0.0, 1.0, 0.5, 0.05]), eps=0.1),
    lambda t: t.deg2rad(t.tensor([180, -90])),
    lambda t: t.rad2deg(t.tensor([math.pi, 1.0], dtype=t.float64)),
    lambda t: t.isreal(t.tensor([1 + 0j, 1j, 2.0])),
    lambda t: t.isreal(t.tensor([[1, 2]])),
])
def test_values_and_dtypes_at_the_edges_are_torch_s(call):
    expected, actual = both(call)
    assert_same_tensor(expected, actual)


@pytest.mark.parametrize("call", [
    lambda t: t.fmax(t.tensor([1, 2]), 2),
    lambda t: t.hypot(2, t.tensor([1.0])),
    lambda t: t.copysign(2, t.tensor([1.0])),
    lambda t: t.heaviside(t.tensor([1.0]), 0.5),
    lambda t: t.hypot(t.tensor([1, 2]), t.tensor([3, 4])),
    lambda t: t.logaddexp(t.tensor([True]), t.tensor([False])),
    lambda t: t.logaddexp2(t.tensor([1j]), t.tensor([1j])),
    lambda t: t.copysign(t.tensor([1j]), t.tensor([1.0])),
    lambda t: t.fmin(t.tensor([1j]), t.tensor([1j])),
    lambda t: t.heaviside(t.tensor([1.0]), t.tensor([1.0], dtype=t.float64)),
    lambda t: t.heaviside(t.tensor([1j]), t.tensor([1j])),
])
def test_invalid_calls_raise_torch_s_exception_and_message(call):
    expected, actual = both(lambda t: raised(lambda: call(t)))
    assert expected is not None
    assert actual == expected


def test_an_integer_operand_beside_a_float_one_is_promoted_as_torch_s():
    expected, actual = both(lambda t: t.hypot(t.tensor([3, 5]), t.tensor([4.0, 12.0])))
    assert_same_tensor(expected, actual)


def test_heaviside_records_a_node_whose_backward_refuses_as_torch_s():
    def backward(t):
        x = t.tensor([1.0, -1.0], requires_grad=True)
        out = t.heaviside(x, t.tensor([0.5]))
        return out.grad_fn.name(), raised(lambda: out.sum().backward())

    expected, actual = both(backward)
    assert actual == expected


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_at_a_tie_the_gradient_goes_to_self_and_the_tangent_is_other_s(name):
    def derivatives(t):
        x = t.tensor([1.0, 2.0, NAN], dtype=t.float64, requires_grad=True)
        y = t.tensor([1.0, 3.0, 0.5], dtype=t.float64, requires_grad=True)
        grads = t.autograd.grad(getattr(t, name)(x, y).sum(), [x, y])
        fw = t.autograd.forward_ad
        with fw.dual_level():
            dual_x = fw.make_dual(x.detach(), t.tensor([10.0, 20.0, 30.0], dtype=t.float64))
            dual_y = fw.make_dual(y.detach(), t.tensor([1.0, 2.0, 3.0], dtype=t.float64))
            tangent = fw.unpack_dual(getattr(t, name)(dual_x, dual_y)).tangent
        return [g.tolist() for g in grads], tangent.tolist()

    expected, actual = both(derivatives)
    assert actual == expected


def test_copysign_s_gradient_is_zero_where_self_is_zero_and_none_reaches_other():
    def gradients(t):
        x = t.tensor([0.0, -2.0, 3.0], dtype=t.float64, requires_grad=True)
        y = t.tensor([-1.0, 1.0, -1.0], dtype=t.float64, requires_grad=True)
        grad_x, grad_y = t.autograd.grad(t.copysign(x, y), [x, y], t.ones(3, dtype=t.float64), create_graph=True)
        return grad_x.tolist(), grad_x.grad_fn.name(), grad_y.tolist(), grad_y.grad_fn

    expected, actual = both(gradients)
    assert actual == expected


@pytest.mark.parametrize("call", [
    lambda t: t.lgamma(t.tensor([0.0, -0.0, -1.0, -2.5, 1.0, 2.0, INF, -INF, NAN, 1e-300], dtype=t.float64)),
    lambda t: t.lgamma(t.tensor([3, 4])),
    lambda t: t.digamma(t.tensor([0.0, -0.0, -1.0, -2.5, 1e-30, 10.0, 1e18, INF, NAN], dtype=t.float64)),
    lambda t: t.digamma(t.tensor([0.0, -0.0, -3.0, -2.5, 1e-30, 10.0, 9.999999])),
    lambda t: t.polygamma(1, t.tensor([-2.5, 0.25, 0.5, 7.0], dtype=t.float64)),
    lambda t: t.polygamma(4, t.tensor([-2.5, -2.0, 0.0, 0.25, 30.0], dtype=t.float64)),
    lambda t: t.tensor([-0.49994346, 1.5]).polygamma(6),
    lambda t: t.polygamma(3, t.tensor([1, 2])),
    lambda t: t.mvlgamma(t.tensor([[2.5, 3.0], [4.0, 9.5]], dtype=t.float64), 4),
    lambda t: t.mvlgamma(t.tensor([3, 4]), 2),
    lambda t: t.erfinv(t.tensor([-1.0, 1.0, 1.5, 0.0, -0.0, 0.5, 1e-300, 0.999], dtype=t.float64)),
    lambda t: t.i0(t.tensor([0.0, 29.9, 30.1, -45.0, 700.0, 800.0, INF], dtype=t.float64)),
    lambda t: t.special.i0e(t.tensor([0.0, -29.9, 30.1, 1e6, -INF], dtype=t.float64)),
    lambda t: t.special.i1(t.tensor([0.0, -0.0, 1e-30, -29.9, 30.1, 800.0, -INF], dtype=t.float64)),
    lambda t: t.special.i1e(t.tensor([0.0, -29.9, 30.1, -1e6, INF], dtype=t.float64)),
    lambda t: t.special.erfcx(t.tensor([-30.0, -26.0, -6.2, -6.0, 0.0, 9.9, 10.1, 26.0, 60.0, 1e8, NAN],
                                       dtype=t.float64)),
    lambda t: t.special.erfcx(t.tensor([-7.0, -6.0, -1.0, 5.0])),
    lambda t: t.special.log_ndtr(t.tensor([-40.0, -1.0, -0.999, 0.0, 8.0, 40.0], dtype=t.float64)),
    lambda t: t.special.ndtr(t.tensor([-3, 0, 2])),
    lambda t: t.special.entr(t.tensor([-1.0, 0.0, 0.5, INF, NAN], dtype=t.float64)),
    lambda t: t.special.xlog1py(t.tensor([0.0, 0.0, 2.0, 0.0]), t.tensor([NAN, -1.0, 0.5, 3.0])),
    lambda t: t.special.xlog1py(t.tensor([1, 2]), t.tensor([1, 2])),
    lambda t: t.special.xlog1py(2.0, t.tensor([0.5, -0.5])),
])
def test_special_function_values_at_the_edges_are_torch_s(call):
    expected, actual = both(call)
    assert_same_tensor(expected, actual)


@pytest.mark.parametrize("call", [
    lambda t: t.polygamma(-1, t.tensor([1.0])),
    lambda t: t.tensor([1.0]).polygamma(1.5),
    lambda t: t.polygamma(t.tensor([1.0]), 2),
    lambda t: t.mvlgamma(t.tensor([3.0]), 0),
    lambda t: t.mvlgamma(t.tensor([True]), 2),
    lambda t: t.special.xlog1py(2, 3),
    lambda t: t.lgamma(t.tensor([1j])),
    lambda t: t.digamma(t.tensor([1j])),
    lambda t: t.polygamma(1, t.tensor([1j])),
    lambda t: t.polygamma(2, t.tensor([1j])),
    lambda t: t.tensor([1j]).polygamma(0),
    lambda t: t.erfinv(t.tensor([1j])),
    lambda t: t.special.i1e(t.tensor([1j])),
    lambda t: t.special.ndtr(t.tensor([1j])),
    lambda t: t.special.xlog1py(t.tensor([1j]), t.tensor([1j])),
])
def test_invalid_special_calls_raise_torch_s_exception_and_message(call):
    expected, actual = both(lambda t: raised(lambda: call(t)))
    assert expected is not None
    assert actual == expected


def test_a_special_function_myautograd_lacks_is_named_in_torch_s_spelling():
    with pytest.raises(AttributeError, match=r"myautograd does not implement torch\.special\.ndtri"):
        myautograd.special.ndtri  # noqa: B018 - the read is what is tested


@pytest.mark.parametrize("call", [
    lambda t, x: t.special.i1(x), lambda t, x: t.special.i1e(x), lambda t, x: t.polygamma(2, x),
    lambda t, x: t.mvlgamma(x + 3, 2), lambda t, x: t.special.log_ndtr(x - 4),
])
def test_special_gradients_and_their_nodes_at_zero_and_beyond_are_torch_s(call):
    def derivatives(t):
        x = t.tensor([0.0, 1e-20, -2.5, 3.0], dtype=t.float64, requires_grad=True)
        (grad,) = t.autograd.grad(call(t, x).sum(), [x], create_graph=True)
        (second,) = t.autograd.grad(grad.sum(), [x])
        return grad.detach(), grad.grad_fn.name(), second

    (grad, node, second), (my_grad, my_node, my_second) = both(derivatives)
    assert my_node == node
    assert_same_tensor(grad, my_grad)
    assert_same_tensor(second, my_second)


@pytest.mark.parametrize("call", [
    lambda t: t.frexp(t.tensor([0.0, -0.0, 1.0, -3.0, 1e-310, INF, -INF, NAN], dtype=t.float64)),
    lambda t: t.frexp(t.tensor([0.75, 1024.0], dtype=t.float16)),
    lambda t: t.ldexp(t.tensor([1, 2]), t.tensor([1, 2])),
    lambda t: t.ldexp(t.tensor([1.5, -2.0]), t.tensor([3, -2])),
    lambda t: t.nextafter(t.tensor([0.0, 1.0, -1.0, 1.0, INF]), t.tensor([1.0, 1.0, -2.0, NAN, 0.0])),
    lambda t: t.nextafter(t.tensor([0.0], dtype=t.float64), t.tensor([-1.0], dtype=t.float64)),
    lambda t: t.igamma(t.tensor([0.0, 0.0, 1.0, INF, INF, -1.0, 2.5, 1e-3, 8.0], dtype=t.float64),
                       t.tensor([0.0, 1.0, 0.0, 3.0, INF, 1.0, 1e-4, 1e-3, 0.7], dtype=t.float64)),
    lambda t: t.igammac(t.tensor([0.0, 0.0, 1.0, INF, 3.0, 0.5, 7.5, 2.0], dtype=t.float64),
                        t.tensor([0.0, 1.0, 0.0, 3.0, INF, 0.9, 1.05, 30.0], dtype=t.float64)),
    lambda t: t.igamma(t.tensor([1.5, 4.0, 9.0]), t.tensor([2.0, 0.3, 9.0])),
])
def test_floating_point_parts_and_incomplete_gamma_at_the_edges_are_torch_s(call):
    expected, actual = both(call)
    for one, other in zip(expected, actual) if isinstance(expected, tuple) else [(expected, actual)]:
        assert_same_tensor(one, other)


def test_frexp_returns_torch_s_named_pair():
    expected, actual = both(lambda t: t.frexp(t.tensor([3.0])))
    assert type(actual).__name__ == type(expected).__name__ == "frexp"
    assert (actual.mantissa.tolist(), actual.exponent.tolist()) == (expected.mantissa.tolist(),
                                                                      expected.exponent.tolist())
    assert repr(actual) == repr(expected)


@pytest.mark.parametrize("call", [
    lambda t: t.frexp(t.tensor([1, 2])),
    lambda t: t.frexp(t.tensor([1j])),
    lambda t: t.ldexp(t.tensor([1.0]), 2),
    lambda t: t.nextafter(t.tensor([1]), t.tensor([2])),
    lambda t: t.nextafter(t.tensor([1j]), t.tensor([1j])),
    lambda t: t.igamma(t.tensor([1]), t.tensor([2])),
    lambda t: t.igammac(t.tensor([1.0]), 2.0),
])
def test_invalid_calls_of_the_floating_point_parts_raise_torch_s_exception_and_message(call):
    expected, actual = both(lambda t: raised(lambda: call(t)))
    assert expected is not None
    assert actual == expected


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_is_differentiable_in_other_only_and_has_no_forward_mode(name):
    def derivatives(t):
        a = t.tensor([1.5, 2.0], dtype=t.float64, requires_grad=True)
        x = t.tensor([2.0, 0.5], dtype=t.float64, requires_grad=True)
        out = getattr(t, name)(a, x)
        (grad,) = t.autograd.grad(out.sum(), [x], retain_graph=True, create_graph=True)
        fw = t.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(x.detach(), t.ones(2, dtype=t.float64))
            forward = raised(lambda: getattr(t, name)(a.detach(), dual))
        return grad.tolist(), grad.grad_fn.name(), raised(lambda: t.autograd.grad(out.sum(), [a])), forward

    expected, actual = both(derivatives)
    assert actual[1:] == expected[1:]
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-12)


def test_nextafter_passes_no_gradient_where_its_operands_are_equal():
    def gradients(t):
        x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True)
        y = t.tensor([1.0, 5.0, 0.0], dtype=t.float64, requires_grad=True)
        grads = t.autograd.grad(t.nextafter(x, y), [x, y], t.tensor([0.5, 0.25, 2.0], dtype=t.float64))
        return [g.tolist() for g in grads]

    expected, actual = both(gradients)
    assert actual == expected


@pytest.mark.parametrize(("mutant", "case_id", "aspect"), [
    ("logit_eps_ignored", "opinfo.logit.default", "value"),
    ("logaddexp2_gradient_in_base_e", "opinfo.logaddexp2.default", "gradient"),
    ("i1_gradient_unguarded_at_zero", "opinfo.special.i1.default", "gradient"),
    ("erfcx_square_rounded", "opinfo.special.log_ndtr.default", "gradient"),
    ("ldexp_gradient_without_log_2", "opinfo.ldexp.default", "gradient"),
])
def test_the_mutants_of_pointwise_math_are_killed_by_op_db(mutant, case_id, aspect):
    case = REGISTRY.get(case_id)
    assert judged(case, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record(mutant, case, "float64")
    assert record["outcome"] == "fail", record
    assert record["diff"][0]["aspect"] == aspect, record["diff"][0]
