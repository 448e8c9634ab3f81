"""Behaviours myautograd once got wrong, each compared with torch on the same calls.

* ``tensor(values, dtype=float64)`` holds the doubles given, not their float32 roundings;
* a second backward through ``w.sum() * 1`` raises: MulBackward0 saves the number (torch wraps it
  in a 0-dim tensor and frees it with the graph), where ``w.sum() + 1`` saves nothing;
* writing through a ``range`` index writes (``t[range(3)] = 1``, ``t[range(n), idx] -= 1``);
* ``linspace`` rounds each value once as torch does, bit for bit;
* small integer powers are the products torch computes (``x ** 3`` is ``x * x * x``);
* a 0-dim tensor indexed by an integer raises torch's errors ("invalid index of a 0-dim tensor" for 0).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import myautograd


def _both(fn):
    """``fn(namespace)`` on torch and on myautograd."""
    return fn(torch), fn(myautograd)


def _raised(fn, namespace):
    try:
        fn(namespace)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return None


def test_float64_tensor_holds_the_doubles_given():
    ref, mine = _both(lambda t: t.tensor([0.1, 0.2, 1 / 3], dtype=t.float64).tolist())
    assert mine == ref == [0.1, 0.2, 1 / 3]
    ref, mine = _both(lambda t: t.tensor([[0.1], [2]], dtype=t.float64).tolist())
    assert mine == ref
    ref, mine = _both(lambda t: (t.tensor(0.1, dtype=t.float64, requires_grad=True) * 3).item())
    assert mine == ref


def test_float16_tensor_rounds_each_double_once():
    values = [0.1, 1 / 3, 65504.0, 1e-6]
    ref, mine = _both(lambda t: t.tensor(values, dtype=t.float16).tolist())
    assert mine == ref


def _second_backward(t, scalar_op):
    w = t.tensor([1.0, 2.0], requires_grad=True)
    f = scalar_op(w.sum())
    f.backward()
    f.backward()
    return w.grad.tolist()


@pytest.mark.parametrize("name, op", [("mul", lambda s: s * 1), ("div", lambda s: s / 2), ("add", lambda s: s + 1),
                                      ("rsub", lambda s: 2 - s)])
def test_second_backward_through_an_op_with_a_number(name, op):
    ref = _raised(lambda t: _second_backward(t, op), torch)
    mine = _raised(lambda t: _second_backward(t, op), myautograd)
    assert mine == ref
    if ref is None:
        assert _second_backward(myautograd, op) == _second_backward(torch, op)


def test_saved_number_reads_as_freed_after_backward():
    def read(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        f = w * 2
        before = f.grad_fn._saved_other.item()
        f.sum().backward()
        return before, _raised(lambda _: f.grad_fn._saved_other, t)

    assert read(myautograd) == read(torch)


@pytest.mark.parametrize("case", ["assign", "augmented", "pair", "read"])
def test_writing_through_a_range_index(case):
    def run(t):
        x = t.zeros(4, 3)
        if case == "assign":
            x[range(3)] = 1.0
        elif case == "augmented":
            x[range(0, 4, 2)] += 2.5
        elif case == "pair":
            idx = t.tensor([2, 0, 1, 2])
            x[range(4), idx] -= 1
        else:
            x = t.arange(12.0).reshape(4, 3)[range(1, 4), range(3)]
        return x.tolist()

    ref, mine = _both(run)
    assert mine == ref


def test_writing_through_a_range_index_is_differentiable():
    def run(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        v = t.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
        out = x.clone()
        out[range(0, 3, 2)] = v * 2
        out.sum().backward()
        return out.grad_fn.name(), x.grad.tolist(), v.grad.tolist()

    ref, mine = _both(run)
    assert mine == ref


def test_linspace_matches_torch_bit_for_bit():
    rng = random.Random(20240610)
    for _ in range(400):
        start = round(rng.uniform(-50, 50), rng.randint(0, 4))
        end = round(rng.uniform(-50, 50), rng.randint(0, 4))
        steps = rng.randint(0, 120)
        for dtype in ("float32", "float64", "int64"):
            ref, mine = _both(lambda t: t.linspace(start, end, steps, dtype=getattr(t, dtype)).tolist())
            assert mine == ref, (start, end, steps, dtype)


def test_linspace_errors_as_torch():
    assert _raised(lambda t: t.linspace(0, 1, -1), myautograd) == _raised(lambda t: t.linspace(0, 1, -1), torch)


@pytest.mark.parametrize("exponent", [2, 3, -1, -2, -0.5, 2.0, 3.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_integer_powers_are_torch_s_products(exponent, dtype):
    values = np.random.default_rng(7).uniform(0.1, 3.0, 2000).tolist()

    def run(t):
        x = t.tensor(values, dtype=getattr(t, dtype), requires_grad=True)
        y = x ** exponent
        (grad,) = t.autograd.grad(y.sum(), x)
        return y.tolist(), grad.tolist()

    ref, mine = _both(run)
    assert mine[0] == ref[0]
    np.testing.assert_allclose(mine[1], ref[1], rtol=4 * np.finfo(dtype).eps)


def test_integer_index_of_a_zero_dim_tensor():
    for key in (0, -1, 3):
        ref = _raised(lambda t: t.tensor(2.0)[key], torch)
        assert _raised(lambda t: t.tensor(2.0)[key], myautograd) == ref
        assert ref[0] == "IndexError"

        def write(t):
            x = t.tensor(2.0)
            x[key] = 1.0

        assert _raised(write, myautograd) == _raised(write, torch)
    assert _raised(lambda t: t.tensor(2.0)[None, 0], myautograd) == _raised(lambda t: t.tensor(2.0)[None, 0], torch)
