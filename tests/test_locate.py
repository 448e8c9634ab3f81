"""The divergence locator: where two engines' gradients first part in the graph.

``conformance.gradtrace`` records, on each side, the gradients flowing into and out of every graph
node of each backward call; ``conformance.locate`` matches the two traces and names the first node
at which they part. The matching is tested on hand-made traces; the tracing on torch and
myautograd in children forked from this process (``tests/support/sides.py``); the whole path (the
runner, the fuzzer, the reports) on the planted bugs of ``tests/broken/gradients/``, each wrong at
a known node: a derivative formula (``MulBackward0``), a broadcasting reduction (``AddBackward0``)
and an accumulation (one leaf's ``AccumulateGrad``).
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest

import conformance.gradtrace
from conformance.case import case_from_source
from conformance.expectations import ImplementationFile, Profile
from conformance.implementations import resolve
from conformance.item import Item
from conformance.judge import judge
from conformance.locate import locate, needs_locating
from conformance.pool import Pool
from conformance.protocol import side_problem, trace_problem
from conformance.recorder import observe
from conformance.reports import html_items, markdown, write_all
from conformance.reports.common import diff_text
from conformance.runner import Run, RunConfig
from tests.broken.gradients.locatecheck import LOCATE_CHECK
from tests.support.sides import isolated

ROOT = Path(__file__).resolve().parents[1]
LOCATE_REGISTRY = "tests.broken.gradients.locatecheck:LOCATE_CHECK"
PRODUCT = LOCATE_CHECK.get("locatecheck.product_between_other_nodes")
ACCUMULATOR = "torch::autograd::AccumulateGrad"


# -- hand-made traces --------------------------------------------------------------------------------------------
def grad(values, dtype: str = "torch.float32") -> dict:
    shape = [] if not isinstance(values, list) else [len(values)]
    return {"t": "tensor", "dtype": dtype, "shape": shape, "device": "cpu", "values": values, "requires_grad": False,
            "is_leaf": True, "grad_fn": None, "retains_grad": False, "grad": None}


def node(name: str, parent: int, edge: int, following: list[int], fired: int | None, incoming, outgoing,
         **extra) -> dict:
    return {"name": name, "parent": parent, "edge": edge, "next": following, "fired": fired, "incoming": incoming,
            "outgoing": outgoing, **extra}


def graph(dtype: str = "torch.float32") -> list[dict]:
    """The nodes of ``(x.sin() * w).sum().backward()`` as torch traces them (x = [0, pi/3], w = [2, 3]),
    in the order the walk finds them; torch runs w's accumulator before SinBackward0."""
    def g(values):
        return grad(values, dtype)

    return [
        node("SumBackward0", -1, 0, [1], 0, [g(1.0)], [g([1.0, 1.0])]),
        node("MulBackward0", 0, 0, [2, 3], 1, [g([1.0, 1.0])], [g([2.0, 3.0]), g([0.0, 0.5])]),
        node("SinBackward0", 1, 0, [4], 3, [g([2.0, 3.0])], [g([2.0, 1.5])]),
        node(ACCUMULATOR, 1, 1, [], 2, [g([0.0, 0.5])], [], grad_before=None, grad_after=g([0.0, 0.5])),
        node(ACCUMULATOR, 2, 0, [], 4, [g([2.0, 1.5])], [], grad_before=None, grad_after=g([2.0, 1.5])),
    ]


def call(nodes: list[dict], entry: str = "Tensor.backward", **extra) -> dict:
    return {"entry": entry, "step": 1, "line": 5, "source": "y.backward()", "roots": [0], "nodes": nodes, **extra}


def side(*calls: dict, status: str = "completed", **trace) -> dict:
    return {"status": status, "steps": [], "duration": 0.0, "trace": {"calls": list(calls), **trace}}


def located(ref_calls: list[dict], impl_calls: list[dict], dtype: str = "float32") -> dict:
    item = Item(PRODUCT, "cpu", dtype, trace=True)
    return locate(item, side(*ref_calls), side(*impl_calls), "myautograd")


def test_identical_traces_agree_at_every_node():
    found = located([call(graph())], [call(graph())])
    assert found == {"found": "none", "summary": "gradients agree at every node of the 1 traced backward call(s): "
                                                 "the difference lies outside them"}


