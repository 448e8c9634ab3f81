"""More schedulers of ``torch.optim.lr_scheduler``: warm-up and decay shapes (``MultiplicativeLR``,
``ConstantLR``, ``LinearLR``, ``PolynomialLR``) and the schedulers made of schedulers
(``SequentialLR``: one after another at milestones; ``ChainedScheduler``: all of them every epoch).

Like torch's, each gives the chainable form (``get_lr``: the next rate from the current one, called by
``step``) and, where torch has one, the closed form (``_get_closed_form_lr``: the rate at an epoch from
the base rates, used by ``step(epoch)``). ``lr_scheduler`` re-exports them.
"""

from __future__ import annotations

from bisect import bisect_right

from .lr_scheduler import LambdaLR, LRScheduler, ReduceLROnPlateau, _group_values, _set_group_value


def _lambdas_of(optimizer, lr_lambda) -> list:
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


class MultiplicativeLR(LRScheduler):
    """Multiply the rate by ``lr_lambda(epoch)`` at every epoch after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_of(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    # the factors' state is saved as LambdaLR saves its lambdas'
    state_dict = LambdaLR.state_dict
    load_state_dict = LambdaLR.load_state_dict

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class ConstantLR(LRScheduler):
    """The rate times ``factor`` until epoch ``total_iters``, the base rate from then on."""

    def __init__(self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        reached = self.last_epoch >= self.total_iters
        return [base * (self.factor + reached * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The factor moves linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs."""

    def __init__(self, optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``base * (1 - epoch / total_iters) ** power`` until ``total_iters``, then constant."""

    def __init__(self, optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        self._warn_if_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        factor = ((1.0 - self.last_epoch / self.total_iters)
                  / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list:
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


def _check_children(owner: str, optimizer, schedulers) -> None:
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs "
                             f"to be specified when calling `step`, but got one at index {index} in the given "
                             "schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(scheduler).__name__} at index {index} has {scheduler.optimizer}, which is "
                             f"different from {type(optimizer).__name__}.")


class _Composed(LRScheduler):
    """What SequentialLR and ChainedScheduler share: their children's state travels in ``state_dict``."""

    def state_dict(self) -> dict:
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [child.state_dict() for child in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        children = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = children
        for child, saved in zip(self._schedulers, children, strict=False):
            child.load_state_dict(saved)


class SequentialLR(_Composed):
    """``schedulers[i]`` drives the rate from ``milestones[i - 1]`` on; each starts afresh at its milestone."""

    def __init__(self, optimizer, schedulers: list, milestones: list, last_epoch: int = -1) -> None:
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_children(owner, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo what building the children did
            _set_group_value(group, "lr", group["initial_lr"])
        self._step_back(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def _step_back(self, scheduler) -> None:
        """One epoch back for every scheduler below this one (their construction stepped them)."""
        if hasattr(scheduler, "_schedulers"):
            for child in scheduler._schedulers:
                self._step_back(child)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composed):
    """Every scheduler steps at every epoch, in order, each on the rate the previous one left."""

    def __init__(self, schedulers, optimizer=None) -> None:
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_children(owner, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


__all__ = ["ChainedScheduler", "ConstantLR", "LinearLR", "MultiplicativeLR", "PolynomialLR", "SequentialLR"]
