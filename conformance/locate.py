"""Where gradients diverge: the first graph node at which the two sides' gradients part.

When an item's gradients differ, the runner runs it again with ``trace`` on both sides
(``gradtrace``) and hands the two traces to :func:`locate`. Backward calls are matched in order,
nodes by graph position: the path of indices by which a breadth-first walk from the call's
tensors first reached the node through ``next_functions`` (``0.1``: the second edge of the first
tensor's ``grad_fn``). Going through the reference's nodes in the order torch ran them (every
node after the nodes that feed it; nodes it did not run last), the first node where the
gradients differ is the divergence:

* ``node``: its incoming gradients (``grad_outputs``) agree and its outgoing ones do not
  (``grad_inputs``; for a node that accumulates into a leaf, the leaf's ``.grad`` after the
  call): the node itself computes a wrong gradient;
* ``incoming``: its incoming gradients differ though every node before it agreed: they were
  summed or changed differently on the way in, or came from outside the graph (the call's
  gradient, a ``.grad`` that already differed before the call);
* ``result``: every node agrees, but what ``autograd.grad`` returned does not.

Only what is the same quantity on both sides is compared. Where the graphs differ (a node the
other side lacks, names otherwise, or gives another number of edges; an edge or a tensor of the
call that leads to a node at another position, so that what flows into it is summed otherwise),
the nodes there and below are left out; a gradient is compared along an edge only where that edge
leads, on both sides, to a node at the same position with the same name (torch sends None where
an input needs no gradient; an engine may write a formula with other operations). The first such
difference of the graphs is the answer (``structure``) when no gradient differs, and is kept as
``graphs_differ`` beside a gradient divergence. Otherwise ``none`` (the gradients agree at every
node: the difference lies outside the traced calls) or ``unavailable`` (a side could not be
traced; the summary says why).

Gradients compare as the judge compares values (``compare``): within the tolerance of their
dtype; the same numbers in another shape agree (between two nodes an engine may keep ``x`` as
``[[x]]``); a gradient that is absent (``None``) agrees with zeros only (torch reads an undefined
gradient as zeros); one a side could not read (an error, cut) is not compared. A list of
incoming gradients shorter than the other's reads as ending in ``None``.

The result is a small dict of texts and numbers, bounded, with a one-line ``summary``::

    {"found", "summary", "call"?, "entry"?, "step"?, "line"?, "source"?, "node"?, "position"?,
     "which"?, "differing"?: {"torch", "implementation"}, "incoming"?: {...}, "outgoing"?: {...},
     "unobserved"?, "grad_before"?, "graphs_differ"?, "detail"?}

``which`` names the gradient that differs (``grad_inputs[1]``, ``.grad after the call``) and
``differing`` shows it on each side; ``incoming`` and ``outgoing`` show all of the node's;
``unobserved`` names a side on which the node's incoming gradients were not observed (its hook
did not fire); ``grad_before``, for a node that accumulates, the leaf's ``.grad`` before the call
(the same on both sides, or the divergence is ``incoming``).
"""

from __future__ import annotations

from typing import Any

from .bounds import cut_text
from .compare import Comparison, compare_numbers, is_tagged, numeric_content, preview, to_array
from .item import Item
from .normalize import Normalizer

TRACED_STATUSES = ("completed", "raised")
# what tracing uses of an implementation (``gradtrace``): node hooks, and next_functions and name()
TRACE_FEATURES = ("hooks", "graph-introspection")
SIDE_NAMES = {"reference": "torch", "implementation": "the implementation"}
SHOWN = 1000  # characters of one side's gradients in a result


def needs_locating(record: dict) -> bool:
    """Whether an item's gradients differ and both sides ran it to the end (then tracing can say where)."""
    ran = all((record.get(side) or {}).get("status") in TRACED_STATUSES for side in ("reference", "implementation"))
    return ran and any(diff.get("aspect") == "gradient" for diff in record.get("diff") or ())


def untraceable(lacking: list[str] | tuple[str, ...]) -> dict:
    """The result for an implementation whose profile says it lacks what tracing needs (it is not run)."""
    return unavailable(f"the implementation does not aim to support {', '.join(lacking)}, which tracing the "
                       f"gradients through graph nodes needs")


