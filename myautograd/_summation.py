"""Sums of float32 and float64 arrays added in the order torch's CPU kernel adds them.

Floating-point addition is not associative, so a sum's last bits depend on the order of its
additions. NumPy adds pairwise, eight partial sums at a time; torch's CPU sum (``cascade_sum``)
adds in another order, and a float32 loss then differs from torch's in its last bit about half
the time (measured on sums of 7 to 100,000 squares: 40 to 60% of them differ, up to 3e-7
relative). A training loop that branches on such a value (``if loss < threshold``) can take
another branch; many steps of it carry the difference into every parameter.

How torch adds, for one output element (the order, as described by torch's kernel):

* **A cascade** (``multi_row_sum``) sums ``n`` values with four levels of running sums: values
  are added one by one into chunks of ``step`` (16, or ``2 ** (ceil(log2 n) // 4)`` when that is
  larger); each full chunk's sum is added into a level-1 sum, which after ``step`` chunks is added
  into level 2, and so on; at the end the unfinished chunk is added to the level-1, level-2 and
  level-3 sums, in that order.
* **Interleaved** (``row_sum``): the values are dealt into 4 running cascades (value ``i`` to
  cascade ``i % 4``, over the ``n // 4`` whole rounds); the values left over are added to the
  first; then the first, second, third and fourth are added together.
* **Along a contiguous dimension of at least 8 values** (float32; 4 for float64, the width of
  torch's AVX2 vectors, which its sum kernel uses on AVX-512 machines too), whole vectors of 8
  are summed lane by lane, interleaved; the values after the last whole vector are added into a
  zero, then the 8 lanes in order.
* **Across a contiguous dimension** (a column sum such as a bias gradient, ``x.sum(0)``), each
  column is a cascade, except the columns after the last whole block of 32 (of 4 when the
  columns are fewer than 8, or not contiguous), which are interleaved.
* torch's ``TensorIterator`` first drops dimensions of size 1, puts the reduced dimensions
  innermost, ordered by the input's strides (smallest first), then the kept ones, ordered by
  the output's (a new contiguous tensor: the last dimension innermost), and merges neighbours
  that are contiguous in both input and output. The two innermost dimensions form its 2-d loop
  (the one above); each result of it is added to the output, which starts at zero, in the order
  the loop visits the outer dimensions.

Not matched: torch with several threads splits a reduction of 32,768 elements or more among them,
so its last bits then depend on the thread count (the tutorial scripts run torch with one
thread); float16, bfloat16 and complex sums, and CUDA arrays (torch's CUDA kernel is another
order again), keep NumPy's order. :func:`sum_array` is the entry point (NumPy's ``sum`` with
torch's order where it is known); ``tests/test_summation_order.py`` checks it against torch.
"""

from __future__ import annotations

import numpy as np

LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
INTERLEAVE = 4
LEVELS = 4
OUTER_BLOCK = 4


def _sequential(rows):
    """``((0 + rows[0]) + rows[1]) + ...`` along the first axis: one running sum per column."""
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1:], rows.dtype)
    return np.add.accumulate(rows, axis=0)[-1]


