"""A fuzzed autograd program: the tensors it holds and its lines, rendered as a catalog-style scenario.

``generator.Generator`` draws the steps; this module keeps what they build (``Program``, ``Var``)
and the small helpers that turn values and shapes into source text. A program's source is its
whole behaviour: nothing in it depends on random numbers, object addresses or the order of a dict.

A program also tracks, conservatively, what a profile without ``retain-graph`` or
``version-counter`` must stay clear of (``gate``): the graph nodes a backward from each tensor may go
through (each named by the step that made it), the memory each tensor may share with others
(views, ``detach()`` and ``.data`` aliases, results of table operators), which memory every node may
have saved and how often that memory was changed in place since, and the nodes a backward already
went through without keeping the graph.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

from ..operators.values import literal as values_literal

SHAPES = ((), (3,), (2, 3), (3, 1), (1, 3), (2, 1, 3), (0,), (1,))
GRAD_MODES = ("torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)", "torch.inference_mode()")
RECORDING_MODES = (GRAD_MODES[1], "torch.no_grad(), torch.enable_grad()")   # blocks that record, as outside one
# a fixed, uneven weighting of an output's elements for the gradients the program ends with: a plain sum
# would weigh every element alike and hide a transposed or misplaced gradient
WEIGHTS = (0.5, -1.5, 2.0, 0.25, -0.75, 1.25, 1.0)
# what a program with dual levels defines first: a tangent's values (None without one) in an ordinary tensor,
# as the operator table records them: not whether it requires grad, nor torch's efficient zeros (a list of
# them for a table operator's several results)
TANGENT_OF = ("def tangent_of(t):", "    if isinstance(t, (tuple, list)):", "        return [tangent_of(x) for x in t]",
              "    tangent = None if t is None else fwAD.unpack_dual(t).tangent",
              "    return None if tangent is None else tangent.detach().clone()")
# what a program with torch.func transforms defines first: their results' values and whether each requires
# grad, not the names of the nodes torch.func's own graph gives them (no engine is asked to copy those)
RESULTS_OF = ("def results_of(r):", "    if isinstance(r, (tuple, list)):", "        return [results_of(x) for x in r]",
              "    return (r.detach(), r.requires_grad)")


@dataclass
class Var:
    name: str
    shape: tuple[int, ...] | None      # None: not tracked (the result of a table operator)
    leaf: bool
    requires_grad: bool
    from_inference: bool = False       # made in inference mode, or computed from a tensor that was
    from_backward: bool = False        # returned by autograd.grad, or a view or detached alias of one
    retains: bool = False              # retain_grad() was called on it: its .grad is recorded with the leaves'
    memory: frozenset[str] = frozenset()  # the memory it may share (named by tensors); its own name when empty
    graph: frozenset[str] = frozenset()   # the nodes a backward from it may go through
    data_alias: bool = False           # made by .data (or a view or detach() of such): torch counts no versions for it

    def __post_init__(self) -> None:
        self.memory = self.memory or frozenset({self.name})


@dataclass
class Program:
    dtype: str
    lines: list[str] = field(default_factory=list)
    vars: list[Var] = field(default_factory=list)
    uses_functional: bool = False
    uses_threading: bool = False
    uses_forward_ad: bool = False      # fwAD = torch.autograd.forward_ad, and the helper tangent_of
    uses_transforms: bool = False      # the helper results_of
    steps: int = 0
    named: int = 0                     # names given (t0, t1, ...), also to results no step uses
    functions: int = 0                 # custom Functions defined (Fn0, Fn1, ...)
    versions: dict[str, int] = field(default_factory=dict)          # memory -> times changed in place
    saved: dict[str, dict[str, int]] = field(default_factory=dict)  # node -> {memory: its version then}
    freed: set[str] = field(default_factory=set)                    # nodes a backward went through and freed

    # -- building -------------------------------------------------------------------------
    def new_name(self) -> str:
        self.named += 1
        return f"t{self.named - 1}"

    def new_function_name(self, prefix: str = "Fn") -> str:
        """``Fn0``, ``Fn1``, ... for custom Functions; ``f2``, ... with ``prefix`` "f" for pure functions."""
        self.functions += 1
        return f"{prefix}{self.functions - 1}"

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def attempt(self, label: str, body: list[str]) -> None:
        self.steps += 1
        self.emit(f"with rec.attempt({f's{self.steps}: {label}'!r}):", *(f"    {line}" for line in body))

    def record(self, var: Var, version: bool = False) -> str:
        """``rec(...)`` of a tensor; with ``version``, its ``_version`` too, except where that number is
        a detail of how torch's kernels write, which no engine is asked to copy: a tensor that comes
        from inference mode (outside it, an op on an inference tensor returns a tensor whose version
        depends on the kernel: ``sum`` 1, ``mean`` 2, ``mul`` 0), and a gradient ``autograd.grad``
        returned, or a view of one (torch's backward kernels write into fresh buffers in place:
        ``index`` and ``gather`` give version 1, ``max(dim)`` 2, ``mul`` 0)."""
        suffix = ", version=True" if version and not (var.from_inference or var.from_backward) else ""
        return f"rec({var.name!r}, {var.name}{suffix})"

    # -- what a backward may go through -------------------------------------------------------
    def made(self, out: Var, inputs: list[Var]) -> None:
        """``out`` computed from ``inputs``: when it requires grad, a node that may have saved the
        memory of its inputs and of ``out``."""
        if out.requires_grad:
            self._node(out.name, out, inputs)

    def written(self, var: Var) -> None:
        """``var``'s memory changed in place (by an in-place op, or an optimizer's step)."""
        for memory in var.memory:
            self.versions[memory] = self.versions.get(memory, 0) + 1

    def changed_in_place(self, var: Var, others: list[Var]) -> None:
        """An in-place op on ``var`` that reads ``others``: its memory changes and, where gradients flow,
        every tensor sharing that memory now has a graph through the op's node."""
        self.written(var)
        if var.requires_grad or any(v.requires_grad for v in others):
            self._node(f"{var.name}.{self.steps}", var, others)
            for alias in self.vars:
                if alias.memory & var.memory:
                    alias.graph |= var.graph

    def _node(self, node: str, out: Var, inputs: list[Var]) -> None:
        out.graph = out.graph.union({node}, *(v.graph for v in inputs))
        self.saved[node] = {m: self.versions.get(m, 0) for v in (*inputs, out) for m in v.memory}

    def went_through(self, var: Var) -> None:
        """A backward from ``var`` that did not keep the graph: its nodes are freed."""
        self.freed |= var.graph

    def through_freed(self, var: Var) -> bool:
        """Whether a backward from ``var`` may go through a node an earlier backward freed."""
        return bool(var.graph & self.freed)

    def stale(self, var: Var) -> bool:
        """Whether a backward from ``var`` may go through a node that saved memory changed in place since."""
        return any(self.versions.get(m, 0) != version for node in var.graph
                   for m, version in self.saved.get(node, {}).items())

    def in_a_graph(self, var: Var) -> bool:
        """Whether a node may have saved some of ``var``'s memory."""
        return any(var.memory & saved.keys() for saved in self.saved.values())

    def leaves(self) -> list[Var]:
        """The leaves that require grad, in the order they were made."""
        return [v for v in self.vars if v.leaf and v.requires_grad]

    def grad_records(self) -> list[str]:
        """``rec`` of the ``.grad`` of every leaf that requires grad and every tensor that retains it."""
        return [f"rec({(v.name + '.grad')!r}, {v.name}.grad)" for v in self.vars
                if (v.leaf and v.requires_grad) or v.retains]

    # -- rendering ------------------------------------------------------------------------
    def body(self) -> list[str]:
        """The lines of the scenario's body, unindented: what the program needs, its steps, then the
        ``.grad`` it records at the end. A program built from ``lines`` alone (``Program(dtype, lines)``)
        has those lines as its body."""
        body = []
        if self.uses_threading:
            body.append("import threading")
        if self.uses_functional:
            body.append("F = torch.nn.functional")
        if self.uses_forward_ad:
            body += ["fwAD = torch.autograd.forward_ad", *TANGENT_OF]
        if self.uses_transforms:
            body += list(RESULTS_OF)
        return body + self.lines + self.grad_records()

    def source(self, function: str = "scenario") -> str:
        header = [f"def {function}(torch, rec):"]
        return "\n".join(header + [f"    {line}" for line in self.body() or ["pass"]]) + "\n"

    def digest(self) -> str:
        return hashlib.sha256(f"{self.dtype}\n{self.source()}".encode()).hexdigest()[:12]


