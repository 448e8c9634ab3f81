"""Mutants of the normalization and activation modules that module_db's samples exercise (``moduleinfo``
cases): the mode that decides which statistics a layer normalizes with, and how a per-channel parameter's
gradient is gathered."""

from __future__ import annotations

from myautograd.nn.modules import instancenorm

from ._registry import formula, mutant, replace


@mutant("losses and layers", "InstanceNorm with track_running_stats normalizes with the running statistics in training")
def instance_norm_running_stats_in_training():
    def make(original):
        def normalized(self, input):
            training = self.training
            self.training = False  # as if in eval mode: the running statistics, when tracked, are used
            try:
                return original(self, input)
            finally:
                self.training = training

        return normalized

    replace(instancenorm._InstanceNorm, "_normalized", make)


@mutant("losses and layers", "PReLU's slope gradient added up over the channel dim for every channel: each per-channel "
         "slope gets all channels' gradient (one shared slope, the channel count times its own)")
def prelu_weight_gradient_across_channels():
    def weight(grad, self, F):
        per_element = F.where(self > 0, 0, self * grad)
        if per_element.ndim < 2:
            return per_element
        return per_element.sum(axis=1, keepdims=True) + 0 * per_element  # the channels added up, for every channel

    formula("PreluKernelBackward0", "weight", weight)
