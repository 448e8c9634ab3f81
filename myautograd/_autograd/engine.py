"""The backward engine: runs the graph from the outputs to the leaves, iteratively.

Scheduling follows torch's engine. A first pass counts, for every node reachable from the
outputs, how many edges lead to it; a node is ready when all of them have delivered their
gradient. Ready nodes run from a queue that orders them as torch's does (``ready_queue``):
gradient accumulators first, in the order torch's heap gives accumulators that tie, then the
most recently created node; that is what decides the order hooks fire in. No recursion, so
chains of any length work.

Two modes. A plain backward (``create_graph=False``) passes NumPy arrays between nodes and
evaluates the formulas on arrays, with grad mode off. Under ``create_graph=True`` the gradients
are tensors and the formulas are evaluated with tensor operations, with grad mode on, so the
backward pass is itself recorded and can be differentiated again.

With ``inputs`` (``autograd.grad``, ``backward(inputs=...)``) only the nodes on a path to the
inputs run; the gradients of inputs are captured where they arrive.

``run_graph`` below is the loop to read; while the fast paths are on, ``fast.run_graph`` (the
same loop with the common cases inlined) runs instead, outside anomaly mode.
"""

from __future__ import annotations

import sys
import warnings
import weakref
from typing import Any

import numpy as np

from .. import _dtype
from .._grad_mode import STATE as GRAD_MODE
from .._tensor import Tensor, make_tensor, meta_of
from .accumulate import Ownership, accumulate, store_retained
from .anomaly import STATE as ANOMALY
from .modes import ArrayMode, TensorMode
from .node import AccumulateGrad, Node, gradient_edge
from .ready_queue import ReadyQueue


# -- graph traversal ---------------------------------------------------------------------------
def _count_dependencies(roots: list[Node]) -> dict[Node, int]:
    """How many edges lead to each node reachable from the roots."""
    dependencies: dict[Node, int] = {}
    stack = list(set(roots))
    roots = set(roots)
    get = dependencies.get
    while stack:
        node = stack.pop()
        for child in node._children:
            if child is not None:
                count = get(child)
                if count is None:
                    dependencies[child] = 1
                    if child not in roots:
                        stack.append(child)
                else:
                    dependencies[child] = count + 1
    return dependencies


def _reachable(roots: list[Node]) -> list[Node]:
    """Every node reachable from the roots, children before the nodes that feed them.

    Every edge goes from a node to an older one (a node is created after the nodes of its
    inputs), so creation order is such an order."""
    seen = set(roots)
    stack = list(seen)
    while stack:
        for child in stack.pop()._children:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return sorted(seen, key=_creation)


def _creation(node: Node) -> int:
    return node._seq


def _plan(roots: list[Node], runners: set[Node], watched: set[Node]) -> tuple[set[Node], set[Node]]:
    """With ``inputs``: the nodes that run (they lead to a runner or a watched node) and the nodes
    visited (those, plus watched nodes, whose hooks and captures apply without running them)."""
    runs: set[Node] = set()
    visited: set[Node] = set()
    for node in _reachable(roots):
        if node in runners:
            runs.add(node)
            visited.add(node)
            continue
        for child in node._children:
            if child in visited:
                runs.add(node)
                visited.add(node)
                break
        else:
            if node in watched:
                visited.add(node)
    return runs, visited


