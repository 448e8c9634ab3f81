"""Where gradients diverge: the first graph node at which the two sides' gradients part.

When an item's gradients differ, the runner runs it again with ``trace`` on both sides
(``gradtrace``) and hands the two traces to :func:`locate`. Backward calls are matched in order,
nodes by graph position: the path of indices by which a breadth-first walk from the call's
tensors first reached the node through ``next_functions`` (``0.1``: the second edge of the first
tensor's ``grad_fn``). Going through the reference's nodes in the order torch ran them (every
node after the nodes that feed it; nodes it did not run last), the first node where the sides
differ is the divergence:

* ``node``: its incoming gradients (``grad_outputs``) agree and its outgoing ones do not
  (``grad_inputs``; for a node that accumulates into a leaf, the leaf's ``.grad`` after the
  call): the node itself computes a wrong gradient;
* ``incoming``: its incoming gradients differ though every node before it agreed: they were
  summed or changed differently on the way in, or came from outside the graph (the call's
  gradient, a ``.grad`` that already differed before the call);
* ``structure``: the graphs differ there (no node at that position, another name, another
  number of edges), or the calls themselves differ;
* ``result``: every node agrees, but what ``autograd.grad`` returned does not.

Otherwise ``none`` (the gradients agree at every node: the difference lies outside the traced
calls) or ``unavailable`` (a side could not be traced; the summary says why). A gradient that
is absent (``None``) agrees with zeros: torch reads an undefined gradient as zeros. Gradients
compare as the judge compares them: same shape, values within the tolerance of their dtype
(``compare``).

The result is a small dict of texts and numbers, bounded, with a one-line ``summary``::

    {"found", "summary", "call"?, "entry"?, "step"?, "line"?, "source"?, "node"?, "position"?,
     "which"?, "differing"?: {"torch", "implementation"}, "incoming"?: {...}, "outgoing"?: {...},
     "unobserved"?, "grad_before"?, "detail"?}

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


def locate(item: Item, reference: dict, implementation: dict, impl_module: str) -> dict:
    """Where the gradients of the two traced side results of ``item`` first diverge."""
    comparison = Comparison(Normalizer(), Normalizer(impl_module), item.case.tolerances, item.dtype)
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
    def __init__(self, comparison: Comparison) -> None:
        self.comparison = comparison

    def calls(self, ref_calls: list[dict], impl_calls: list[dict]) -> dict:
        if not ref_calls:
            return unavailable("the scenario made no backward call on torch (Tensor.backward, autograd.backward, "
                               "autograd.grad)")
        for number, (ref, impl) in enumerate(zip(ref_calls, impl_calls), start=1):
            at = call_info(number, ref)
            for side, call in (("reference", ref), ("implementation", impl)):
                if call.get("problem"):
                    return unavailable(f"{SIDE_NAMES[side]}, call {number} {where(at)}: {call['problem']}")
            if ref["entry"] != impl["entry"]:
                return found("structure", at, f"call {number} is {ref['entry']} on torch and {impl['entry']} on the "
                                              f"implementation")
            divergence = self.call(ref, impl, at)
            if divergence is not None:
                return divergence
        if len(ref_calls) != len(impl_calls):
            return found("structure", {}, f"torch made {len(ref_calls)} backward call(s), the implementation "
                                          f"{len(impl_calls)}, and the first {min(len(ref_calls), len(impl_calls))} "
                                          f"agree at every node")
        return {"found": "none", "summary": f"gradients agree at every node of the {len(ref_calls)} traced backward "
                                            f"call(s): the difference lies outside them"}

    def call(self, ref: dict, impl: dict, at: dict) -> dict | None:
        ref_nodes, impl_nodes = ref["nodes"], impl["nodes"]
        impl_at = dict(zip(positions(impl_nodes), impl_nodes))
        ref_positions = positions(ref_nodes)
        order = sorted(range(len(ref_nodes)), key=lambda i: (ref_nodes[i]["fired"] is None, ref_nodes[i]["fired"] or 0, i))
        for index in order:
            node, position = ref_nodes[index], ref_positions[index]
            other = impl_at.get(position)
            divergence = self.structure(node, other, position, at) or self.node(node, other, position, at)
            if divergence is not None:
                return divergence
        known = set(ref_positions)
        for position in (p for p in positions(impl_nodes) if p not in known):
            return found("structure", at | {"position": show_position(position)},
                         f"the implementation has {impl_at[position]['name']} at position {show_position(position)}, "
                         f"torch has no node there")
        return self.returned(ref, impl, at) or self.raised(ref, impl, at)

    def structure(self, node: dict, other: dict | None, position: tuple, at: dict) -> dict | None:
        shown = show_position(position)
        here = at | {"node": node["name"], "position": shown}
        if other is None:
            return found("structure", here, f"torch has {node['name']} at position {shown}, the implementation has "
                                            f"no node there")
        if self.comparison.norm_ref(node["name"]) != self.comparison.norm_impl(other["name"]):
            return found("structure", here, f"the node at position {shown} is {node['name']} on torch and "
                                            f"{other['name']} on the implementation")
        if node["edges"] != other["edges"]:
            return found("structure", here, f"{node['name']} at position {shown} has {node['edges']} next "
                                            f"function(s) on torch and {other['edges']} on the implementation")
        return None

    def node(self, node: dict, other: dict, position: tuple, at: dict) -> dict | None:
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
            outgoing = self.first_difference(node["outgoing"], other["outgoing"], "grad_inputs")
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

    def first_difference(self, ref: list | None, impl: list | None, name: str) -> dict | None:
        """``{"which", "detail", "differing"}`` for the first of two lists of gradients that differs
        (``differing``: that gradient on each side); None when they agree or a side did not observe
        them (its hook did not fire)."""
        if ref is None or impl is None:
            return None
        if len(ref) != len(impl):
            return {"which": name, "detail": f"{len(ref)} gradient(s) on torch, {len(impl)} on the implementation",
                    "differing": sides(ref, impl)}
        for index, (r, m) in enumerate(zip(ref, impl)):
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
            if ref.get("shape") != impl.get("shape"):
                return f"shapes {ref.get('shape')} and {impl.get('shape')}"
            r, m = ref.get("values"), impl.get("values")
            if is_tagged(r, "cut") and is_tagged(m, "cut"):
                return ""  # too large to have been recorded on either side: nothing to tell
            tolerance = max(self.comparison.tolerance_of(ref.get("dtype")), self.comparison.tolerance_of(impl.get("dtype")))
            return compare_numbers(r, m, tolerance)
        r, m = numeric_content(ref), numeric_content(impl)
        if r is not None and m is not None:
            return compare_numbers(r, m, self.comparison.float_tolerance, flatten=True)
        return "" if ref == impl else "different kinds of value"


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
        parts = ["every node agrees", call, f", but autograd.grad returned {values}"]
    else:
        parts = ["the graphs differ" if call else "the calls differ", call, f": {detail}"]
    text = " ".join(part for part in parts[:2] if part) + parts[2]
    result["summary"] = cut_text(text, 2000)
    return result
