"""The operators of op_db this branch implements: the selections along a dim (topk, argsort, msort,
kthvalue, median, nanmedian, mode, aminmax), the scans and NaN-skipping reductions (cummax, cummin,
logcumsumexp, nansum, nanmean), the writes at indices (index_add, index_copy, index_fill, put,
masked_scatter) and diff. The conventions torch's kernels pick where the samples leave a choice (ties, NaN, lines
of even length, ``out=``, repeated indices, broadcasting) against torch (not topk's order of ties, which
torch's partial sort leaves unspecified), and the mutant of ``tests/mutants/opdb_reduce.py`` killed by
its opinfo item."""

from __future__ import annotations

import re
import warnings

import pytest
import torch

import myautograd
from conformance.implementations import REFERENCE, resolve
from tests.test_opdb import REGISTRY, judged, mutant_record

NAN = float("nan")


def both(fn, values):
    """``fn`` on torch and on myautograd, for a tensor of ``values``: each side's results as lists."""
    seen = []
    for t in (torch, myautograd):
        result = fn(t, t.tensor(values, dtype=t.float64))
        seen.append([r.tolist() for r in result] if isinstance(result, tuple) else result.tolist())
    return seen


SELECTIONS = [
    lambda t, x: t.mode(x, 1),  # ties: the smallest of the most frequent values, at its last occurrence
    lambda t, x: t.median(x, 1),  # even lines: the lower middle; a line with NaN: its first NaN
    lambda t, x: t.nanmedian(x, 1),  # the NaNs left out
    lambda t, x: t.nanmedian(x),
    lambda t, x: t.median(x),
    lambda t, x: t.argsort(x, 0, descending=True),
    lambda t, x: t.cummax(x, 1),  # ties move the index on; NaN stays, its index moving to each later NaN
    lambda t, x: t.cummin(x, 1),
    lambda t, x: t.nansum(x, 1),
    lambda t, x: t.nanmean(x, 0),
]


@pytest.mark.parametrize("fn", SELECTIONS, ids=["mode", "median_dim", "nanmedian_dim", "nanmedian", "median", "argsort",
                                                 "cummax", "cummin", "nansum", "nanmean"])
def test_selections_pick_as_torch(fn):
    values = [[3.0, 1.0, 3.0, 1.0, 2.0, 0.5], [5.0, NAN, 4.0, 2.0, 4.0, 0.0], [4.0, 4.0, 1.0, 4.0, 7.0, 8.0]]
    if fn is SELECTIONS[0]:  # mode of a line holding NaN: torch's sort-based kernel gives no defined answer
        values[1][1] = 5.0
    theirs, ours = both(fn, values)
    assert repr(ours) == repr(theirs)  # repr: NaN equals NaN


@pytest.mark.parametrize("call, message", [
    (lambda t: t.topk(t.zeros(3), 4), "selected index k out of range"),
    (lambda t: t.kthvalue(t.zeros(2, 2), 3), "kthvalue(): selected number k out of range for dimension 1"),
    (lambda t: t.kthvalue(t.tensor(2), 0), "kthvalue(): selected number k out of range for dimension 0"),
    (lambda t: t.median(t.zeros(0, 2), 0), "median(): Expected reduction dim 0 to have non-zero size."),
    # aminmax's invalid calls 3 and 4 of op_db, which its scenario does not reach (it stops at call 2: a 65-dim
    # tensor NumPy cannot hold), and its refusal of an empty tensor
    (lambda t: t.aminmax(t.zeros(4, 4), dim=0, out=(t.empty(4), t.empty(4, dtype=t.float64))),
     "Expected out tensor to have dtype float, but got double instead"),
    (lambda t: t.aminmax(t.zeros(5, 0, 5), dim=1), "aminmax: Expected reduction dim 1 to have non-zero size."),
    (lambda t: t.aminmax(t.zeros(5, 0, 5)),
     "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."),
    (lambda t: t.index_add(t.zeros(3, 2), 0, t.tensor([0, 2]), t.ones(2)),
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3, 2] "
     "source.shape = [2]"),
    (lambda t: t.masked_scatter(t.zeros(3), t.ones(3), t.ones(3)),
     "masked_scatter_ only supports boolean masks, but got mask with dtype Float"),
    (lambda t: t.diff(t.zeros(1, 3), -1), "order must be non-negative but got -1"),
    (lambda t: t.diff(t.tensor(1.0)), "diff expects input to be at least one-dimensional"),
    (lambda t: t.diff(t.zeros(2, 3), prepend=t.zeros(3)),
     "diff expects prepend or append to be the same dimension as input"),
    (lambda t: t.nanmean(t.tensor([1, 2])), "nanmean(): expected input to have floating point or complex dtype but "
                                            "got Long"),
    (lambda t: t.logcumsumexp(t.zeros(5, 2), 2), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
])
def test_invalid_selections_raise_torch_s_error(call, message):
    for t in (torch, myautograd):
        with pytest.raises((RuntimeError, IndexError), match="^" + re.escape(message)):
            call(t)