# -- one backward pass -------------------------------------------------------------------------
class GraphTask:
    """One backward pass: what to run, where gradients go, and the state hooks can ask about.

    ``dependencies``: for each node, how many edges still have to deliver a gradient to it.
    ``active``: with ``inputs``, the nodes visited (None: all); ``mode`` (``ArrayMode`` or
    ``TensorMode``) knows which of them run. ``captures``: node -> (input number, index) of the
    gradients ``autograd.grad`` returns; ``retain_targets``: node -> (input number, tensor) of the
    non-leaf ``inputs`` of ``backward(inputs=)``. ``ownership``: the gradient arrays the engine
    does not own, which a leaf's ``.grad`` must not adopt (see ``accumulate.py``).
    """

    def __init__(self, roots: list[tuple[Node, int]], *, keep_graph: bool, create_graph: bool,
                 inputs: list | None, accumulate: bool) -> None:
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.accumulate = accumulate
        self.captures: dict[Node, list[tuple[int, int]]] = {}
        self.captured: list[Any] = []
        self.retain_targets: dict[Node, list[tuple[int, Any]]] = {}
        self.ownership = Ownership()
        root_nodes = [node for node, _ in roots]
        running = None
        if inputs is None:
            self.active = None
            self.dependencies = _count_dependencies(root_nodes)
            self.visited = set(self.dependencies) | set(root_nodes)
        else:
            running = self._plan_inputs(root_nodes, inputs)
            self.visited = self.active
        self.mode = TensorMode(running, self.active) if create_graph else ArrayMode(running, self.active)

    def _plan_inputs(self, root_nodes: list[Node], inputs: list) -> set[Node]:
        """With ``inputs``: only the nodes on a path to them run. Returns those."""
        targets: set[Node] = set()
        self.captured = [None] * len(inputs)
        for index, tensor in enumerate(inputs):
            # a torch.autograd.graph.GradientEdge (a named tuple) names its node and input number itself
            node, nr = tensor[:2] if isinstance(tensor, tuple) else gradient_edge(tensor)
            if self.accumulate and isinstance(node, AccumulateGrad):
                targets.add(node)
            elif self.accumulate:  # a non-leaf: its .grad is kept (retain_grad); an edge's gradient goes nowhere
                targets_of_node = self.retain_targets.setdefault(node, [])
                if not isinstance(tensor, tuple):
                    targets_of_node.append((nr, tensor))
            else:
                self.captures.setdefault(node, []).append((nr, index))
        running, self.active = _plan(root_nodes, targets, set(self.captures) | set(self.retain_targets))
        self.dependencies = {}
        for node in running:
            for child in node._children:
                if child is not None and child in self.active:
                    self.dependencies[child] = self.dependencies.get(child, 0) + 1
        return running

    @staticmethod
    def deliver(buffers: dict, child: Node, nr: int, grad) -> None:
        """Put ``grad`` into ``child``'s input ``nr``, adding it to what is there already."""
        slots = buffers.get(child)
        if slots is None:
            slots = buffers[child] = [None] * (nr + 1)
        elif len(slots) <= nr:
            slots.extend([None] * (nr + 1 - len(slots)))
        previous = slots[nr]
        slots[nr] = grad if previous is None else previous + grad


_TASKS: list[GraphTask] = []
fast_run_graph = None  # while the fast paths are on, their version of run_graph (installed by fast.py)


def current_task() -> GraphTask | None:
    """The backward pass running now (hooks run inside one), or None."""
    return _TASKS[-1] if _TASKS else None


def will_execute(tensor) -> bool:
    """Whether the running backward pass reaches the node that ``tensor``'s gradient flows into."""
    task = current_task()
    node = gradient_edge(tensor)[0]
    return task is not None and node is not None and node in task.visited


def run_backward(roots: list[tuple[Node, int]], root_grads: list, *, keep_graph: bool, create_graph: bool,
                 inputs: list | None = None, accumulate: bool = True) -> list:
    """Run backward from ``roots`` (edges) with ``root_grads`` (arrays, or tensors under
    create_graph). ``inputs``: tensors whose gradients are captured (``accumulate=False``, as
    autograd.grad) or the only ones accumulated into (``accumulate=True``, backward(inputs=)).
    Returns the captured gradients (None where nothing arrived)."""
    task = GraphTask(roots, keep_graph=keep_graph, create_graph=create_graph, inputs=inputs, accumulate=accumulate)
    buffers: dict[Node, list] = {}
    for (node, nr), grad in zip(roots, root_grads):
        if not create_graph:
            task.ownership.mark_foreign(grad)  # the caller's
        task.deliver(buffers, node, nr, grad)
    ready: list[Node] = []
    for node, _ in roots:
        if node not in ready and task.dependencies.get(node, 0) == 0 and (task.active is None or node in task.active):
            ready.append(node)
    # torch starts from a lone root's node even when no input is behind it: the node does not execute,
    # but the hooks and retain_grad() of the output still see the gradient it was given
    lone_root = roots[0][0] if len(roots) == 1 and not ready and roots[0][0] in buffers else None
    previous_mode = GRAD_MODE.grad_enabled
    GRAD_MODE.grad_enabled = create_graph
    _TASKS.append(task)
    try:
        if lone_root is not None:
            run_tensor_pre_hooks(lone_root, buffers[lone_root], task)
        if fast_run_graph is not None and not ANOMALY.enabled:
            fast_run_graph(task, buffers, ready)
        else:
            run_graph(task, buffers, ready)
    finally:
        _TASKS.pop()
        GRAD_MODE.grad_enabled = previous_mode
    return task.captured


