"""myautograd's derivative formulas checked against finite differences, independently of torch.

Every operator of the operator tests (``tests/test_ops_against_torch.py``, which together produce
every node class of the derivative table) runs through ``myautograd.autograd.gradcheck`` in
float64, on inputs drawn from the operator's domain (away from the kinks, where a derivative is a
convention and finite differences disagree with any choice), and through ``gradgradcheck`` where
the operator has second derivatives. Then ``gradcheck`` itself: it catches a planted wrong
derivative, and reports as torch does.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import myautograd
from myautograd.autograd import gradcheck, gradgradcheck
from myautograd.autograd.gradcheck import GradcheckError
from tests.test_ops_against_torch import OPS

# Complex functions: this gradcheck checks real Jacobians (torch's treats complex ones with Wirtinger
# calculus); their formulas are compared with torch's in the operator tests.
COMPLEX = {"complex", "conj", "conj_physical", "real", "imag", "view_as_real", "view_as_complex"}
# embedding's padding row gets no gradient by convention, though its values reach the output.
CONVENTIONS = {"embedding"}
REAL_OPS = [op for op in OPS if op.name not in COMPLEX | CONVENTIONS]
# Inputs an operator test uses detached (as constants): no gradient is expected for them.
CONSTANT_INPUTS = {"bce_weighted": {2}, "bce_logits_pos_weight": {2}}


def _inputs(op):
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    constant = CONSTANT_INPUTS.get(op.name, set())
    return [myautograd.tensor(rng.uniform(op.low, op.high, shape), dtype=myautograd.float64,
                              requires_grad=index not in constant)
            for index, shape in enumerate(op.shapes)]


def _function(op):
    return lambda *xs: op.fn(myautograd, *xs)


@pytest.mark.parametrize("op", REAL_OPS, ids=lambda o: o.name)
def test_first_derivatives_match_finite_differences(op):
    assert gradcheck(_function(op), _inputs(op), eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("op", [op for op in REAL_OPS if op.second_order], ids=lambda o: o.name)
def test_second_derivatives_match_finite_differences(op):
    assert gradgradcheck(_function(op), _inputs(op), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_embedding_without_padding():
    weight = myautograd.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=myautograd.float64, requires_grad=True)
    indices = myautograd.tensor([[0, 2], [2, 3]])
    function = lambda w: myautograd.nn.functional.embedding(indices, w)  # noqa: E731
    assert gradcheck(function, (weight,)) and gradgradcheck(function, (weight,))


# -- gradcheck itself -------------------------------------------------------------------------------------------
class WrongSin(myautograd.autograd.Function):
    """sin with the sign of its derivative flipped: the bug gradcheck is for."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -grad * x.cos()


def test_a_wrong_derivative_is_caught():
    x = myautograd.tensor([0.3, -1.2, 2.0], dtype=myautograd.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect to input 0,\nnumerical:"):
        gradcheck(WrongSin.apply, (x,))
    assert gradcheck(WrongSin.apply, (x,), raise_exception=False) is False
    assert gradcheck(WrongSin.apply, (x,), raise_exception=False, fast_mode=True) is False
    assert gradcheck(lambda t: t.sin(), (x,), fast_mode=True)


def test_a_wrong_second_derivative_is_caught():
    class WrongSquare(myautograd.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x.detach()  # right value, but the derivative is cut off from x

    x = myautograd.tensor([0.5, 1.5], dtype=myautograd.float64, requires_grad=True)
    assert gradcheck(WrongSquare.apply, (x,))
    assert gradgradcheck(WrongSquare.apply, (x,), raise_exception=False) is False


def test_inputs_that_require_no_grad_and_single_precision():
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
        gradcheck(lambda t: t * 2, (myautograd.tensor([1.0], dtype=myautograd.float64),))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradcheck(lambda t: t * 2, (myautograd.tensor([1.0, 2.0], requires_grad=True),), raise_exception=False)
    assert [str(w.message) for w in caught] == [
        "Input #0 requires gradient and is not a double precision floating point or complex. This check will likely "
        "fail if all the inputs are not of double precision floating point or complex. "]


def test_several_outputs_and_inputs_that_do_not_require_grad():
    x = myautograd.tensor([0.5, -1.0], dtype=myautograd.float64, requires_grad=True)
    y = myautograd.tensor([2.0, 3.0], dtype=myautograd.float64)
    assert gradcheck(lambda a, b: (a * b, (a * a).sum(), b * 2), (x, y))
    assert gradgradcheck(lambda a, b: (a * a * b, a.exp().sum()), (x, y))


def test_backward_that_is_not_reentrant_is_caught():
    calls = []

    class Drifting(myautograd.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad * (1 + 1e-3 * (len(calls) % 2))

    x = myautograd.tensor([1.0], dtype=myautograd.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="^Backward is not reentrant"):
        gradcheck(Drifting.apply, (x,), atol=1e-2)
    assert gradcheck(Drifting.apply, (x,), atol=1e-2, nondet_tol=1e-2)