def test_a_node_whose_incoming_gradients_agree_and_outgoing_do_not_is_named():
    impl = graph()
    impl[1]["outgoing"][1] = grad([0.9, 0.9])  # MulBackward0 sends w a wrong gradient ...
    impl[3]["incoming"] = [grad([0.9, 0.9])]   # ... which w's accumulator then receives and stores
    impl[3]["grad_after"] = grad([0.9, 0.9])
    found = located([call(graph())], [call(impl)])
    assert found["found"] == "node"
    assert (found["node"], found["position"], found["which"], found["call"]) == ("MulBackward0", "0.0", "grad_inputs[1]", 1)
    assert found["summary"] == ("gradients first diverge at MulBackward0 (position 0.0) in call 1 `y.backward()` "
                                "(line 5): incoming agree, outgoing grad_inputs[1] torch [0.0, 0.5] / implementation "
                                "[0.9, 0.9]")
    assert found["incoming"] == {"torch": "[1.0, 1.0]", "implementation": "[1.0, 1.0]"}
    assert found["outgoing"] == {"torch": "([2.0, 3.0], [0.0, 0.5])", "implementation": "([2.0, 3.0], [0.9, 0.9])"}


def test_nodes_are_taken_in_the_order_torch_ran_them():
    impl = graph()
    impl[2]["outgoing"] = [grad([5.0, 5.0])]   # SinBackward0 wrong (found second by the walk, run fourth)
    impl[3]["grad_after"] = grad([7.0, 7.0])  # w's accumulator wrong (found fourth, run third)
    found = located([call(graph())], [call(copy.deepcopy(impl))])
    assert (found["node"], found["position"], found["which"]) == (ACCUMULATOR, "0.0.1", ".grad after the call")
    assert found["summary"].endswith("incoming agree, .grad None before the call on both sides, after it torch "
                                     "[0.0, 0.5] / implementation [7.0, 7.0]")
    reordered = graph()
    reordered[2]["fired"], reordered[3]["fired"] = 2, 3  # had torch run SinBackward0 first, it would come first
    found = located([call(reordered)], [call(impl)])
    assert (found["node"], found["position"], found["which"]) == ("SinBackward0", "0.0.0", "grad_inputs[0]")


def test_gradients_agree_within_the_tolerance_of_their_dtype():
    near = graph()
    near[1]["outgoing"][1] = grad([1e-7, 0.5000001])
    assert located([call(graph())], [call(near)])["found"] == "none"
    wide = graph("torch.float64")
    wide[1]["outgoing"][1] = grad([1e-7, 0.5000001], "torch.float64")
    found = located([call(graph("torch.float64"))], [call(wide)], dtype="float64")
    assert (found["found"], found["node"]) == ("node", "MulBackward0")
    assert "rtol=1e-12" in found["detail"]


def test_an_absent_gradient_agrees_with_zeros_only():
    ref, zeros, ones = graph(), graph(), graph()
    ref[1]["outgoing"][0] = None
    zeros[1]["outgoing"][0] = grad([0.0, 0.0])
    ones[1]["outgoing"][0] = grad([1.0, 0.0])
    assert located([call(ref)], [call(zeros)])["found"] == "none"
    found = located([call(ref)], [call(ones)])
    assert (found["node"], found["which"], found["detail"]) == ("MulBackward0", "grad_inputs[0]", "None on torch")


def test_gradients_that_differ_on_the_way_in_are_located_where_they_enter():
    impl = graph()
    impl[0]["incoming"] = [grad(2.0)]
    found = located([call(graph())], [call(impl)])
    assert (found["found"], found["node"], found["position"], found["which"]) == (
        "incoming", "SumBackward0", "0", "grad_outputs[0]")
    assert found["summary"] == ("gradients first differ where they enter SumBackward0 (position 0) in call 1 "
                                "`y.backward()` (line 5), every node before it agreeing: grad_outputs[0] torch 1.0 / "
                                "implementation 2.0")
    before = graph()
    before[3]["grad_before"] = grad([1.0, 1.0])
    found = located([call(graph())], [call(before)])
    assert (found["found"], found["position"], found["which"]) == ("incoming", "0.0.1", ".grad before the call")


