"""Tracing the gradients that flow through every graph node of a backward call, on one side.

When an item runs with ``trace`` (``item.Item.trace``: the runner asks for it once an item's
gradients differed, see ``locate``), the side's process wraps the namespace's backward entry
points (``Tensor.backward``, ``autograd.backward``, ``autograd.grad``) before the scenario runs.
At each call (a call made while another runs, as torch's ``Tensor.backward`` calls
``autograd.backward``, is part of that one), the tracer walks the graph breadth-first from the
roots' ``grad_fn`` through ``next_functions``, registers a post hook (``node.register_hook``) on
every node it finds, makes the call, and removes the hooks. A hook records what flowed into its
node (``grad_outputs``: from the output side) and out of it (``grad_inputs``: towards the
leaves), encoded as ``snapshot`` encodes observations. A node that accumulates into a leaf (one
with a ``variable``, as ``AccumulateGrad``) also gets the leaf's ``.grad`` before and after the
call: an accumulation bug shows there, not in the hooks.

The trace is ``{"calls": [call, ...], "problem"?: why nothing could be traced, "cut"?: what was
left out}``; a call is::

    {"entry": "Tensor.backward", "step": 3, "line": 12, "source": "y.backward()", "roots": [0],
     "nodes": [node, ...], "raised"?: "RuntimeError", "result"?: [gradient, ...], "problem"?: text}

``step`` is the number of the scenario step the call belongs to (the next one recorded), ``line``
and ``source`` the scenario line that made it, ``roots`` where each of the call's tensors leads
(below), ``result`` what ``autograd.grad`` returned. Nodes are listed in the order the walk found
them::

    {"name": "MulBackward0", "parent": 0, "edge": 1, "next": [2, -1], "fired": 1,
     "incoming": [gradient, ...] | None, "outgoing": [gradient, ...] | None,
     "grad_before"?: gradient, "grad_after"?: gradient}

``parent`` is the index of the node the walk reached it from (-1 for a root, whose ``edge`` is
its index among the call's tensors), ``edge`` its index in that node's ``next_functions``:
together they give the node's graph position, the path of indices from the roots (``locate``).
``next`` says where each of its ``next_functions`` leads: the index of that node, -1 for none
(torch's ``(None, 0)``, an input that needs no gradient), -2 for a node past the limit; so two
edges that lead to one node are seen to. ``fired`` is the rank of its hook among the hooks that
fired in the call (None: it did not fire). A call whose graph cannot be walked or hooked (no
``grad_fn``, ``next_functions``, ``name()`` or ``register_hook``) has a ``problem`` instead.

Nothing of the tracing changes what the scenario observes: the hooks return None, warnings the
tracer causes are discarded, it holds no node or tensor once a call returns (nothing the
scenario frees is kept alive), and the entry points are restored after the scenario. What the
scenario itself records in a traced run is not judged; only the trace is used. Bounded:
``bounds.TRACE_CALLS_LIMIT`` calls, ``TRACE_NODES_LIMIT`` nodes a call, ``TRACE_VALUES_LIMIT``
gradient elements in all (past it, gradients are recorded as cut).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections import deque
from collections.abc import Callable
from typing import Any

from .bounds import NAME_LIMIT, TRACE_CALLS_LIMIT, TRACE_NODES_LIMIT, TRACE_VALUES_LIMIT, safe_str
from .snapshot import Snapshotter, cut, qualified_type_name

# (attribute of the namespace, attribute of that, how a call is named)
ENTRY_POINTS = (("Tensor", "backward", "Tensor.backward"), ("autograd", "backward", "autograd.backward"),
                ("autograd", "grad", "autograd.grad"))
ENTRY_NAMES = tuple(name for _, _, name in ENTRY_POINTS)
# the argument that holds the tensors a call starts from: (position, keyword); Tensor.backward's is self
ROOT_ARGUMENT = {"Tensor.backward": (0, None), "autograd.backward": (0, "tensors"), "autograd.grad": (0, "outputs")}


class CannotTrace(Exception):
    """A call's graph cannot be walked or hooked; the message says why."""


