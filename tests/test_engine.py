"""The engine itself: long chains, freeing graphs, no reference cycles, gradient ownership."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest

import myautograd as torch


@pytest.fixture
def no_gc():
    """Reference counting alone must free graphs: a cycle would keep them alive here."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def test_backward_through_a_chain_of_100000_nodes():
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.tolist() == [1.0]


def test_deleting_a_long_chain_does_not_recurse():
    x = torch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    del y  # freeing node after node must not hit the recursion limit


def test_graph_is_freed_with_its_outputs(no_gc):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    nodes = [weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
    y.backward()
    del y
    assert all(ref() is None for ref in nodes)


def test_retained_graph_is_freed_with_its_outputs(no_gc):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    node = weakref.ref(y.grad_fn)
    y.backward(retain_graph=True)
    y.backward()
    del y
    assert node() is None


def test_saved_tensors_are_released_after_backward(no_gc):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = (h.exp()).sum()
    saved = weakref.ref(y.grad_fn.next_functions[0][0]._stash["result"].data)
    del h
    y.backward()
    assert saved() is None


def test_a_leaf_and_its_grad_are_freed(no_gc):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    refs = [weakref.ref(x), weakref.ref(x.grad)]
    del x
    assert all(ref() is None for ref in refs)


def test_accumulate_grad_node_is_not_kept_alive_by_its_leaf(no_gc):
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    accumulator = weakref.ref(y.grad_fn.next_functions[0][0])
    del y
    assert accumulator() is None


def test_gradients_of_two_leaves_never_share_memory():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    (x + w).sum().backward()
    assert not np.shares_memory(x.grad._data, w.grad._data)
    (x + w).sum().backward()
    assert x.grad.tolist() == w.grad.tolist() == [2.0, 2.0]


def test_a_gradient_held_by_a_hook_is_not_stolen():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    x.register_hook(lambda g: kept.append(g))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert kept[0].tolist() == [3.0, 3.0] and x.grad.tolist() == [6.0, 6.0]


def test_the_gradient_of_an_expanded_leaf_is_writable():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.sum().backward()
    x.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_install_as_torch_serves_submodules(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        "import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n"
        "x = Variable(torch.ones(2), requires_grad=True)\n(x * 2).sum().backward()\n"
        "print(torch.__name__, nn.__name__, x.grad)\n"
    )
    out = subprocess.run([sys.executable, "-m", "myautograd", str(script)], capture_output=True, text=True,
                         check=True)
    assert out.stdout == "myautograd myautograd.nn tensor([2., 2.])\n"


def test_myautograd_never_imports_torch():
    code = "import sys, myautograd, myautograd.nn, myautograd.optim; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _edges_to_older_nodes(*tensors) -> list[str]:
    """Every edge of the graphs behind ``tensors`` whose target is not older than its source."""
    bad, seen = [], set()
    stack = [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for child, _ in node.next_functions:
            if child is not None:
                if child._sequence_nr() >= node._sequence_nr():
                    bad.append(f"{node.name()} -> {child.name()}")
                stack.append(child)
    return bad


def test_every_edge_goes_to_an_older_node():
    """The engine orders the nodes it plans by creation (engine._reachable): a node is always
    created after the nodes its inputs came from, also for views regenerated after an in-place
    change, CopySlices, custom Functions and double backward."""
    import zlib

    from tests.test_ops_against_torch import OPS

    for op in OPS:
        rng = np.random.default_rng(zlib.crc32(op.name.encode()))
        inputs = [torch.tensor(rng.uniform(op.low, op.high, s), requires_grad=True) for s in op.shapes]
        out = op.fn(torch, *inputs)
        grads = torch.autograd.grad(out, inputs, torch.ones_like(out), create_graph=True, allow_unused=True)
        assert _edges_to_older_nodes(out, *grads) == [], op.name

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    view = y[1:]
    y.mul_(2)  # the view's grad_fn is regenerated on use
    view[0:1].mul_(3)  # CopySlices on y
    z = Twice.apply(view) + y.sum()
    assert _edges_to_older_nodes(z, view) == []