def run_graph(task: GraphTask, buffers: dict, ready: list[Node]) -> None:
    """The engine's loop: run the first ready node, deliver what it returns, repeat."""
    queue = ReadyQueue(ready)
    dependencies = task.dependencies
    active = task.active
    while queue:
        node = queue.pop()
        grads = buffers.pop(node, None) or [None]
        outputs = evaluate(node, grads, task)
        if outputs is None:
            continue
        if len(outputs) > 1 and not task.create_graph:
            task.ownership.note_repeats(outputs)
        for child, nr, grad in zip(node._children, node._nrs, outputs):
            if child is None or (active is not None and child not in active):
                continue
            if grad is not None:
                task.deliver(buffers, child, nr, grad)
            dependencies[child] -= 1
            if dependencies[child] == 0:
                queue.push(child)


def run_tensor_pre_hooks(node: Node, grads: list, task: GraphTask) -> None:
    """The hooks of the tensors whose gradients ``node`` receives, then their retained ``.grad``."""
    if node.__class__ is AccumulateGrad:
        meta = node.variable._meta
        if meta is not None and meta.hooks:
            grads[0] = _run_tensor_hooks(meta.hooks, grads[0], task)
        return
    extras = node._extras
    if extras is not None:
        for nr, hooks in extras.tensor_pre_hooks.items():
            if hooks and nr < len(grads) and grads[nr] is not None:
                grads[nr] = _run_tensor_hooks(hooks, grads[nr], task)
        for nr, target in extras.retain_grad.items():
            tensor = target()
            if tensor is not None and nr < len(grads) and grads[nr] is not None:
                store_retained(tensor, grads[nr], task.mode)


def evaluate(node: Node, grads: list, task: GraphTask) -> list | None:
    """Hooks, captures and the node itself; returns the gradients for its next edges, or None
    when the node does not run."""
    mode = task.mode
    extras = node._extras
    is_accumulator = node.__class__ is AccumulateGrad
    runs = mode.runs(node)
    if runs:  # torch captures what arrived, then runs the tensor hooks as the node runs
        _capture(node, grads, task)
    run_tensor_pre_hooks(node, grads, task)
    for nr, tensor in task.retain_targets.get(node, ()):
        if nr < len(grads) and grads[nr] is not None:
            meta_of(tensor).retains_grad = True
            if nr not in node.extras.retain_grad:
                node.extras.retain_grad[nr] = weakref.ref(tensor)
            store_retained(tensor, grads[nr], mode)
    if not runs:  # a node that does not run has its tensor hooks run first, then the capture sees their result
        _capture(node, grads, task)
        return None
    if is_accumulator:
        if task.accumulate and grads[0] is not None:
            # as torch's: the node's pre-hooks, the accumulation (with its post-accumulate hooks), then
            # its post-hooks, which see no grad_inputs (an accumulator has no next edges)
            if extras is not None and extras.pre_hooks:
                grads = _run_node_pre_hooks(extras.pre_hooks, grads, task)
            owned = not task.create_graph and task.ownership.owns(grads[0])
            accumulate(node, grads[0], mode, owned)
            if extras is not None and extras.post_hooks:
                _run_node_post_hooks(extras.post_hooks, [], grads, task)
        return None
    if extras is not None and extras.pre_hooks:
        grads = _run_node_pre_hooks(extras.pre_hooks, grads, task)
    try:
        outputs = node.apply(grads, mode)
        outputs = validate_outputs(node, outputs, mode)
        if ANOMALY.enabled and ANOMALY.check_nan:
            _check_nan(node, outputs, mode)
    except Exception:
        if ANOMALY.enabled:
            _report_anomaly(node)
        raise
    if extras is not None and extras.post_hooks:
        outputs = _run_node_post_hooks(extras.post_hooks, outputs, grads, task)
    if not task.keep_graph:
        node.release()
    return outputs


