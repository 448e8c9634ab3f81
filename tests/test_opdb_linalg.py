"""The products and linear algebra ops implemented for torch's op_db (``opinfo.addmv``, ``opinfo.addbmm``,
``opinfo.addr``...): their invalid calls refused with torch's exception types and messages, their
broadcast inputs, and the mutants of ``tests/mutants/opdb_linalg.py`` killed by their opinfo items.
(Values, node names, derivatives of both orders and forward mode are checked against torch by the
opinfo cases and by ``LINALG_OPS`` of ``tests/support/operators.py``.)"""

from __future__ import annotations

import warnings

import pytest
import torch

import myautograd
from conformance.implementations import REFERENCE, resolve
from tests.test_opdb import REGISTRY, judged, mutant_record


def _raised(library, call):
    with pytest.raises(Exception) as info:
        call(library)
    return type(info.value).__name__, str(info.value)  # torch.linalg.LinAlgError is torch._C._LinAlgError


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
    "block_diag_dims": lambda t: t.block_diag(t.ones(2), t.ones(2, 2, 2)),
    "meshgrid_empty": lambda t: t.meshgrid([], indexing="ij"),
    "meshgrid_indexing": lambda t: t.meshgrid(t.ones(3), indexing="ji"),
    "meshgrid_dtypes": lambda t: t.meshgrid(t.ones(3), t.ones(2, dtype=t.float64), indexing="ij"),
    "combinations_dims": lambda t: t.combinations(t.ones(2, 3)),
    "combinations_negative": lambda t: t.combinations(t.ones(3), -1),
    "cartesian_prod_dims": lambda t: t.cartesian_prod(t.ones(3), t.ones(2, 2)),
    "repeat_interleave_negative": lambda t: t.repeat_interleave(t.ones(3), -1),
    "repeat_interleave_negative_tensor": lambda t: t.repeat_interleave(t.ones(3), t.tensor([1, -1, 1])),
    "repeat_interleave_sizes": lambda t: t.repeat_interleave(t.ones(3), t.tensor([1, 1])),
    "repeat_interleave_dims": lambda t: t.repeat_interleave(t.ones(3), t.tensor([[1, 1, 1]])),
    "repeat_interleave_floats": lambda t: t.repeat_interleave(t.ones(3), t.tensor([1.0, 1.0, 1.0])),
    "repeat_interleave_output_size": lambda t: t.repeat_interleave(t.ones(3), t.tensor([1, 1, 1]), output_size=5),
    "repeat_interleave_dim": lambda t: t.repeat_interleave(t.ones(3), 2, dim=3),
    "diag_embed_same_dims": lambda t: t.diag_embed(t.ones(2, 3), dim1=-1, dim2=2),
    "diag_embed_dim_range": lambda t: t.diag_embed(t.ones(2, 3), dim2=10000),
    "vector_norm_integers": lambda t: t.linalg.vector_norm(t.ones(3, dtype=t.int64)),
    "vector_norm_order_string": lambda t: t.linalg.vector_norm(t.ones(3), "fro"),
    "vector_norm_narrowing_dtype": lambda t: t.linalg.vector_norm(t.ones(3), dtype=t.float16),
    "vector_norm_integer_dtype": lambda t: t.linalg.vector_norm(t.ones(3), dtype=t.int64),
    "vector_norm_complex_dtype": lambda t: t.linalg.vector_norm(t.ones(3), dtype=t.complex128),
    "vector_norm_real_dtype_of_complex": lambda t: t.linalg.vector_norm(t.ones(3, dtype=t.complex64), dtype=t.float32),
    "vector_norm_inf_of_empty": lambda t: t.linalg.vector_norm(t.ones(0), float("inf")),
    "vector_norm_negative_of_empty_dim": lambda t: t.linalg.vector_norm(t.ones(2, 0), -0.5, 1),
    "vector_norm_dim_range": lambda t: t.linalg.vector_norm(t.ones(2, 2), 3, 5),
    "matrix_norm_order": lambda t: t.linalg.matrix_norm(t.ones(2, 2), 3),
    "matrix_norm_order_string": lambda t: t.linalg.matrix_norm(t.ones(2, 2), "foo"),
    "matrix_norm_vector": lambda t: t.linalg.matrix_norm(t.ones(2)),
    "matrix_norm_dims": lambda t: t.linalg.matrix_norm(t.ones(2, 2, 2), dim=(0, 1, 2)),
    "matrix_norm_same_dims": lambda t: t.linalg.matrix_norm(t.ones(2, 2), dim=(0, -2)),
    "matrix_norm_integers": lambda t: t.linalg.matrix_norm(t.ones(2, 2, dtype=t.int64)),
    "norm_dims": lambda t: t.linalg.norm(t.ones(2, 2, 2), 2, (0, 1, 2)),
    "norm_order_of_3d": lambda t: t.linalg.norm(t.ones(2, 2, 2), 2),
    "norm_string_order_of_3d": lambda t: t.linalg.norm(t.ones(2, 2, 2), "fro"),
    "norm_string_order_dims": lambda t: t.linalg.norm(t.ones(2, 2, 2), "nuc", (0,)),
    "inv_vector": lambda t: t.linalg.inv(t.ones(2)),
    "inv_not_square": lambda t: t.linalg.inv(t.ones(2, 3)),
    "inv_integers": lambda t: t.linalg.inv(t.ones(2, 2, dtype=t.int64)),
    "inv_singular": lambda t: t.linalg.inv(t.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "inv_singular_batch_element": lambda t: t.linalg.inv(t.stack([t.eye(2), t.zeros(2, 2)])),
    "solve_singular": lambda t: t.linalg.solve(t.zeros(2, 2), t.ones(2)),
    "solve_singular_batch_element": lambda t: t.linalg.solve(t.zeros(2, 2, 2), t.ones(2, 2)),
    "solve_not_square": lambda t: t.linalg.solve(t.ones(2, 3), t.ones(2)),
    "solve_shapes": lambda t: t.linalg.solve(t.ones(2, 2), t.ones(3)),
    "solve_dtypes": lambda t: t.linalg.solve(t.ones(2, 2), t.ones(2, dtype=t.float64)),
    "solve_vector_a": lambda t: t.linalg.solve(t.ones(2), t.ones(2)),
    "det_not_square": lambda t: t.linalg.det(t.ones(2, 3)),
    "det_vector": lambda t: t.linalg.det(t.ones(2)),
    "det_integers": lambda t: t.linalg.det(t.ones(2, 2, dtype=t.int64)),
    "slogdet_not_square": lambda t: t.linalg.slogdet(t.ones(2, 3)),
    "slogdet_integers": lambda t: t.linalg.slogdet(t.ones(2, 2, dtype=t.int64)),
    "logdet_not_square": lambda t: t.logdet(t.ones(2, 3)),
    "logdet_integers": lambda t: t.logdet(t.ones(2, 2, dtype=t.int64)),
    "multi_dot_one": lambda t: t.linalg.multi_dot([t.ones(2, 2)]),
    "multi_dot_first_dims": lambda t: t.linalg.multi_dot([t.ones(2, 2, 2), t.ones(2, 2)]),
    "multi_dot_last_dims": lambda t: t.linalg.multi_dot([t.ones(2, 2), t.ones(2, 2, 2)]),
    "multi_dot_middle_dims": lambda t: t.linalg.multi_dot([t.ones(2, 2), t.ones(2), t.ones(2, 2)]),
    "multi_dot_dtypes": lambda t: t.linalg.multi_dot([t.ones(2, 2), t.ones(2, 2, dtype=t.int64)]),
    "multi_dot_shapes": lambda t: t.linalg.multi_dot([t.ones(2, 3), t.ones(2, 2)]),
    "matrix_power_vector": lambda t: t.linalg.matrix_power(t.ones(3), 2),
    "matrix_power_not_square": lambda t: t.linalg.matrix_power(t.ones(2, 3), 2),
    "matrix_power_negative_of_integers": lambda t: t.linalg.matrix_power(t.ones(2, 2, dtype=t.int64), -1),
    "matrix_power_negative_of_singular": lambda t: t.linalg.matrix_power(t.ones(2, 2), -1),
    "svdvals_vector": lambda t: t.linalg.svdvals(t.ones(3)),
    "svdvals_integers": lambda t: t.linalg.svdvals(t.ones(2, 2, dtype=t.int64)),
    "svdvals_half": lambda t: t.linalg.svdvals(t.ones(2, 2, dtype=t.float16)),
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


ARRANGEMENTS = {
    "repeated_indices": lambda t: t.repeat_interleave(t.tensor([1, 0, 2])),
    "repeats_flattened": lambda t: t.repeat_interleave(t.arange(6.0).reshape(2, 3), 2),
    "one_repeat_count_for_all": lambda t: t.repeat_interleave(t.arange(6.0).reshape(2, 3), t.tensor([2]), dim=0),
    "block_diag_of_nothing": lambda t: t.block_diag(),
    "block_diag_promoted": lambda t: t.block_diag(t.tensor(2), t.ones(2, dtype=t.float64)),
    "combinations_of_three": lambda t: t.combinations(t.arange(4.0), 3),
    "combinations_of_none": lambda t: t.combinations(t.arange(4.0), 0),
    "combinations_longer_than_the_vector": lambda t: t.combinations(t.arange(4.0), 5),
    "diag_embed_below_in_front": lambda t: t.diag_embed(t.arange(6.0).reshape(2, 3), -1, 0, 2),
    "inv_ex_info_of_a_singular_matrix": lambda t: t.linalg.inv_ex(t.tensor([[[1.0, 2.0], [3.0, 4.0]],
                                                                           [[1.0, 2.0], [2.0, 4.0]]])).info,
    "solve_ex_info_of_a_singular_matrix": lambda t: t.linalg.solve_ex(t.zeros(3, 3), t.ones(3)).info,
    "logdet_of_a_negative_determinant": lambda t: t.logdet(-t.eye(3)),
    "slogdet_of_a_singular_matrix": lambda t: t.stack(list(t.linalg.slogdet(t.zeros(2, 2)))),
    "multi_dot_of_vectors": lambda t: t.linalg.multi_dot([t.arange(3.0), t.ones(3, 4), t.arange(4.0)]),
    "multi_dot_of_integers": lambda t: t.linalg.multi_dot([t.ones(2, 2, dtype=t.int64)] * 3),
    "matrix_power_of_integers": lambda t: t.linalg.matrix_power(t.arange(4).reshape(2, 2), 7),
    "matrix_power_zero": lambda t: t.linalg.matrix_power(t.arange(8.0).reshape(2, 2, 2), 0),
    "meshgrid_xy": lambda t: t.stack(t.meshgrid(t.arange(3.0), t.arange(2.0), t.tensor(5.0), indexing="xy")),
}


@pytest.mark.parametrize("name", sorted(ARRANGEMENTS))
def test_arrangements_give_torch_s_values_dtypes_and_shapes(name):
    expected, got = ARRANGEMENTS[name](torch), ARRANGEMENTS[name](myautograd)
    assert (str(got.tolist()), str(got.dtype), tuple(got.shape)) == (str(expected.tolist()), str(expected.dtype),
                                                                       tuple(expected.shape))  # str: NaN as NaN


def test_meshgrid_without_indexing_warns_once_and_takes_ij():
    for library in (torch, myautograd):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grids = [library.meshgrid(library.ones(3), library.ones(2)) for _ in range(2)]
        assert [tuple(grid.shape) for grid in grids[0]] == [(3, 2), (3, 2)]
        assert len(caught) <= 1  # once per process (an earlier test may have warned already)
        assert all(str(w.message).startswith("torch.meshgrid: in an upcoming release, it will be required to pass "
                                             "the indexing argument.") for w in caught)


def test_multi_dot_multiplies_in_torch_s_order():
    """Five matrices whose cheapest order is neither left to right nor right to left: the graph's products
    are those of torch's order (their operand shapes, read from the saved tensors)."""
    shapes = [(10, 2), (2, 30), (30, 3), (3, 40), (40, 4)]

    def products(library):
        matrices = [library.ones(shape, requires_grad=True) for shape in shapes]
        out = library.linalg.multi_dot(matrices)
        seen, stack = [], [out.grad_fn]
        while stack:
            node = stack.pop()
            if node is None:
                continue
            if type(node).__name__ == "MmBackward0":
                seen.append((tuple(node._saved_self.shape), tuple(node._saved_mat2.shape)))
            stack.extend(next_node for next_node, _ in node.next_functions)
        return out.tolist(), seen

    assert products(myautograd) == products(torch)


def test_kron_and_inner_record_torch_s_nodes():
    for library in (torch, myautograd):
        a = library.ones(2, 3, requires_grad=True)
        assert type(library.kron(a, library.ones(4)).grad_fn).__name__ == "UnsafeViewBackward0"
        assert type(library.inner(a, library.ones(4, 3)).grad_fn).__name__ == "ViewBackward0"
        assert type(library.linalg.vecdot(a[0], library.ones(3)).grad_fn).__name__ == "VdotBackward0"
        singular_values = library.linalg.svdvals(a)
        assert (type(singular_values.grad_fn).__name__, singular_values.output_nr) == ("LinalgSvdBackward0", 1)


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


def test_the_mutant_of_matrix_norm_s_infinity_norms_is_killed_by_op_db():
    """opinfo.linalg.matrix_norm's sample 2 takes the -inf norm of a 2x2 matrix (its smallest row sum)."""
    record = _killed("matrix_norm_inf_as_one_norm", "opinfo.linalg.matrix_norm.default", "float64")
    assert record["diff"][0]["aspect"] == "value", record["diff"][0]
