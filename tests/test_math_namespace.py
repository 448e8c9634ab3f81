"""The formulas' math namespace (``myautograd/_autograd/formula_math.py``): one definition per primitive, both kinds.

Each primitive is one entry of ``PRIMITIVES`` (its kernel on arrays and the operation on
tensors); ``ArrayMath`` and ``TensorMath`` are built from them. These tests check that every
name a formula reads is on both kinds, that both kinds compute the same values for every
primitive (on a sample each), that the namespaces hold nothing beyond the table, that
``DispatchMath`` picks the kind from the values, and that the formulas, given ``DispatchMath``
in both forms of the backward, compute the same derivatives and record the same nodes.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import myautograd
from myautograd._autograd import formula_math
from myautograd._autograd.modes import ArrayMode, TensorMode
from myautograd._device import as_device
from myautograd._tensor import Tensor, make_tensor

ROOT = Path(__file__).resolve().parent.parent
FORMULA_MODULES = ("derivatives.py", "derivatives_nn.py", "formula_helpers.py", "norm_math.py", "window_math.py")
TENSOR_ONLY = {"copy_into_new"}  # a leaf's first gradient under create_graph: no array counterpart

_rng = np.random.default_rng(0)
a = _rng.standard_normal((2, 3))
b = _rng.standard_normal((3, 2))
row = _rng.standard_normal((1, 3))
square = _rng.standard_normal((3, 3))
positive = np.abs(a) + 0.5
mask = a > 0
index = np.array([[0, 2], [1, 1]])
image = _rng.standard_normal((1, 1, 3, 3))
columns = formula_math.ArrayMath.im2col(image, (2, 2), (1, 1), (1, 1))
complex_values = a + 1j * b.T
pairs = _rng.standard_normal((2, 2))
vector, other_vector = _rng.standard_normal(2), _rng.standard_normal(3)
weights = _rng.standard_normal((4, 3, 5))
second = _rng.standard_normal((2, 5))
key = (np.array([0, 0, 1]), np.array([1, 1, 2]))

# name -> the arguments, given ``T`` (which makes a value of the kind: an array or a tensor).
SAMPLES = {
    "sum_to": lambda T: (T(a), (1, 3)),
    "expand": lambda T: (T(row), (2, 3)),
    "reshape": lambda T: (T(a), (3, 2)),
    "unsqueeze": lambda T: (T(a), 1),
    "unsqueeze_dims": lambda T: (T(a), (1, -1), 4),
    "squeeze_dim": lambda T: (T(row), 0),
    "transpose": lambda T: (T(a), 0, 1),
    "t": lambda T: (T(a),),
    "mT": lambda T: (T(a),),
    "permute": lambda T: (T(a), (1, 0)),
    "flip": lambda T: (T(a), (1,)),
    "narrow": lambda T: (T(a), 1, 1, 2),
    "select": lambda T: (T(a), 1, 2),
    "roll": lambda T: (T(a), (1,), (1,)),
    "diagonal": lambda T: (T(square), 1, 0, 1),
    "im2col": lambda T: (T(image), (2, 2), (1, 1), (1, 1)),
    "col2im": lambda T: (T(columns), (3, 3), (2, 2), (1, 1), (1, 1)),
    "einsum": lambda T: ("ij,jk->ik", T(a), T(b)),
    "trilinear": lambda T: (T(a), T(weights), T(second), (1, 3), (0,), (1, 2), (2, 3)),
    "fft_c2c": lambda T: (T(complex_values), (1,), 1, False),
    "fft_r2c": lambda T: (T(a), (0, 1), 2, True),
    "constant_pad": lambda T: (T(a), (1, -1, 2, 0)),
    "cat": lambda T: ([T(a), T(positive)], 1),
    "stack": lambda T: ([T(a), T(positive)], 0),
    "tril": lambda T: (T(square), 0),
    "triu": lambda T: (T(square), 1),
    "zeros": lambda T: ((2, 2), T(a)),
    "zeros_like": lambda T: (T(a),),
    "ones": lambda T: ((2, 2), T(a)),
    "index_put_zeros": lambda T: ((2, 3), T(a), key, T(np.array([1.0, 2.0, 3.0])), True),
    "gather": lambda T: (T(a), 1, index),
    "scatter_zeros": lambda T: (T(a), 1, index),
    "scatter_into_zeros": lambda T: ((2, 3), T(a), 1, index, T(pairs), True),
    "index": lambda T: (T(a), (np.array([1, 0]), slice(None))),
    "tanh_backward": lambda T: (T(a), T(np.tanh(b.T))),
    "sigmoid_backward": lambda T: (T(a), T(positive / 4)),
    "masked_backward": lambda T: ("LeakyReluBackwardBackward0", T(a), T(b.T), T(mask), 0.1),
    "backward_op": lambda T: ("SoftplusBackwardBackward0", T(a), T(b.T), {"beta": 2.0, "threshold": 20.0}),
    "array": lambda T: (T(a),),
    "item": lambda T: (T(np.array(1.5)),),
    "mask_at": lambda T: (T(a), (1, 2)),
    "constant": lambda T: ([[1, 2, 3]], T(a)),
    "where": lambda T: (T(mask), T(a), T(positive)),
    "masked_fill": lambda T: (T(a), T(mask), 0.5),
    "sum": lambda T: (T(a), (1,), True),
    "prod": lambda T: (T(a), 0, False),
    "cumprod": lambda T: (T(a), 1),
    "cumsum": lambda T: (T(a), 0),
    "matmul": lambda T: (T(a), T(b)),
    "bmm": lambda T: (T(a[None]), T(b[None])),
    "outer": lambda T: (T(vector), T(other_vector)),
    "to_device": lambda T: (T(a), as_device("cpu")),
    "conj": lambda T: (T(complex_values),),
    "real": lambda T: (T(complex_values),),
    "imag": lambda T: (T(complex_values),),
    "view_as_real": lambda T: (T(complex_values),),
    "view_as_complex": lambda T: (T(pairs),),
    "sign": lambda T: (T(a),),
    "sgn": lambda T: (T(complex_values),),
    "pow": lambda T: (T(positive), 1.5),
    "div_number": lambda T: (T(a), 3.0),
    "mul_number": lambda T: (T(a), 3.0),
    "rsqrt": lambda T: (T(positive),),
    "div_rounded": lambda T: (T(a), T(positive), "floor"),
    "clamp_min": lambda T: (T(a), 0.25),
    "isfinite": lambda T: (T(a / mask),),
    "isnan": lambda T: (T(a * 0 / mask),),
    "sigmoid": lambda T: (T(a),),
    "log_sigmoid": lambda T: (T(a),),
    "xlogy": lambda T: (T(a), T(positive)),
    "erf": lambda T: (T(a),),
    **{name: (lambda T: (T(a),)) for name in ("i0", "i0e", "i1", "i1e", "exp2")},
    **{name: (lambda T: (T(positive),)) for name in ("lgamma", "digamma")},
    "erfinv": lambda T: (T(np.tanh(a)),),
    "rot90": lambda T: (T(a), 1, (0, 1)),
    "logcumsumexp": lambda T: (T(a), 1),
    "cross": lambda T: (T(a), T(b.T), 1),
    "linalg_solve": lambda T: (T(square + 3 * np.eye(3)), T(b)),
    "polygamma": lambda T: (2, T(positive)),
    "xlog1py": lambda T: (T(a), T(positive)),
    **{name: (lambda T: (T(positive),)) for name in ("exp", "log", "log1p", "sin", "cos", "sinh", "cosh", "tanh",
                                                     "sqrt", "abs", "reciprocal")},
}


def as_tensor(value):
    return make_tensor(np.array(value)).requires_grad_(value.dtype.kind in "fc")


def as_arrays(value):
    return value._data if isinstance(value, Tensor) else value


def call(namespace, name: str, T):
    args = SAMPLES[name](T)
    if name == "backward_op":  # its attributes go by keyword
        *args, attrs = args
        return getattr(namespace, name)(*args, **attrs)
    return getattr(namespace, name)(*args)


def names_formulas_read() -> set[str]:
    found = set()
    for module in FORMULA_MODULES:
        found |= set(re.findall(r"\bF\.([A-Za-z_]\w*)", (ROOT / "myautograd" / "_ops" / module).read_text()))
    return found


def test_every_name_a_formula_reads_is_on_both_kinds():
    read = names_formulas_read() - {"recording"}
    assert len(read) > 40
    for namespace in (formula_math.ArrayMath, formula_math.TensorMath, formula_math.DispatchMath):
        missing = sorted(name for name in read if not hasattr(namespace, name))
        assert not missing, f"{namespace.__name__} lacks {missing}"


def test_the_namespaces_hold_the_table_and_nothing_else():
    table = set(formula_math.PRIMITIVES) | set(formula_math.COMPOSITES)
    for namespace, absent in ((formula_math.ArrayMath, TENSOR_ONLY), (formula_math.TensorMath, set())):
        own = {name for name in vars(namespace) if not name.startswith("__")} - {"recording"}
        assert own == table - absent, namespace.__name__
    assert formula_math.ArrayMath.recording is False and formula_math.TensorMath.recording is True
    assert "recording" not in vars(formula_math.DispatchMath)  # the kind of its values tells (kind_of)


def test_every_primitive_has_a_sample():
    assert set(SAMPLES) == set(formula_math.PRIMITIVES) - TENSOR_ONLY | set(formula_math.COMPOSITES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_both_kinds_compute_the_same_values(name):
    on_arrays = call(formula_math.ArrayMath, name, lambda value: np.array(value))
    on_tensors = call(formula_math.TensorMath, name, as_tensor)
    assert not isinstance(on_arrays, Tensor), "the array kind created a tensor"
    expected, got = np.asarray(on_arrays), np.asarray(as_arrays(on_tensors))
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_the_tensor_kind_records_torchs_nodes():
    x = as_tensor(a)
    assert type(formula_math.TensorMath.exp(x).grad_fn).__name__ == "ExpBackward0"
    assert type(call(formula_math.TensorMath, "tanh_backward", as_tensor).grad_fn).__name__ == "TanhBackwardBackward0"
    assert type(call(formula_math.TensorMath, "masked_backward", as_tensor).grad_fn).__name__ == "LeakyReluBackwardBackward0"
    assert type(call(formula_math.TensorMath, "backward_op", as_tensor).grad_fn).__name__ == "SoftplusBackwardBackward0"
    assert type(formula_math.TensorMath.mT(x).grad_fn).__name__ == "TransposeBackward0"


def test_the_comparison_catches_a_planted_difference(monkeypatch):
    monkeypatch.setattr(formula_math.ArrayMath, "sigmoid", staticmethod(lambda x: 1 / (1 + np.exp(x))))
    with pytest.raises(AssertionError):
        test_both_kinds_compute_the_same_values("sigmoid")


def test_dispatch_picks_the_kind_from_the_values():
    F = formula_math.DispatchMath
    assert type(F.exp(positive)) is np.ndarray
    assert type(F.cat([a, positive], 0)) is np.ndarray
    x = as_tensor(a)
    assert type(F.exp(x).grad_fn).__name__ == "ExpBackward0"
    assert type(F.cat([make_tensor(a), x], 0).grad_fn).__name__ == "CatBackward0"  # tensors inside a list
    masked = F.masked_backward("LeakyReluBackwardBackward0", x, x, make_tensor(mask), 0.1)  # not the first argument
    assert type(masked.grad_fn).__name__ == "LeakyReluBackwardBackward0"
    assert type(F.outer(make_tensor(vector), make_tensor(other_vector))) is Tensor  # a composite
    assert type(F.outer(vector, other_vector)) is np.ndarray
    assert formula_math.kind_of(a, [a], grad=x) is formula_math.TensorMath
    assert formula_math.kind_of(a, (a, 1.0), 2) is formula_math.ArrayMath


def test_a_plain_backward_creates_no_tensor_in_its_formulas(monkeypatch):
    """The engine gives a plain backward ``ArrayMath``: a formula's primitives run on arrays."""
    created = []
    original = formula_math.TensorMath.sigmoid_backward
    monkeypatch.setattr(formula_math.TensorMath, "sigmoid_backward",
                        staticmethod(lambda grad, output: created.append(grad) or original(grad, output)))
    x = myautograd.tensor([0.5, 1.5], requires_grad=True)
    x.sigmoid().sum().backward()
    assert created == []
    (grad,) = myautograd.autograd.grad(x.sigmoid().sum(), x, create_graph=True)
    assert len(created) == 1 and grad.requires_grad


