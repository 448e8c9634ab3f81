"""Mutants of forward-mode AD: a wrong forward rule, and a dual level that leaves its tangents behind."""

from __future__ import annotations

from myautograd._autograd import forward
from myautograd._autograd.formulas import NODES

from ._registry import mutant, replace


@mutant("forward mode", "sin's forward rule with the wrong sign: -cos(x) * t (its backward formula is right)")
def sin_tangent_sign():
    NODES["SinBackward0"].forward_rule = lambda tangents, values, F: tangents[0] * -F.cos(values["self"])


@mutant("forward mode", "exiting a dual level keeps its tangents: they come back in the next level")
def dual_level_keeps_tangents():
    def make(original):
        def exit_level(level=None):
            kept = dict(forward.TANGENTS)
            original(level)
            forward.TANGENTS.update(kept)

        return exit_level

    replace(forward, "exit_level", make)