def _capture(node: Node, grads: list, task: GraphTask) -> None:
    """Keep the gradients arriving at ``node`` that ``autograd.grad`` returns."""
    for nr, index in task.captures.get(node, ()):
        if nr < len(grads):
            grad = grads[nr]
            if grad is not None:
                previous = task.captured[index]
                task.captured[index] = grad if previous is None else previous + grad


def call_node(node: Node, grads: tuple) -> tuple:
    """``grad_fn(*grads)``: evaluate one node on tensors, outside any backward pass."""
    mode = ArrayMode()
    arrays = [None if g is None else g._data for g in grads]
    outputs = validate_outputs(node, node.apply(arrays, mode), mode)
    result = tuple(None if o is None else make_tensor(o) for o in outputs)
    return result[0] if len(result) == 1 else result


# -- validation of what a node returns ---------------------------------------------------------
def validate_outputs(node: Node, outputs: list, mode: ArrayMode) -> list:
    metas = node._input_meta
    if metas is None:
        return outputs
    if len(outputs) != len(node._children):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node._children)}, got {len(outputs)})")
    tensors = mode.create_graph
    for index, grad in enumerate(outputs):
        if grad is None:
            continue
        meta = metas[index]
        if meta is None:
            continue
        shape, dtype = meta[0], meta[1]
        if (grad._data if tensors else grad).shape != shape:
            grad = _fit_shape(node, index, grad, shape, mode)
        if (grad._data if tensors else grad).dtype != dtype:
            grad = _cast(grad, dtype, mode)
        if len(meta) > 2 and mode.device(grad) != meta[2]:
            grad = _to_input_device(node, index, grad, meta[2], mode)
        outputs[index] = grad
    return outputs


def _to_input_device(node: Node, index: int, grad, device, mode: ArrayMode):
    """A gradient on another device than its input's: a 0-dim one is moved (the gradient of a CPU
    scalar that took part in a CUDA op), any other is an error, as in torch's engine."""
    if len(mode.shape(grad)) == 0:
        return mode.F.to_device(grad, device)
    raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {index} - expected device "
                       f"{device} but got {mode.device(grad)}")


def _fit_shape(node: Node, index: int, grad, shape: tuple, mode: ArrayMode):
    grad_shape = mode.shape(grad)
    if _expandable(shape, grad_shape):
        return mode.F.sum_to(grad, shape)
    raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {index} - got "
                       f"{list(grad_shape)} but expected shape compatible with {list(shape)}")


def _expandable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    for size, target_size in zip(reversed(shape), reversed(target)):
        if size != target_size and size != 1:
            return False
    return True


def _cast(grad, dtype, mode: ArrayMode):
    if mode.create_graph:
        target = _dtype.from_numpy(dtype)
        if grad.is_complex() and target.category != _dtype.COMPLEX:
            grad = grad.real
        return grad.to(target)
    if np.iscomplexobj(grad) and dtype.kind != "c":
        grad = grad.real
    return grad.astype(dtype)


def _check_nan(node: Node, outputs: list, mode: ArrayMode) -> None:
    for index, grad in enumerate(outputs):
        if grad is None:
            continue
        data = grad if not mode.create_graph else grad._data
        if np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")


