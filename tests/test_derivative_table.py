"""The derivative table guards itself.

* Every node class in the table (``myautograd/_ops/derivatives.py``) is produced by some
  operator test (``tests/test_ops_against_torch.py``): a formula no test runs is a formula no
  test checks against torch.
* Registration refuses a formula that reads a name its forward does not save, and a declared
  saved name no formula reads; the reference recording path refuses a forward that passes an
  undeclared argument or leaves out a declared one.
"""

from __future__ import annotations

import functools
import zlib

import numpy as np
import pytest

import myautograd
from myautograd._autograd import fast
from myautograd._autograd.formulas import NODES, derivative
from myautograd._autograd.record import record
from myautograd._backend import as_array
from tests.support import strict_cupy
from tests.test_ops_against_torch import OPS, RANDOM_OPS


def node_classes(*tensors) -> set[str]:
    """The table names of every node reachable from ``tensors`` (and inside CopySlices): the class
    name, except for a class torch names otherwise in Python (``Identity``'s ``CppFunction``)."""
    seen, names = set(), set()
    table_names = {cls: name for name, cls in NODES.items()}
    stack = [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(table_names.get(type(node), type(node).__name__))
        if getattr(node, "fn", None) is not None:
            stack.append(node.fn)
        stack.extend(child for child, _ in node.next_functions)
    return names


@functools.cache
def produced_by_operator_tests() -> frozenset[str]:
    """What the operator tests build: forward graphs and the graphs of first derivatives."""
    names: set[str] = set()
    for op in OPS:
        rng = np.random.default_rng(zlib.crc32(op.name.encode()))
        inputs = [myautograd.tensor(rng.uniform(op.low, op.high, shape), dtype=myautograd.float32, requires_grad=True)
                  for shape in op.shapes]
        out = op.fn(myautograd, *inputs)
        v = myautograd.tensor(rng.uniform(-1, 1, tuple(out.shape)), dtype=out.dtype)
        grads = myautograd.autograd.grad(out, inputs, v, create_graph=True, allow_unused=True)
        names |= node_classes(out, *grads)
    for op in RANDOM_OPS:
        names |= node_classes(op.fn(myautograd, myautograd.full((4,), 0.5, requires_grad=True)))
        with strict_cupy.installed(myautograd._backend):  # where the op records torch's CUDA node
            names |= node_classes(op.fn(myautograd, myautograd.full((4,), 0.5, requires_grad=True, device="cuda")))
    return frozenset(names)


def test_every_node_class_in_the_table_is_produced_by_an_operator_test():
    missing = sorted(set(NODES) - produced_by_operator_tests())
    assert not missing, f"no operator test produces {', '.join(missing)}: add an Op to tests/test_ops_against_torch.py"


def test_the_check_notices_a_node_class_no_test_produces():
    derivative("UntestedBackward0", "self", self=lambda grad: grad)
    try:
        assert "UntestedBackward0" in set(NODES) - produced_by_operator_tests()
    finally:
        del NODES["UntestedBackward0"]


def test_registration_refuses_a_formula_that_reads_what_its_forward_does_not_save():
    with pytest.raises(ValueError, match="derivative ScaleBackward0: the formula for self reads 'factor', which its "
                                         r"forward does not save \(inputs: self; saves: nothing\)"):
        derivative("ScaleBackward0", "self", self=lambda grad, factor: grad * factor)
    with pytest.raises(ValueError, match="derivative ScaleBackward0: saves factor, which no formula reads"):
        derivative("ScaleBackward0", "self", saves="factor", self=lambda grad: grad)
    assert "ScaleBackward0" not in NODES


@pytest.mark.parametrize("attrs", [{"dim": (0,)}, {"dim": (0,), "keepdim": False, "self_sym_sizes": (2,), "axis": 0}])
def test_recording_refuses_arguments_the_table_does_not_declare(attrs):
    x = myautograd.ones(2, requires_grad=True)
    with fast.enabled(False), pytest.raises(RuntimeError, match="SumBackward1: .*(keepdim|axis)"):
        record(NODES["SumBackward1"], as_array(x._data.sum(0)), (x,), attrs)
