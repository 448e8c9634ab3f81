"""Learning-rate schedules: ``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``CosineAnnealingLR``,
``LambdaLR`` (each updating the optimizer's ``lr`` once per ``step()``) and ``ReduceLROnPlateau``
(lowering it when a watched metric stops improving).

As in torch, a scheduler records each group's ``initial_lr``, takes a first step when built, and
then computes each new rate from the current one ("chainable" form); ``step(epoch)`` (deprecated)
uses the closed form instead. It wraps ``optimizer.step`` to notice the common mistake of
stepping the scheduler before the optimizer, and warns as torch does. ``state_dict`` is the
scheduler's attributes (without the optimizer), so its keys and order are torch's.
"""

from __future__ import annotations

import contextlib
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import wraps

from .._missing import missing_attribute as _missing_attribute
from .._tensor import Tensor
from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)
HOW_TO = "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
STEP_OVERRIDDEN = ("Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. "
                   "Please, make sure to call `optimizer.step()` before `lr_scheduler.step()`. " + HOW_TO)
STEP_ORDER = ("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you "
              "should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do "
              "this will result in PyTorch skipping the first value of the learning rate schedule. " + HOW_TO)
GET_LR_OUTSIDE_STEP = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."
RESUME_WITHOUT_INITIAL_LR = (
    "param 'initial_lr' is not specified in param_groups[{}] when resuming scheduler with last_epoch >= 0.\nThis "
    "typically happens when:\n1. You're trying to resume training from a checkpoint but haven't properly loaded the "
    "optimizer state\n2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
)


def _group_values(optimizer: Optimizer, key: str) -> list:
    return [group[key].clone() if isinstance(group[key], Tensor) else group[key] for group in optimizer.param_groups]


def _set_group_value(group: dict, key: str, value) -> None:
    if isinstance(group[key], Tensor):
        group[key].fill_(value.item() if isinstance(value, Tensor) else value)
    else:
        group[key] = value


def _track_optimizer_steps(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` (once) so that it records that it was called."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    owner = weakref.ref(optimizer)
    plain_step = optimizer.step.__func__

    @wraps(plain_step)
    def step(*args, **kwargs):
        opt = owner()
        opt._opt_called = True
        return plain_step.__get__(opt, type(opt))(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    optimizer.step = step


@contextlib.contextmanager
def _flag(scheduler, name: str):
    setattr(scheduler, name, True)
    try:
        yield
    finally:
        setattr(scheduler, name, False)


class LRScheduler:
    """Base class: subclasses give ``get_lr`` (chainable) and optionally ``_get_closed_form_lr``."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                rate = group["lr"]
                group.setdefault("initial_lr", rate.clone() if isinstance(rate, Tensor) else rate)
        else:
            for index, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(RESUME_WITHOUT_INITIAL_LR.format(index))
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        with _flag(self, "_is_initial"):
            self.step()

    def state_dict(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        return self._last_lr

    def get_lr(self) -> list:
        raise NotImplementedError

    def _warn_if_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(GET_LR_OUTSIDE_STEP, UserWarning, stacklevel=3)

    def step(self, epoch: int | None = None) -> None:
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(STEP_OVERRIDDEN, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(STEP_ORDER, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        with _flag(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                rates = self.get_lr()
            else:
                self.last_epoch = epoch
                rates = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for group, rate in zip(self.optimizer.param_groups, rates, strict=True):
            _set_group_value(group, "lr", rate)
        self._last_lr = _group_values(self.optimizer, "lr")


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)`` (one function, or one per group)."""

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambdas
        for fn, saved in zip(self.lr_lambdas, lambdas, strict=False):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each milestone epoch (twice for a milestone given twice)."""

    def __init__(self, optimizer: Optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Follow half a cosine from the initial rate down to ``eta_min`` over ``T_max`` epochs (and back up)."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _cosine(self, base: float, epoch: int) -> float:
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:  # at the bottom: turn back up
            return [group["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, group in zip(self.base_lrs, groups, strict=True)]
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / \
            (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self) -> list:
        return [self._cosine(base, self.last_epoch) for base in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` once the metric passed to ``step`` has not improved for
    ``patience`` epochs (then wait ``cooldown`` epochs); never below ``min_lr``."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None) -> None:
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                                   f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                                   "param group being added to the optimizer. Please modify the `min_lrs` field to "
                                   "match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs, strict=True):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                _set_group_value(group, "lr", new)

    def _is_better(self, value: float, best: float) -> bool:
        if self.mode == "min":
            return value < best * (1.0 - self.threshold) if self.threshold_mode == "rel" else value < best - self.threshold
        return value > best * (self.threshold + 1.0) if self.threshold_mode == "rel" else value > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


_LRScheduler = LRScheduler

from .lr_composed import (  # noqa: E402 - they build on the classes above
    ChainedScheduler,
    ConstantLR,
    LinearLR,
    MultiplicativeLR,
    PolynomialLR,
    SequentialLR,
)
from .lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR  # noqa: E402 - as above

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "ExponentialLR", "OneCycleLR", "LRScheduler", "LambdaLR",
           "LinearLR", "MultiStepLR", "MultiplicativeLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR", "StepLR"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