def _chunk_sums(rows, step: int):
    """The running sum of each whole chunk of ``step`` rows."""
    chunks = rows.reshape(rows.shape[0] // step, step, *rows.shape[1:])
    if chunks.shape[0] == 0:
        return chunks[:, 0]
    return np.add.accumulate(chunks, axis=1)[:, -1]


def _ceil_log2(n: int) -> int:
    return 1 if n <= 2 else (n - 1).bit_length()


def _cascade(rows):
    """torch's ``multi_row_sum`` of each column of ``rows`` (summed along the first axis)."""
    step = 1 << max(4, _ceil_log2(rows.shape[0]) // LEVELS)
    unfinished = []
    level = rows
    for _ in range(LEVELS - 1):
        whole = level.shape[0] // step * step
        unfinished.append(_sequential(level[whole:]))
        level = _chunk_sums(level[:whole], step)
    unfinished.append(_sequential(level))
    return _sequential(np.stack(unfinished))


def _interleaved(rows):
    """torch's ``row_sum``: 4 cascades dealt round-robin, the leftovers into the first, then the 4 added."""
    rounds = rows.shape[0] // INTERLEAVE
    dealt = rows[:rounds * INTERLEAVE].reshape(rounds, INTERLEAVE, *rows.shape[1:])
    parts = _cascade(dealt)
    return _sequential(np.concatenate([parts[:1], rows[rounds * INTERLEAVE:], parts[1:]]))


def _along_vectors(rows, lanes: int):
    """A contiguous reduced axis: whole vectors summed lane by lane, then the tail, then the lanes."""
    count = rows.shape[0] // lanes
    lane_sums = _interleaved(rows[:count * lanes].reshape(count, lanes, *rows.shape[1:]))
    return _sequential(np.concatenate([rows[count * lanes:], lane_sums]))


def _by_columns(block, group: int):
    """Columns (axis 1) in whole groups of ``group`` are cascades, the rest interleaved."""
    cut = block.shape[1] // group * group
    return np.concatenate([_cascade(block[:, :cut]), _interleaved(block[:, cut:])])


# -- torch's iteration order -----------------------------------------------------------------------
def _iteration_dims(shape, strides, axes):
    """Dimensions as torch's TensorIterator loops over them, innermost first, after merging.

    Each is (groups of original dims, fastest first; size; input stride; reduced?).
    """
    out_strides, size = {}, 1
    for d in reversed(range(len(shape))):
        if d not in axes:
            out_strides[d] = size
            size *= shape[d]
    dims = [d for d in reversed(range(len(shape))) if shape[d] != 1]
    dims.sort(key=lambda d: (0, abs(strides[d])) if d in axes else (1, out_strides[d]))
    merged = []
    for d in dims:
        reduced = d in axes
        if merged:
            group, extent, stride, was_reduced = merged[-1]
            if (reduced == was_reduced and stride * extent == strides[d]
                    and (reduced or out_strides[group[0]] * extent == out_strides[d])):
                merged[-1] = (group + [d], extent * shape[d], stride, reduced)
                continue
        merged.append(([d], shape[d], strides[d], reduced))
    return merged


def sum_array(data, axes=None, keepdim: bool = False):
    """``data.sum(axis=axes, keepdims=keepdim)``, added in torch's CPU order where that is known."""
    if isinstance(axes, int):
        axes = (axes,)
    ordered = torch_sum(data, None if axes is None else tuple(axes), keepdim)
    return ordered if ordered is not None else data.sum(axis=axes, keepdims=keepdim)


def torch_sum(data, axes, keepdim: bool):
    """``data`` summed over ``axes`` (a tuple, or None for all) in torch's CPU order; None where not ordered."""
    lanes = LANES.get(data.dtype)
    if lanes is None or type(data) is not np.ndarray or data.size == 0 or data.ndim == 0:
        return None
    axes = tuple(range(data.ndim)) if axes is None else tuple(a % data.ndim for a in axes)
    item = data.itemsize
    strides = tuple(s // item for s in data.strides)
    if any(s < 0 for s in strides):
        data = np.ascontiguousarray(data)
        strides = tuple(s // item for s in data.strides)
    dims = _iteration_dims(data.shape, strides, set(axes))
    kept_shape = tuple(1 if d in axes else n for d, n in enumerate(data.shape))
    if not any(reduced for *_, reduced in dims):  # only dimensions of size 1 reduced: 0 + x
        out = data.reshape(kept_shape) + data.dtype.type(0)
        return out if keepdim else out.reshape(tuple(n for d, n in enumerate(data.shape) if d not in axes))
    while len(dims) < 2:  # reduced dimensions come first, so the loop's first one is reduced
        dims.append(([], 1, 0, False))
    view = np.lib.stride_tricks.as_strided(data, tuple(d[1] for d in dims), tuple(d[2] * item for d in dims),
                                           writeable=False)
    partials = _inner_loop(view, (dims[0][2], dims[1][2]), lanes)
    return _finish(partials, dims[1:], data.shape, axes, keepdim)


def _inner_loop(view, strides, lanes: int):
    """torch's 2-d loop: the reduced first axis of ``view`` summed, one result per remaining index."""
    size1 = view.shape[1]
    if strides[0] == 1 and view.shape[0] >= lanes:
        return _along_vectors(view, lanes)
    if strides[1] == 1 and size1 >= lanes:
        return _by_columns(view, OUTER_BLOCK * lanes)
    if strides[0] < strides[1]:
        return _interleaved(view)
    return _by_columns(view, OUTER_BLOCK)


def _finish(partials, dims, shape, axes, keepdim: bool):
    """Add the 2-d loop's results into the zeroed output in loop order, and lay them out as the result."""
    reduced = [i for i, d in enumerate(dims) if d[3]]
    kept = [i for i, d in enumerate(dims) if not d[3]]
    ordered = np.transpose(partials, [*reversed(reduced), *reversed(kept)])  # loop order: outermost first
    flat = ordered.reshape(-1, *ordered.shape[len(reduced):])
    out = _sequential(flat) + partials.dtype.type(0)
    original = [d for i in reversed(kept) for d in reversed(dims[i][0])]  # slowest first
    out = out.reshape([shape[d] for d in original])
    out = np.transpose(out, np.argsort(original))
    if keepdim:
        return out.reshape(tuple(1 if d in axes else n for d, n in enumerate(shape)))
    return out.reshape(tuple(n for d, n in enumerate(shape) if d not in axes))
