"""Render ``torch.testing._internal.common_optimizers.optim_db`` as data (reference side only).

Each OptimizerInfo gives option sets (``optim_inputs_func(device, dtype)``: keyword arguments and
a description). One entry per optimizer: its public name (``torch.optim.<Name>``), whether ``step``
needs a closure, and its option sets, each encoded (``encode``). The values the scenario
optimizes are the catalog's own (``conformance/catalog/optiminfo.py``), so nothing here is drawn
at random.

Skipped, with the reason: optimizers that take only sparse gradients (SparseAdam), option sets
with parameter groups of their own or values that cannot be encoded, and any entry whose
attributes or signature differ from what this reader expects (a later torch release).
"""

from __future__ import annotations

from typing import Any

from .encode import Unrenderable, encode


def render() -> dict[str, Any]:
    import torch
    from torch.testing._internal.common_optimizers import optim_db

    entries, skipped = [], []
    for info in optim_db:
        name = getattr(getattr(info, "optim_cls", None), "__name__", repr(info))
        try:
            entry, entry_skips = render_entry(info, torch)
        except Exception as error:  # noqa: BLE001 - any change in torch's internals is a reported skip
            skipped.append({"name": name, "reason": f"cannot read the entry: {type(error).__name__}: {error}"})
            continue
        skipped.extend(entry_skips)
        if entry is not None:
            entries.append(entry)
    return {"torch": torch.__version__, "database": "torch.testing._internal.common_optimizers.optim_db",
            "entries": entries, "skipped": skipped}


def render_entry(info: Any, torch: Any) -> tuple[dict | None, list[dict]]:
    cls = info.optim_cls
    name = cls.__name__
    if getattr(torch.optim, name, None) is not cls:
        return None, [{"name": name, "reason": "not a public name of torch.optim"}]
    if getattr(info, "only_supports_sparse_grads", False):
        return None, [{"name": name, "reason": "takes only sparse gradients"}]
    samples, skipped = [], []
    for index, option_set in enumerate(info.optim_inputs_func(device="cpu", dtype=torch.float64)):
        label = f"{name}.{index}"
        if option_set.params is not None:
            skipped.append({"name": label, "reason": "an option set with parameter groups of its own"})
            continue
        try:
            kwargs = {key: encode(value) for key, value in option_set.kwargs.items()}
        except Unrenderable as error:
            skipped.append({"name": label, "reason": f"cannot encode {error}"})
            continue
        samples.append({"index": index, "desc": str(option_set.desc), "kwargs": kwargs})
    entry = {"name": name, "closure": bool(getattr(info, "step_requires_closure", False)), "samples": samples}
    return entry, skipped
