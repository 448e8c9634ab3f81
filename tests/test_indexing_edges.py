"""gather, scatter and their kin at the edges torch's op_db samples reach: an index smaller than the input,
0-dim tensors, empty indices, negative indices, and the refusals with torch's exact messages.

Each call runs on torch and on myautograd; both must give the same values, shape and node name, or raise
the same exception type with the same message.
"""

from __future__ import annotations

import pytest
import torch

import myautograd


def _observed(namespace, call):
    try:
        result = call(namespace)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    parts = result if isinstance(result, tuple) else (result,)
    return [(tuple(part.shape), part.tolist(), part.grad_fn.name() if part.grad_fn else None) for part in parts]


def _leaf(t, shape):
    return t.arange(float(max(1, _numel(shape)))).reshape(shape).requires_grad_()


def _numel(shape):
    count = 1
    for n in shape:
        count *= n
    return count


def _index(t, values, dtype="int64"):
    return t.tensor(values, dtype=getattr(t, dtype))


CALLS = {
    # gather: the index may be smaller than the input apart from dim; a 0-dim tensor is one element
    "gather_smaller_index": lambda t: t.gather(_leaf(t, (4, 5)), 0, _index(t, [[0, 3, 1], [2, 2, 0]])),
    "gather_0d_input": lambda t: t.gather(_leaf(t, ()), 0, _index(t, [0, 0])),
    "gather_0d_index": lambda t: t.gather(_leaf(t, (5,)), 0, _index(t, 3)),
    "gather_empty_byte_index": lambda t: t.gather(_leaf(t, (5,)), 0, t.zeros((2, 0), dtype=t.uint8)),
    "gather_int32_index": lambda t: t.gather(_leaf(t, (4, 5)), 1, _index(t, [[4]], "int32")),
    "gather_byte_index": lambda t: t.gather(_leaf(t, (4, 5)), 0, _index(t, [[1]], "uint8")),
    "gather_larger_index": lambda t: t.gather(_leaf(t, (4, 5)), 0, t.zeros((2, 6), dtype=t.int64)),
    "gather_rank": lambda t: t.gather(_leaf(t, (2, 2)), 0, _index(t, [0, 1])),
    "gather_negative": lambda t: t.gather(_leaf(t, (4, 5)), 1, _index(t, [[-1]])),
    "gather_out_of_bounds": lambda t: t.gather(_leaf(t, (5,)), 0, _index(t, 7)),
    # scatter and scatter_add
    "scatter_smaller_index": lambda t: t.scatter(_leaf(t, (4, 5)), 0, _index(t, [[0, 3, 1]]), _leaf(t, (2, 4)) * 2),
    "scatter_0d": lambda t: t.scatter(_leaf(t, ()), 0, _index(t, 0), _leaf(t, ()) * 5),
    "scatter_value_0d": lambda t: t.scatter(_leaf(t, ()), 0, _index(t, 0), 7.0),
    "scatter_add_0d": lambda t: t.scatter_add(t.zeros(()), 0, _index(t, [0, 0]), t.tensor([5.0, 2.0])),
    "scatter_empty_index": lambda t: t.scatter(t.zeros(3, 5), 0, t.zeros(0, dtype=t.int64), t.ones(6, 6)),
    "scatter_dtypes": lambda t: t.scatter(t.zeros(3, 5, dtype=t.float64), 0, _index(t, [[0, 1]]), t.ones(2, 5)),
    "scatter_add_index_dtype": lambda t: t.scatter_add(t.zeros(3, 5), 0, _index(t, [[1]], "uint8"), t.ones(2, 5)),
    "scatter_rank_self": lambda t: t.scatter(t.zeros(3, 5, 3), 0, _index(t, [[0, 1]]), t.ones(2, 5)),
    "scatter_rank_src": lambda t: t.scatter(t.zeros(3, 5), 0, _index(t, [[0, 1]]), t.ones(2, 5, 2)),
    "scatter_small_src": lambda t: t.scatter(t.zeros(3, 5), 0, _index(t, [[0, 1], [1, 2]]), t.ones(1, 5)),
    "scatter_value_larger_index": lambda t: t.scatter(t.zeros(3, 5), 0, t.zeros(3, 6, dtype=t.int64), 1.0),
    "scatter_add_out_of_bounds": lambda t: t.scatter_add(t.zeros(3, 5), 0, _index(t, [[34, 1]]), t.ones(2, 5)),
    "scatter_negative": lambda t: t.scatter(t.zeros(3, 5), 0, _index(t, [[-1]]), t.ones(2, 5)),
    # take_along_dim: torch's composite of expand and gather, negative indices counted from the end
    "take_along_dim_broadcast": lambda t: t.take_along_dim(_leaf(t, (1, 5)), _index(t, [[0], [-1]]), 1),
    "take_along_dim_flat": lambda t: t.take_along_dim(_leaf(t, (2, 5)), _index(t, [3, 7])),
    "take_along_dim_flat_negative": lambda t: t.take_along_dim(_leaf(t, (2, 5)), _index(t, [-1])),
    "take_along_dim_sizes": lambda t: t.take_along_dim(_leaf(t, (4, 5)), _index(t, [[0], [1]]), 1),
    "take_along_dim_rank": lambda t: t.take_along_dim(_leaf(t, (4, 5)), _index(t, [0, 1]), 1),
    "take_along_dim_int32": lambda t: t.take_along_dim(_leaf(t, (4, 5)), _index(t, [[0]], "int32"), 1),
    "take_along_dim_0d": lambda t: t.take_along_dim(_leaf(t, ()), _index(t, 0), 0),
    # index_select of a 0-dim tensor
    "index_select_0d": lambda t: t.index_select(_leaf(t, ()), 0, _index(t, [0])),
    "index_select_0d_two": lambda t: t.index_select(_leaf(t, ()), -1, _index(t, [0, 0])),
    "index_select_0d_index": lambda t: t.index_select(_leaf(t, (4, 5)), 1, _index(t, 2)),
    "index_select_byte": lambda t: t.index_select(_leaf(t, (4, 5)), 1, _index(t, [0], "uint8")),
    # views of a 0-dim tensor, nonzero of one
    "transpose_0d": lambda t: t.transpose(_leaf(t, ()), 0, -1),
    "unfold_0d": lambda t: _leaf(t, ()).unfold(0, 1, 1),
    "unfold_0d_empty": lambda t: _leaf(t, ()).unfold(-1, 0, 2),
    "unfold_too_large": lambda t: _leaf(t, (3,)).unfold(0, 4, 1),
    "unfold_step": lambda t: _leaf(t, (3,)).unfold(0, 1, 0),
    "nonzero_0d": lambda t: (t.nonzero(t.tensor(2.5)), t.nonzero(t.tensor(0.0)), t.argwhere(t.tensor(1.0))),
    "nonzero_0d_tuple": lambda t: t.nonzero(t.tensor(2.5), as_tuple=True),
    "amax_0d_dim": lambda t: t.amax(_leaf(t, ()), 0),
    # sort's node names, tensor_split's slices, sum_to_size's full sum and refusal
    "sort_stable": lambda t: t.sort(_leaf(t, (2, 3)), stable=True, descending=True)[0],
    "tensor_split_indices": lambda t: t.tensor_split(_leaf(t, (2, 4)), t.tensor([1, 5]), 1),
    "tensor_split_sections": lambda t: t.tensor_split(_leaf(t, (5,)), t.tensor(3)),
    "tensor_split_0d": lambda t: t.tensor_split(_leaf(t, ()), 2),
    "tensor_split_no_sections": lambda t: t.tensor_split(_leaf(t, (5,)), 0),
    "tensor_split_float_indices": lambda t: t.tensor_split(_leaf(t, (5,)), t.tensor([1.0])),
    "sum_to_size_0d": lambda t: _leaf(t, ()).sum_to_size(()),
    "sum_to_size_refused": lambda t: _leaf(t, (2, 5)).sum_to_size(10, 10),
}