def test_an_accumulator_whose_hook_did_not_fire_is_judged_by_the_grad_it_leaves():
    impl = graph()
    impl[3].update(fired=None, incoming=None, outgoing=None, grad_after=grad([0.0, 1.0]))
    found = located([call(graph())], [call(impl)])
    assert (found["found"], found["node"], found["position"]) == ("node", ACCUMULATOR, "0.0.1")
    assert found["unobserved"] == "the implementation"
    assert "incoming not observed on the implementation, every node before it agreeing" in found["summary"]
    assert found["incoming"]["implementation"] == "not observed (the node's hook did not fire)"


def lose_the_last_node(nodes: list[dict]) -> None:
    nodes.pop()
    nodes[2]["next"] = [-1]


def share_the_accumulator(nodes: list[dict]) -> None:  # as x.sin() * x: the product's edges lead to one leaf
    nodes[1]["next"] = [2, 3]


@pytest.mark.parametrize(("change", "detail"), [
    (lambda nodes: nodes[2].update(name="CosBackward0"), "the node at position 0.0.0 is SinBackward0 on torch and "
                                                          "CosBackward0 on the implementation"),
    (lambda nodes: nodes[2].update(next=[4, -1]), "SinBackward0 at position 0.0.0 has 1 next function(s) on torch and "
                                                  "2 on the implementation"),
    (lose_the_last_node, "next function 0 of SinBackward0 at position 0.0.0 leads to a node on torch and to none on "
                         "the implementation"),
])
def test_graphs_that_differ_in_structure_are_reported_where_they_part(change, detail):
    impl = graph()
    change(impl)
    found = located([call(graph())], [call(impl)])
    assert (found["found"], found["detail"]) == ("structure", detail)
    assert found["summary"] == f"the graphs differ in call 1 `y.backward()` (line 5): {detail}"


def test_edges_that_lead_to_nodes_at_other_positions_are_a_difference_of_the_graphs():
    shared = graph()
    shared[1]["next"] = [2, 2]  # torch: x.sin() * x, one accumulator for both operands
    shared[3].update(parent=2, edge=0, name=ACCUMULATOR)
    del shared[4]
    shared[2]["next"] = [3]
    found = located([call(shared)], [call(graph())])
    assert found["detail"] == ("next function 1 of MulBackward0 at position 0.0 leads to the node at position 0.0.0 on "
                               "torch and at 0.0.1 on the implementation")
    found = located([call(graph(), roots=[0, 0])], [call(graph() + [node("SumBackward0", -1, 1, [], None, None, None)],
                                                         roots=[0, 5])])
    assert found["detail"] == "tensor 1 of the call leads to the node at position 0 on torch and at 1 on the implementation"


def test_a_gradient_divergence_comes_before_a_difference_of_the_graphs_and_mentions_it():
    impl = graph()
    impl[0]["name"] = "SumBackward1"  # noted; what is below it is not compared ...
    impl[2]["outgoing"] = [grad([9.0, 9.0])]
    found = located([call(graph())], [call(impl)])
    assert found["found"] == "structure"  # ... so SinBackward0, below it, is not compared
    impl = graph()
    impl[2]["next"] = [-1]  # an edge to no node: noted, the comparison goes on
    impl[4]["grad_after"] = grad([9.0, 9.0])
    found = located([call(graph())], [call(impl)])
    assert (found["found"], found["node"], found["position"]) == ("node", ACCUMULATOR, "0.0.0.0")
    assert found["graphs_differ"] == ("next function 0 of SinBackward0 at position 0.0.0 leads to a node on torch and "
                                      "to none on the implementation")


def test_a_gradient_is_compared_along_an_edge_only_where_it_reaches_the_same_operation():
    other_operation = graph()
    other_operation[1]["outgoing"][0] = grad([7.0, 7.0])  # sent to what is SinBackward0 on torch ...
    other_operation[2]["name"] = "CosBackward0"          # ... but another operation here
    found = located([call(graph())], [call(other_operation)])
    assert (found["found"], found["node"]) == ("structure", "SinBackward0")
    no_gradient = graph()
    no_gradient[1]["next"] = [2, -1]  # the second operand needs no gradient: what is sent there is no one's
    no_gradient[1]["outgoing"][1] = grad([5.0, 5.0])
    reference = graph()
    reference[1]["next"] = [2, -1]
    del reference[3], no_gradient[3]
    reference[3]["parent"] = no_gradient[3]["parent"] = 2
    reference[2]["next"] = no_gradient[2]["next"] = [3]
    assert located([call(reference)], [call(no_gradient)])["found"] == "none"