def unavailable(why: str) -> dict:
    return {"found": "unavailable", "summary": cut_text(f"cannot locate: {why}", 2000)}


def locate(item: Item, reference: dict, implementation: dict, impl_module: str, impl_device: str | None = None) -> dict:
    """Where the gradients of the two traced side results of ``item`` first diverge (``impl_device``: as
    for ``judge.judge``)."""
    comparison = Comparison(Normalizer(), Normalizer(impl_module, impl_device), item.case.tolerances, item.dtype)
    traces = {}
    for side, result in (("reference", reference), ("implementation", implementation)):
        if result.get("status") not in TRACED_STATUSES:
            detail = result.get("detail") or result.get("status")
            return unavailable(f"the traced run of {SIDE_NAMES[side]} did not finish ({cut_text(str(detail), 300)})")
        trace = result.get("trace")
        if not isinstance(trace, dict):
            return unavailable(f"{SIDE_NAMES[side]} sent no trace")
        if trace.get("problem"):
            return unavailable(f"{SIDE_NAMES[side]}: {trace['problem']}")
        traces[side] = trace["calls"]
    return Locator(comparison).calls(traces["reference"], traces["implementation"])


class Locator:
    """Matches two traces (the calls of each side) and finds the first divergence; ``comparison``
    gives the tolerances and the normalisation of names."""

    def __init__(self, comparison: Comparison) -> None:
        self.comparison = comparison

    def calls(self, ref_calls: list[dict], impl_calls: list[dict]) -> dict:
        if not ref_calls:
            return unavailable("the scenario made no backward call on torch (Tensor.backward, autograd.backward, "
                               "autograd.grad)")
        parted = None  # the first place the graphs differ: the answer when no gradient differs
        for number, (ref, impl) in enumerate(zip(ref_calls, impl_calls), start=1):
            at = call_info(number, ref)
            for side, call in (("reference", ref), ("implementation", impl)):
                if call.get("problem"):
                    return unavailable(f"{SIDE_NAMES[side]}, call {number} {where(at)}: {call['problem']}")
            if ref["entry"] != impl["entry"]:
                parted = parted or found("structure", at, f"call {number} is {ref['entry']} on torch and "
                                                          f"{impl['entry']} on the implementation")
                continue
            divergence, graphs_part = self.call(ref, impl, at)
            parted = parted or graphs_part
            if divergence is not None:
                return divergence if parted is None else noting(divergence, parted)
        if len(ref_calls) != len(impl_calls):
            parted = parted or found("structure", {}, f"torch made {len(ref_calls)} backward call(s), the "
                                                      f"implementation {len(impl_calls)}")
        if parted is not None:
            return parted
        return {"found": "none", "summary": f"gradients agree at every node of the {len(ref_calls)} traced backward "
                                            f"call(s): the difference lies outside them"}

    def call(self, ref: dict, impl: dict, at: dict) -> tuple[dict | None, dict | None]:
        """(the first gradient divergence of one call, the first place its graphs differ). Nodes at or
        below a node the other side lacks, names otherwise or gives another number of edges are not
        compared (their positions no longer name the same operations), nor those an edge reaches on
        one side and another edge on the other (what flows into them is summed otherwise); an edge
        that leads to no node on one side is noted, and the comparison goes on."""
        graphs = Graphs(ref, impl)
        parted = self.roots(graphs, at)
        order = sorted(range(len(ref["nodes"])), key=lambda i: (ref["nodes"][i]["fired"] is None,
                                                                ref["nodes"][i]["fired"] or 0, i))
        for index in order:
            node, position = ref["nodes"][index], graphs.ref_positions[index]
            if graphs.cut_off(position):
                continue
            other = graphs.impl_at.get(position)
            difference = self.structure(node, other, position, at)
            if difference is not None:
                parted = parted or difference
                graphs.cut.append(position)
                continue
            parted = parted or self.edges(graphs, node, other, position, at)
            divergence = self.node(node, other, position, at, graphs.comparable(node, other, self.same_name))
            if divergence is not None:
                return divergence, parted
        return self.returned(ref, impl, at), parted or self.raised(ref, impl, at)

    @staticmethod
    def roots(graphs: Graphs, at: dict) -> dict | None:
        """Where the call's tensors lead: a tensor whose node is another one's on one side only."""
        ref_roots, impl_roots = graphs.ref.get("roots", []), graphs.impl.get("roots", [])
        parted = None
        for index, (r, m) in enumerate(zip(ref_roots, impl_roots)):
            ends = graphs.ends(r, m)
            if ends is not None:
                parted = parted or found("structure", at, f"tensor {index} of the call leads to the node at position "
                                                          f"{ends[0]} on torch and at {ends[1]} on the implementation")
        return parted

    def same_name(self, ref_name: str, impl_name: str) -> bool:
        return self.comparison.norm_ref(ref_name) == self.comparison.norm_impl(impl_name)

    def structure(self, node: dict, other: dict | None, position: tuple, at: dict) -> dict | None:
        shown = show_position(position)
        here = at | {"node": node["name"], "position": shown}
        if other is None:
            return found("structure", here, f"torch has {node['name']} at position {shown}, the implementation has "
                                            f"no node there")
        if not self.same_name(node["name"], other["name"]):
            return found("structure", here, f"the node at position {shown} is {node['name']} on torch and "
                                            f"{other['name']} on the implementation")
        if len(node["next"]) != len(other["next"]):
            return found("structure", here, f"{node['name']} at position {shown} has {len(node['next'])} next "
                                            f"function(s) on torch and {len(other['next'])} on the implementation")
        return None

    @staticmethod
    def edges(graphs: Graphs, node: dict, other: dict, position: tuple, at: dict) -> dict | None:
        """Where the edges of two matched nodes lead: to no node on one side only (noted), or to nodes at
        other positions (noted; both are left uncompared)."""
        shown = show_position(position)
        here = at | {"node": node["name"], "position": shown}
        parted = None
        for index, (r, m) in enumerate(zip(node["next"], other["next"])):
            if (r == -1) != (m == -1):
                detail = (f"next function {index} of {node['name']} at position {shown} leads to "
                          f"{'none' if r == -1 else 'a node'} on torch and to {'none' if m == -1 else 'a node'} on "
                          f"the implementation")
            elif (ends := graphs.ends(r, m)) is not None:
                detail = (f"next function {index} of {node['name']} at position {shown} leads to the node at "
                          f"position {ends[0]} on torch and at {ends[1]} on the implementation")
            else:
                continue
            parted = parted or found("structure", here, detail)
        return parted

    def node(self, node: dict, other: dict, position: tuple, at: dict, leads: list[bool]) -> dict | None:
        here = at | {"node": node["name"], "position": show_position(position),
                     "incoming": sides(node["incoming"], other["incoming"])}
        accumulates = "grad_after" in node and "grad_after" in other
        incoming = self.first_difference(node["incoming"], other["incoming"], "grad_outputs")
        if incoming is None and accumulates:
            incoming = self.first_difference([node.get("grad_before")], [other.get("grad_before")],
                                             ".grad before the call")
        if incoming is not None:
            return found("incoming", here | incoming)
        if accumulates:
            outgoing = self.first_difference([node["grad_after"]], [other["grad_after"]], ".grad after the call")
            shown_out = sides([node["grad_after"]], [other["grad_after"]])
            here["grad_before"] = shown([node["grad_before"]])
        else:
            outgoing = self.first_difference(node["outgoing"], other["outgoing"], "grad_inputs", leads)
            shown_out = sides(node["outgoing"], other["outgoing"])
        if outgoing is None:
            return None
        unobserved = [SIDE_NAMES[side] for side, gradients in (("reference", node["incoming"]),
                                                                ("implementation", other["incoming"]))
                      if gradients is None]
        return found("node", here | outgoing | {"outgoing": shown_out, "unobserved": " and ".join(unobserved)})

    def returned(self, ref: dict, impl: dict, at: dict) -> dict | None:
        if "result" not in ref or "result" not in impl:
            return None
        difference = self.first_difference(ref["result"], impl["result"], "result")
        if difference is None:
            return None
        return found("result", at | difference | {"outgoing": sides(ref["result"], impl["result"])})

    @staticmethod
    def raised(ref: dict, impl: dict, at: dict) -> dict | None:
        if ref.get("raised") == impl.get("raised"):
            return None
        return found("structure", at, f"the call raised {ref.get('raised') or 'nothing'} on torch and "
                                      f"{impl.get('raised') or 'nothing'} on the implementation, every node before "
                                      f"agreeing")

    def first_difference(self, ref: list | None, impl: list | None, name: str,
                         compared: list[bool] | None = None) -> dict | None:
        """``{"which", "detail", "differing"}`` for the first of two lists of gradients that differs
        (``differing``: that gradient on each side); None when they agree or a side did not observe
        them (its hook did not fire). A shorter list reads as ending in None (a node with several
        outputs may leave out those that got no gradient); ``compared``: the indices to compare
        (``Graphs.comparable``), all by default."""
        if ref is None or impl is None:
            return None
        length = max(len(ref), len(impl))
        ref, impl = ref + [None] * (length - len(ref)), impl + [None] * (length - len(impl))
        for index, (r, m) in enumerate(zip(ref, impl)):
            if compared is not None and not (index < len(compared) and compared[index]):
                continue
            detail = self.gradient_difference(r, m)
            if detail:
                return {"which": name if name.startswith(".") else f"{name}[{index}]", "detail": detail,
                        "differing": sides([r], [m])}
        return None

    def gradient_difference(self, ref: Any, impl: Any) -> str:
        """How two encoded gradients differ; empty when they agree."""
        if ref is None or impl is None:
            present = impl if ref is None else ref
            if present is None or all_zeros(present):
                return ""
            return f"None on {'torch' if ref is None else 'the implementation'}"
        if is_tagged(ref, "tensor") and is_tagged(impl, "tensor"):
            r, m = ref.get("values"), impl.get("values")
            if isinstance(r, dict) or isinstance(m, dict):
                return ""  # not read on a side (too large, or reading it raised): nothing to tell
            tolerance = max(self.comparison.tolerance_of(ref.get("dtype")), self.comparison.tolerance_of(impl.get("dtype")))
            # the same numbers in another shape agree (an engine may keep a gradient as [[x]] where torch has
            # x, or view it otherwise between two nodes): the shape a node gives its inputs is checked by the
            # engine, and the observations compare the shapes that matter
            return compare_numbers(r, m, tolerance, flatten=ref.get("shape") != impl.get("shape"))
        r, m = numeric_content(ref), numeric_content(impl)
        if r is not None and m is not None:
            return compare_numbers(r, m, self.comparison.float_tolerance, flatten=True)
        return ""  # a gradient a side could not read (an error, an object): nothing to tell