@pytest.mark.parametrize("name", CALLS)
def test_as_torch(name):
    call = CALLS[name]
    assert _observed(myautograd, call) == _observed(torch, call)


def test_the_gradients_of_a_smaller_index_and_of_0_dim_tensors_are_torch_s():
    for t in (torch, myautograd):
        x, s = _leaf(t, (4, 5)), _leaf(t, ())
        gathered = t.gather(x, 0, _index(t, [[0, 3, 1], [2, 2, 0]]))
        (grad,) = t.autograd.grad(gathered, [x], t.ones_like(gathered))
        selected = t.index_select(s, 0, _index(t, [0])) * 3
        (grad_s,) = t.autograd.grad(selected, [s])
        if t is torch:
            expected = (grad.tolist(), grad_s.item())
    assert (grad.tolist(), grad_s.item()) == expected
    assert expected[0][0] == [1.0, 0.0, 1.0, 0.0, 0.0] and expected[1] == 3.0


OUT_CALLS = {
    "gather_into_strided": lambda t, out: t.gather(t.arange(6.0), 0, _index(t, [2, 1, 0]), out=out(t, (6,))[::2]),
    "gather_resized": lambda t, out: t.gather(_index(t, [2, 1, 0]), 0, _index(t, [1, 0]), out=out(t, (1,), t.int64)),
    "index_select_resized": lambda t, out: t.index_select(_leaf(t, (3, 6)).detach(), 1, _index(t, [0, 1]),
                                                          out=out(t, (2, 12))[..., ::2]),
    "index_select_into_empty": lambda t, out: t.index_select(_leaf(t, (3, 6)).detach(), 1, _index(t, [5]),
                                                             out=out(t, (0,))),
    "gather_out_dtype": lambda t, out: t.gather(t.arange(3.0), 0, _index(t, [0]), out=out(t, (1,), t.int64)),
    "index_select_out_dtype": lambda t, out: t.index_select(t.arange(3.0), 0, _index(t, [0]), out=out(t, (1,), t.int64)),
    "gather_out_requires_grad": lambda t, out: t.gather(_leaf(t, (3,)), 0, _index(t, [0]), out=out(t, (1,))),
}


@pytest.mark.parametrize("name", OUT_CALLS)
def test_out_as_torch(name, recwarn):
    """out=: the values written into ``out`` (resized first where its shape differs, with torch's deprecation
    warning when it held elements), the version it then has, and the refusals. (Not what a resized strided
    ``out`` leaves in its base: myautograd's ``resize_`` gives such a view storage of its own.)"""
    observed = []
    for t in (torch, myautograd):
        outs = []

        def out(t, shape, dtype=None, outs=outs):
            outs.append(t.zeros(shape, dtype=dtype or t.float32))
            return outs[-1]

        recwarn.clear()
        result = _observed(t, lambda t: OUT_CALLS[name](t, out))  # torch's out= returns ``out``
        warned = [str(w.message).split(" (Triggered internally")[0] for w in recwarn]
        observed.append((result, outs[0]._version if outs else None, warned))
    assert observed[1] == observed[0]
