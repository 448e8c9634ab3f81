"""Render ``torch.testing._internal.common_modules.module_db`` as data (reference side only).

For each ModuleInfo (``nn.Linear``, ...) and each of its module inputs (a constructor input and a
forward input), taken in float64 on CPU, the entry records:

* the class by its public name (``torch.nn.<Name>``) and the constructor's arguments, encoded
  (``encode``); a lazy module's parameters are materialized by one forward pass first;
* the module's ``state_dict`` (parameters and buffers) as values: torch initialises parameters at
  random, and the implementation gets the very same numbers through ``load_state_dict``;
* the forward arguments as values (their ``requires_grad`` kept), and ``grad_outputs``: fixed values,
  drawn once from a generator seeded by the sample's id, one per floating output torch's module
  returns that requires grad;
* the modes it is checked in: ``train`` and, where the ModuleInfo says that train and eval differ,
  ``eval``; a mode whose forward draws random values (two forwards under different seeds disagree:
  dropout) is left out, with the reason in the sample's ``notes``.

A module draws its samples with torch's generator: the renderer seeds it (``torch.manual_seed(0)``)
before each ModuleInfo, so a rendering is reproducible. Every input of a module is kept, up to ``MAX_INPUTS``
(spread evenly over its list beyond that; the most in torch 2.13 is LinearCrossEntropyLoss's 857, of which 626 hold
an options object that cannot be encoded); the others are counted as skipped. Anything unexpected (a missing
attribute, a changed signature, a value that cannot be encoded, a forward that raises) makes that entry or sample a
reported skip.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..operators.values import case_seed, draw
from .encode import Unrenderable, encode

MAX_INPUTS = 1000  # a guard: torch 2.13's modules have at most 857 inputs (LinearCrossEntropyLoss)


def spread(count: int, keep: int) -> list[int]:
    """``keep`` indices spread evenly over ``range(count)`` (all of them when there are few)."""
    if count <= keep:
        return list(range(count))
    return sorted({round(i * (count - 1) / (keep - 1)) for i in range(keep)})


def render() -> dict[str, Any]:
    import torch
    from torch.testing._internal.common_modules import module_db

    entries, skipped = [], []
    for info in module_db:
        name = str(getattr(info, "name", repr(info))).removeprefix("nn.")
        try:
            entry, entry_skips = render_entry(info, name, torch)
        except Exception as error:  # noqa: BLE001 - any change in torch's internals is a reported skip
            skipped.append({"name": name, "reason": f"cannot read the entry: {type(error).__name__}: {error}"})
            continue
        skipped.extend(entry_skips)
        if entry is not None:
            entries.append(entry)
    return {"torch": torch.__version__, "database": "torch.testing._internal.common_modules.module_db",
            "max_inputs": MAX_INPUTS, "entries": entries, "skipped": skipped}


def render_entry(info: Any, name: str, torch: Any) -> tuple[dict | None, list[dict]]:
    cls = info.module_cls
    if getattr(torch.nn, cls.__name__, None) is not cls:
        return None, [{"name": name, "reason": "not a public name of torch.nn"}]
    torch.manual_seed(0)
    inputs = info.module_inputs_func(info, device="cpu", dtype=torch.float64, requires_grad=True, training=True)
    samples, skipped = [], []
    kept = spread(len(inputs), MAX_INPUTS)
    skipped.extend({"name": f"{name}.{index}", "reason": f"beyond the {MAX_INPUTS} inputs kept per module"}
                   for index in range(len(inputs)) if index not in kept)
    for index in kept:
        label = f"{name}.{index}"
        try:
            samples.append(render_sample(info, cls, inputs[index], label, torch))
        except Unrenderable as error:
            skipped.append({"name": label, "reason": f"cannot encode {error}"})
        except Exception as error:  # noqa: BLE001 - a sample torch itself cannot run is a reported skip
            skipped.append({"name": label, "reason": f"torch raised {type(error).__name__}: {error}"})
        else:
            samples[-1]["index"] = index
    entry = {"name": cls.__name__, "lazy": bool(getattr(info, "is_lazy", False)), "samples": samples}
    return (entry if samples else None), skipped


def _build(cls, constructor, forward, torch):
    module = cls(*constructor.args, **constructor.kwargs).to(torch.float64)
    if getattr(module, "has_uninitialized_params", lambda: False)():
        with torch.no_grad():
            module(*forward.args, **forward.kwargs)
    return module


def _float_outputs(value: Any, torch: Any) -> list:
    if isinstance(value, torch.Tensor):
        return [value] if value.is_floating_point() and value.requires_grad else []
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _float_outputs(item, torch)]
    return []


def _tensor_leaves(value: Any, torch: Any) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _tensor_leaves(item, torch)]
    return []


def _same(a: Any, b: Any, torch: Any) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


def _draws_random(module, forward, torch) -> bool:
    """Whether two forwards under different seeds disagree (dropout, a random pooling)."""
    results = []
    for seed in (1, 2):
        torch.manual_seed(seed)
        with torch.no_grad():
            results.append(_tensor_leaves(module(*forward.args, **forward.kwargs), torch))
    first, second = results
    return len(first) != len(second) or not all(_same(a, b, torch) for a, b in zip(first, second, strict=True))


def render_sample(info: Any, cls: Any, module_input: Any, label: str, torch: Any) -> dict:
    constructor, forward = module_input.constructor_input, module_input.forward_input
    sample = {"desc": str(getattr(module_input, "desc", "")),
              "args": encode(tuple(constructor.args)), "kwargs": encode(dict(constructor.kwargs)),
              "forward_args": encode(tuple(forward.args)), "forward_kwargs": encode(dict(forward.kwargs))}
    module = _build(cls, constructor, forward, torch)
    sample["state"] = encode(dict(module.state_dict()))
    modes, notes = [], []
    wanted = ("train", "eval") if getattr(info, "train_and_eval_differ", False) else ("train",)
    for mode in wanted:
        module.train(mode == "train")
        if _draws_random(module, forward, torch):
            notes.append(f"{mode} mode left out: its forward draws random values")
        else:
            modes.append(mode)
    if not modes:
        raise Unrenderable("nothing: every mode's forward draws random values")
    module = _build(cls, constructor, forward, torch)
    module.load_state_dict(module.state_dict())
    module.train(modes[0] == "train")
    outputs = _float_outputs(module(*forward.args, **forward.kwargs), torch)
    rng = np.random.default_rng(case_seed(label))
    sample["grad_outputs"] = [encode_values(draw(rng, tuple(o.shape), -1.0, 1.0), tuple(o.shape)) for o in outputs]
    sample["modes"], sample["notes"] = modes, notes
    return sample


def encode_values(values: Any, shape: tuple[int, ...]) -> dict:
    return {"tensor": values, "dtype": "float", "shape": list(shape), "requires_grad": False}