def literal(values: Any) -> str:
    return values_literal(values)


def known(var: Var) -> bool:
    return var.shape is not None


def shape_of(values: Any) -> tuple[int, ...]:
    shape = []
    while isinstance(values, list):
        shape.append(len(values))
        values = values[0] if values else None
    return tuple(shape)


def broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    result = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + a), reversed((1,) * (len(a) - len(b)) + b)):
        if x != y and 1 not in (x, y):
            return None
        result.append(y if x == 1 else x)
    return tuple(reversed(result))


def weights(shape: tuple[int, ...], start: int = 0) -> Any:
    """Nested lists of ``shape`` filled with ``WEIGHTS`` in turn (from ``start``)."""
    flat = [WEIGHTS[(start + i) % len(WEIGHTS)] for i in range(numel(shape))]

    def nest(values: list, dims: tuple[int, ...]) -> Any:
        if not dims:
            return values[0]
        step = numel(dims[1:])
        return [nest(values[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]

    return nest(flat, shape)


def lambda_of(parameters: str, call: str) -> str:
    """``lambda x, t: F.mse_loss(x, t)``: a sample's call, applied to program tensors as written."""
    return f"lambda {parameters}: {call}"


def grid(low: float, high: float) -> list[float]:
    """The quarters and tenths in ``[low, high]``, in order."""
    points = {v / 4 for v in range(math.ceil(low * 4), math.floor(high * 4) + 1)}
    points |= {round(v / 10, 1) for v in range(math.ceil(low * 10), math.floor(high * 10) + 1)}
    return sorted(points) or [low]


def coarse_grid(low: float, high: float) -> list[float]:
    """A few round values in ``[low, high]`` (ties, zeros and kinks come often), or ``grid``'s."""
    points = [v for v in (-1.0, -0.5, 0.0, 0.5, 1.0) if low <= v <= high]
    return points if len(points) >= 2 else grid(low, high)


def numel(shape: tuple[int, ...]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
