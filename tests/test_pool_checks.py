"""Pooling's argument and shape checks (``myautograd/_ops/pool_checks.py``) against torch: the
exception type and exact message of each refusal, per function and number of dims, where torch's
checks run in layers (the 1d ops' parser, the 2d/3d ops' argument lengths, the output size, the
kernels' shape check), max unpooling's, and the edge calls torch accepts (an empty batch, an output
size of 0, a one-element sequence for every dim)."""

from __future__ import annotations

import pytest
import torch

import myautograd

CALLS = [
    # max_pool1d without indices checks its arguments itself; with them, it is max_pool2d on unsqueeze(-2)
    "max_pool1d(x3, 0)", "max_pool1d(x3, 2, 2, 2)", "max_pool1d(x3, 2, 2, 0, 0)", "max_pool1d(x3, 9)",
    "max_pool1d(x3, (2, 2))", "max_pool1d(x3, 2, (1, 1))", "max_pool1d(x4, 2)", "max_pool1d(ones(3, 0, 8), 2)",
    "max_pool1d(x3, 0, return_indices=True)", "max_pool1d(x3, 2, 2, 0, 0, return_indices=True)",
    "max_pool1d(x3, 9, return_indices=True)", "max_pool1d(x4, 2, return_indices=True)",
    "max_pool1d(x3, (2, 2), return_indices=True)", "max_pool1d(ones(0, 3, 8), 2)",
    # max_pool2d/3d: lengths, then the output size, then the kernels' shape check
    "max_pool2d(x4, 0, 1)", "max_pool2d(x4, 2, -1)", "max_pool2d(x4, 3, 1, 1, 0)", "max_pool2d(x4, (1, 2, 3))",
    "max_pool2d(x4, 2, (1, 2, 3))", "max_pool2d(x4, 2, 2, 0, (1, 1, 1))", "max_pool2d(x3[0], 2)",
    "max_pool2d(ones(3, 2, 0, 8), 2, 1)", "max_pool2d(x4, 2, 2, 2)", "max_pool2d(ones(0, 3, 8, 8), 2)",
    "max_pool2d(x4, (2,), (1,))", "max_pool3d(x5, 0, 1)", "max_pool3d(x5, 2, 1, 0, -1)", "max_pool3d(x5, 9)",
    "max_pool3d(ones(3, 2, 8, 8, 0), 2)", "max_pool3d(x5, 2, (1, 1))",
    # average pooling: the divisor, avg_pool3d's own wording and its input-size check
    "avg_pool1d(x3, 2, -1)", "avg_pool1d(x3, (2, 2))", "avg_pool1d(x4, 2)", "avg_pool1d(ones(3, 0, 8), 2)",
    "avg_pool2d(x4, 0, divisor_override=0)", "avg_pool2d(x5, 2)", "avg_pool2d(x4, 2, 2, (0,), True)",
    "avg_pool3d(x5, (1, 2))", "avg_pool3d(x5, 2, 2, (1, 1))", "avg_pool3d(x5, 9)", "avg_pool3d(x4[0], 2)",
    "avg_pool3d(x5, 0, divisor_override=0)", "avg_pool3d(ones(3, 0, 8, 8, 8), 2)",
    # adaptive pooling: the output size's length and signs, empty dims, the number of dims
    "adaptive_avg_pool1d(x3, (2, 2))", "adaptive_avg_pool1d(x3, -1)", "adaptive_avg_pool1d(ones(3, 0, 8), 2)",
    "adaptive_avg_pool2d(x4, (1, 2, 3))", "adaptive_avg_pool2d(x4, (2, -3))", "adaptive_avg_pool2d(x5, 2)",
    "adaptive_avg_pool2d(ones(3, 8, 0), 2)", "adaptive_avg_pool2d(ones(3, 0, 8, 8), 2)",
    "adaptive_avg_pool2d(x3[0], (2, 2))", "adaptive_avg_pool3d(x5, (-1, 0, 2))", "adaptive_avg_pool3d(x4[0], 2)",
    "adaptive_avg_pool3d(ones(3, 0, 8, 8, 8), 2)", "adaptive_max_pool1d(x3, -1)", "adaptive_max_pool1d(x4, 2)",
    "adaptive_max_pool1d(ones(3, 0, 8), 2)", "adaptive_max_pool2d(x4, (1, 2, 3))", "adaptive_max_pool2d(x3[0], 2)",
    "adaptive_max_pool2d(ones(3, 8, 0), 2)", "adaptive_max_pool2d(x4, (0, 2))", "adaptive_max_pool2d(ones(0, 3, 8, 8), 2)",
    "adaptive_max_pool3d(x5, (1, 2))", "adaptive_max_pool3d(x5, (-1, 0, 2))", "adaptive_max_pool3d(x3, (2, 2, 2))",
    # max unpooling: the indices' dtype and shape, the input's dims, an index outside the output
    "max_unpool1d(x3, zeros(2, 3, 7), 2)", "max_unpool1d(x3[0, 0], zeros(8), 2)", "max_unpool1d(x3, full(x3, 100), 2)",
    "max_unpool2d(x4, zeros(2, 3, 8, 8, dtype=int32), 2)", "max_unpool2d(x4[0, 0], zeros(8, 8), 2)",
    "max_unpool2d(ones(1, 0, 4, 4), zeros(1, 0, 4, 4), 2)", "max_unpool2d(ones(0, 1, 4, 4), zeros(0, 1, 4, 4), 2)",
    "max_unpool2d(x4, full(x4, -1), 2)", "max_unpool3d(x5, zeros(2, 3, 8, 8, 8, dtype=int32), 2)",
    "max_unpool3d(x4, zeros(2, 3, 8, 8), 2)", "max_unpool3d(x5, zeros(2, 3, 8, 8, 1), 2)",
    "max_unpool3d(ones(1, 0, 4, 4, 4), zeros(1, 0, 4, 4, 4), 2)",
]


def _outcome(lib, call: str):
    names = {"ones": lambda *shape: lib.ones(*shape, dtype=lib.float64), "int32": lib.int32,
             "zeros": lambda *shape, dtype=lib.int64: lib.zeros(*shape, dtype=dtype),
             "full": lambda like, index: lib.full(tuple(like.shape), index),
             "x3": lib.ones(2, 3, 8, dtype=lib.float64), "x4": lib.ones(2, 3, 8, 8, dtype=lib.float64),
             "x5": lib.ones(2, 3, 8, 8, 8, dtype=lib.float64)}
    try:
        out = eval("F." + call, {"F": lib.nn.functional, **names})
    except (RuntimeError, ValueError, IndexError) as error:
        return type(error).__name__, str(error)
    return "computed", [tuple(o.shape) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("call", CALLS)
def test_pooling_refuses_as_torch_does(call):
    assert _outcome(myautograd, call) == _outcome(torch, call)
