"""Behaviours myautograd once got wrong, each compared with torch on the same calls.

* ``tensor(values, dtype=float64)`` holds the doubles given, not their float32 roundings;
* a second backward through ``w.sum() * 1`` raises: MulBackward0 saves the number (torch wraps it
  in a 0-dim tensor and frees it with the graph), where ``w.sum() + 1`` saves nothing;
* writing through a ``range`` index writes (``t[range(3)] = 1``, ``t[range(n), idx] -= 1``);
* ``linspace`` rounds each value once as torch does, bit for bit;
* small integer powers are the products torch computes (``x ** 3`` is ``x * x * x``);
* a 0-dim tensor indexed by an integer raises torch's errors ("invalid index of a 0-dim tensor" for 0);
* a NumPy scalar on the left of an operator (``np.float64(0.5) * t``, ``np.sqrt(d) + t``) gives a tensor
  of the tensor's dtype, recorded, as torch gives (myautograd's ``Tensor.__array_ufunc__``; NumPy computed a
  float64 array, so a float32 run went on in float64, or its graph was cut);
* a NumPy scalar operand or argument (``x * np.float64(0.7)``, ``pow``, ``alpha``, ``lerp``'s weight,
  ``leaky_relu``'s slope...) counts as the Python number it holds: the gradient of a float32 leaf stays
  float32 (a node saved the NumPy float64, and ``grad * other`` made the gradient float64);
* ``tensor([...])`` of a list holding NumPy scalars takes their dtypes, promoted with the Python numbers';
* a reduction of a 0-dim tensor over its dim 0 (or -1) reduces over nothing (NumPy has no axis 0 there), and so
  does ``cosine_similarity`` of two 0-dim tensors.
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


NUMPY_SCALAR_ON_THE_LEFT = [
    ("mul", lambda a, t: a * t), ("add", lambda a, t: a + t), ("sub", lambda a, t: a - t),
    ("truediv", lambda a, t: a / t), ("pow", lambda a, t: a ** t), ("lt", lambda a, t: a < t),
    ("eq", lambda a, t: a == t), ("floordiv", lambda a, t: a // t), ("mod", lambda a, t: a % t),
]


@pytest.mark.parametrize("scalar", [np.float64(0.3), np.float32(1.5), np.int64(3)], ids=repr)
@pytest.mark.parametrize(("name", "op"), NUMPY_SCALAR_ON_THE_LEFT, ids=[n for n, _ in NUMPY_SCALAR_ON_THE_LEFT])
def test_a_numpy_scalar_on_the_left_of_an_operator(name, op, scalar):
    """torch's type and dtype; the bits of the Python number's result (``pow`` differs from torch's libm
    in the last bit either way)."""
    values = np.array([0.5, 1.25, 2.0], dtype=np.float32)
    theirs, ours = _both(lambda lib: op(scalar, lib.tensor(values)))
    assert type(ours) is myautograd.Tensor
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.numpy().tobytes() == op(scalar.item(), myautograd.tensor(values)).numpy().tobytes()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-7)


def test_a_numpy_scalar_on_the_left_keeps_the_graph():
    def run(lib):
        x = lib.tensor([0.5, 2.0], requires_grad=True)
        y = np.float64(0.1) * x + np.sqrt(np.float64(2.0)) / x
        y.sum().backward()
        return y.grad_fn.name(), y.dtype, x.grad
    (t_name, t_dtype, t_grad), (m_name, m_dtype, m_grad) = _both(run)
    assert (m_name, str(m_dtype)) == (t_name, str(t_dtype)) == ("AddBackward0", "torch.float32")
    assert m_grad.numpy().tobytes() == t_grad.numpy().tobytes()


NUMPY_SCALAR_ARGUMENTS = {
    "mul": lambda lib, x, s: x * s, "rmul": lambda lib, x, s: s * x, "div": lambda lib, x, s: x / s,
    "rdiv": lambda lib, x, s: s / x, "pow": lambda lib, x, s: x ** s, "torch.mul": lambda lib, x, s: lib.mul(x, s),
    "add alpha": lambda lib, x, s: x.add(x * x, alpha=s), "sub alpha": lambda lib, x, s: x.sub(x * x, alpha=s),
    "lerp": lambda lib, x, s: lib.lerp(x, x * 3, s), "addcmul": lambda lib, x, s: lib.addcmul(x, x, x, value=s),
    "addcdiv": lambda lib, x, s: lib.addcdiv(x, x, x + 1, value=s),
    "leaky_relu": lambda lib, x, s: lib.nn.functional.leaky_relu(x - 1, s),
    "softplus": lambda lib, x, s: lib.nn.functional.softplus(x, s),
}


@pytest.mark.parametrize("name", list(NUMPY_SCALAR_ARGUMENTS))
def test_a_numpy_scalar_argument_keeps_float32_gradients(name):
    """torch's dtypes, and the bits myautograd computes with the Python number (which may differ from
    torch's in the last bit where libm or a fused kernel does: pow, alpha)."""
    def run(lib, scalar):
        x = lib.tensor([0.5, 1.25, 2.0], requires_grad=True)
        y = NUMPY_SCALAR_ARGUMENTS[name](lib, x, scalar)
        y.sum().backward()
        return y, x.grad
    t_y, t_grad = run(torch, np.float64(0.7))
    m_y, m_grad = run(myautograd, np.float64(0.7))
    plain_y, plain_grad = run(myautograd, 0.7)
    assert (str(m_y.dtype), str(m_grad.dtype)) == (str(t_y.dtype), str(t_grad.dtype)) == ("torch.float32",) * 2
    assert m_y.detach().numpy().tobytes() == plain_y.detach().numpy().tobytes()
    assert m_grad.numpy().tobytes() == plain_grad.numpy().tobytes()
    np.testing.assert_allclose(m_grad.numpy(), t_grad.numpy(), rtol=2e-7)


@pytest.mark.parametrize("values", [
    [np.float64(0.5), 1.0], [1.0, np.float64(0.5)], [[np.float64(1.0)], [2.0]], [np.float32(0.5), 1.0],
    [np.float16(1.0), 2], [np.int32(1), 2], [np.int64(1), 2.5], [np.float64(1.0), np.float32(2.0)],
], ids=repr)
def test_tensor_of_a_list_with_numpy_scalars(values):
    theirs, ours = _both(lambda lib: lib.tensor(values))
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()



REDUCTIONS_OVER_DIM_0 = {
    "sum": lambda t, x: x.sum(0), "sum_list_keepdim": lambda t, x: x.sum([-1], keepdim=True),
    "mean": lambda t, x: x.mean(0), "norm": lambda t, x: x.norm(2, 0, True), "all": lambda t, x: (x > 0).all(0),
    "any": lambda t, x: (x > 0).any(-1), "count_nonzero": lambda t, x: t.count_nonzero(x, 0),
    "cosine_similarity": lambda t, x: t.nn.functional.cosine_similarity(x, x * -2.0, dim=0),
}


@pytest.mark.parametrize("name", list(REDUCTIONS_OVER_DIM_0))
def test_a_reduction_of_a_0_dim_tensor_over_its_dim_0(name):
    def run(t):
        x = t.tensor(0.5, requires_grad=True)
        out = REDUCTIONS_OVER_DIM_0[name](t, x)
        grads = t.autograd.grad(out, [x], t.ones_like(out)) if out.requires_grad else ()
        return [(tuple(v.shape), str(v.dtype), v.tolist()) for v in (out, *grads)]

    theirs, ours = _both(run)
    assert ours == theirs