@contextlib.contextmanager
def quiet():
    """The tracer's own work: its warnings are not the scenario's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class GradTracer:
    """Traces every backward call the scenario makes on ``namespace``; ``where()`` tells the
    scenario step and line a call is made at (``recorder.Recorder.position``)."""

    def __init__(self, namespace: Any, where: Callable[[], dict]) -> None:
        self.namespace = namespace
        self.where = where
        self.calls: list[dict] = []
        self.problem: str | None = None
        self.cuts: list[str] = []
        self._snapshotter = Snapshotter(namespace)
        self._installed: list[tuple[Any, str, Any]] = []
        self._running = 0          # traced calls in progress: a call made inside one is part of it
        self._fired = 0            # hooks fired so far in the call being traced
        self._values_left = TRACE_VALUES_LIMIT

    # -- the entry points -------------------------------------------------------------------
    def install(self) -> None:
        with quiet():
            for owner_name, attribute, entry in ENTRY_POINTS:
                owner = _quiet(lambda: getattr(self.namespace, owner_name))
                original = _quiet(lambda: getattr(owner, attribute)) if owner is not None else None
                if not callable(original):
                    continue
                try:
                    setattr(owner, attribute, self._wrapped(original, entry))
                except Exception:  # noqa: BLE001 - a read-only class or module of the implementation
                    continue
                self._installed.append((owner, attribute, original))
        if not self._installed:
            self.problem = f"the implementation has none of {', '.join(ENTRY_NAMES)} that could be wrapped"

    def uninstall(self) -> None:
        with quiet():
            for owner, attribute, original in reversed(self._installed):
                with contextlib.suppress(Exception):
                    setattr(owner, attribute, original)
        self._installed = []

    def _wrapped(self, original: Callable, entry: str) -> Callable:
        tracer = self

        @functools.wraps(original)
        def traced(*args, **kwargs):
            if tracer._running:
                return original(*args, **kwargs)
            if len(tracer.calls) >= TRACE_CALLS_LIMIT:
                tracer.cut_once(f"calls after the first {TRACE_CALLS_LIMIT} were not traced")
                return original(*args, **kwargs)
            return tracer.call(original, entry, args, kwargs)

        return traced

    # -- one call ---------------------------------------------------------------------------
    def call(self, original: Callable, entry: str, args: tuple, kwargs: dict) -> Any:
        with quiet():
            call = {"entry": entry, **self.where(), "nodes": []}
            self.calls.append(call)
            self._fired = 0
            try:
                handles, accumulators = self._prepare(call, _roots(entry, args, kwargs))
            except CannotTrace as exc:
                call["problem"] = str(exc)
                handles, accumulators = [], []
            except Exception as exc:  # noqa: BLE001 - an implementation's graph that raises as it is walked
                call["problem"] = f"walking its graph raised {qualified_type_name(type(exc))}: {safe_str(exc, 300)}"
                handles, accumulators = [], []
        self._running += 1
        try:
            result = original(*args, **kwargs)
        except BaseException as exc:
            call["raised"] = qualified_type_name(type(exc))
            raise
        finally:
            self._running -= 1
            self._finish(call, handles, accumulators)
        if entry == "autograd.grad":
            with quiet():
                call["result"] = self._gradients(result if isinstance(result, (tuple, list)) else (result,))
        return result

    def _prepare(self, call: dict, roots: list) -> tuple[list, list]:
        """Walk the graph from ``roots`` and hook every node: (hook handles, [(node record, leaf)])."""
        nodes: list[dict] = call["nodes"]
        index_of: dict[int, int] = {}  # id(node) -> its index in nodes
        held: list = []  # every node and edge met, held until the call returns so that ids stay unique
        starts = [self._grad_fn(root) for root in roots]
        queue = deque((node, -1, index) for index, node in enumerate(starts))
        handles, accumulators, edges = [], [], []
        while queue:
            node, parent, edge = queue.popleft()
            if node is None or id(node) in index_of:
                continue
            if len(nodes) >= TRACE_NODES_LIMIT:
                call["cut"] = f"nodes after the first {TRACE_NODES_LIMIT} were not traced"
                break
            index_of[id(node)] = len(nodes)
            following = _next_functions(node)[:TRACE_NODES_LIMIT]
            held.append((node, following))
            record = {"name": _name(node), "parent": parent, "edge": edge, "next": [], "fired": None,
                      "incoming": None, "outgoing": None}
            nodes.append(record)
            edges.append((record, following))
            handle = _register_hook(node, self._hook(record))
            if handle is not None:
                handles.append(handle)
            leaf = _quiet(lambda: node.variable)
            if leaf is not None and self._snapshotter.is_tensor(leaf):
                record["grad_before"] = self._gradient(_quiet(lambda: leaf.grad))
                accumulators.append((record, leaf))
            queue.extend((child, len(nodes) - 1, index) for index, child in enumerate(following))
        for record, following in edges:
            record["next"] = [_target(index_of, child) for child in following]
        call["roots"] = [_target(index_of, node) for node in starts]
        if nodes and not handles:
            raise CannotTrace("its graph nodes take no hooks (no Node.register_hook)")
        return handles, accumulators

    def _hook(self, record: dict) -> Callable:
        def hook(grad_inputs, grad_outputs):
            if self._running and record["fired"] is None:  # a node runs once a call: a later firing is another's
                record["fired"] = self._fired
                self._fired += 1
                with quiet(), contextlib.suppress(Exception):
                    record["incoming"] = self._gradients(grad_outputs)
                    record["outgoing"] = self._gradients(grad_inputs)
            return None

        return hook

    def _finish(self, call: dict, handles: list, accumulators: list) -> None:
        with quiet():
            for handle in handles:
                with contextlib.suppress(Exception):
                    handle.remove()
            for record, leaf in accumulators:
                record["grad_after"] = self._gradient(_quiet(lambda leaf=leaf: leaf.grad))

    def _grad_fn(self, root: Any) -> Any:
        if not self._snapshotter.is_tensor(root):
            return None
        try:
            return root.grad_fn
        except AttributeError as exc:
            raise CannotTrace("its tensors have no grad_fn") from exc

    # -- encoding ---------------------------------------------------------------------------
    def _gradients(self, values: Any) -> list | dict:
        try:
            items = list(values)
        except Exception:  # noqa: BLE001 - not a sequence: what the implementation passed, as it is
            return [self._gradient(values)]
        return [self._gradient(value) for value in items[:64]]

    def _gradient(self, value: Any) -> Any:
        if value is None:
            return None
        if self._values_left <= 0:
            self.cut_once(f"gradients after the first {TRACE_VALUES_LIMIT} elements were not recorded")
            return cut(f"over the trace's limit of {TRACE_VALUES_LIMIT} elements")
        encoded = self._snapshotter.encode(value)
        shape = encoded.get("shape") if isinstance(encoded, dict) else None
        size = 1
        for length in shape if isinstance(shape, list) else ():
            size *= length if isinstance(length, int) else 1
        self._values_left -= size
        return encoded

    def cut_once(self, why: str) -> None:
        if why not in self.cuts:
            self.cuts.append(why)

    def result(self) -> dict:
        trace: dict[str, Any] = {"calls": self.calls}
        if self.problem:
            trace["problem"] = self.problem
        if self.cuts:
            trace["cut"] = "; ".join(self.cuts)
        return trace


# -- reading the implementation's graph ------------------------------------------------------------
def _quiet(getter: Callable) -> Any:
    try:
        return getter()
    except Exception:  # noqa: BLE001 - an attribute of the implementation that raises
        return None


def _roots(entry: str, args: tuple, kwargs: dict) -> list:
    position, keyword = ROOT_ARGUMENT[entry]
    value = args[position] if len(args) > position else kwargs.get(keyword) if keyword else None
    if isinstance(value, (list, tuple)):
        return list(value)
    return [] if value is None else [value]


def _target(index_of: dict[int, int], node: Any) -> int:
    """Where an edge leads: the index of its node in the call's nodes; -1: no node; -2: a node
    past the limit, not traced."""
    return -1 if node is None else index_of.get(id(node), -2)


def _next_functions(node: Any) -> list:
    try:
        pairs = node.next_functions
    except AttributeError as exc:
        raise CannotTrace("its graph nodes have no next_functions") from exc
    return [pair[0] if isinstance(pair, tuple) and pair else pair for pair in list(pairs)]


def _name(node: Any) -> str:
    name = _quiet(lambda: node.name)
    if not callable(name):
        raise CannotTrace("its graph nodes have no name()")
    return safe_str(name(), NAME_LIMIT)


def _register_hook(node: Any, hook: Callable) -> Any:
    register = _quiet(lambda: node.register_hook)
    if not callable(register):
        return None
    return _quiet(lambda: register(hook))
