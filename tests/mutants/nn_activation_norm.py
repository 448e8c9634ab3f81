"""Mutants of the normalization and activation modules that module_db's samples exercise (``moduleinfo``
cases): the mode that decides which statistics a layer normalizes with, and how a per-channel parameter's
gradient is gathered."""

from __future__ import annotations

from myautograd.nn.modules import instancenorm

from ._registry import mutant, replace


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