class Graphs:
    """The two sides' graphs of one call, their nodes by position, and the positions left uncompared."""

    def __init__(self, ref: dict, impl: dict) -> None:
        self.ref, self.impl = ref, impl
        self.ref_positions, self.impl_positions = positions(ref["nodes"]), positions(impl["nodes"])
        self.impl_at = dict(zip(self.impl_positions, impl["nodes"]))
        self.cut: list[tuple[int, ...]] = []

    def cut_off(self, position: tuple[int, ...]) -> bool:
        return any(position[:len(top)] == top for top in self.cut)

    def ends(self, ref_target: int, impl_target: int) -> tuple[str, str] | None:
        """Where two edges lead, as positions, when they lead to nodes at different positions (both
        are then cut off); None otherwise."""
        if ref_target < 0 or impl_target < 0:
            return None
        ref_end, impl_end = self.ref_positions[ref_target], self.impl_positions[impl_target]
        if ref_end == impl_end:
            return None
        self.cut += [ref_end, impl_end]
        return show_position(ref_end), show_position(impl_end)

    def comparable(self, node: dict, other: dict, same_name) -> list[bool]:
        """For each edge of two matched nodes: whether it leads, on both sides, to a node at the same
        position with the same name. Only then is the gradient sent along it compared: torch sends
        None where an input needs no gradient, and a gradient sent to another operation (the same
        formula written with other operations) is another quantity."""
        flags = []
        for r, m in zip(node["next"], other["next"]):
            flags.append(r >= 0 and m >= 0 and self.ref_positions[r] == self.impl_positions[m]
                         and same_name(self.ref["nodes"][r]["name"], self.impl["nodes"][m]["name"]))
        return flags


