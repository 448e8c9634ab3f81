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

Not matched: torch with several threads splits a full reduction of 32,768 elements or more among
them, so its last bits then depend on the thread count (measured with 2 threads: 13 of 20 sums of
40,000 float32 values differ in the last bit; column sums, split by column, do not differ; the
tutorial scripts run torch with one thread). float16, bfloat16 and complex sums, and CUDA arrays
(torch's CUDA kernel is another order again), keep NumPy's order. :func:`sum_array` is the entry
point (NumPy's ``sum`` with torch's order where it is known); ``tests/test_summation_order.py``
checks it against torch.

Cost: the order is worked out once per shape, strides and dims (``_plan``, cached); a sum is then
about ten NumPy calls: measured 7 to 9 us for the bias gradients and losses of small models
(NumPy's own sum: 1 to 2 us), and 3 to 4 times NumPy's time for a million values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
INTERLEAVE = 4
LEVELS = 4
OUTER_BLOCK = 4

# Adding a zero changes no sum but the sign of a zero one, and torch's output starts at +0 (so a sum is
# never -0): the kernels below skip the zeros torch adds (empty levels and tails) and ``torch_sum``
# adds +0 once at the end.


def _running(values, axis: int):
    """``(values[0] + values[1]) + ...`` along ``axis`` (non-empty): one running sum per other index."""
    count = values.shape[axis]
    if count == 1:
        return values[(slice(None),) * axis + (0,)]
    if _reduce_runs_in_order(values.shape, values.strides, axis):
        return np.add.reduce(values, axis=axis)
    return np.add.accumulate(values, axis=axis)[(slice(None),) * axis + (-1,)]


@lru_cache(maxsize=1024)
def _reduce_runs_in_order(shape: tuple, strides: tuple, axis: int) -> bool:
    """Whether NumPy's ``add.reduce`` adds along ``axis`` one element after the other.

    NumPy adds pairwise only along the axis its loop runs innermost, the one of smallest stride
    (dimensions of size 1 aside); when that is another axis, each sum runs in order, as fast as
    NumPy sums (``accumulate``, the order-safe fallback, is much slower along an outer axis; the two
    were measured equal on 3,700 random strided, transposed and padded views).
    """
    others = [abs(s) for d, (s, n) in enumerate(zip(strides, shape, strict=True)) if n > 1 and d != axis]
    return bool(others) and 0 < min(others) < abs(strides[axis])


def _sequential(rows):
    """``(rows[0] + rows[1]) + ...`` along the first axis (non-empty): one running sum per column."""
    return _running(rows, 0)


def _in_order(parts):
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _chunk_sums(rows, step: int):
    """The running sum of each whole chunk of ``step`` rows."""
    return _running(rows.reshape(rows.shape[0] // step, step, *rows.shape[1:]), 1)


def _ceil_log2(n: int) -> int:
    return 1 if n <= 2 else (n - 1).bit_length()


def _cascade(rows):
    """torch's ``multi_row_sum`` of each column of ``rows`` (summed along the first axis; non-empty)."""
    step = 1 << max(4, _ceil_log2(rows.shape[0]) // LEVELS)
    if rows.shape[0] < step:  # no whole chunk: one running sum
        return _sequential(rows)
    unfinished = []  # what is left at levels 0, 1, 2, then all of level 3
    level = rows
    while level.shape[0] and len(unfinished) < LEVELS - 1:
        whole = level.shape[0] // step * step
        if whole < level.shape[0]:
            unfinished.append(_sequential(level[whole:]))
        level = _chunk_sums(level[:whole], step) if whole else level[:0]
    if level.shape[0]:
        unfinished.append(_sequential(level))
    return _in_order(unfinished)


def _interleaved(rows):
    """torch's ``row_sum``: 4 cascades dealt round-robin, the leftovers into the first, then the 4 added."""
    rounds = rows.shape[0] // INTERLEAVE
    if rounds == 0:
        return _sequential(rows)
    parts = _cascade(rows[:rounds * INTERLEAVE].reshape(rounds, INTERLEAVE, *rows.shape[1:]))
    return _sequential(np.concatenate([parts[:1], rows[rounds * INTERLEAVE:], parts[1:]]))


def _along_vectors(rows, lanes: int):
    """A contiguous reduced axis: whole vectors summed lane by lane, then the tail, then the lanes."""
    count = rows.shape[0] // lanes
    lane_sums = _interleaved(rows[:count * lanes].reshape(count, lanes, *rows.shape[1:]))
    return _sequential(np.concatenate([rows[count * lanes:], lane_sums]))


def _by_columns(block, group: int):
    """Columns (axis 1) in whole groups of ``group`` are cascades, the rest interleaved."""
    cut = block.shape[1] // group * group
    if cut == block.shape[1]:
        return _cascade(block)
    if cut == 0:
        return _interleaved(block)
    return np.concatenate([_cascade(block[:, :cut]), _interleaved(block[:, cut:])], axis=0)


# -- torch's iteration order -----------------------------------------------------------------------
def _iteration_dims(shape, strides, axes):
    """Dimensions as torch's TensorIterator loops over them, innermost first, after merging.

    Each is (original dims, fastest first; size; input stride; reduced?).
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


@dataclass(frozen=True)
class _Plan:
    """How one (shape, strides, dtype, axes) is summed: the loop's view, its kernel, and the way back."""

    order: tuple  # transpose of the input whose reshape to ``loop_shape`` is the loop's view
    loop_shape: tuple  # the reduced loop dimension, the loop's second one, the outer ones
    kernel: Callable  # the 2-d loop: ``kernel(view)`` sums the view's first axis
    outer: tuple  # transpose of the loop's results: outer reduced ones (outermost first), then kept ones
    reduced_count: int  # how many leading axes of that transpose are added in order
    kept_order: tuple  # transpose from the kept dimensions, slowest loop dimension first, to their order
    kept_shape: tuple  # their sizes in that (loop) order
    result_shape: tuple
    zero: np.generic  # the output's zero, added last
    columns: Callable | None = None  # the same sum for a row-major matrix summed over its rows (_column_sums)


def _kernel(size0: int, stride0: int, size1: int, stride1: int, lanes: int) -> Callable:
    """torch's choice of 2-d loop, by the strides (in elements) and sizes of the loop's two dimensions."""
    if stride0 == 1 and size0 >= lanes:
        return partial(_along_vectors, lanes=lanes)
    if stride1 == 1 and size1 >= lanes:
        return partial(_by_columns, group=OUTER_BLOCK * lanes)
    if stride0 < stride1:
        return _interleaved
    return partial(_by_columns, group=OUTER_BLOCK)


@lru_cache(maxsize=1024)
def _plan(shape: tuple, strides: tuple, dtype: np.dtype, axes, keepdim: bool):
    """The plan, "nothing to add" when only dimensions of size 1 are reduced, "copy" for negative strides,
    or None where torch's order is not followed."""
    lanes = LANES.get(dtype)
    if lanes is None or not shape or 0 in shape:
        return None
    if any(s < 0 for s in strides):
        return "copy"
    axes = tuple(range(len(shape))) if axes is None else tuple(sorted({a % len(shape) for a in axes}))
    kept_axes = [d for d in range(len(shape)) if d not in axes]
    result = tuple(1 if d in axes else n for d, n in enumerate(shape)) if keepdim else tuple(shape[d] for d in kept_axes)
    if all(shape[d] == 1 for d in axes):
        return ("nothing to add", result)
    dims = _iteration_dims(shape, tuple(s // dtype.itemsize for s in strides), set(axes))
    while len(dims) < 2:  # reduced dimensions come first, so the loop's first one is reduced
        dims.append(([], 1, 0, False))
    ones = [d for d in range(len(shape)) if shape[d] == 1]
    order = tuple(ones + [d for group, *_ in dims for d in reversed(group)])
    kernel = _kernel(dims[0][1], dims[0][2], dims[1][1], dims[1][2], lanes)
    rest = dims[1:]
    reduced = [i for i, d in enumerate(rest) if d[3]]
    kept = [i for i, d in enumerate(rest) if not d[3]]
    original = [d for i in reversed(kept) for d in reversed(rest[i][0])]  # kept dims, slowest first
    return _Plan(order, tuple(d[1] for d in dims), kernel, (*reversed(reduced), *reversed(kept)), len(reduced),
                 tuple(int(i) for i in np.argsort(original)), tuple(shape[d] for d in original), result, dtype.type(0),
                 _column_sums(shape, strides, dtype, axes, lanes))


def _column_sums(shape: tuple, strides: tuple, dtype: np.dtype, axes: tuple, lanes: int) -> Callable | None:
    """A row-major (rows, columns) matrix summed over its rows (a bias gradient, ``x.sum(0)``), in whole blocks of
    columns, with fewer rows than ``step * step``: the general path's result (each column one cascade, ``_cascade``)
    in three NumPy calls instead of its ten, as these sums run at every step of a training loop. None otherwise."""
    if len(shape) != 2 or axes != (0,) or strides != (shape[1] * dtype.itemsize, dtype.itemsize):
        return None
    rows, columns = shape
    step = 1 << max(4, _ceil_log2(rows) // LEVELS)
    if rows < 2 or columns < lanes or columns % (OUTER_BLOCK * lanes) or rows >= step * step:
        return None
    chunks, whole, zero = rows // step, rows // step * step, dtype.type(0)

    def column_sums(data):
        if not chunks:  # one running sum per column
            return np.add(np.add.reduce(data, axis=0), zero)
        total = np.add.reduce(np.add.reduce(data[:whole].reshape(chunks, step, columns), axis=1), axis=0)
        if whole < rows:  # the unfinished chunk's running sum comes first (_cascade's order)
            total = np.add.reduce(data[whole:], axis=0) + total
        return np.add(total, zero)

    return column_sums


def sum_array(data, axes=None, keepdim: bool = False):
    """``data.sum(axis=axes, keepdims=keepdim)``, added in torch's CPU order where that is known."""
    if isinstance(axes, int):
        axes = (axes,)
    ordered = torch_sum(data, None if axes is None else tuple(axes), keepdim)
    return ordered if ordered is not None else data.sum(axis=axes, keepdims=keepdim)


def torch_sum(data, axes, keepdim: bool):
    """``data`` summed over ``axes`` (a tuple, or None for all) in torch's CPU order; None where not ordered.

    The result is a new C-contiguous array (as torch's new output tensor).
    """
    if type(data) is not np.ndarray:
        return None
    plan = _plan(data.shape, data.strides, data.dtype, axes, keepdim)
    if plan is None or plan == "copy":
        return None if plan is None else torch_sum(np.ascontiguousarray(data), axes, keepdim)
    if type(plan) is tuple:  # only dimensions of size 1 reduced: 0 + x
        return np.add(data.reshape(plan[1]), data.dtype.type(0), order="C")
    if plan.columns is not None:
        return plan.columns(data).reshape(plan.result_shape)
    partials = plan.kernel(data.transpose(plan.order).reshape(plan.loop_shape))
    ordered = partials.transpose(plan.outer)
    if plan.reduced_count:
        ordered = _sequential(ordered.reshape(-1, *ordered.shape[plan.reduced_count:]))
    out = np.add(ordered.reshape(plan.kept_shape).transpose(plan.kept_order), plan.zero, order="C")
    return out.reshape(plan.result_shape)