def test_calls_are_matched_in_order():
    found = located([call(graph()), call(graph())], [call(graph())])
    assert found["summary"] == "the calls differ: torch made 2 backward call(s), the implementation 1"
    found = located([call(graph())], [call(graph(), entry="autograd.grad")])
    assert found["detail"] == "call 1 is Tensor.backward on torch and autograd.grad on the implementation"
    found = located([call(graph()), call(graph(), entry="autograd.grad", result=[grad([1.0])])],
                    [call(graph()), call(graph(), entry="autograd.grad", result=[grad([2.0])])])
    assert (found["found"], found["call"], found["which"]) == ("result", 2, "result[0]")
    assert found["summary"] == ("every node compared agrees in call 2 `y.backward()` (line 5), but autograd.grad "
                                "returned result[0] torch [1.0] / implementation [2.0]")
    renamed = graph()
    renamed[2]["name"] = "CosBackward0"
    found = located([call(graph(), entry="autograd.grad", result=[grad([1.0])])],
                    [call(renamed, entry="autograd.grad", result=[grad([2.0])])])
    assert found["summary"].endswith("(nodes left out where the graphs differ: the node at position 0.0.0 is "
                                     "SinBackward0 on torch and CosBackward0 on the implementation)")
    found = located([call(graph())], [call(graph(), raised="RuntimeError")])
    assert found["detail"] == ("the call raised nothing on torch and RuntimeError on the implementation, every node "
                               "before agreeing")


@pytest.mark.parametrize(("impl_side", "summary"), [
    (side(status="crash") | {"detail": "the process was killed by SIGSEGV"},
     "cannot locate: the traced run of the implementation did not finish (the process was killed by SIGSEGV)"),
    ({"status": "completed", "steps": [], "duration": 0.0}, "cannot locate: the implementation sent no trace"),
    (side(problem="the implementation has none of Tensor.backward, autograd.backward, autograd.grad that could be "
                  "wrapped"),
     "cannot locate: the implementation: the implementation has none of Tensor.backward, autograd.backward, "
     "autograd.grad that could be wrapped"),
    (side(call([], problem="its graph nodes take no hooks (no Node.register_hook)")),
     "cannot locate: the implementation, call 1 `y.backward()` (line 5): its graph nodes take no hooks "
     "(no Node.register_hook)"),
])
def test_a_side_that_could_not_be_traced_gets_a_reason(impl_side, summary):
    item = Item(PRODUCT, "cpu", "float32", trace=True)
    assert locate(item, side(call(graph())), impl_side, "myautograd") == {"found": "unavailable", "summary": summary}
    assert locate(item, side(), side(), "myautograd")["summary"].startswith(
        "cannot locate: the scenario made no backward call on torch")


def test_only_items_whose_gradients_differ_on_sides_that_finished_are_located():
    gradient = {"aspect": "gradient", "where": "step 1: x.grad: values"}
    ran = {"reference": {"status": "completed"}, "implementation": {"status": "raised"}}
    assert needs_locating(ran | {"diff": [gradient]})
    assert not needs_locating(ran | {"diff": [gradient | {"aspect": "value"}]})
    assert not needs_locating(ran | {"diff": []})
    assert not needs_locating({"reference": {"status": "completed"}, "implementation": {"status": "crash"},
                               "diff": [gradient]})


# -- the protocol: a trace is untrusted -----------------------------------------------------------------------------
def test_a_well_formed_trace_passes_the_protocol_check():
    assert side_problem(side(call(graph()), call(graph(), entry="autograd.grad", result=[grad([1.0]), None]))) is None