# -- positions and texts ------------------------------------------------------------------------------
def positions(nodes: list[dict]) -> list[tuple[int, ...]]:
    """Each node's graph position: the path of indices from the call's tensors (``gradtrace``)."""
    paths: list[tuple[int, ...]] = []
    for node in nodes:
        parent = node["parent"]
        paths.append((node["edge"],) if parent < 0 else (*paths[parent], node["edge"]))
    return paths


def show_position(position: tuple[int, ...]) -> str:
    text = ".".join(str(i) for i in position)
    return text if len(text) <= 80 else f"{text[:38]}\u2026{text[-38:]}"


def all_zeros(value: Any) -> bool:
    numbers = numeric_content(value)
    if numbers is None:
        return False
    try:
        return not to_array(numbers).any()
    except (TypeError, ValueError):
        return False


def shown(gradients: list | None) -> str:
    if gradients is None:
        return "not observed (the node's hook did not fire)"
    parts = ["None" if g is None else preview(g.get("values")) if is_tagged(g, "tensor") else preview(g)
             for g in gradients]
    return cut_text(parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")", SHOWN)


def sides(ref: list | None, impl: list | None) -> dict:
    return {"torch": shown(ref), "implementation": shown(impl)}


def call_info(number: int, call: dict) -> dict:
    info = {"call": number, "entry": call["entry"]}
    for key in ("step", "line", "source"):
        if call.get(key) is not None:
            info[key] = call[key]
    return info