def test_kthvalue_out_resizes_as_torch_with_one_warning():
    """torch sizes both outputs with the dim kept first, warning for the values only, then drops the dim."""
    seen = []
    for t in (torch, myautograd):
        values, indices = t.zeros(10), t.tensor(7)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.kthvalue(t.arange(10.0).flip(0), 3, out=(values, indices))
        seen.append((values.tolist(), indices.tolist(), [str(w.message).split(" (Triggered")[0] for w in caught]))
    assert seen[1] == seen[0]
    assert len(seen[0][2]) == 1 and "[10]" in seen[0][2][0]


def test_selections_record_torch_s_nodes():
    for t in (torch, myautograd):
        x = t.tensor([[1.0, 3.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
        names = [type(r.grad_fn).__name__ for r in (t.topk(x, 2).values, t.kthvalue(x, 1).values, x.median(),
                                                    x.median(0).values, x.nanmedian(), x.nanmedian(1).values,
                                                    x.mode(0).values, t.msort(x), x.cummax(1).values,
                                                    x.cummin(0).values, x.logcumsumexp(1), x.nansum(), x.nanmean(0),
                                                    x.aminmax().min, x.aminmax(dim=1).max)]
        assert names == ["TopkBackward0", "KthvalueBackward0", "MedianBackward0", "MedianBackward1",
                         "NanmedianBackward0", "NanmedianBackward1", "ModeBackward0", "SortBackward0",
                         "CummaxBackward0", "CumminBackward0", "LogcumsumexpBackward0", "NansumBackward0",
                         "DivBackward0", "AminmaxBackward0", "AminmaxBackward0"], t


def test_aminmax_s_gradient_splits_ties_and_its_out_as_torch_s():
    seen = []
    for t in (torch, myautograd):
        x = t.tensor([[1.0, 5.0, 1.0], [5.0, 2.0, 6.0]], requires_grad=True)
        low, high = t.aminmax(x, dim=0, keepdim=True)
        (g_both,) = t.autograd.grad((low * 2).sum() + high.sum(), x)
        (g_min,) = t.autograd.grad(t.aminmax(x).min, x)  # the max got no gradient; ties share
        lows, highs = t.zeros(2), t.zeros(2)
        t.aminmax(x.detach(), dim=1, out=(lows, highs))
        seen.append((g_both.tolist(), g_min.tolist(), lows.tolist(), highs.tolist()))
    assert seen[1] == seen[0]


def test_nansum_s_gradient_is_zero_at_the_nans_and_logcumsumexp_s_is_torch_s():
    values = [[1.0, NAN, -2.0], [NAN, 30.0, 31.0]]
    seen = []
    for t in (torch, myautograd):
        x = t.tensor(values, dtype=t.float64, requires_grad=True)
        weights = t.tensor([[0.5, -1.0, 2.0], [1.5, -0.25, 1.0]], dtype=t.float64)
        (g_sum,) = t.autograd.grad(t.nansum(x, 0), x, weights[0])
        (g_mean,) = t.autograd.grad(t.nanmean(x), x)
        y = t.tensor([[1.0, 2.0, 3.0], [40.0, 41.0, -5.0]], dtype=t.float64, requires_grad=True)
        (g_log,) = t.autograd.grad(t.logcumsumexp(y, 1), y, weights)  # gradients of both signs
        seen.append((g_sum.tolist(), g_mean.tolist(), sum(g_log.tolist(), [])))
    assert seen[1][:2] == seen[0][:2]
    assert seen[1][2] == pytest.approx(seen[0][2], rel=1e-12, abs=1e-30)


def test_the_mutant_of_median_s_upper_middle_is_killed_by_op_db():
    """The hand-written table has no median case; op_db's sample 3 is a line of two elements."""
    median = REGISTRY.get("opinfo.median.default")
    assert judged(median, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record("median_upper_middle", median, "float64")
    assert record["outcome"] == "fail", record
    assert record["diff"][0]["aspect"] == "value", record["diff"][0]


def test_writes_at_indices_give_torch_s_gradients():
    """Repeated indices (index_fill's value counts each position once), a 0-dim value, put overwriting,
    and masked_scatter broadcasting its input to the mask's shape (the input's gradient summed back)."""
    seen = []
    for t in (torch, myautograd):
        x = t.arange(12.0, dtype=t.float64).reshape(3, 4).requires_grad_()
        v = t.tensor(2.0, dtype=t.float64, requires_grad=True)
        row = t.arange(4.0, dtype=t.float64, requires_grad=True)
        source = t.arange(20.0, dtype=t.float64, requires_grad=True)
        weights = t.arange(12.0, dtype=t.float64).reshape(3, 4) - 5
        outs = [t.index_fill(x, 1, t.tensor([3, 0, 3]), v), x.put(t.tensor([1, -1, 1]), source[:3]),
                t.masked_scatter(row, t.tensor([[True, False, True, True]] * 3), source),
                x.index_add(0, t.tensor([2, 2]), source[:8].reshape(2, 4), alpha=-1)]
        grads = [t.autograd.grad(out, [x, v, row, source], weights, allow_unused=True, materialize_grads=True)
                 for out in outs]
        seen.append(([out.tolist() for out in outs], [[g.tolist() for g in gs] for gs in grads]))
    assert seen[1] == seen[0]


def test_masked_scatter_warns_for_a_uint8_mask_as_torch():
    seen = []
    for t in (torch, myautograd):
        with warnings.catch_warnings(record=True) as caught, pytest.raises(RuntimeError):
            warnings.simplefilter("always")
            t.masked_scatter(t.zeros(3), t.ones(3, dtype=t.uint8), t.ones(3))
        seen.append([str(w.message).split(" (Triggered")[0] for w in caught])
    assert seen[1] == seen[0] and len(seen[0]) == 1


def test_diff_is_composed_as_torch_s():
    """Joined with prepend/append, n differences (n beyond the length leaves an empty tensor), n=0 a copy,
    bool by logical_xor: the values, the nodes (the first two levels) and the gradients of torch."""
    seen = []
    for t in (torch, myautograd):
        x = t.arange(12.0, dtype=t.float64).reshape(3, 4).pow(2).requires_grad_()
        ends = t.ones(3, 1, dtype=t.float64, requires_grad=True)
        outs = [t.diff(x), t.diff(x, 0, 0), t.diff(x, 2, 1, ends, ends), t.diff(x, 9, 0)]
        nodes = [(type(o.grad_fn).__name__, [type(n).__name__ for n, _ in o.grad_fn.next_functions]) for o in outs]
        grads = [[g.tolist() for g in t.autograd.grad(o, [x, ends], t.ones_like(o), allow_unused=True,
                                                      materialize_grads=True)] for o in outs]
        seen.append(([o.tolist() for o in outs], nodes, grads, t.diff(t.tensor([True, False, False])).tolist()))
    assert seen[1] == seen[0]
