"""myautograd._printing.format_tensor prints exactly what ``repr(torch.Tensor)`` prints.

Every case is built once as a NumPy array, turned into a torch tensor with
``torch.from_numpy``, and both renderings are compared character for character, under
the same print options and default dtype.  Suffix cases use torch tensors that really
require grad or have a grad_fn.
"""

import math

import numpy as np
import pytest
import torch

from myautograd import _printing
from myautograd._printing import format_tensor, get_printoptions, set_printoptions

torch_printoptions = torch._tensor_str.get_printoptions  # torch has no public getter


@pytest.fixture(autouse=True)
def _restore_options():
    saved_torch = torch_printoptions()
    saved_dtype = torch.get_default_dtype()
    saved_ours = get_printoptions()
    yield
    torch.set_printoptions(**saved_torch)
    torch.set_default_dtype(saved_dtype)
    set_printoptions(**saved_ours)


def both_set_printoptions(**kwargs):
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)
    assert get_printoptions() == torch_printoptions()


def dtype_name(t):
    return str(t.dtype).removeprefix("torch.")


def default_float():
    return dtype_name(torch.tensor(0.0))


def ours(t, suffixes=()):
    """format_tensor on the values of torch tensor ``t``."""
    return format_tensor(t.detach().numpy(), dtype_name=dtype_name(t), suffixes=suffixes, default_float=default_float())


def check(arr, grad=None):
    """Compare both renderings of ``arr``; ``grad`` is None, "requires_grad" or "grad_fn"."""
    t = torch.from_numpy(np.array(arr, copy=True))
    suffixes = []
    if grad == "requires_grad":
        t.requires_grad_()
        suffixes = [("requires_grad", "True")]
    elif grad == "grad_fn":
        t = t.requires_grad_().clone()
        suffixes = [("grad_fn", f"<{type(t.grad_fn).__name__}>")]
    expected = repr(t)
    got = format_tensor(arr, dtype_name=dtype_name(t), suffixes=suffixes, default_float=default_float())
    assert got == expected, f"\nexpected:\n{expected}\ngot:\n{got}"
    assert str(t) == expected
    return got


# ---------------------------------------------------------------- seed tutorials


def test_seed_tutorial_values():
    a = torch.tensor([1.1], requires_grad=True)
    b = a * 2
    c = b + 3
    ones = torch.ones(2, 2, requires_grad=True)
    threes = ones + 2
    z = threes * threes * 3
    out = z.mean()
    out.backward()
    x = torch.tensor(2.0, requires_grad=True)
    copied = torch.zeros(()).copy_(x * x * 4.5)
    cases = [
        (b, [("grad_fn", "<MulBackward0>")], "tensor([2.2000], grad_fn=<MulBackward0>)"),
        (c, [("grad_fn", "<AddBackward0>")], "tensor([5.2000], grad_fn=<AddBackward0>)"),
        (threes, [("grad_fn", "<AddBackward0>")], "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"),
        (out, [("grad_fn", "<MeanBackward0>")], "tensor(27., grad_fn=<MeanBackward0>)"),
        (ones.grad, [], "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"),
        (torch.tensor([2.0, 0.2, 0.02, 0.002]), [], "tensor([2.0000, 0.2000, 0.0200, 0.0020])"),
        (torch.tensor([100.0], requires_grad=True), [("requires_grad", "True")], "tensor([100.], requires_grad=True)"),
        (copied, [("grad_fn", "<CopyBackwards>")], "tensor(18., grad_fn=<CopyBackwards>)"),
        (torch.tensor(1.0, requires_grad=True), [("requires_grad", "True")], "tensor(1., requires_grad=True)"),
        (torch.tensor([[1.0, 0.1], [0.01, 0.001]]), [], "tensor([[1.0000, 0.1000],\n        [0.0100, 0.0010]])"),
        (torch.tensor([2.0, 4.0]), [], "tensor([2., 4.])"),
        (torch.tensor(12.0), [], "tensor(12.)"),
    ]
    for t, suffixes, literal in cases:
        assert repr(t) == literal
        assert ours(t, suffixes) == literal


# ---------------------------------------------------------------- hand-picked cases

nan, inf = math.nan, math.inf
f32, f64 = np.float32, np.float64

