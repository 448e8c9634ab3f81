"""``ctx.needs_input_grad`` of a custom Function against torch's, in every grad mode: it tells
whether each input requires grad, even where no graph is recorded (found by the tutorial corpus,
tests/scripts/custom_function_double_backward.py)."""

from __future__ import annotations

import contextlib

import pytest
import torch

import myautograd as mt


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference_mode", "set_grad_enabled(False)"])
def test_needs_input_grad_in_every_mode(mode):
    def run(lib):
        seen = []

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w, k):
                seen.append(ctx.needs_input_grad)
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, None, None

        # made on demand: set_grad_enabled(False) switches recording off as soon as it is called
        context = {"grad": contextlib.nullcontext, "no_grad": lib.no_grad, "inference_mode": lib.inference_mode,
                   "set_grad_enabled(False)": lambda: lib.set_grad_enabled(False)}[mode]()
        x = lib.ones(2, requires_grad=True)
        with context:
            out = Scale.apply(x, lib.ones(1), 3.0)
            Scale.apply(lib.ones(1), x, 2.0)
        return seen, out.requires_grad, out.grad_fn is None

    assert run(mt) == run(torch)
    assert mt.is_grad_enabled() and torch.is_grad_enabled()
