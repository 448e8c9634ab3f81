"""The products and linear algebra ops implemented for torch's op_db (``opinfo.addmv``, ``opinfo.addbmm``,
``opinfo.addr``...): their invalid calls refused with torch's exception types and messages, their
broadcast inputs, and the mutants of ``tests/mutants/opdb_linalg.py`` killed by their opinfo items.
(Values, node names, derivatives of both orders and forward mode are checked against torch by the
opinfo cases and by ``LINALG_OPS`` of ``tests/support/operators.py``.)"""

from __future__ import annotations

import pytest
import torch

import myautograd
from conformance.implementations import REFERENCE, resolve
from tests.test_opdb import REGISTRY, judged, mutant_record


def _raised(library, call):
    with pytest.raises(Exception) as info:
        call(library)
    return type(info.value), str(info.value)


INVALID_CALLS = {
    "addmv_vector_size": lambda t: t.addmv(t.ones(5), t.ones(5, 10), t.ones(9)),
    "addmv_input_size": lambda t: t.addmv(t.ones(3), t.ones(5, 10), t.ones(10)),
    "addmv_input_dims": lambda t: t.addmv(t.ones(2, 5), t.ones(5, 10), t.ones(10)),
    "addmv_matrix_dims": lambda t: t.addmv(t.ones(5), t.ones(5), t.ones(10)),
    "addmv_dtypes": lambda t: t.addmv(t.ones(5, dtype=t.float64), t.ones(5, 10), t.ones(10)),
    "addbmm_batch1_dims": lambda t: t.addbmm(t.ones(5, 10), t.ones(5, 5), t.ones(5, 5, 10)),
    "addbmm_batch2_dims": lambda t: t.addbmm(t.ones(5, 10), t.ones(5, 5, 5), t.ones(5, 10)),
    "addbmm_batches": lambda t: t.addbmm(t.ones(5, 10), t.ones(4, 5, 5), t.ones(5, 5, 10)),
    "addbmm_inner_size": lambda t: t.addbmm(t.ones(5, 10), t.ones(5, 5, 4), t.ones(5, 5, 10)),
    "addbmm_input_size": lambda t: t.addbmm(t.ones(4, 10), t.ones(5, 5, 5), t.ones(5, 5, 10)),
    "addbmm_dtypes": lambda t: t.addbmm(t.ones(5, 10), t.ones(5, 5, 5), t.ones(5, 5, 10, dtype=t.float64)),
    "addr_vec1_dims": lambda t: t.addr(t.ones(5, 10), t.ones(5, 1), t.ones(10)),
    "addr_vec2_dims": lambda t: t.addr(t.ones(5, 10), t.ones(5), t.ones(10, 1)),
    "addr_input_size": lambda t: t.addr(t.ones(4, 10), t.ones(5), t.ones(10)),
    "cross_no_dim_of_three": lambda t: t.cross(t.ones(2, 2), t.ones(2, 2)),
    "linalg_cross_dims": lambda t: t.linalg.cross(t.ones(2, 3), t.ones(3)),
    "linalg_cross_length": lambda t: t.linalg.cross(t.ones(2, 3), t.ones(2, 3), dim=0),
    "linalg_cross_dim_range": lambda t: t.linalg.cross(t.ones(2, 3), t.ones(2, 3), dim=2),
    "linalg_cross_broadcast": lambda t: t.linalg.cross(t.ones(2, 3), t.ones(4, 3)),
    "linalg_cross_dtypes": lambda t: t.linalg.cross(t.ones(2, 3), t.ones(2, 3, dtype=t.float64)),
    "inner_last_dims": lambda t: t.inner(t.ones(2, 3), t.ones(2, 2)),
    "vecdot_integers": lambda t: t.linalg.vecdot(t.ones(3, dtype=t.int64), t.ones(3, dtype=t.int64)),
    "vecdot_dtypes": lambda t: t.linalg.vecdot(t.ones(3), t.ones(3, dtype=t.float64)),
    "vecdot_vector_sizes": lambda t: t.linalg.vecdot(t.ones(3), t.ones(4)),
    "vecdot_broadcast": lambda t: t.linalg.vecdot(t.ones(2, 3), t.ones(2, 4)),
}


@pytest.mark.parametrize("name", sorted(INVALID_CALLS))
def test_invalid_calls_raise_torch_s_exception_and_message(name):
    assert _raised(myautograd, INVALID_CALLS[name]) == _raised(torch, INVALID_CALLS[name])


@pytest.mark.parametrize("beta", [0, 0.5])
def test_a_zero_beta_ignores_the_input_nan_included(beta):
    for library in (torch, myautograd):
        out = library.addr(library.tensor([[float("nan")], [1.0]]), library.ones(2), library.ones(3), beta=beta)
        assert bool(out.isnan().any()) == (beta != 0)
        assert tuple(out.shape) == (2, 3)


def test_cross_without_dim_takes_the_first_dim_of_three_and_warns_once_as_torch():
    script = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    first = torch.cross(torch.ones(2, 3, 3).cumsum(1), torch.ones(2, 3, 3).cumsum(2))\n"
        "    second = torch.cross(torch.ones(1, 3), torch.ones(5, 3).cumsum(1))\n"
        "messages = [str(w.message).split(' (Triggered')[0] for w in caught]\n")
    results = []
    for library in (torch, myautograd):
        namespace = {"torch": library}
        exec(script, namespace)  # noqa: S102 - the same lines on both libraries
        results.append((namespace["first"].tolist(), namespace["second"].tolist(), namespace["messages"]))
    assert results[0] == results[1]
    assert len(results[0][2]) <= 1  # once per process (an earlier test may have warned already)


def test_kron_and_inner_record_torch_s_nodes():
    for library in (torch, myautograd):
        a = library.ones(2, 3, requires_grad=True)
        assert type(library.kron(a, library.ones(4)).grad_fn).__name__ == "UnsafeViewBackward0"
        assert type(library.inner(a, library.ones(4, 3)).grad_fn).__name__ == "ViewBackward0"
        assert type(library.linalg.vecdot(a[0], library.ones(3)).grad_fn).__name__ == "VdotBackward0"


def _killed(mutant: str, case_id: str, dtype: str) -> dict:
    case = REGISTRY.get(case_id)
    assert judged(case, resolve(REFERENCE), resolve("myautograd"), dtype=dtype)["outcome"] == "pass"
    record = mutant_record(mutant, case, dtype)
    assert record["outcome"] == "fail", record
    return record


def test_the_mutant_of_addbmm_s_unscaled_gradient_is_killed_by_op_db():
    """opinfo.addbmm's samples 3, 4 and 6 take alpha=0.6."""
    record = _killed("addbmm_batch1_gradient_unscaled", "opinfo.addbmm.default", "float64")
    assert record["diff"][0]["aspect"] == "gradient", record["diff"][0]


def test_the_mutant_of_addr_s_tangent_without_beta_is_killed_by_op_db():
    """opinfo.addr's samples 3 and 4 take beta=0.2; only the forward-mode step sees the tangent."""
    record = _killed("addr_tangent_without_beta", "opinfo.addr.default", "float64")
    assert "forward-mode tangents" in str(record["diff"][0]), record["diff"][0]