@pytest.mark.parametrize(("damage", "problem"), [
    (lambda t: t.update(calls={"a": 1}), "not an object with a list of calls"),
    (lambda t: t.update(calls=[t["calls"][0]] * 65), "more than 64 calls"),
    (lambda t: t.update(problem=["not text"]), "a problem that is not a bounded text"),
    (lambda t: t["calls"][0].update(entry="os.system"), "call 1: not an object naming a backward entry point"),
    (lambda t: t["calls"][0].update(line="5; rm -rf /"), "call 1: a line that is not a number"),
    (lambda t: t["calls"][0].update(nodes=[{}] * 1001), "call 1: nodes that are not a bounded list"),
    (lambda t: t["calls"][0]["nodes"][1].pop("fired"), "call 1: node 1: not an object with name, parent, edge"),
    (lambda t: t["calls"][0]["nodes"][1].update(name="x" * 10_000), "call 1: node 1: a name that is not a bounded text"),
    (lambda t: t["calls"][0]["nodes"][1].update(parent=3), "call 1: node 1: a parent that is not an earlier node"),
    (lambda t: t["calls"][0]["nodes"][1].update(parent=True), "call 1: node 1: a parent that is not an earlier node"),
    (lambda t: t["calls"][0]["nodes"][1].update(edge=-1), "call 1: node 1: an edge that is not a count"),
    (lambda t: t["calls"][0]["nodes"][1].update(next=[2, 5]), "call 1: node 1: next functions that are not a bounded"),
    (lambda t: t["calls"][0]["nodes"][1].update(next=[2, -3]), "call 1: node 1: next functions that are not a bounded"),
    (lambda t: t["calls"][0].update(roots=[0, 99]), "call 1: roots that are not a bounded list of node indices"),
    (lambda t: t["calls"][0]["nodes"][1].update(fired=1 << 80), "call 1: node 1: a firing rank that is not a count"),
    (lambda t: t["calls"][0]["nodes"][1].update(incoming={"t": "tensor"}),
     "call 1: node 1: incoming: not a bounded list of gradients"),
    (lambda t: t["calls"][0]["nodes"][1].update(outgoing=[{"t": "pickle", "data": "..."}]),
     'call 1: node 1: outgoing: an unknown tag "pickle"'),
    (lambda t: t["calls"][0]["nodes"][3].update(grad_after=[[[[[]]]]] * 2 + [nested(80)]),
     "call 1: node 3: grad_after: a value nested too deeply"),
    (lambda t: t["calls"][0].update(result="all good"), "call 1: result: not a bounded list of gradients"),
])
def test_a_hostile_trace_is_rejected_by_the_protocol_check(damage, problem):
    result = side(call(graph()))
    damage(result["trace"])
    assert trace_problem(result["trace"]).startswith(problem)
    assert side_problem(result).startswith(f"trace: {problem}")


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


# -- tracing, on each side ---------------------------------------------------------------------------------------
def traced(case, impl: str, trace: bool = True, dtype: str = "float32") -> dict:
    namespace = resolve(impl).namespace
    return isolated(lambda: observe(case, namespace, "cpu", dtype, {"trace": trace}))


def test_torch_is_traced_node_by_node_with_positions_and_firing_order():
    result = traced(PRODUCT, "torch")
    assert side_problem(result) is None
    (only,) = result["trace"]["calls"]
    assert {key: only[key] for key in ("entry", "step", "line", "source")} == {
        "entry": "Tensor.backward", "step": 1, "line": 8, "source": "y.backward()"}
    nodes = only["nodes"]
    assert [(n["name"], n["parent"], n["edge"], n["next"]) for n in nodes] == [
        ("SumBackward0", -1, 0, [1]), ("ExpBackward0", 0, 0, [2]), ("MulBackward0", 1, 0, [3, 4]),
        ("SinBackward0", 2, 0, [5]), (ACCUMULATOR, 2, 1, []), (ACCUMULATOR, 3, 0, [])]
    assert only["roots"] == [0]
    assert sorted(n["fired"] for n in nodes) == list(range(6))  # every hook fired, once
    mul, w_accumulator = nodes[2], nodes[4]
    assert mul["outgoing"][1]["values"] == w_accumulator["incoming"][0]["values"] == w_accumulator["grad_after"]["values"]
    assert w_accumulator["grad_before"] is None and w_accumulator["outgoing"] == []
    assert result["steps"][1]["value"]["values"] == w_accumulator["grad_after"]["values"]  # what rec("w.grad") saw


