"""Cases ``optiminfo.<Optimizer>.<n>``: every option set of torch's ``optim_db``, rendered as data.

``<n>`` is the option set's index in the OptimizerInfo's ``optim_inputs_func`` (stable while torch
keeps the list; the description is in the title). The options come from
``conformance/databases/optim_db.json`` (see ``conformance.databases``); the scenario is the
catalog's own: a linear model (weight 2x2, bias 2) fitted to fixed targets with a squared loss,
gradients taken in a closure (LBFGS needs one; every optimizer accepts one), so they change from
step to step and momentum, second moments, step-size adaptation and line searches all show.

It records the parameters and the closure's loss after each of three steps, then the optimizer's
``state_dict`` (state and groups; for an optimizer that needs a closure, LBFGS, the state's keys and
its integer counters only: its twenty inner iterations per step converge on so small a problem, and
its curvature history is then differences of nearly equal numbers, rounding noise that no two
summation orders share); then a ``state_dict`` round trip: the state saved after two steps
is loaded into a fresh optimizer over fresh parameters holding the same values, which steps once
more, and its parameters must equal the original's third step. Several steps of sums, square roots
and divisions compound: COMPOSITE tolerance. float32 and float64.

An optimizer of matrices only (``MATRICES_ONLY``: torch's Muon refuses a parameter of other than two
dims when built) is first given both parameters, which records its refusal, then fits the weight
alone (the bias stays as it starts), so that its steps are compared too.
"""

from __future__ import annotations

from .. import docs
from ..case import REGISTRY, Registry, case_from_source
from ..databases import load
from ..databases.source import source_of
from ..features import detected
from ..operators.tolerances import COMPOSITE

DTYPES = ("float32", "float64")
FEATURES = ("non-scalar", "nn", "optim")
STEPS = 3
SAVED_AFTER = 2
MATRICES_ONLY = ("Muon",)

TEMPLATE = '''\
def scenario(torch, rec):
    dtype = getattr(torch, rec.dtype)
    x = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=dtype, device=rec.device)
    target = torch.tensor([[0.5, -1.0], [2.0, 0.25], [-0.5, 1.5]], dtype=dtype, device=rec.device)

    def fit(params, options):
        w, b = params
        opt = torch.optim.{name}({optimized}, **options)

        def closure():
            opt.zero_grad()
            loss = ((x @ w + b - target) ** 2).mean()
            loss.backward()
            return loss

        return opt, closure

    def start():
        return [torch.nn.Parameter(torch.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=dtype, device=rec.device)),
                torch.nn.Parameter(torch.tensor([0.1, -0.2], dtype=dtype, device=rec.device))]

{refusal}    params = start()
    opt, closure = fit(params, {options})
    for step in range(1, {steps} + 1):
        loss = opt.step(closure)
        rec(f"step {{step}}: loss, w, b", (loss, *params))
        if step == {saved_after}:
            saved = opt.state_dict()
            values = [p.detach().clone() for p in params]
    state = opt.state_dict()
    rec("{state_label}", {state_record})
    rec("state_dict param_groups", state["param_groups"])
    fresh = start()
    with torch.no_grad():
        for p, value in zip(fresh, values):
            p.copy_(value)
    again, again_closure = fit(fresh, {options})
    again.load_state_dict(saved)
    again.step(again_closure)
    rec("after loading the state saved at step {saved_after}, one step: w, b", tuple(fresh))
'''


REFUSAL = """\
    with rec.attempt("torch.optim.{name} given the weight and the bias (1-D)"):
        torch.optim.{name}(start(), **{options})
"""


FULL_STATE = ("state_dict state", 'state["state"]')
STATE_OUTLINE = ("state_dict state: keys and integer counters",
                 '{key: {name: value for name, value in entry.items() if type(value) is int or name == "step"} | '
                 '{"keys": sorted(entry)} for key, entry in state["state"].items()}')


def options_source(kwargs: dict) -> str:
    return "{" + ", ".join(f"{key!r}: {source_of(value)}" for key, value in kwargs.items()) + "}"


def build(entry: dict, sample: dict, torch_version: str | None) -> object:
    name = entry["name"]
    case_id = f"optiminfo.{name}.{sample['index']}"
    state_label, state_record = STATE_OUTLINE if entry["closure"] else FULL_STATE
    options = options_source(sample["kwargs"])
    optimized, refusal = ("[w]", REFUSAL.format(name=name, options=options)) if name in MATRICES_ONLY else ("params", "")
    source = TEMPLATE.format(name=name, options=options, steps=STEPS, optimized=optimized,
                             refusal=refusal, saved_after=SAVED_AFTER, state_label=state_label,
                             state_record=state_record)
    title = (f"torch.optim.{name}, optim_db option set {sample['index']} ({sample['desc']}): "
             f"{STEPS} steps and a state_dict round trip (samples of torch {torch_version})")
    return case_from_source(source, case_id, title, docs.docstring(f"torch.optim.{name}"),
                            namespace={"__name__": __name__}, dtypes=DTYPES,
                            features=tuple(sorted(set(FEATURES) | detected(source))), tags=("database", "optim_db"),
                            devices=("cpu",),
                            tolerances=COMPOSITE.per_dtype())


def case_ids() -> tuple[str, ...]:
    """The ids ``register`` gives its cases, read off the data without building them."""
    return tuple(f"optiminfo.{entry['name']}.{sample['index']}" for entry in load("optim_db")["entries"]
                 for sample in entry["samples"])


def register(registry: Registry = REGISTRY) -> None:
    data = load("optim_db")
    for entry in data["entries"]:
        for sample in entry["samples"]:
            registry.add(build(entry, sample, data["torch"]))
