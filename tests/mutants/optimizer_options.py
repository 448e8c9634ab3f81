"""Mutants of optimizer options that the hand-written optimizer cases never set, and of the
learning-rate schedulers: caught by the optim_db cases (``optiminfo``) and the scheduler cases."""

from __future__ import annotations

from myautograd.optim import adafactor, adam, lr_scheduler, muon, rmsprop

from ._registry import mutant, replace


@mutant("optimizers", "Adam's maximize applied after weight decay: -(g + wd p) instead of -g + wd p")
def adam_maximize_after_weight_decay():
    def make(original):
        def update(self, param, group):
            if group["maximize"] and group["weight_decay"] != 0 and not group["decoupled_weight_decay"]:
                grad = param.grad
                param.grad = -(grad.add(param, alpha=group["weight_decay"]) + param * group["weight_decay"])
                try:
                    return original(self, param, group)
                finally:
                    param.grad = grad
            return original(self, param, group)

        return update

    replace(adam.Adam, "_update", make)


@mutant("optimizers", "RMSprop's centered ignored: the plain running root-mean-square is used")
def rmsprop_centered_ignored():
    def make(original):
        def update(self, param, group):
            return original(self, param, {**group, "centered": False})

        return update

    replace(rmsprop.RMSprop, "_update", make)


@mutant("optimizers", "Adafactor's factors swapped: the row factor follows the column means of g * g, the column "
                      "factor the row means")
def adafactor_factors_swapped():
    def make(original):
        def mean_square(grad, dim):
            return original(grad, -2 if dim == -1 else -1).transpose(-1, -2)

        return mean_square

    replace(adafactor, "mean_square", make)


@mutant("optimizers", "Muon's Newton-Schulz orthogonalisation runs one step fewer than ns_steps")
def muon_newton_schulz_one_step_short():
    def make(original):
        def orthogonalize(matrix, coefficients, steps, eps):
            return original(matrix, coefficients, steps - 1, eps)

        return orthogonalize

    replace(muon, "orthogonalize", make)


@mutant("optimizers", "a learning-rate scheduler steps once more at construction: the first epoch's rate is skipped")
def scheduler_steps_at_construction():
    def make(original):
        def initial_step(self):
            original(self)
            self.step()

        return initial_step

    replace(lr_scheduler.LRScheduler, "_initial_step", make)