def where(at: dict) -> str:
    """`` `y.backward()` (line 5)``, or the entry point where the line is not known."""
    if at.get("source"):
        return f"`{cut_text(at['source'], 120)}` (line {at.get('line')})"
    return f"({at.get('entry', 'a backward call')})" if at else ""


def noting(divergence: dict, parted: dict) -> dict:
    """A gradient divergence with the first difference of the graphs beside it (a "result" one says,
    in its summary, that the nodes compared agree, and which were left out)."""
    divergence["graphs_differ"] = parted["detail"]
    if divergence["found"] == "result":
        divergence["summary"] = cut_text(f"{divergence['summary']} (nodes left out where the graphs differ: "
                                         f"{parted['detail']})", 2000)
    return divergence


def found(kind: str, at: dict, detail: str = "") -> dict:
    """The result for a divergence of ``kind`` at ``at`` (call, node, position, which, sides)."""
    result = {"found": kind, **{key: value for key, value in at.items() if value != ""}}
    if detail and "detail" not in result:
        result["detail"] = detail
    node = f"{at['node']} (position {at['position']})" if at.get("node") else "a node"
    call = f"in call {at['call']} {where(at)}" if at.get("call") else ""
    which = at.get("which", "")
    differing = at.get("differing") or {}
    values = f"{which} torch {differing.get('torch')} / implementation {differing.get('implementation')}"
    if kind == "node":
        incoming = (f"incoming not observed on {at['unobserved']}, every node before it agreeing" if at.get("unobserved")
                    else "incoming agree")
        if at.get("grad_before"):
            values = (f".grad {at['grad_before']} before the call on both sides, after it torch "
                      f"{differing.get('torch')} / implementation {differing.get('implementation')}")
        parts = [f"gradients first diverge at {node}", call,
                 f": {incoming}, {values if which.startswith('.') else 'outgoing ' + values}"]
    elif kind == "incoming":
        parts = [f"gradients first differ where they enter {node}", call, f", every node before it agreeing: {values}"]
    elif kind == "result":
        parts = ["every node compared agrees", call, f", but autograd.grad returned {values}"]
    else:
        parts = ["the graphs differ" if call else "the calls differ", call, f": {detail}"]
    text = " ".join(part for part in parts[:2] if part) + parts[2]
    result["summary"] = cut_text(text, 2000)
    return result