def test_a_call_inside_a_call_is_part_of_it_and_autograd_grad_results_are_kept():
    case = LOCATE_CHECK.get("locatecheck.second_backward_accumulates_into_one_leaf")
    calls = traced(case, "torch")["trace"]["calls"]
    # torch's Tensor.backward calls torch.autograd.backward: one call each
    assert [(c["entry"], c["line"], c["step"]) for c in calls] == [("Tensor.backward", 6, 1), ("Tensor.backward", 9, 2)]
    assert calls[1]["nodes"][2]["grad_before"]["values"] == [2.0, 2.0]
    assert calls[1]["nodes"][2]["grad_after"]["values"] == [5.0, 1.0]
    source = ("def scenario(torch, rec):\n"
              "    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)\n"
              "    rec('dx', torch.autograd.grad((x * x).sum(), [x]))\n")
    for impl in ("torch", "myautograd"):
        (call_,) = traced(case_from_source(source, "locatecheck.grad_call", "autograd.grad", PRODUCT.doc), impl)[
            "trace"]["calls"]
        assert (call_["entry"], call_["line"], call_["step"]) == ("autograd.grad", 3, 1)
        assert [g["values"] for g in call_["result"]] == [[2.0, 4.0]]
        accumulator = call_["nodes"][-1]  # captured, not run: its hook stays silent and .grad stays None
        assert (accumulator["name"], accumulator["fired"], accumulator["grad_after"]) == (ACCUMULATOR, None, None)


@pytest.mark.parametrize("impl", ["torch", "myautograd"])
@pytest.mark.parametrize("case_id", [
    "locatecheck.product_between_other_nodes", "hooks.hook_firing_order", "hooks.node_posthook_replaces_grad_inputs",
    "hooks.accumulate_grad_node_hooks_run_around_the_accumulation", "accumulation.view_of_backward_gradient_is_adopted",
    "accumulation.stacked_scalar_leaves_share_their_grad", "retain_graph.second_backward_raises",
    "autograd_grad.unused_input_raises_unless_allowed", "higher_order.hessian_vector_product",
    "function.double_backward_through_backward", "autograd_grad.autograd_grad_frees_graph",
])
def test_tracing_changes_nothing_the_scenario_observes(catalog_registry, impl, case_id):
    case = LOCATE_CHECK.get(case_id) if case_id.startswith("locatecheck.") else catalog_registry.get(case_id)
    plain, with_trace = traced(case, impl, trace=False), traced(case, impl)
    assert with_trace["trace"]["calls"] and not any(c.get("problem") for c in with_trace["trace"]["calls"])
    del with_trace["trace"]
    # a traceback is a diagnostic kept with an exception, not an observation: the tracing's own calls
    # may reach the engine through another of its entry points
    assert {**without_tracebacks(plain), "duration": 0} == {**without_tracebacks(with_trace), "duration": 0}


def without_tracebacks(result: dict) -> dict:
    steps = [{**step, "error": {k: v for k, v in step["error"].items() if k != "traceback"}} if "error" in step else step
             for step in result["steps"]]
    return {**result, "steps": steps}


def test_the_entry_points_are_restored_after_the_scenario():
    import torch

    def observe_then_read():
        before = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)
        observe(PRODUCT, torch, "cpu", "float32", {"trace": True})
        after = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)
        return {"status": "completed", "steps": [], "restored": all(a is b for a, b in zip(before, after, strict=True))}

    assert isolated(observe_then_read)["restored"] is True


def test_an_engine_whose_nodes_take_no_hooks_is_traced_with_a_reason():
    result = traced(PRODUCT, "tests.broken.gradients.no_node_hooks")
    assert side_problem(result) is None
    assert result["trace"]["calls"][0]["problem"] == "its graph nodes take no hooks (no Node.register_hook)"


def test_a_trace_is_bounded(monkeypatch):
    monkeypatch.setattr(conformance.gradtrace, "TRACE_NODES_LIMIT", 3)
    monkeypatch.setattr(conformance.gradtrace, "TRACE_VALUES_LIMIT", 5)
    result = traced(PRODUCT, "torch")
    assert side_problem(result) is None
    (only,) = result["trace"]["calls"]
    assert [n["name"] for n in only["nodes"]] == ["SumBackward0", "ExpBackward0", "MulBackward0"]
    assert only["cut"] == "nodes after the first 3 were not traced"
    assert result["trace"]["cut"] == "gradients after the first 5 elements were not recorded"
    assert only["nodes"][2]["outgoing"][1] == {"t": "cut", "why": "over the trace's limit of 5 elements"}


