"""Mutants of torch.autograd.graph's utilities and of gradient clipping: a norm type ignored, a version bump
that does nothing, saved-tensor hooks that are not disabled, saved values that follow their later changes."""

from __future__ import annotations

import contextlib

from myautograd.autograd import graph
from myautograd.nn.utils import clip_grad

from ._registry import mutant, replace


@mutant("optimizers", "clip_grad_norm_ ignores norm_type: the total norm is always the 2-norm")
def clip_grad_norm_ignores_norm_type():
    def make(original):
        def broken(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
            return original(tensors, 2.0, error_if_nonfinite, foreach)
        return broken

    replace(clip_grad, "get_total_norm", make)


@mutant("versions and views", "torch.autograd.graph.increment_version does nothing")
def increment_version_does_nothing():
    replace(graph, "increment_version", lambda original: lambda tensor: None)


@mutant("hooks", "disable_saved_tensors_hooks is inert: saved-tensor hooks may be entered inside it")
def saved_tensor_hooks_not_disabled():
    @contextlib.contextmanager
    def inert(error_message):
        yield

    replace(graph, "disable_saved_tensors_hooks", lambda original: inert)


@mutant("versions and views", "allow_mutation_on_saved_tensors unpacks a saved tensor as it is now, changed in place "
        "since it was saved")
def allow_mutation_reads_the_changed_value():
    def make(original):
        def broken(ctx):
            hooks = original(ctx)
            hooks.unpack_hook = lambda key: ctx.saved[key][0]
            return hooks
        return broken

    replace(graph, "_saved_as_first_seen", make)