HAND_PICKED = {
    "scalar_int_valued": np.array(3.0, f32),
    "scalar_fraction": np.array(0.1, f32),
    "scalar_neg_zero": np.array(-0.0, f32),
    "scalar_nan": np.array(nan, f32),
    "scalar_inf": np.array(-inf, f64),
    "scalar_huge": np.array(1.5e30, f64),
    "scalar_tiny": np.array(3e-9, f32),
    "scalar_int64": np.array(-7),
    "scalar_bool": np.array(True),
    "scalar_uint8": np.array(200, np.uint8),
    "scalar_float16": np.array(0.3333, np.float16),
    "scalar_complex": np.array(1.5 - 2j, np.complex64),
    "scalar_complex128": np.array(-0.25 + 1e-6j, np.complex128),
    "zeros": np.zeros(4, f32),
    "neg_zeros": np.array([-0.0, 0.0, -0.0], f32),
    "neg_zero_with_values": np.array([-0.0, 1.5, -2.25], f32),
    "nan_inf_int_mode": np.array([1.0, nan, 1000.0, -inf, inf], f32),
    "nan_inf_fixed": np.array([1.5, nan, -inf], f32),
    "nan_inf_sci": np.array([1e-6, nan, inf, 0.0], f64),
    "only_nonfinite": np.array([nan, inf, -inf], f32),
    "ratio_1000": np.array([1.0, 1000.0], f32),
    "ratio_above_1000": np.array([1.0, 1000.5], f64),
    "ratio_fraction_1000": np.array([0.5, 500.0], f32),
    "max_1e8": np.array([1e8, 2e8], f64),
    "just_1e8": np.array([1e8], f64),
    "min_1e-4": np.array([1e-4, 2e-4], f64),
    "below_1e-4": np.array([0.99e-4], f64),
    "big_int_valued": np.array([12345678.0, -1.0], f32),
    "rounding_width": np.array([9.99996, 0.5], f32),
    "rounding_sci": np.array([9.99996e-5, 1.0], f64),
    "float32_precision": np.array([0.1, 0.7, 1 / 3], f32),
    "float64_precision": np.array([0.1, 0.7, 1 / 3], f64),
    "float16": np.array([0.1, 65504.0, -2.5, 6e-5], np.float16),
    "float16_int": np.array([1, 2, 2048], np.float16),
    "ints": np.array([1, -22, 333, 4444]),
    "int_extremes": np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max]),
    "int32": np.arange(-5, 5, dtype=np.int32),
    "int16": np.array([[1, -300], [7, 8]], np.int16),
    "int8": np.array([-128, 127], np.int8),
    "uint8": np.array([0, 255, 7], np.uint8),
    "bools": np.array([True, False, True]),
    "bools_2d": np.array([[True, False], [False, False]]),
    "complex64": np.array([1 + 2j, -0.5 - 0j, complex(1, -0.0), 3.25j], np.complex64),
    "complex128_sci": np.array([1e-8 + 1j, 1e5 - 2e-3j], np.complex128),
    "complex_nonfinite": np.array([complex(nan, 1), complex(1, inf), complex(0, 0)], np.complex64),
    "complex_2d": (np.arange(6).reshape(2, 3) * (0.5 - 1.25j)).astype(np.complex64),
    "matrix": np.arange(12, dtype=f32).reshape(3, 4) / 7,
    "matrix_neg": -np.arange(12, dtype=f64).reshape(4, 3) * 1.5,
    "cube": np.arange(24, dtype=f32).reshape(2, 3, 4),
    "hyper": np.arange(120, dtype=f32).reshape(2, 3, 4, 5) - 60,
    "hyper_int": np.arange(16).reshape(2, 2, 2, 2),
    "five_d": np.arange(32, dtype=f32).reshape(2, 2, 2, 2, 2) * 0.25,
    "singleton_dims": np.ones((1, 1, 3), f32),
    "wrap_1d": np.linspace(-3, 3, 50).astype(f32),
    "wrap_1d_sci": np.geomspace(1e-6, 1e6, 40),
    "wrap_ints": np.arange(0, 10**6, 9999),
    "wrap_rows": np.linspace(0, 1, 60).astype(f32).reshape(3, 20),
    "wrap_complex": (np.arange(20) * (1.5 + 0.25j)).astype(np.complex64),
    "summarized_1d": np.arange(2000, dtype=f32),
    "summarized_ints": np.arange(1001),
    "summarized_2d": np.arange(1200, dtype=f64).reshape(40, 30) / 3,
    "summarized_2d_short_rows": np.arange(2000, dtype=f32).reshape(1000, 2),
    "summarized_3d": np.arange(4000, dtype=f32).reshape(10, 20, 20),
    "summarized_4d": np.arange(1296).reshape(6, 6, 6, 6) % 7 == 0,
    "summarized_hidden_extremes": np.concatenate([np.ones(3), np.full(1000, 1e12), np.ones(3)]).astype(f32),
    "summarized_complex": (np.arange(1500) * (1 - 1j)).astype(np.complex128),
    "empty_1d": np.zeros(0, f32),
    "empty_2d": np.zeros((0, 3), f32),
    "empty_3d": np.zeros((2, 0, 4), f64),
    "empty_int": np.zeros((0,), np.int64),
    "empty_int_2d": np.zeros((3, 0), np.int32),
    "empty_bool": np.zeros(0, bool),
    "empty_complex": np.zeros((0, 1), np.complex64),
    "empty_float16": np.zeros(0, np.float16),
    "non_contiguous": np.arange(20, dtype=f32).reshape(4, 5).T[::-1],
    "long_suffix_line": np.full(12, 1.23456, f32),
}


