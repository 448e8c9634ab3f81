"""The backward engine: runs the graph from the outputs to the leaves, iteratively.

Scheduling follows torch's engine. A first pass counts, for every node reachable from the
outputs, how many edges lead to it; a node is ready when all of them have delivered their
gradient. Ready nodes run from a heap: gradient accumulators first, then the most recently
created node, which is what decides the order hooks fire in. No recursion, so chains of any
length work.

Two modes. A plain backward (``create_graph=False``) passes NumPy arrays between nodes and
evaluates the formulas on arrays, with grad mode off. Under ``create_graph=True`` the gradients
are tensors and the formulas are evaluated with tensor operations, with grad mode on, so the
backward pass is itself recorded and can be differentiated again.

With ``inputs`` (``autograd.grad``, ``backward(inputs=...)``) only the nodes on a path to the
inputs run; the gradients of inputs are captured where they arrive.
"""

from __future__ import annotations

import heapq
import sys
import warnings
from typing import Any

import numpy as np

from .. import _backend, _dtype
from .._grad_mode import STATE as GRAD_MODE
from .anomaly import STATE as ANOMALY
from .graph import AccumulateGrad, Node, SavedTensor


# -- the two modes -----------------------------------------------------------------------------
class ArrayMode:
    """Plain backward: gradients are arrays."""

    create_graph = False

    def __init__(self, runs: set | None = None, visited: set | None = None) -> None:
        self.running = runs
        self.visited = visited
        from .._ops.backward_math import ARRAY_MATH

        self.F = ARRAY_MATH

    def runs(self, node: Node) -> bool:
        """Whether ``node`` executes in this pass (all do, unless backward has ``inputs``)."""
        return self.running is None or node in self.running

    def wants(self, node: Node) -> bool:
        """Whether a gradient for ``node`` is needed (it runs, or a hook or capture is there)."""
        return self.visited is None or node in self.visited

    @staticmethod
    def unpack(saved: SavedTensor, owner: Node):
        data = saved.data
        if data is None or saved.counter[0] != saved.version or (saved.nonleaf and saved.tensor._grad_fn is None):
            return unpack_saved_tensor(saved, owner)._data  # hooks, or the error to raise
        return data

    @staticmethod
    def as_tensor(grad):
        from .._tensor import make_tensor

        return make_tensor(grad)

    @staticmethod
    def from_tensor(tensor):
        return tensor._data

    @staticmethod
    def shape(grad) -> tuple:
        return grad.shape

    @staticmethod
    def dtype(grad):
        return grad.dtype

    @staticmethod
    def device(grad):
        return _backend.device_of(grad)


class TensorMode(ArrayMode):
    """``create_graph=True``: gradients are tensors and the backward is recorded."""

    create_graph = True

    def __init__(self, runs: set | None = None, visited: set | None = None) -> None:
        super().__init__(runs, visited)
        from .._ops.backward_math import TENSOR_MATH

        self.F = TENSOR_MATH

    @staticmethod
    def unpack(saved: SavedTensor, owner: Node):
        return unpack_saved_tensor(saved, owner)

    @staticmethod
    def as_tensor(grad):
        return grad

    @staticmethod
    def from_tensor(tensor):
        return tensor

    @staticmethod
    def shape(grad) -> tuple:
        return grad._data.shape

    @staticmethod
    def dtype(grad):
        return grad._data.dtype

    @staticmethod
    def device(grad):
        return _backend.device_of(grad._data)


def unpack_saved_tensor(saved: SavedTensor, owner: Node):
    """A saved tensor as a tensor: the input itself, or for a saved output a new tensor whose
    grad_fn is the node that saved it."""
    from .._tensor import make_tensor

    if saved.packed is not None:
        if saved.freed:
            from .graph import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        return saved.hooks[1](saved.packed)
    saved.check(owner)
    if saved.tensor is not None:
        return saved.tensor
    out = make_tensor(saved.data, True, owner, saved.output_nr)
    out._vc = saved.counter
    return out


# -- graph traversal ---------------------------------------------------------------------------
def _count_dependencies(roots: list[Node]) -> dict[Node, int]:
    """How many edges lead to each node reachable from the roots."""
    dependencies: dict[Node, int] = {}
    stack = list(set(roots))
    get = dependencies.get
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None:
                count = get(child)
                if count is None:
                    dependencies[child] = 1
                    if child not in roots:
                        stack.append(child)
                else:
                    dependencies[child] = count + 1
    return dependencies