def _report_anomaly(node: Node) -> None:
    trace = node._extras.trace if node._extras is not None else None
    text = "".join(trace) if trace else "  <no forward trace recorded>\n"
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{text}",
                  UserWarning, stacklevel=4)


# -- hooks ---------------------------------------------------------------------------------------
def _hook_name(hook) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def shown_to_user(task: GraphTask | None, grads) -> None:
    """Gradients handed to user code (a custom Function's backward) are no longer the engine's
    alone; nor is what that code returns."""
    if task is not None and not task.create_graph:
        for grad in grads:
            task.ownership.mark_foreign(grad)


class HandedOut:
    """Gradients shown to hooks as tensors. As torch's use count decides whether a leaf's ``.grad``
    may adopt a gradient, one stays the engine's unless the hooks kept a reference to its tensor,
    or to the tuple it was passed in: ``release`` (called once the hooks are done and the engine
    holds no more references to them than when they were shown) compares reference counts."""

    __slots__ = ("objects", "counts")

    def __init__(self, *objects) -> None:
        self.objects = [item for item in objects if item is not None]
        self.counts: list[int] = []

    def watch(self) -> HandedOut:
        """Note the references each holds now (called once the call that made this one is over: its
        arguments hold references too)."""
        self.counts = [sys.getrefcount(item) for item in self.objects]
        return self

    def release(self, task: GraphTask) -> None:
        for index, count in enumerate(self.counts):  # not zip: its reused result tuple would hold the item
            item = self.objects[index]
            if sys.getrefcount(item) > count:
                kept = item if isinstance(item, tuple) else (item,)
                shown_to_user(task, [tensor._data for tensor in kept if isinstance(tensor, Tensor)])
        self.objects = self.counts = []


def _returned_by_user(task: GraphTask, results: list, given: list) -> None:
    """What hooks returned in place of the gradients they were given is theirs, not the engine's."""
    originals = {id(grad) for grad in given if grad is not None}
    shown_to_user(task, [result for result in results if result is not None and id(result) not in originals])


def _run_tensor_hooks(hooks: dict, grad, task: GraphTask):
    mode = task.mode
    shown = mode.as_tensor(grad)
    handed = HandedOut(shown).watch()
    value, result = shown, None
    for hook in list(hooks.values()):
        result = hook(value)
        if result is None:
            continue
        if not isinstance(result, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        if result.shape != value.shape:
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
        if result.dtype is not value.dtype or result.device != value.device:
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has changed the type of value (was "
                f"{value.dtype.message_type_name(value.device.type)} "
                f"got {result.dtype.message_type_name(result.device.type)})"
            )
        value = result
    final = mode.from_tensor(value)
    del value, result
    handed.release(task)
    _returned_by_user(task, [final], [grad])
    return final


def _run_node_pre_hooks(hooks: dict, grads: list, task: GraphTask) -> list:
    mode = task.mode
    shown = tuple(None if g is None else mode.as_tensor(g) for g in grads)
    handed = HandedOut(shown, *shown).watch()
    values, result = shown, None
    for hook in list(hooks.values()):
        result = hook(values)
        if result is not None:
            values = tuple(result)
    results = [None if v is None else mode.from_tensor(v) for v in values]
    del values, result
    handed.release(task)
    _returned_by_user(task, results, grads)
    return results


def _run_node_post_hooks(hooks: dict, outputs: list, grads: list, task: GraphTask) -> list:
    mode = task.mode
    shown_inputs = tuple(None if g is None else mode.as_tensor(g) for g in outputs)
    grad_outputs = tuple(None if g is None else mode.as_tensor(g) for g in grads)
    handed = HandedOut(shown_inputs, grad_outputs, *shown_inputs, *grad_outputs).watch()
    grad_inputs, result = shown_inputs, None
    for hook in list(hooks.values()):
        result = hook(grad_inputs, grad_outputs)
        if result is not None:
            grad_inputs = tuple(result)
    results = [None if v is None else mode.from_tensor(v) for v in grad_inputs]
    del grad_inputs, result
    handed.release(task)
    _returned_by_user(task, results, outputs)
    return results
