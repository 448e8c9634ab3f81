"""The benchmark workloads compute the same thing on myautograd as on torch.

A speed ratio means something only when both libraries do the same work: each workload's first
step gives the same values on both (within float32 rounding). The per-sample-gradient workload
must also run on myautograd's batching rules, with no loop fallback (the warning torch's
``vmap`` fallback gives, which myautograd's gives too).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd
from benchmarks.workloads import WORKLOADS

# The 100,000-op chain is the 1000-op chain a hundred times longer: compared there, at a tenth of the time.
COMPARED = [name for name in WORKLOADS if name != "chain_100000_ops"]


def as_arrays(value) -> list[np.ndarray]:
    """A step's result (a tensor, or a tuple of them) as NumPy arrays."""
    if isinstance(value, (tuple, list)):
        return [array for part in value for array in as_arrays(part)]
    return [np.asarray(value.detach().cpu().numpy())]


@pytest.mark.parametrize("workload", COMPARED)
def test_workload_gives_torchs_values(workload):
    expected = as_arrays(WORKLOADS[workload](torch)())
    got = as_arrays(WORKLOADS[workload](myautograd)())
    assert [array.shape for array in got] == [array.shape for array in expected]
    for mine, reference in zip(got, expected):
        np.testing.assert_allclose(mine, reference, rtol=2e-4, atol=2e-5)


def test_per_sample_gradients_need_no_loop_fallback():
    step = WORKLOADS["per_sample_grads"](myautograd)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step()
    assert [str(w.message) for w in caught if "performance drop" in str(w.message)] == []