def _post_order(roots: list[Node]) -> list[Node]:
    order: list[Node] = []
    seen: set[Node] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, children = stack[-1]
            for child, _ in children:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child.next_functions)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _plan(roots: list[Node], runners: set[Node], watched: set[Node]) -> tuple[set[Node], set[Node]]:
    """With ``inputs``: the nodes that run (they lead to a runner or a watched node) and the nodes
    visited (those, plus watched nodes, whose hooks and captures apply without running them)."""
    runs: set[Node] = set()
    visited: set[Node] = set()
    for node in _post_order(roots):
        if node in runners or any(child in visited for child, _ in node.next_functions if child is not None):
            runs.add(node)
            visited.add(node)
        elif node in watched:
            visited.add(node)
    return runs, visited


# -- one backward pass -------------------------------------------------------------------------
class GraphTask:
    def __init__(self, keep_graph: bool, create_graph: bool, accumulate: bool) -> None:
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.accumulate = accumulate
        self.captures: dict[Node, list[tuple[int, int]]] = {}
        self.captured: list[Any] = []
        self.retain_targets: dict[Node, list[tuple[int, Any]]] = {}
        self.visited: set[Node] = set()


_TASKS: list[GraphTask] = []


def current_task() -> GraphTask | None:
    """The backward pass running now (hooks run inside one), or None."""
    return _TASKS[-1] if _TASKS else None


def will_execute(tensor) -> bool:
    """Whether the running backward pass reaches the node that ``tensor``'s gradient flows into."""
    from .._tensor import gradient_edge

    task = current_task()
    node = gradient_edge(tensor)[0]
    return task is not None and node is not None and node in task.visited


def run_backward(roots: list[tuple[Node, int]], root_grads: list, *, keep_graph: bool, create_graph: bool,
                 inputs: list | None = None, accumulate: bool = True) -> list:
    """Run backward from ``roots`` (edges) with ``root_grads`` (arrays, or tensors under
    create_graph). ``inputs``: tensors whose gradients are captured (``accumulate=False``, as
    autograd.grad) or the only ones accumulated into (``accumulate=True``, backward(inputs=)).
    Returns the captured gradients (None where nothing arrived)."""
    from .._tensor import gradient_edge

    task = GraphTask(keep_graph, create_graph, accumulate)
    root_nodes = [node for node, _ in roots]
    needed = None
    if inputs is not None:
        targets: set[Node] = set()
        task.captured = [None] * len(inputs)
        for index, tensor in enumerate(inputs):
            node, nr = gradient_edge(tensor)
            if accumulate and isinstance(node, AccumulateGrad):
                targets.add(node)
            elif accumulate:
                task.retain_targets.setdefault(node, []).append((nr, tensor))
            else:
                task.captures.setdefault(node, []).append((nr, index))
        needed, active = _plan(root_nodes, targets, set(task.captures) | set(task.retain_targets))
        dependencies: dict[Node, int] = {}
        for node in needed:
            for child, _ in node.next_functions:
                if child is not None and child in active:
                    dependencies[child] = dependencies.get(child, 0) + 1
    else:
        active = None
        dependencies = _count_dependencies(root_nodes)

    task.visited = set(active) if active is not None else set(dependencies) | set(root_nodes)
    mode = TensorMode(needed, active) if create_graph else ArrayMode(needed, active)
    buffers: dict[Node, list] = {}
    for (node, nr), grad in zip(roots, root_grads):
        _deliver(buffers, node, nr, grad)
    heap: list = []
    queued: set[Node] = set()
    for node in root_nodes:
        if node not in queued and dependencies.get(node, 0) == 0 and (active is None or node in active):
            queued.add(node)
            heapq.heappush(heap, (_key(node), node))

    previous_mode = GRAD_MODE.grad_enabled
    GRAD_MODE.grad_enabled = create_graph
    _TASKS.append(task)
    plain = not (task.captures or task.retain_targets or needed is not None or ANOMALY.enabled)
    keep_graph = task.keep_graph
    try:
        node = heapq.heappop(heap)[1] if heap else None
        grads = buffers.pop(node, None) or [None]
        while node is not None:
            if plain and node._extras is None and node.__class__ is not AccumulateGrad:
                outputs = node.apply(grads, mode)  # the common case, inlined
                if node._input_meta is not None:
                    outputs = _validate_outputs(node, outputs, mode)
                if not keep_graph and node._released is False:
                    node.release()
            else:
                outputs = _evaluate(node, grads, mode, task)
            ready = ready_grads = None
            if outputs is not None:
                for (child, nr), grad in zip(node.next_functions, outputs):
                    if child is None or (active is not None and child not in active):
                        continue
                    left = dependencies[child] - 1
                    dependencies[child] = left
                    if left == 0 and nr == 0 and child not in buffers:
                        child_grads = [grad]  # its only producer: no buffer needed
                    else:
                        if grad is not None:
                            _deliver(buffers, child, nr, grad)
                        if left:
                            continue
                        child_grads = buffers.pop(child, None) or [None]
                    if ready is not None:
                        heapq.heappush(heap, (_key(ready), ready))
                        buffers[ready] = ready_grads
                    ready, ready_grads = child, child_grads
                # Drop this loop's references to the gradients, so that an accumulator can tell
                # from reference counts alone whether it may adopt an array (see _owned_with_layout).
                outputs = grad = child_grads = None
            # The child that just became ready runs next when it would come first off the heap
            # anyway: a chain then never touches the heap.
            if ready is not None and (not heap or _key(ready) < heap[0][0]):
                node, grads = ready, ready_grads
            else:
                if ready is not None:
                    heapq.heappush(heap, (_key(ready), ready))
                    buffers[ready] = ready_grads
                node = heapq.heappop(heap)[1] if heap else None
                grads = buffers.pop(node, None) or [None]
    finally:
        _TASKS.pop()
        GRAD_MODE.grad_enabled = previous_mode
    return task.captured


