"""The fast paths (``myautograd/_autograd/fast.py``) build the graphs the reference path builds
and compute the same gradients, to the bit.

Each operator of the operator tests runs twice, with the fast paths off and on: the forward
graph, the graph of the first derivatives (``create_graph=True``), the first and second
derivatives and the ``.grad`` a plain ``backward()`` leaves must be identical. The whole catalog
also runs with the fast paths off (``MYAUTOGRAD_FAST_PATHS=0``) and must pass against torch, as
it does with them on (``tests/test_catalog.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

import myautograd
from myautograd._autograd import fast
from myautograd._autograd.node import SavedTensor
from tests.support.operators import Op
from tests.test_ops_against_torch import OPS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def describe_value(value):
    if isinstance(value, SavedTensor):
        data = None if value.data is None else (value.data.dtype.str, value.data.shape, value.data.tobytes())
        return ("saved", data, value.version, value.output_nr, value.nonleaf, value.tensor is not None)
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, myautograd.Tensor):
        return ("tensor", describe_value(value._data))
    return ("value", repr(value))


def describe_graph(*tensors) -> list:
    """Every node reachable from ``tensors``, in a fixed order: class, edges (as positions in this
    list), input metadata and saved values."""
    order: dict[int, int] = {}
    nodes = []
    stack = [t.grad_fn for t in reversed(tensors) if t is not None and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in order:
            continue
        order[id(node)] = len(nodes)
        nodes.append(node)
        stack.extend(child for child, _ in reversed(node.next_functions) if child is not None)
    described = []
    for node in nodes:
        edges = tuple((None if child is None else order[id(child)], nr) for child, nr in node.next_functions)
        stash = node._stash or {}
        described.append((type(node).__name__, edges, node._input_meta,
                          tuple(sorted((name, describe_value(v)) for name, v in stash.items()))))
    return described


def values(tensors) -> list:
    return [None if t is None else (t.dtype, tuple(t.shape), t._data.tobytes(), t.requires_grad) for t in tensors]


def run_op(op: Op, dtype_name: str) -> dict:
    """Everything observable of one operator: graphs, derivatives of both orders, ``.grad``."""
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    arrays = [rng.uniform(op.low, op.high, shape) for shape in op.shapes]
    dtype = getattr(myautograd, dtype_name)
    inputs = [myautograd.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = op.fn(myautograd, *inputs)
    seen = {"forward": describe_graph(out), "output": values([out])}
    v = myautograd.tensor(rng.uniform(-1, 1, tuple(out.shape)), dtype=out.dtype)
    grads = myautograd.autograd.grad(out, inputs, v, create_graph=True, allow_unused=True)
    seen["first"] = values(grads)
    seen["first graph"] = describe_graph(*grads)
    tracked = [g for g in grads if g is not None and g.requires_grad]
    if op.second_order and tracked:
        total = sum((g * g).sum() for g in tracked)
        seen["second"] = values(myautograd.autograd.grad(total, inputs, allow_unused=True))
    out = op.fn(myautograd, *inputs)
    out.backward(v)
    seen[".grad"] = values([x.grad for x in inputs])
    return seen


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_fast_paths_build_the_same_graphs(op: Op, dtype_name: str):
    with fast.enabled(False):
        reference = run_op(op, dtype_name)
    with fast.enabled(True):
        specialised = run_op(op, dtype_name)
    for key in reference:
        assert specialised[key] == reference[key], f"{op.name}: {key} differs with the fast paths on"


def test_the_comparison_catches_a_planted_difference(monkeypatch):
    """A fast path that keeps input metadata the reference does not: same gradients, but the
    graphs differ, and the comparison says so."""
    original = fast._record_one

    def planted(cls, data, x, attrs, numbers, elementwise):
        out = original(cls, data, x, attrs, numbers, elementwise)
        out.grad_fn._input_meta = ((x._data.shape, x._data.dtype),) + (None,) * len(numbers)
        return out

    op = next(o for o in OPS if o.name == "exp")
    with fast.enabled(False):
        reference = run_op(op, "float64")
    monkeypatch.setattr(fast, "_record_one", planted)
    try:
        with fast.enabled(True):
            specialised = run_op(op, "float64")
    finally:
        monkeypatch.undo()
        fast.set_enabled(True)  # reinstall the real fast path
    assert specialised["forward"] != reference["forward"]
    assert specialised["first"] == reference["first"]  # the gradients alone would not have shown it


def test_the_switch_installs_and_removes_every_specialisation():
    from myautograd._autograd import engine, formulas, record

    node = formulas.NODES["MulBackward0"]
    with fast.enabled(False):
        assert record.fast_record is record.fast_record_one is record.fast_recorded is None
        assert engine.fast_run_graph is formulas.on_define is None
        assert "apply" not in node.__dict__ and "_fast_plans" not in node.__dict__
    assert node.apply.__qualname__ == "MulBackward0.apply" and record.fast_record_one is fast._record_one
    assert "_fast_plans" in node.__dict__


def test_the_catalog_passes_with_the_fast_paths_off(tmp_path):
    env = {**os.environ, "MYAUTOGRAD_FAST_PATHS": "0"}
    result = subprocess.run([sys.executable, "-m", "conformance", "run", "--impl", "myautograd", "--device", "cpu",
                             "--report-dir", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    check = "import myautograd._autograd.fast as f; print(f.ENABLED)"
    assert subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True,
                          cwd=ROOT).stdout.strip() == "False"
