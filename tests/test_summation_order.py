"""float32 and float64 sums add in torch's CPU order, so their last bits are torch's (``myautograd/_summation.py``).

NumPy's pairwise order gave another last bit for about half of these sums; a training loop that
branches on a loss (``if loss.item() < threshold``) then took another branch than torch.
torch runs with one thread here: with several, it splits a reduction of 32,768 elements or more
among them (the module's docstring says so).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd

SHAPES = [(5,), (7,), (8,), (31,), (100,), (4097,), (64, 1), (32, 10), (10, 33), (3, 70), (17, 9, 5), (6, 1, 40, 3)]


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _pairs(shape, dtype, seed, transpose=False):
    values = np.random.default_rng(seed).standard_normal(shape).astype(dtype) ** 2
    if transpose:
        values = values.T
    return torch.from_numpy(values), myautograd.from_numpy(values)


def _bits(theirs, ours):
    assert ours.numpy().tobytes() == theirs.numpy().tobytes(), (ours, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sum_and_mean_over_every_dimension_set(shape, dtype):
    for seed in range(4):
        for transpose in (False, True):
            theirs, ours = _pairs(shape, dtype, seed, transpose)
            _bits(theirs.sum(), ours.sum())
            _bits(theirs.mean(), ours.mean())
            for dim in range(len(shape)):
                _bits(theirs.sum(dim), ours.sum(dim))
                _bits(theirs.mean(dim, keepdim=True), ours.mean(dim, keepdim=True))
            if len(shape) > 2:
                _bits(theirs.sum((0, 2)), ours.sum((0, 2)))


def test_a_sum_in_a_wider_dtype_adds_the_widened_values():
    """``x.sum(dtype=torch.float64)`` of float32 values: cast first, then added in float64 (as torch)."""
    values = np.random.default_rng(8).standard_normal((2, 3, 5)).astype(np.float32)
    for dims in (None, 1, (0, 2)):
        theirs = torch.from_numpy(values).sum(dims, dtype=torch.float64) if dims is not None else \
            torch.from_numpy(values).sum(dtype=torch.float64)
        ours = myautograd.from_numpy(values).sum(dims, dtype=myautograd.float64) if dims is not None else \
            myautograd.from_numpy(values).sum(dtype=myautograd.float64)
        _bits(theirs, ours)


def test_a_reduced_dimension_of_size_one_and_negative_zero():
    theirs, ours = torch.tensor([[-0.0, -0.0]]), myautograd.tensor([[-0.0, -0.0]])
    _bits(theirs.sum(0), ours.sum(0))
    _bits(theirs.sum(), ours.sum())


def test_gradients_that_sum_over_a_batch_have_torch_bits():
    """A bias gradient (``sum_to`` over the batch and a kept dimension of size 1) and a broadcast scale's."""
    rng = np.random.default_rng(5)
    x, scale, bias = (rng.standard_normal(s).astype(np.float32) for s in [(96, 1, 13), (1, 13), (5, 1)])
    grads = {}
    for lib in (torch, myautograd):
        leaves = [lib.tensor(v, requires_grad=True) for v in (x, scale, bias)]
        out = leaves[0] * leaves[1] + leaves[2]
        (out * out).mean().backward()
        grads[lib] = [leaf.grad.numpy() for leaf in leaves]
    for theirs, ours in zip(grads[torch], grads[myautograd], strict=True):
        assert ours.tobytes() == theirs.tobytes()


def test_a_mean_squared_error_equals_torchs_to_the_bit():
    rng = np.random.default_rng(6)
    for n in (32, 100, 513):
        a, b = (rng.standard_normal((n, 1)).astype(np.float32) for _ in range(2))
        theirs = torch.nn.functional.mse_loss(torch.from_numpy(a), torch.from_numpy(b))
        ours = myautograd.nn.functional.mse_loss(myautograd.from_numpy(a), myautograd.from_numpy(b))
        assert ours.item() == theirs.item()


def test_a_planted_order_bug_is_caught():
    """The mutant ``sum_not_interleaved`` (tests/mutants/summation_order.py) makes these comparisons fail."""
    from myautograd import _summation
    from tests.mutants import MUTANTS

    original = _summation._interleaved
    try:
        MUTANTS["sum_not_interleaved"].apply()
        assert _summation._interleaved is not original
        with pytest.raises(AssertionError):
            test_sum_and_mean_over_every_dimension_set((100,), np.float32)
    finally:
        _summation._interleaved = original
    test_sum_and_mean_over_every_dimension_set((100,), np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_sums_take_the_short_path_with_the_general_paths_bits(monkeypatch, dtype):
    """A row-major matrix summed over its rows (``_column_sums``, three NumPy calls) against the general pipeline
    on the same values, and against torch: rows below, at and above a chunk, with and without an unfinished one."""
    from myautograd import _summation

    shapes = [(rows, columns) for rows in (2, 3, 15, 16, 17, 33, 64, 100, 255) for columns in (16, 32, 64, 96)]
    values = [np.random.default_rng(rows * 1000 + columns).standard_normal((rows, columns)).astype(dtype)
              for rows, columns in shapes]
    short = [_summation.sum_array(v, (0,)) for v in values]
    assert sum(_summation._plan(v.shape, v.strides, v.dtype, (0,), False).columns is not None for v in values) > 20
    _summation._plan.cache_clear()
    monkeypatch.setattr(_summation, "_column_sums", lambda *args: None)
    general = [_summation.sum_array(v, (0,)) for v in values]
    _summation._plan.cache_clear()
    for v, a, b in zip(values, short, general):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, torch.from_numpy(v).sum(0).numpy())