def _key(node: Node) -> int:
    """Heap order: gradient accumulators first, then the most recently created node."""
    return -node._seq - (1 << 62 if node.__class__ is AccumulateGrad else 0)


def _deliver(buffers: dict, node: Node, nr: int, grad) -> None:
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * (nr + 1)
    elif len(slots) <= nr:
        slots.extend([None] * (nr + 1 - len(slots)))
    previous = slots[nr]
    slots[nr] = grad if previous is None else previous + grad


def _evaluate(node: Node, grads: list, mode: ArrayMode, task: GraphTask) -> list | None:
    """Hooks, captures and the node itself; returns the gradients for its next edges, or None
    when the node does not run."""
    extras = node._extras
    is_accumulator = type(node) is AccumulateGrad
    if is_accumulator:
        meta = node.variable._meta
        if meta is not None and meta.hooks:
            grads[0] = _run_tensor_hooks(meta.hooks, grads[0], mode)
    elif extras is not None:
        for nr, hooks in extras.tensor_pre_hooks.items():
            if hooks and nr < len(grads) and grads[nr] is not None:
                grads[nr] = _run_tensor_hooks(hooks, grads[nr], mode)
        for nr, target in extras.retain_grad.items():
            tensor = target()
            if tensor is not None and nr < len(grads) and grads[nr] is not None:
                _store_retained(tensor, grads[nr], mode)
    for nr, tensor in task.retain_targets.get(node, ()):
        if nr < len(grads) and grads[nr] is not None:
            from .._tensor import meta_of

            meta_of(tensor).retains_grad = True
            if nr not in node.extras.retain_grad:
                import weakref

                node.extras.retain_grad[nr] = weakref.ref(tensor)
            _store_retained(tensor, grads[nr], mode)
    for nr, index in task.captures.get(node, ()):
        if nr < len(grads):
            grad = grads[nr]
            if grad is not None:
                previous = task.captured[index]
                task.captured[index] = grad if previous is None else previous + grad
    if not mode.runs(node):
        return None
    if is_accumulator:
        if task.accumulate and grads[0] is not None:
            _accumulate(node, grads[0], mode)
        return None
    if extras is not None and extras.pre_hooks:
        grads = _run_node_pre_hooks(extras.pre_hooks, grads, mode)
    try:
        outputs = node.apply(grads, mode)
        outputs = _validate_outputs(node, outputs, mode)
        if ANOMALY.enabled and ANOMALY.check_nan:
            _check_nan(node, outputs, mode)
    except Exception:
        if ANOMALY.enabled:
            _report_anomaly(node)
        raise
    if extras is not None and extras.post_hooks:
        outputs = _run_node_post_hooks(extras.post_hooks, outputs, grads, mode)
    if not task.keep_graph:
        node.release()
    return outputs


def call_node(node: Node, grads: tuple) -> tuple:
    """``grad_fn(*grads)``: evaluate one node on tensors, outside any backward pass."""
    mode = ArrayMode()
    arrays = [None if g is None else g._data for g in grads]
    outputs = _validate_outputs(node, node.apply(arrays, mode), mode)
    from .._tensor import make_tensor

    result = tuple(None if o is None else make_tensor(o) for o in outputs)
    return result[0] if len(result) == 1 else result


