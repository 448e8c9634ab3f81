"""torch.func.grad, grad_and_value and vjp against torch's: values, structures, whether results
stay differentiable (they do when they depend on tensors outside the transform that require
grad), and errors. Values at float32 precision; node names are not compared (torch.func records
its own graph)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd as mt
from tests.support.outcome import outcome


def plain(value):
    if isinstance(value, (torch.Tensor, mt.Tensor)):
        return ("tensor", str(value.dtype), tuple(value.shape), np.round(value.detach().numpy().astype(np.float64), 5)
                .tolist(), value.requires_grad)
    if isinstance(value, dict):
        return ("dict", [(k, plain(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    return value



def data(lib):
    return lib.tensor([0.5, -1.0, 2.0])


CASES = [
    lambda lib, f: f.grad(lambda x: x.sin().sum())(data(lib)),
    lambda lib, f: f.grad(f.grad(lambda x: (x ** 3).sum() / 3))(lib.tensor(1.5)),
    lambda lib, f: f.grad(f.grad(f.grad(lambda x: x.exp() * x)))(lib.tensor(0.3)),
    lambda lib, f: f.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(data(lib), data(lib) * 3),
    lambda lib, f: f.grad(lambda x, y: (x * y).sum(), argnums=1)(data(lib), data(lib) * 3),
    lambda lib, f: f.grad(lambda x, y: (x * y).sum(), argnums=-1)(data(lib), data(lib) * 3),
    lambda lib, f: f.grad(lambda d: (d["a"] * d["b"][0]).sum())({"a": data(lib), "b": [data(lib) + 1]}),
    lambda lib, f: f.grad(lambda x, y: y.sum())(data(lib), data(lib)),
    lambda lib, f: f.grad(lambda x: (x.sum(), {"mean": x.mean()}), has_aux=True)(data(lib)),
    lambda lib, f: f.grad_and_value(lambda x: (x * x).sum())(data(lib)),
    lambda lib, f: f.grad_and_value(lambda x: ((x * x).sum(), x.max()), has_aux=True)(data(lib)),
    lambda lib, f: f.grad(lambda x: (x * x).sum())(data(lib).double()),
]


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_grad_values_and_structure(case):
    assert plain(case(mt, mt.func)) == plain(case(torch, torch.func))


def test_vjp():
    def run(lib, f):
        x = data(lib)
        out, fn = f.vjp(lambda x: x.sin() * 2, x)
        first = fn(lib.ones(3))
        second = fn(lib.tensor([1.0, 0.0, -1.0]))  # callable again
        pair_out, pair_fn = f.vjp(lambda x, y: (x * y, {"sum": x + y}), x, x * 2)
        pair = pair_fn((lib.ones(3), {"sum": lib.ones(3)}))
        aux_out, aux_fn, aux = f.vjp(lambda x: (x * 2, x.sum()), x, has_aux=True)
        return [plain(v) for v in (out, first, second, pair_out, pair, aux_out, aux, aux_fn(lib.ones(3)),
                                   type(first).__name__)]

    assert run(mt, mt.func) == run(torch, torch.func)


def test_results_stay_differentiable_when_they_depend_on_outside_tensors():
    def run(lib, f):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = data(lib)
        g = f.grad(lambda x: (w * x * x).sum())(x)  # depends on w
        g.sum().backward()
        xr = data(lib).requires_grad_()
        h = f.grad(lambda x: (x ** 3).sum())(xr)  # a gradient penalty: differentiable w.r.t. xr
        (h * h).sum().backward()
        out, fn = f.vjp(lambda x: x * w, x)
        v = fn(lib.ones(3))[0]
        plain_g = f.grad(lambda x: (x * x).sum())(data(lib))
        return [plain(g), plain(w.grad), plain(h), plain(xr.grad), plain(out), plain(v), plain(plain_g),
                plain_g.grad_fn is None, xr.is_leaf]

    assert run(mt, mt.func) == run(torch, torch.func)


def test_a_result_that_does_not_itself_depend_on_outside_tensors_comes_back_plain():
    """The value depends on ``w`` (it requires grad) only additively: the gradient does not, and torch gives it
    plain; the value, and an output that uses ``w``, stay differentiable (found by the fuzzer)."""
    def run(lib, f):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        g = f.grad(lambda x, b: (b + 2 * x * x).sum())(data(lib), w)
        both, value = f.grad_and_value(lambda x, b: (b + x.sin()).sum(), argnums=(0, 1))(data(lib), w)
        outs, fn = f.vjp(lambda x: (x * x + w, x * 2), data(lib))
        return [plain(g), plain(both), plain(value), plain(outs), plain(fn((lib.ones(3), lib.ones(3))))]

    assert run(mt, mt.func) == run(torch, torch.func)


ERRORS = [
    lambda lib, f: f.grad(lambda x: x * 2)(data(lib)),
    lambda lib, f: f.grad(lambda x: 3.0)(data(lib)),
    lambda lib, f: f.grad(lambda x: x.sum(), has_aux=True)(data(lib)),
    lambda lib, f: f.grad(lambda x, y: (x * y).sum(), argnums=2)(data(lib), data(lib)),
    lambda lib, f: f.grad(lambda x: x.sum())(lib.tensor([1, 2])),
    lambda lib, f: f.grad(lambda x: x.sum())(3.0),
    lambda lib, f: f.vjp(lambda x: x * 2, data(lib))[1](lib.ones(2)),
    lambda lib, f: f.vjp(lambda x: x * 2, data(lib))[1]((lib.ones(3), lib.ones(3))),
    lambda lib, f: f.vjp(lambda x: 2.0, data(lib)),
    lambda lib, f: f.vjp(lambda x: x * 2, 3.0),
]


@pytest.mark.parametrize("make", ERRORS, ids=range(len(ERRORS)))
def test_errors(make):
    theirs = outcome(lambda: make(torch, torch.func))
    assert theirs is not None
    assert outcome(lambda: make(mt, mt.func)) == theirs
