"""torch.func's utilities for modules: ``functional_call``, ``stack_module_state`` and
``replace_all_batch_norm_modules_``.

``functional_call`` runs a module with other tensors in place of some of its parameters and buffers:
it puts them into the owning modules' ``_parameters`` / ``_buffers`` tables for the call and puts the
originals back afterwards, so the module is unchanged whatever happens in between. With ``tie_weights``
a tensor given for one name of a tied parameter (one tensor under several names) is used for all of
its names.
"""

from __future__ import annotations

from .._grad_mode import no_grad
from .._ops.shape import stack


def _owner(module, name: str):
    """The submodule that holds ``name`` ("encode.weight": the module ``encode``) and the last part."""
    *path, attribute = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, attribute


def _merged(parameter_and_buffer_dicts) -> dict:
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, (list, tuple)):
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(dicts)}")
    merged: dict = {}
    for one in dicts:
        repeated = [key for key in one if key in merged]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged.update(one)
    return merged


def _tied_names(module) -> dict:
    """Every name of the module's parameters and buffers -> all the names of the same tensor."""
    groups: dict = {}
    for table in ("named_parameters", "named_buffers"):
        for name, tensor in getattr(module, table)(remove_duplicate=False):
            groups.setdefault(id(tensor), []).append(name)
    return {name: names for names in groups.values() for name in names}


def _check_strict(module, given: dict) -> None:
    known = [name for table in ("named_parameters", "named_buffers")
             for name, _ in getattr(module, table)(remove_duplicate=False)]
    unexpected = [name for name in given if name not in known]
    missing = [name for name in known if name not in given]
    problems = []
    if unexpected:
        problems.append("Unexpected key(s): " + ", ".join(repr(name) for name in unexpected) + ".")
    if missing:
        problems.append("Missing key(s): " + ", ".join(repr(name) for name in missing) + ".")
    if problems:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(problems))


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` in place of its own."""
    given = _merged(parameter_and_buffer_dicts)
    if tie_weights:
        tied = _tied_names(module)
        for name, value in list(given.items()):
            for other in tied.get(name, ()):
                given.setdefault(other, value)
    if strict:
        _check_strict(module, given)
    swapped = []
    try:
        for name, value in given.items():
            owner, attribute = _owner(module, name)
            table = owner._parameters if attribute in owner._parameters else \
                owner._buffers if attribute in owner._buffers else None
            if table is None:
                swapped.append((owner, attribute, None, owner.__dict__.get(attribute)))
                object.__setattr__(owner, attribute, value)
            else:
                swapped.append((owner, attribute, table, table[attribute]))
                table[attribute] = value
        args = () if args is None else args if isinstance(args, tuple) else (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attribute, table, original in reversed(swapped):
            if table is not None:
                table[attribute] = original
            elif original is None:
                owner.__dict__.pop(attribute, None)
            else:
                object.__setattr__(owner, attribute, original)


def stack_module_state(models) -> tuple[dict, dict]:
    """The parameters and the buffers of ``models`` (modules of one kind) stacked along a new first
    dimension; the stacked parameters are new leaves, requiring grad as the originals do."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kinds = {type(m) for m in models}
    if len(kinds) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(table: str, leaves: bool) -> dict:
        result = {}
        for name, first in getattr(models[0], table)():
            tensors = [dict(getattr(m, table)())[name] for m in models]
            with no_grad():
                joined = stack([t.detach() for t in tensors])
            result[name] = joined.requires_grad_(first.requires_grad) if leaves else joined
        return result

    return stacked("named_parameters", True), stacked("named_buffers", False)


def replace_all_batch_norm_modules_(root):
    """Every batch norm of ``root`` stops tracking running statistics (so that it can run under vmap)."""
    from ..nn.modules.batchnorm import _BatchNorm  # noqa: PLC0415 - nn imports func's users, not func

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