HAND_PICKED_CASES = [
    (name, grad)
    for name, arr in HAND_PICKED.items()
    for grad in ([None, "requires_grad", "grad_fn"] if arr.dtype.kind in "fc" else [None])  # only these require grad
]


@pytest.mark.parametrize(("name", "grad"), HAND_PICKED_CASES)
def test_hand_picked(name, grad):
    check(HAND_PICKED[name], grad)


def test_suffix_wraps_to_new_line():
    # The last row ends near column 80, so torch moves the suffix to a line of its own.
    arr = np.full(8, 1.23456, f32)
    got = check(arr, "grad_fn")
    assert got.endswith(",\n       grad_fn=<CloneBackward0>)")


def test_several_suffixes_in_order_and_device():
    got = format_tensor(
        np.array([1.0, 2.0], f64),
        dtype_name="float64",
        device="cuda:0",
        suffixes=[("grad_fn", "<MulBackward0>")],
    )
    assert got == "tensor([1., 2.], device='cuda:0', dtype=torch.float64, grad_fn=<MulBackward0>)"


def test_device_array_prints_like_host_array():
    from myautograd import _backend
    from tests.support import strict_cupy

    arr = np.arange(6, dtype=f32).reshape(2, 3) / 4
    with strict_cupy.installed(_backend) as cupy:
        assert format_tensor(cupy.asarray(arr), dtype_name="float32") == repr(torch.from_numpy(arr))


# ---------------------------------------------------------------- print options

OPTION_SETS = [
    {"precision": 0},
    {"precision": 1},
    {"precision": 2},
    {"precision": 8},
    {"precision": 12},
    {"threshold": 0},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"edgeitems": 1, "threshold": 10},
    {"edgeitems": 10, "threshold": 10},
    {"linewidth": 1},
    {"linewidth": 20},
    {"linewidth": 40},
    {"linewidth": 200},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 2},
    {"sci_mode": False, "precision": 1},
    {"profile": "default"},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
    {"profile": "full", "linewidth": 50, "sci_mode": True},
    {"profile": "no-such-profile"},
]

