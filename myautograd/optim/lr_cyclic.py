"""Cyclic schedulers of ``torch.optim.lr_scheduler``: ``CosineAnnealingWarmRestarts`` (cosine decay
restarted every ``T_i`` epochs, ``T_i`` growing by ``T_mult``), ``CyclicLR`` (the rate between two
bounds in triangles, the momentum against it) and ``OneCycleLR`` (warm up to ``max_lr``, then anneal
far below the start, the momentum mirrored). ``lr_scheduler`` re-exports them.

CyclicLR and OneCycleLR set each group's ``momentum`` (or ``betas[0]`` for Adam-like optimizers)
as they go, as torch's do, and keep their phase descriptions in the scheduler so that
``state_dict`` carries them.
"""

from __future__ import annotations

import math
import types
from functools import partial

from .._tensor import Tensor
from .lr_scheduler import LRScheduler, _group_values, _set_group_value
from .optimizer import Optimizer

MOMENTUM_NEEDED = "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"


def _per_group(name: str, optimizer, value) -> list:
    """One value per parameter group: ``value`` repeated, or a list of exactly that many."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
    else:
        value = [value] * len(optimizer.param_groups)
    return [item.clone() if isinstance(item, Tensor) else item for item in value]


def _set_momentum(group: dict, value, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _start_momentum(scheduler, optimizer, base_momentum, max_momentum, last_epoch) -> tuple[list, list]:
    """Check that the optimizer has a momentum to cycle; start every group at its largest."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(MOMENTUM_NEEDED)
    scheduler.use_beta1 = "betas" in optimizer.defaults
    largest = _per_group("max_momentum", optimizer, max_momentum)
    smallest = _per_group("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        for top, bottom, group in zip(largest, smallest, optimizer.param_groups, strict=True):
            _set_momentum(group, top, scheduler.use_beta1)
            group["max_momentum"] = top
            group["base_momentum"] = bottom
    return smallest, largest


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def _place(self, epoch) -> None:
        """``T_cur`` and ``T_i`` at a given epoch (``step(epoch)``)."""
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            restarts = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**restarts - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**restarts

    def step(self, epoch=None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        else:
            self._place(epoch)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            rates = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, rate in zip(self.optimizer.param_groups, rates, strict=True):
            _set_group_value(group, "lr", rate)
        self._last_lr = _group_values(self.optimizer, "lr")


class CyclicLR(LRScheduler):
    def __init__(self, optimizer, base_lr, max_lr, step_size_up: int = 2000, step_size_down=None,
                 mode: str = "triangular", gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float = 0.8, max_momentum: float = 0.9,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for rate, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_value(group, "lr", rate)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _start_momentum(self, optimizer, base_momentum, max_momentum,
                                                                      last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        shapes = {"triangular": (lambda x: 1.0, "cycle"), "triangular2": (lambda x: 1 / (2.0 ** (x - 1)), "cycle"),
                  "exp_range": (partial(pow, self.gamma), "iterations")}
        self._scale_fn_ref, self.scale_mode = shapes[self.mode]

    def scale_fn(self, x) -> float:
        return self._scale_fn_custom(x) if self._scale_fn_custom is not None else self._scale_fn_ref(x)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        height = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        rates = [base + (top - base) * height * scale for base, top in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            for group, bottom, top in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums,
                                          strict=True):
                _set_momentum(group, top - (top - bottom) * height * scale, self.use_beta1)
        return rates

    def state_dict(self) -> dict:
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = fn.__dict__.copy() if fn is not None and not isinstance(fn, types.FunctionType) \
            else None
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum) -> dict:
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr, "start_momentum": start_momentum,
            "end_momentum": end_momentum}


class OneCycleLR(LRScheduler):
    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum=0.85, max_momentum=0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        warm_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                       "max_momentum"),
                _phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                _phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups, strict=True):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _start_momentum(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        rates = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for index, phase in enumerate(self._schedule_phases):
                if step <= phase["end_step"] or index == len(self._schedule_phases) - 1:
                    pct = (step - start) / (phase["end_step"] - start)
                    rates.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                        _set_momentum(group, momentum, self.use_beta1)
                    break
                start = phase["end_step"]
        return rates


__all__ = ["CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR"]