def _gradients_and_nodes(fn, *shapes):
    """First and second derivatives of ``fn(*inputs).sum()`` and the node names of the second."""
    inputs = [make_tensor(_rng.standard_normal(shape)).requires_grad_() for shape in shapes]
    firsts = myautograd.autograd.grad(fn(*inputs).sum(), inputs, create_graph=True)
    names = [type(g.grad_fn).__name__ for g in firsts]
    seconds = myautograd.autograd.grad(sum((g * g).sum() for g in firsts), inputs, allow_unused=True)
    return [g.detach()._data for g in firsts], names, [None if g is None else g._data for g in seconds]


PROGRAMS = {
    "tanh and sigmoid": (lambda x: x.tanh() * x.sigmoid(), (3, 4)),
    "relu and leaky_relu": (lambda x: x.relu() + myautograd.nn.functional.leaky_relu(x, 0.1), (3, 4)),
    "matmul and a reduction over a dim": (lambda x, w: (x @ w).sum(-1).exp(), (3, 4), (4, 2)),
    "prod with a zero and cat": (lambda x: myautograd.cat([x * (x > 0), x.mT], 0).prod(0), (3, 3)),
    "softmax, log_softmax, pow": (lambda x: x.softmax(-1) * x.log_softmax(0) + x.pow(3), (2, 5)),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_the_formulas_give_the_same_derivatives_through_dispatch(program, monkeypatch):
    """Every formula, run with ``DispatchMath`` in both forms of the backward, computes what it
    computes with the mode's own namespace: the same gradients, the same recorded nodes."""
    fn, *shapes = PROGRAMS[program]
    state = _rng.bit_generator.state
    expected = _gradients_and_nodes(fn, *shapes)
    _rng.bit_generator.state = state
    monkeypatch.setattr(ArrayMode, "F", formula_math.DispatchMath)
    monkeypatch.setattr(TensorMode, "F", formula_math.DispatchMath)
    got = _gradients_and_nodes(fn, *shapes)
    assert got[1] == expected[1]
    for mine, theirs in zip(got[0] + got[2], expected[0] + expected[2]):
        np.testing.assert_array_equal(mine, theirs)
