"""Mutants of forward-mode AD: a wrong forward rule, a dual level that leaves its tangents behind,
tangents dropped under no_grad, and views whose tangents are copies."""

from __future__ import annotations

import numpy as np

from myautograd._autograd import forward
from myautograd._autograd.formulas import NODES
from myautograd._grad_mode import STATE
from myautograd._tensor import make_tensor

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


@mutant("forward mode", "no tangents under no_grad: an op that records no node gives plain results")
def no_grad_drops_tangents():
    def make(original):
        def untracked(cls, data, inputs, attrs, outputs):
            if STATE.grad_enabled:
                return original(cls, data, inputs, attrs, outputs)
            results = tuple(make_tensor(np.asarray(a)) for a in ((data,) if outputs == 1 else data))
            return results[0] if outputs == 1 else results

        return untracked

    replace(forward, "untracked", make)


@mutant("forward mode", "a view's tangent is a copy, not a view of its base's tangent")
def view_tangent_copied():
    # (Computing the views' tangents by their forward rules instead, as this mutant once did, is no longer
    # a bug: the rules of view ops take the same view of the tangent.)
    def make(original):
        def view_tangents(cls, base, views, attrs, recorded):
            original(cls, base, views, attrs, recorded)
            for view in views:
                tangent = forward.tangent_of(view)
                if tangent is not None:
                    forward.set_tangent(view, tangent.detach().clone())

        return view_tangents

    replace(forward, "view_tangents", make)
