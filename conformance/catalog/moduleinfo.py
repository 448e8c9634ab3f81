"""Cases ``moduleinfo.<Module>.<n>``: samples of torch's ``module_db``, rendered as data.

``<Module>`` is the class's name in ``torch.nn`` and ``<n>`` the index of the module input in the
ModuleInfo's ``module_inputs_func`` list (stable while torch keeps the list; its description is in
the title). The data comes from ``conformance/databases/module_db.json`` (see
``conformance.databases`` and ``render_modules``). The generated scenario

1. builds ``torch.nn.<Module>(*args, **kwargs)`` and casts it to the item's dtype (a lazy module
   first runs one forward pass without gradients, to materialize its parameters),
2. loads torch's parameters and buffers into it with ``load_state_dict`` (values, never torch
   objects),
3. in each rendered mode (``train``, and ``eval`` where the ModuleInfo says they differ), builds the
   forward inputs afresh, records the output, backpropagates the fixed ``grad_outputs`` (one per
   floating output that requires grad) and records the gradients of the inputs, of every named
   parameter, and the buffers (running statistics move in train mode).

float32 and float64 on CPU; COMPOSITE tolerance (convolutions, normalizations and attention sum
and divide in orders of their own).
"""

from __future__ import annotations

from .. import docs
from ..case import REGISTRY, Registry, case_from_source
from ..databases import load
from ..databases.source import source_of, tensor_source
from ..features import detected
from ..operators.tolerances import COMPOSITE

DTYPES = ("float32", "float64")
FEATURES = ("non-scalar", "nn")
INDENT = "    "


def tensor_leaves(value):
    """The tensors of a (nested) output or argument structure, in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in tensor_leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in tensor_leaves(item)]
    return [value] if hasattr(value, "requires_grad") and hasattr(value, "grad_fn") else []


def scenario_source(entry: dict, sample: dict) -> str:
    name = entry["name"]
    args = source_of(sample["args"])
    kwargs = source_of(sample["kwargs"])
    forward_args = source_of(sample["forward_args"])
    forward_kwargs = source_of(sample["forward_kwargs"])
    state = source_of(sample["state"])
    grads = "[" + ", ".join(tensor_source(g) for g in sample["grad_outputs"]) + "]"
    lines = [
        "def scenario(torch, rec):",
        "    dtype = getattr(torch, rec.dtype)",
        f"    module = torch.nn.{name}(*{args}, **{kwargs}).to(device=rec.device, dtype=dtype)",
    ]
    if entry["lazy"]:
        lines += ["    with torch.no_grad():",
                  f"        module(*{forward_args}, **{forward_kwargs})"]
    lines += [
        f"    rec('load_state_dict', module.load_state_dict({state}))",
        f"    for mode in {tuple(sample['modes'])!r}:",
        "        module.train(mode == 'train')",
        "        module.zero_grad()",
        f"        args, kwargs = {forward_args}, {forward_kwargs}",
        "        output = rec(f'{mode}: output', module(*args, **kwargs))",
        "        outputs = [o for o in tensor_leaves(output) if o.is_floating_point() and o.requires_grad]",
        f"        grad_outputs = {grads}",
        "        if outputs:",
        "            sum((o * g).sum() for o, g in zip(outputs, grad_outputs)).backward()",
        "        leaves = [t for t in tensor_leaves((args, kwargs)) if t.requires_grad]",
        "        rec(f'{mode}: gradients of the inputs', [t.grad for t in leaves])",
        "        rec(f'{mode}: gradients of the parameters', {n: p.grad for n, p in module.named_parameters()})",
        "        rec(f'{mode}: buffers', dict(module.named_buffers()))",
    ]
    return "\n".join(lines) + "\n"


def build(entry: dict, sample: dict, torch_version: str | None) -> object:
    name = entry["name"]
    case_id = f"moduleinfo.{name}.{sample['index']}"
    desc = f" ({sample['desc']})" if sample["desc"] else ""
    notes = f"; {'; '.join(sample['notes'])}" if sample["notes"] else ""
    title = (f"torch.nn.{name}, module_db input {sample['index']}{desc}: output, gradients and buffers in "
             f"{' and '.join(sample['modes'])} mode (samples of torch {torch_version}){notes}")
    source = scenario_source(entry, sample)
    return case_from_source(source, case_id, title, docs.docstring(f"torch.nn.{name}"),
                            namespace={"__name__": __name__, "tensor_leaves": tensor_leaves}, dtypes=DTYPES,
                            features=tuple(sorted(set(FEATURES) | detected(source))), tags=("database", "module_db"),
                            devices=("cpu",),
                            tolerances=COMPOSITE.per_dtype())


def case_ids() -> tuple[str, ...]:
    """The ids ``register`` gives its cases, read off the data without building them."""
    return tuple(f"moduleinfo.{entry['name']}.{sample['index']}" for entry in load("module_db")["entries"]
                 for sample in entry["samples"])


def register(registry: Registry = REGISTRY) -> None:
    data = load("module_db")
    for entry in data["entries"]:
        for sample in entry["samples"]:
            registry.add(build(entry, sample, data["torch"]))
