"""myautograd's ``autograd.functional`` against torch's: the same calls on both, the same results and errors.

Each call runs with ``t`` the library: results are compared as nested structures (tuples against tuples,
tensors by value, ``requires_grad``); an error is compared by type and message. What the catalog's topic
``autograd_functional`` cannot run on myautograd (``vectorize=True``: its profile lacks ``vmap``)
is checked here too.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd


def structure(value):
    """A comparable form: nested tuples and lists kept, tensors as (values, shape, requires_grad)."""
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [structure(item) for item in value]
    if isinstance(value, (torch.Tensor, myautograd.Tensor)):
        array = value.detach().numpy() if isinstance(value, torch.Tensor) else np.asarray(value.detach().tolist())
        return "tensor", np.round(np.asarray(array, dtype=np.float64), 5).tolist(), tuple(value.shape), \
            value.requires_grad
    return value


def outcome(call, t):
    try:
        return "returned", structure(call(t))
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return "raised", type(error).__name__, str(error)


def tensors(t, *values):
    return tuple(t.tensor(v) for v in values)


CALLS = {
    # values and structure
    "jacobian, tuples": lambda t: t.autograd.functional.jacobian(
        lambda a, b: (a * b.sum(), (a.unsqueeze(1) * b).sum(0)), tensors(t, [1.0, 2.0], [3.0, -1.0, 0.5])),
    "jacobian, a tuple of one input": lambda t: t.autograd.functional.jacobian(lambda a: a * 3, (t.tensor([1.0, 2.0]),)),
    "hessian, tuples": lambda t: t.autograd.functional.hessian(
        lambda a, b: (a @ b ** 2).sum(), tensors(t, [[0.5, 2.0], [-1.0, 1.5]], [3.0, -2.0])),
    "hvp": lambda t: t.autograd.functional.hvp(
        lambda a, b: (a ** 3).sum() * (b ** 2).sum(), tensors(t, [0.5, 2.0], [1.5, -0.5]), tensors(t, [1.0, -2.0],
                                                                                                   [2.0, 1.0])),
    "hvp, v omitted for a 0-d input": lambda t: t.autograd.functional.hvp(lambda a: a ** 4, t.tensor(1.5)),
    "jvp, two outputs": lambda t: t.autograd.functional.jvp(
        lambda a: (a.sin(), (a ** 2).sum()), t.tensor([0.5, 2.0]), t.tensor([1.0, -2.0])),
    "vjp, v omitted for an output of shape (1,)": lambda t: t.autograd.functional.vjp(
        lambda a: (a ** 2).sum(0, True), t.tensor([0.5, 2.0])),
    # create_graph
    "jvp with create_graph": lambda t: t.autograd.functional.jvp(
        lambda a: a ** 3, t.tensor([1.0, 2.0], requires_grad=True), t.tensor([1.0, -1.0]), create_graph=True),
    "hvp with create_graph": lambda t: t.autograd.functional.hvp(
        lambda a: (a ** 4).sum(), t.tensor([1.0, 2.0], requires_grad=True), t.tensor([1.0, -1.0]), create_graph=True),
    "jacobian without create_graph, an input requiring grad": lambda t: t.autograd.functional.jacobian(
        lambda a: a ** 3, t.tensor([1.0, 2.0], requires_grad=True)),
    # strict, and the zeros without it
    "jacobian strict, output 1 independent of input 0": lambda t: t.autograd.functional.jacobian(
        lambda a, b: (a * b, b * 2), tensors(t, [1.0, 2.0], [3.0, 4.0]), strict=True),
    "jacobian strict, a constant output": lambda t: t.autograd.functional.jacobian(
        lambda a: t.tensor([5.0, 6.0]), t.tensor([1.0, 2.0]), strict=True),
    "jacobian, a constant output": lambda t: t.autograd.functional.jacobian(
        lambda a: t.tensor([5.0, 6.0]), t.tensor([1.0, 2.0])),
    "jacobian strict and create_graph, a constant derivative": lambda t: t.autograd.functional.jacobian(
        lambda a, b: (a * b, a * 2 + b * b), tensors(t, [1.0, 2.0], [3.0, 4.0]), create_graph=True, strict=True),
    "jvp strict and create_graph, a linear function": lambda t: t.autograd.functional.jvp(
        lambda a: a * 2, t.tensor([1.0, 2.0]), t.tensor([1.0, 1.0]), create_graph=True, strict=True),
    "hessian strict, a linear function": lambda t: t.autograd.functional.hessian(
        lambda a: (a * 3).sum(), t.tensor([1.0, 2.0]), strict=True),
    "hessian strict, independent of input 1": lambda t: t.autograd.functional.hessian(
        lambda a, b: (a ** 2).sum(), tensors(t, [1.0, 2.0], [3.0, 4.0]), strict=True),
    "vjp strict, independent of input 1": lambda t: t.autograd.functional.vjp(
        lambda a, b: a * 2, tensors(t, [1.0, 2.0], [3.0, 4.0]), t.tensor([1.0, 1.0]), strict=True),
    "jvp strict, independent of input 1": lambda t: t.autograd.functional.jvp(
        lambda a, b: a * 2, tensors(t, [1.0, 2.0], [3.0, 4.0]), tensors(t, [1.0, 1.0], [1.0, 1.0]), strict=True),
    "hvp strict, a linear function": lambda t: t.autograd.functional.hvp(
        lambda a: (a * 3).sum(), t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0]), strict=True),
    "vhp, a linear function": lambda t: t.autograd.functional.vhp(
        lambda a: (a * 3).sum(), t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0])),
    # v omitted or of the wrong shape
    "vjp, v omitted for two outputs": lambda t: t.autograd.functional.vjp(
        lambda a: (a.sum(), a.prod()), t.tensor([1.0, 2.0])),
    "jvp, v omitted for two elements": lambda t: t.autograd.functional.jvp(lambda a: a * 2, t.tensor([1.0, 2.0])),
    "vjp, v of two tensors for one output": lambda t: t.autograd.functional.vjp(
        lambda a: a * 2, t.tensor([1.0, 2.0]), tensors(t, [1.0, 1.0], [1.0, 1.0])),
    "vjp, entry 1 of v of the wrong size": lambda t: t.autograd.functional.vjp(
        lambda a: (a * 2, a.sum()), t.tensor([1.0, 2.0]), tensors(t, [1.0, 1.0], [1.0, 1.0])),
    "hvp, v of size 3": lambda t: t.autograd.functional.hvp(
        lambda a: (a ** 3).sum(), t.tensor([1.0, 2.0]), t.tensor([1.0, 1.0, 1.0])),
    "jvp, v a float": lambda t: t.autograd.functional.jvp(lambda a: a * 2, t.tensor([1.0, 2.0]), 1.0),
    # functions that do not return what they must
    "jacobian of a float": lambda t: t.autograd.functional.jacobian(lambda a: 2.0, t.tensor([1.0, 2.0])),
    "jacobian of a list": lambda t: t.autograd.functional.jacobian(lambda a: [a * 2], t.tensor([1.0, 2.0])),
    "hessian of a tuple": lambda t: t.autograd.functional.hessian(lambda a: ((a ** 2).sum(),), t.tensor([1.0, 2.0])),
    "vhp of a vector": lambda t: t.autograd.functional.vhp(lambda a: a ** 3, t.tensor([1.0, 2.0]),
                                                           t.tensor([1.0, 2.0])),
    # vectorize and strategies
    "jacobian vectorize": lambda t: t.autograd.functional.jacobian(
        lambda a, b: (a.exp() * b.sum(), (a[:2] * b).prod()), tensors(t, [0.5, 2.0, -1.0], [1.5, -0.5]),
        vectorize=True),
    "jacobian vectorize, an output independent of an input": lambda t: t.autograd.functional.jacobian(
        lambda a, b: a * 2, tensors(t, [0.5, 2.0], [1.5, -0.5]), vectorize=True),
    "hessian vectorize": lambda t: t.autograd.functional.hessian(
        lambda a: (a ** 3).sum(), t.tensor([0.5, 2.0]), vectorize=True),
    "jacobian vectorize and strict": lambda t: t.autograd.functional.jacobian(
        lambda a: a * 2, t.tensor([1.0]), vectorize=True, strict=True),
    "jacobian forward-mode without vectorize": lambda t: t.autograd.functional.jacobian(
        lambda a: a * 2, t.tensor([1.0]), strategy="forward-mode"),
    "jacobian forward-mode with create_graph": lambda t: t.autograd.functional.jacobian(
        lambda a: a * 2, t.tensor([1.0]), strategy="forward-mode", create_graph=True),
    "jacobian, an unknown strategy": lambda t: t.autograd.functional.jacobian(
        lambda a: a * 2, t.tensor([1.0]), strategy="sideways"),
    "hessian, an unknown strategy": lambda t: t.autograd.functional.hessian(
        lambda a: a.sum(), t.tensor([1.0]), outer_jacobian_strategy="sideways"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_myautograd_matches_torch(name):
    call = CALLS[name]
    assert outcome(call, myautograd) == outcome(call, torch)


def test_hvp_and_vhp_are_separate_functions():
    functional = myautograd.autograd.functional
    assert functional.hvp is not functional.vhp
    assert functional.hvp.__name__ == "hvp" and functional.vhp.__name__ == "vhp"


def test_forward_mode_strategy_gives_torchs_jacobian():
    def jacobian(t):
        x = t.tensor([0.5, -1.0, 2.0])
        return t.autograd.functional.jacobian(lambda a: a.sin() * a[:2].sum(), x, vectorize=True,
                                              strategy="forward-mode")

    np.testing.assert_allclose(jacobian(myautograd).numpy(), jacobian(torch).numpy(), rtol=1e-6)