# -- validation of what a node returns ---------------------------------------------------------
def _validate_outputs(node: Node, outputs: list, mode: ArrayMode) -> list:
    metas = node._input_meta
    if metas is None:
        return outputs
    if len(outputs) != len(node.next_functions):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node.next_functions)}, got {len(outputs)})")
    for index, grad in enumerate(outputs):
        if grad is None:
            continue
        meta = metas[index]
        if meta is None:
            continue
        shape, dtype = meta[0], meta[1]
        if mode.shape(grad) != shape:
            grad = _fit_shape(node, index, grad, shape, mode)
        if mode.dtype(grad) != dtype:
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


def _run_tensor_hooks(hooks: dict, grad, mode: ArrayMode):
    from .._tensor import Tensor

    value = mode.as_tensor(grad)
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
                f"{value.dtype.legacy_type_name(value.device.type)} got {result.dtype.legacy_type_name(result.device.type)})"
            )
        value = result
    return mode.from_tensor(value)


def _run_node_pre_hooks(hooks: dict, grads: list, mode: ArrayMode) -> list:
    values = tuple(None if g is None else mode.as_tensor(g) for g in grads)
    for hook in list(hooks.values()):
        result = hook(values)
        if result is not None:
            values = tuple(result)
    return [None if v is None else mode.from_tensor(v) for v in values]


def _run_node_post_hooks(hooks: dict, outputs: list, grads: list, mode: ArrayMode) -> list:
    grad_inputs = tuple(None if g is None else mode.as_tensor(g) for g in outputs)
    grad_outputs = tuple(None if g is None else mode.as_tensor(g) for g in grads)
    for hook in list(hooks.values()):
        result = hook(grad_inputs, grad_outputs)
        if result is not None:
            grad_inputs = tuple(result)
    return [None if v is None else mode.from_tensor(v) for v in grad_inputs]


# -- storing gradients -----------------------------------------------------------------------------
def _store_retained(tensor, grad, mode: ArrayMode) -> None:
    """retain_grad: a detached copy, accumulated (out of place) across backward calls."""
    from .._tensor import make_tensor

    data = grad._data if mode.create_graph else grad
    if tensor._grad is None:
        tensor._grad = make_tensor(data.copy())
    else:
        tensor._grad = make_tensor(tensor._grad._data + data)


def _accumulate(node: AccumulateGrad, grad, mode: ArrayMode) -> None:
    from .._tensor import make_tensor

    variable = node.variable
    existing = variable._grad
    if mode.create_graph:
        if existing is None:
            variable._grad = _copy_obeying_layout(variable, grad)
        else:
            variable._grad = existing + grad
    elif existing is None:
        variable._grad = make_tensor(_owned_with_layout(grad, variable._data))
    else:
        data = existing._data
        if data.shape == grad.shape and _backend.is_writeable(data):
            np.add(data, grad, out=data, casting="unsafe")
            existing._vc[0] += 1
        else:
            variable._grad = make_tensor(data + grad)
    meta = variable._meta
    if meta is not None and meta.post_accumulate_hooks:
        for hook in list(meta.post_accumulate_hooks.values()):
            hook(variable)


def _copy_obeying_layout(variable, grad):
    """Under create_graph, a first gradient is copied into a fresh tensor (``CopyBackwards``)."""
    from .._ops.inplace import copy_into_new

    return copy_into_new(grad, _empty_with_layout(variable._data))


def _empty_with_layout(param: np.ndarray) -> np.ndarray:
    """An empty array shaped like the parameter, with its strides when it is dense and not
    overlapping (the gradient layout contract), else row-major."""
    if param.flags.c_contiguous or 0 in param.strides or param.size == 0:
        return np.empty(param.shape, dtype=param.dtype) if type(param) is np.ndarray \
            else np.empty_like(param, order="C")
    return np.empty_like(param, order="K")


# References to a gradient array held by the engine while it is accumulated: the caller's
# argument, the node's input list and this check's own. More means someone else holds it too.
_STEAL_REFCOUNT = 4
_BASE_REFCOUNT = 3  # a base referenced only by the view being stored


def _owned_with_layout(grad, param):
    """The gradient array to store as ``.grad``: the engine's own array when nothing else holds it
    and its layout is right (as torch steals it), otherwise a copy with the parameter's layout."""
    target_c = param.flags.c_contiguous or 0 in param.strides
    layout_ok = grad.flags.c_contiguous if target_c else grad.strides == param.strides
    if layout_ok and _backend.is_writeable(grad) and sys.getrefcount(grad) <= _STEAL_REFCOUNT:
        base = grad.base
        if base is None:
            return grad
        # A view covering all of a base nobody else holds (a transposed product): adopt it.
        if (base.base is None and base.size == grad.size and base.flags.c_contiguous
                and sys.getrefcount(base) <= _BASE_REFCOUNT):
            return grad
    out = _empty_with_layout(param)
    out[...] = grad
    return out

