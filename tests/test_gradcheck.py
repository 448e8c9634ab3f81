"""myautograd's derivative formulas checked against finite differences, independently of torch.

Every operator of the operator tests (``tests/test_ops_against_torch.py``, which together produce
every node class of the derivative table) runs through ``myautograd.autograd.gradcheck`` in
float64, on inputs drawn from the operator's domain (away from the kinks, where a derivative is a
convention and finite differences disagree with any choice), and through ``gradgradcheck`` where
the operator has second derivatives. Then ``gradcheck`` itself: it catches a planted wrong
derivative, real or complex (a missing conjugate, the imaginary part of a gradient dropped), and reports as
torch does. The complex operators (complex, conj, real, view_as_real, ...) are checked with complex
Jacobians, by the conjugate Wirtinger convention.
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

# embedding's padding row gets no gradient by convention, though its values reach the output.
CONVENTIONS = {"embedding"}
REAL_OPS = [op for op in OPS if op.name not in CONVENTIONS]
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


# -- complex gradcheck -------------------------------------------------------------------------------------------
def _square(conjugate=True, drop_imaginary_grad=False):
    """z * z with backward grad * 2 conj(z); planted bugs: no conjugate, or the gradient's imaginary part dropped."""

    class Square(myautograd.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            if drop_imaginary_grad:
                grad = grad.real.to(z.dtype)
            return grad * 2 * (z.conj() if conjugate else z)

    return Square.apply


def _complex_input():
    return myautograd.tensor([0.3 + 0.5j, -1.2 + 0.1j], dtype=myautograd.complex128, requires_grad=True)


def test_complex_jacobians_are_conjugate_wirtinger_ones():
    z = _complex_input()
    assert gradcheck(_square(), (z,)) and gradcheck(_square(), (z,), fast_mode=True)
    assert gradcheck(lambda w: (w * w.conj()).real, (z,))


def test_a_missing_conjugate_is_caught_in_the_imaginary_part_first():
    with pytest.raises(GradcheckError) as caught:
        gradcheck(_square(conjugate=False), (_complex_input(),))
    assert str(caught.value) == (
        "While considering the imaginary part of complex outputs only, Jacobian mismatch for output 0 with respect to "
        "input 0,\nnumerical:tensor([[1.0000+0.6000j, 0.0000+0.0000j],\n        [0.0000+0.0000j, 0.2000-2.4000j]], "
        "dtype=torch.complex128)\nanalytical:tensor([[-1.0000+0.6000j,  0.0000+0.0000j],\n        "
        "[-0.0000+0.0000j, -0.2000-2.4000j]], dtype=torch.complex128)\n")


def test_a_gradient_whose_imaginary_part_is_dropped_is_caught():
    """Right for the real part of the output: a check that drops the imaginary part of outputs passes it."""
    square = _square(drop_imaginary_grad=True)
    assert gradcheck(lambda w: square(w).real, (_complex_input(),))
    with pytest.raises(GradcheckError, match="^While considering the imaginary part of complex outputs only, "):
        gradcheck(square, (_complex_input(),))
    assert gradcheck(square, (_complex_input(),), raise_exception=False, fast_mode=True) is False


def test_undefined_output_gradients_reach_a_function_without_materialized_grads():
    class NonzeroForUndefined(myautograd.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return myautograd.ones_like(x) if grad is None else grad * 2

    x = myautograd.tensor([0.5, -1.5], dtype=myautograd.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="^Backwards compatibility: New undefined gradient support"):
        with pytest.raises(GradcheckError, match="^Expected all input grads to be undefined or zero"):
            gradcheck(NonzeroForUndefined.apply, (x,))
    assert gradcheck(NonzeroForUndefined.apply, (x,), check_undefined_grad=False)


def test_forward_mode_and_batched_gradients():
    x = myautograd.tensor([0.3, -0.8, 1.1], dtype=myautograd.float64, requires_grad=True)
    assert gradcheck(myautograd.tanh, (x,), check_forward_ad=True, check_batched_grad=True)
    assert gradgradcheck(myautograd.tanh, (x,), check_batched_grad=True)

    class WrongJvp(myautograd.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(*inputs)
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result

        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            return tangent * x

    assert gradcheck(WrongJvp.apply, (x,))
    with pytest.raises(GradcheckError, match="^Jacobian computed with forward mode mismatch for output 0 with respect"):
        gradcheck(WrongJvp.apply, (x,), check_forward_ad=True)