# -- the planted bugs: the right node ------------------------------------------------------------------------------
@pytest.mark.parametrize("planted", ["formula", "broadcast", "accumulation", "no_node_hooks"])
def test_planted_bugs_patch_myautograd_only_in_the_side_under_test_and_never_import_torch(planted):
    import myautograd

    implementation = resolve(f"tests.broken.gradients.{planted}")
    assert implementation.module_name == "myautograd" and implementation.version.endswith("(planted gradient bug)")
    assert implementation.namespace.tensor is myautograd.tensor  # an access in this process: nothing installed
    x = myautograd.tensor([1.0, 2.0], requires_grad=True)
    w = myautograd.tensor([3.0, 4.0], requires_grad=True)
    (x * w + w).sum().backward()
    assert (w.grad.tolist(), hasattr(myautograd.autograd.graph.Node, "register_hook")) == ([2.0, 3.0], True)
    script = (f"import sys, tests.broken.gradients.{planted} as planted; planted.install(); "
              f"assert 'torch' not in sys.modules, 'torch was imported'")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]



# (planted implementation, case, node, position, gradient that differs, call)
PLANTED = [
    ("formula", "product_between_other_nodes", "MulBackward0", "0.0.0", "grad_inputs[1]", 1),
    ("broadcast", "broadcast_addition_between_other_nodes", "AddBackward0", "0.0.0", "grad_inputs[1]", 1),
    ("accumulation", "second_backward_accumulates_into_one_leaf", ACCUMULATOR, "0.0.0", ".grad after the call", 2),
]


@pytest.mark.parametrize(("planted", "case_name", "name", "position", "which", "call_number"), PLANTED,
                         ids=[row[0] for row in PLANTED])
def test_the_node_of_each_planted_bug_is_located(planted, case_name, name, position, which, call_number):
    case = LOCATE_CHECK.get(f"locatecheck.{case_name}")
    impl = f"tests.broken.gradients.{planted}"
    record = judge(Item(case, "cpu", "float32"), traced(case, "torch", False), traced(case, impl, False),
                   "myautograd").as_dict()
    assert record["outcome"] == "fail" and needs_locating(record)
    found = locate(Item(case, "cpu", "float32", trace=True), traced(case, "torch"), traced(case, impl), "myautograd")
    assert (found["found"], found["node"], found["position"], found["which"], found["call"]) == (
        "node", name, position, which, call_number)
    assert found["summary"].startswith(f"gradients first diverge at {name} (position {position}) in call "
                                       f"{call_number} ")
    assert "incoming agree" in found["summary"]  # myautograd's accumulators run their node hooks too


@pytest.mark.parametrize("impl", ["torch", "myautograd"])
@pytest.mark.parametrize("case", list(LOCATE_CHECK), ids=lambda c: c.id)
def test_torch_and_myautograd_have_nothing_to_locate(impl, case):
    record = judge(Item(case, "cpu", "float32"), traced(case, "torch", False), traced(case, impl, False),
                   impl).as_dict()
    assert record["outcome"] == "pass" and not needs_locating(record)
    found = locate(Item(case, "cpu", "float32", trace=True), traced(case, "torch"), traced(case, impl), impl)
    assert found["found"] == "none"


# -- the runner, the reports and the fuzzer ---------------------------------------------------------------------
@pytest.fixture
def traced_submissions(monkeypatch) -> list[str]:
    """The labels of the items the runner's pool is asked to run traced."""
    submitted: list[str] = []
    original = Pool.submit

    def submit(self, item, timeout, source=None, first=False):
        if item.trace:
            submitted.append(item.label)
        return original(self, item, timeout, source, first)

    monkeypatch.setattr(Pool, "submit", submit)
    return submitted


def run(impl: str, cases: list, tmp_path: Path, registry: str = "conformance.catalog:load",
        impl_file: ImplementationFile | None = None) -> dict:
    config = RunConfig(impl=impl, cases=cases, devices=("cpu",), report_dir=tmp_path, jobs=1, registry=registry,
                       live_progress=False, impl_file=impl_file or ImplementationFile())
    result = Run(config).execute()
    write_all(result, tmp_path)
    return result


# (planted implementation, catalog case, node, position, gradient that differs, call)
PLANTED_IN_THE_CATALOG = [
    ("formula", "broadcast.mul_leading_dim_expansion", "MulBackward0", "0.0", "grad_inputs[1]", 1),
    ("broadcast", "broadcast.add_grads_summed_to_operand_shape", "AddBackward0", "0.0", "grad_inputs[0]", 1),
    ("accumulation", "accumulation.grad_accumulates_across_backward_calls", ACCUMULATOR, "0.0.0",
     ".grad after the call", 2),
]


