"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and ``state_dict``.

A subclass passes its hyper-parameter defaults; every group gets a value for each (``required``
marks those a group must give). ``step`` runs without recording (see ``no_grad_step``), so the
in-place updates bump the parameters' version counters as torch's do.
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from collections.abc import Callable
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import _dtype
from .._grad_mode import enable_grad, set_grad_enabled
from .._tensor import Tensor
from ..nn._utils import typename
from ..nn.modules.module import _clear_grad


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

DUPLICATE_WARNING = ("optimizer contains a parameter group with duplicate parameters; in future, this will cause an "
                     "error; see github.com/pytorch/pytorch/issues/40967 for more information")


def no_grad_step(step: Callable) -> Callable:
    """Run ``step`` with gradient recording set by the ``differentiable`` default (off unless asked)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return step(self, *args, **kwargs)

    return wrapper


def check_fused(fused, foreach, differentiable) -> None:
    """torch's checks on the implementation flags (the maths here is always the per-tensor one)."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")


class Optimizer:
    """Base class of the optimizers."""

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + typename(params))
        self.state: defaultdict[Any, dict] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # -- groups -----------------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        named = [isinstance(p, tuple) for p in params]
        if any(named):
            if not all(named):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = [name for name, _ in params]
            params = [p for _, p in params]
        param_group["params"] = params
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn(DUPLICATE_WARNING, UserWarning, stacklevel=3)
        known = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in known for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        if self.param_groups and ("param_names" in param_group) != ("param_names" in self.param_groups[0]):
            have = "with" if "param_names" in param_group else "without"
            raise ValueError(f"all optimizer param groups should be with/without names. cannot add param group "
                             f"{have} names to the optimizer")
        self.param_groups.append(param_group)

    # -- gradients and steps ----------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                _clear_grad(param, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None):
        raise NotImplementedError

    @staticmethod
    def _closure_loss(closure: Callable[[], Any] | None):
        """The closure's result, computed with recording on (``None`` without a closure)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -- state dict -------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index_of[id(key)] if isinstance(key, Tensor) else key): value for key, value in self.state.items()}
        return {"state": state, "param_groups": groups}

    @staticmethod
    def _cast_state(param: Tensor, value: Any, key: Any = None) -> Any:
        """A loaded state value placed like ``param`` (floating tensors also take its dtype; ``step`` is kept)."""
        if isinstance(value, Tensor):
            if key == "step":
                return value
            if param.is_floating_point() and value.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k) for k, v in value.items()}
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        by_index = dict(zip(chain.from_iterable(s["params"] for s in saved_groups),
                            chain.from_iterable(g["params"] for g in groups), strict=True))
        state: defaultdict[Any, dict] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in by_index:
                param = by_index[key]
                state[param] = self._cast_state(param, value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    # -- printing ---------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


class PerParameterOptimizer(Optimizer):
    """An optimizer whose step updates each parameter that has a gradient on its own: subclasses
    define ``_update(param, group)``."""

    @no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    self._update(param, group)
        return loss

    def _update(self, param, group) -> None:
        raise NotImplementedError


def scalar_dtype():
    """The dtype of ``step`` counters: float64 under a float64 default dtype, else float32 (torch's rule)."""
    return _dtype.float64 if _dtype.get_default_dtype() is _dtype.float64 else _dtype.float32





def check_lr(lr) -> None:
    """torch's checks on a learning rate: a tensor holds one element; it is not negative."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(betas) -> None:
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def as_number(value):
    """A learning rate given as a one-element tensor, as a Python number (torch's ``_to_scalar``)."""
    return value.item() if isinstance(value, Tensor) else value
__all__ = ["Optimizer", "PerParameterOptimizer", "as_number", "check_betas", "check_lr", "required", "scalar_dtype"]
