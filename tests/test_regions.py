"""Region compilation (``conformance/adapters/regions.py``): a scenario rewritten so that each run of
statements outside its attempt blocks runs as a function (under ``torch.compile`` for the
torch-compile adapters) must observe exactly what the scenario observes, at the same lines.

Here the regions run as plain calls (no compiler): every step, line, value, exception and warning
must be the same as the scenario's own, and the rewritten scenario must have run its regions.
"""

from __future__ import annotations

import types

import pytest
import torch

from conformance import docs
from conformance.adapters.regions import RewriteError, rewrite
from conformance.case import Case, Registry, case, case_from_source
from conformance.recorder import observe
from tests.support.sides import isolated, observed

TRICKY = Registry()


@case("Statements that cannot move into a function, around attempt blocks", doc=docs.TENSOR_BACKWARD,
      devices=("cpu",), registry=TRICKY)
def kept_statements(torch, rec):
    import math

    total = torch.zeros(2)
    for step in range(6):
        if step == 1:
            continue
        with rec.attempt(f"step {step}"):
            total += torch.tensor([step, math.sqrt(step)])
            if step == 4:
                raise ValueError(f"step {step} raises")
        if step == 5:
            break
    rec("total", total)
    found = [value for value in range(4) if (kept := value) > 1]
    rec("comprehension and assignment expression", (found, kept))

    class Doubler(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    rec("the class keeps its qualified name", Doubler.__qualname__)
    x = torch.ones(2, requires_grad=True)
    x.register_hook(lambda g: rec("the hook sees", g))
    Doubler.apply(x).sum().backward()
    del found
    with rec.attempt("a name deleted by a statement that stays"):
        found = [1]
        rec("found again", found)
    if not rec.has("autograd.grad"):
        return
    rec("reached the end", True)


@case("Names read before they are bound, by a region and by a lambda", doc=docs.TENSOR_BACKWARD, devices=("cpu",),
      registry=TRICKY)
def unbound_names(torch, rec):
    x = torch.ones(2)
    with rec.attempt("an attempt that ends before it binds y"):
        y = x * torch.ones(3)
    with rec.attempt("y read by the statements of an attempt"):
        rec("y", y)
    with rec.attempt("y read by a lambda"):
        rec("y", (lambda: y)())
    del x
    with rec.attempt("x read after del"):
        rec("x", x)  # noqa: F821 - read after del on purpose


def nested_scenario():
    offset = torch.tensor([1.0, 2.0])

    def scenario(torch, rec):
        y = offset * 3
        with rec.attempt("uses the free variable"):
            rec("y + offset", y + offset)

    return scenario


def counting_namespace(regions: list):
    """torch, with a run hook that runs each region as a plain call and counts it."""
    namespace = types.ModuleType("counting")
    namespace.__getattr__ = lambda name: getattr(torch, name)

    def run_region(region):
        regions.append(region.__name__)
        region()

    def run(scenario, space, rec):
        rewrite(scenario)(run_region)(torch, rec)

    namespace.__conformance_run__ = run
    namespace.__conformance_module__ = "torch"
    return namespace


def comparable(steps: list[dict]) -> list[tuple]:
    return [(s["label"], s["line"], s["source"], s.get("value"), (s.get("error") or {}).get("type"),
             (s.get("error") or {}).get("message"), [(w["category"], w["message"]) for w in s["warnings"]])
            for s in steps]


def through_regions(scenario_case, options: dict | None = None) -> dict:
    """The case observed through the rewritten scenario (in a forked child), with the regions it ran."""
    def task():
        regions: list = []
        result = observe(scenario_case, counting_namespace(regions), "cpu", None, options)
        return {**result, "regions": regions}

    return isolated(task)


CATALOG_SAMPLE = (
    "autograd_grad.gradient_made_as_a_view",       # attempt blocks in a loop, lambdas over the loop's names
    "inplace.writing_an_expanded_tensor",          # a nested helper, loops of attempts
    "anomaly.anomaly_state_functions",             # try/finally around the calls
    "bookkeeping.grad_mode_is_thread_local",       # import, a thread
    "function.double_backward_through_backward",   # a custom Function class
    "higher_order.create_graph_warning_comes_after_the_backward",  # a hook that records, a warning
    "errors.bad_construction",                     # one attempt after another
    "op.gather.default",                           # a generated operator case with invalid calls
)


@pytest.mark.parametrize("case_id", CATALOG_SAMPLE)
def test_a_rewritten_catalog_case_observes_the_same_at_the_same_lines(catalog_registry, case_id):
    scenario_case = catalog_registry.get(case_id)
    plain = observed(scenario_case, torch)
    rewritten = through_regions(scenario_case)
    assert rewritten["regions"], "the rewritten scenario ran no region"
    assert comparable(rewritten["steps"]) == comparable(plain["steps"])


def test_statements_that_stay_in_the_scenario_keep_their_meaning():
    scenario_case = TRICKY.get("test_regions.kept_statements")
    plain = observed(scenario_case, torch)
    rewritten = through_regions(scenario_case)
    labels = [step["label"] for step in plain["steps"]]
    assert labels[:6] == ["step 0", "step 2", "step 3", "step 4", "step 5", "total"]
    assert labels[-4:] == ["the hook sees", "found again", "a name deleted by a statement that stays", "reached the end"]
    assert plain["steps"][3]["error"]["message"] == "step 4 raises"
    assert comparable(rewritten["steps"]) == comparable(plain["steps"])
    assert len(rewritten["regions"]) >= 8


def test_a_name_read_before_it_is_bound_raises_what_the_scenario_raises():
    """An empty closure cell read by a region is the scenario's UnboundLocalError; read by a lambda,
    the NameError of a free variable, in both."""
    scenario_case = TRICKY.get("test_regions.unbound_names")
    plain, rewritten = observed(scenario_case, torch), through_regions(scenario_case)
    assert [(s.get("error") or {}).get("type") for s in plain["steps"]] == [
        "RuntimeError", "UnboundLocalError", "NameError", "UnboundLocalError"]
    assert comparable(rewritten["steps"]) == comparable(plain["steps"]) and rewritten["regions"]


def test_a_return_in_the_scenario_still_ends_it():
    scenario_case = TRICKY.get("test_regions.kept_statements")
    rewritten = through_regions(scenario_case, {"without": ("autograd.grad",)})
    assert rewritten["regions"] and rewritten["steps"][-1]["label"] == "a name deleted by a statement that stays"


def test_a_generated_program_and_a_closure_are_rewritten_too():
    source = ("def scenario(torch, rec):\n"
              "    t0 = torch.tensor([0.5, -1.5], requires_grad=True)\n"
              "    with rec.attempt('s1: t1 = t0.exp()'):\n"
              "        t1 = t0.exp()\n"
              "        rec('t1', t1)\n"
              "    with rec.attempt('s2: t1.backward()'):\n"
              "        t1.backward()\n"
              "    rec('t0.grad', t0.grad)\n")
    program = case_from_source(source, "fuzz.p0123", "a program", docs.TENSOR_BACKWARD, dtypes=("float32",))
    plain, rewritten = observed(program, torch), through_regions(program)
    assert comparable(rewritten["steps"]) == comparable(plain["steps"])
    assert rewritten["steps"][2]["error"]["type"] == "RuntimeError" and rewritten["steps"][2]["line"] == 7
    closure = Case(id="closure.case", title="a closure", doc=docs.TENSOR_BACKWARD, scenario=nested_scenario(),
                   devices=("cpu",))
    plain, rewritten = observed(closure, torch), through_regions(closure)
    assert comparable(rewritten["steps"]) == comparable(plain["steps"]) and rewritten["regions"]


def test_a_scenario_without_source_cannot_be_rewritten():
    namespace: dict = {}
    exec("def scenario(torch, rec):\n    rec('x', 1)\n", namespace)  # noqa: S102 - no file, no linecache entry
    with pytest.raises(RewriteError, match="cannot be read"):
        rewrite(namespace["scenario"])