@pytest.mark.parametrize(("planted", "case_id", "name", "position", "which", "call_number"), PLANTED_IN_THE_CATALOG,
                         ids=[row[0] for row in PLANTED_IN_THE_CATALOG])
def test_the_runner_locates_each_planted_bug_on_a_catalog_case(catalog_registry, traced_submissions, tmp_path,
                                                              planted, case_id, name, position, which, call_number):
    result = run(f"tests.broken.gradients.{planted}", [catalog_registry.get(case_id)], tmp_path)
    (record,) = result["cases"]
    assert record["outcome"] == "fail"
    assert traced_submissions == [f"{case_id}[cpu]"]
    divergence = record["divergence"]
    assert (divergence["found"], divergence["node"], divergence["position"], divergence["which"],
            divergence["call"]) == ("node", name, position, which, call_number)
    line = f"where gradients diverge: {divergence['summary']}"
    assert line in (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert f"gradients diverge at {name} (position {position}, call {call_number})" in markdown_cell(tmp_path, case_id)
    assert "<h4>Where gradients diverge</h4>" in (tmp_path / "report.html").read_text(encoding="utf-8")


def markdown_cell(directory: Path, case_id: str) -> str:
    rows = [row for row in (directory / "summary.md").read_text(encoding="utf-8").splitlines() if case_id in row]
    return re.sub(r"\\(.)", r"\1", rows[0])


def test_a_run_without_gradient_differences_runs_nothing_traced(traced_submissions, tmp_path):
    result = run("torch", list(LOCATE_CHECK), tmp_path, registry=LOCATE_REGISTRY)
    assert [r["outcome"] for r in result["cases"]] == ["pass"] * len(LOCATE_CHECK)
    assert traced_submissions == []
    assert not any("divergence" in r for r in result["cases"])


def test_an_engine_whose_nodes_take_no_hooks_gets_a_cannot_locate_note(traced_submissions, tmp_path):
    result = run("tests.broken.gradients.no_node_hooks", [PRODUCT], tmp_path, registry=LOCATE_REGISTRY)
    (record,) = result["cases"]
    assert record["outcome"] == "fail" and traced_submissions == [f"{PRODUCT.id}[cpu]"]
    assert record["divergence"] == {
        "found": "unavailable", "summary": "cannot locate: the implementation, call 1 `y.backward()` (line 8): its graph "
                                           "nodes take no hooks (no Node.register_hook)"}


def test_an_engine_whose_profile_lacks_hooks_is_not_traced(traced_submissions, tmp_path):
    lacking = ImplementationFile(profile=Profile(lacks=("hooks",)))
    result = run("tests.broken.gradients.formula", [PRODUCT], tmp_path, registry=LOCATE_REGISTRY, impl_file=lacking)
    (record,) = result["cases"]
    assert traced_submissions == []
    assert record["divergence"]["summary"] == ("cannot locate: the implementation does not aim to support hooks, which "
                                               "tracing the gradients through graph nodes needs")


def test_the_fuzzer_says_where_the_gradients_of_a_found_program_diverge(run_cli, tmp_path):
    done = run_cli("fuzz", "--impl", "tests.broken.gradients.formula", "--budget", "30", "--seed", "0", "--no-shrink",
                   "--report-dir", str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("where gradients diverge: "))
    assert line.startswith("where gradients diverge: gradients first diverge at MulBackward0 (position ")
    assert "incoming agree, outgoing grad_inputs[1] torch " in line
    (diff,) = tmp_path.glob("*.diff.txt")
    assert "\nwhere gradients diverge: gradients first diverge at MulBackward0 (position " in diff.read_text()


def test_reports_escape_what_the_implementation_named():
    hostile = "<script>alert(1)</script>|`x`\x1b[31m"
    record = {"id": "locatecheck.x", "device": "cpu", "dtype": "float32", "outcome": "fail", "detail": "d",
              "diff": [], "divergence": {"found": "structure", "node": hostile, "position": "0", "summary": f"at {hostile}",
                                         "outgoing": {"torch": "[1.0]", "implementation": hostile}}}
    assert "where gradients diverge: at <script>alert(1)</script>|`x`\\x1b[31m" in diff_text(record)
    page, _ = html_items.item_html(record)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "\x1b" not in page
    (row,) = [line for line in markdown.item_table({"cases": [record]}) if "locatecheck.x" in line]
    assert "<script>" not in row and "\\|" in row and "\x1b" not in row