OPTION_ARRAYS = [
    np.array(2.5, f32),
    np.array(0.0, f32),
    np.array([1.0, 2.0, 3.0], f32),
    np.array([0.123456789, -98.7654321, 1e-7, 0.0, nan], f64),
    np.array([3e9, -1.0, 7.0], f64),
    np.arange(30, dtype=f32) / 9,
    np.arange(2000, dtype=f32) * 1.5,
    np.arange(1500, dtype=f64).reshape(50, 30) ** 1.5,
    np.arange(6000).reshape(10, 20, 30),
    np.arange(3000, dtype=f32).reshape(5, 6, 10, 10) - 1500,
    np.arange(12).reshape(3, 4) % 2 == 0,
    (np.arange(24) * (0.3 + 2j)).astype(np.complex64),
    np.zeros((0, 2), f32),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_printoptions(options):
    both_set_printoptions(**options)
    for arr in OPTION_ARRAYS:
        check(arr)
        if arr.dtype.kind == "f":
            check(arr, "grad_fn")


def test_get_printoptions_defaults_and_reset():
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
    both_set_printoptions(precision=7, sci_mode=True)
    both_set_printoptions(linewidth=100)  # sci_mode goes back to None, precision stays
    assert get_printoptions()["sci_mode"] is None and get_printoptions()["precision"] == 7
    both_set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    both_set_printoptions(profile="default")
    assert get_printoptions() == _printing.get_printoptions()


# ---------------------------------------------------------------- default dtype

DEFAULT_DTYPE_ARRAYS = [
    np.array([1.5, 2.0], f32),
    np.array([1.5, 2.0], f64),
    np.array([1.5, 2.0], np.float16),
    np.array(4.0, f64),
    np.array([1 + 1j], np.complex64),
    np.array([1 + 1j], np.complex128),
    np.array([1, 2]),
    np.array([1, 2], np.int32),
    np.array([True]),
    np.zeros(0, f32),
    np.zeros(0, f64),
    np.zeros((2, 0), np.complex128),
    np.zeros(0, np.float16),
]


@pytest.mark.parametrize("default", [torch.float64, torch.float16, torch.float32])
@pytest.mark.parametrize("index", range(len(DEFAULT_DTYPE_ARRAYS)))
def test_default_dtype(default, index):
    torch.set_default_dtype(default)
    arr = DEFAULT_DTYPE_ARRAYS[index]
    check(arr)
    if arr.dtype.kind in "fc":
        check(arr, "requires_grad")


def test_default_float64_literal():
    torch.set_default_dtype(torch.float64)
    got = format_tensor(np.array([1.0, 2.0], f32), dtype_name="float32", default_float="float64")
    assert got == "tensor([1., 2.], dtype=torch.float32)"
    assert format_tensor(np.array([1.0, 2.0], f64), dtype_name="float64", default_float="float64") == "tensor([1., 2.])"


# ---------------------------------------------------------------- randomized

DTYPES = [f32, f32, f32, f64, f64, np.float16, np.complex64, np.complex128, np.int64, np.int32, np.uint8, np.bool_]


def random_array(rng):
    ndim = int(rng.integers(0, 5))
    if rng.random() < 0.1:
        shape = tuple(int(s) for s in rng.integers(1, 4, size=ndim))
        if ndim:
            shape = (int(rng.integers(300, 1500)),) + shape[1:]
    else:
        shape = tuple(int(s) for s in rng.integers(0 if rng.random() < 0.05 else 1, 7, size=ndim))
    dtype = DTYPES[rng.integers(len(DTYPES))]

    def real_values():
        scale = 10.0 ** rng.uniform(-10, 10)
        spread = 10.0 ** rng.uniform(0, rng.choice([0.5, 3, 12]))
        vals = rng.standard_normal(shape) * scale * np.where(rng.random(shape) < 0.5, 1, spread)
        if rng.random() < 0.3:
            vals = np.round(vals)
        if rng.random() < 0.3:
            vals = np.abs(vals)
        specials = np.array([0.0, -0.0, nan, inf, -inf, 1.0, -1.0])
        mask = rng.random(shape) < rng.choice([0.0, 0.1, 0.4])
        return np.where(mask, specials[rng.integers(len(specials), size=shape)], vals)

    with np.errstate(over="ignore", invalid="ignore"):
        if np.dtype(dtype).kind == "b":
            return np.asarray(rng.random(shape) < 0.5)
        if np.dtype(dtype).kind in "iu":
            info = np.iinfo(dtype)
            vals = np.nan_to_num(real_values() / 10.0 ** rng.uniform(-10, 8), posinf=0, neginf=0)
            return np.asarray(np.clip(np.round(vals), info.min, info.max)).astype(dtype)
        if np.dtype(dtype).kind == "c":
            return np.asarray(real_values() + 1j * real_values()).astype(dtype)
        return np.asarray(real_values()).astype(dtype)


def random_options(rng):
    options = {}
    if rng.random() < 0.5:
        options["precision"] = int(rng.integers(0, 9))
    if rng.random() < 0.4:
        options["threshold"] = int(rng.integers(0, 200))
    if rng.random() < 0.4:
        options["edgeitems"] = int(rng.integers(0, 5))
    if rng.random() < 0.4:
        options["linewidth"] = int(rng.integers(10, 160))
    if rng.random() < 0.3:
        options["sci_mode"] = bool(rng.random() < 0.5)
    return options


@pytest.mark.parametrize("seed", range(300))
def test_random_default_options(seed):
    rng = np.random.default_rng(seed)
    arr = random_array(rng)
    grad = rng.choice([None, "requires_grad", "grad_fn"]) if arr.dtype.kind in "fc" else None
    check(arr, grad)


@pytest.mark.parametrize("seed", range(1000, 1150))
def test_random_with_options(seed):
    rng = np.random.default_rng(seed)
    arr = random_array(rng)
    both_set_printoptions(**random_options(rng))
    if rng.random() < 0.2:
        torch.set_default_dtype(torch.float64)
    grad = rng.choice([None, "requires_grad", "grad_fn"]) if arr.dtype.kind in "fc" else None
    check(arr, grad)


# ---------------------------------------------------------------- cost


def test_large_tensor_is_summarized_quickly():
    import time

    arr = np.random.default_rng(0).standard_normal((1000, 1000)).astype(f32)
    start = time.perf_counter()
    got = format_tensor(arr, dtype_name="float32")
    assert time.perf_counter() - start < 1.0
    assert got == repr(torch.from_numpy(arr))
