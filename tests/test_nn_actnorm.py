"""The normalization, activation and padding modules of myautograd.nn against torch.nn, beyond what
module_db's samples (catalog cases ``moduleinfo.*``) cover: reprs, the errors and messages of bad
arguments and inputs, and warnings."""

from __future__ import annotations

import warnings

import pytest
import torch

import myautograd as mt
import myautograd.nn as mnn
from tests.support.nn_compare import outcome

MODULES = [
    lambda nn: nn.GroupNorm(2, 4),
    lambda nn: nn.GroupNorm(1, 3, eps=1e-3, affine=False),
    lambda nn: nn.GroupNorm(2, 4, bias=False),
    lambda nn: nn.BatchNorm3d(3, momentum=None),
    lambda nn: nn.InstanceNorm1d(4),
    lambda nn: nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
    lambda nn: nn.InstanceNorm3d(4, 1e-3, 0.3, True, bias=False),
    lambda nn: nn.RMSNorm(3),
    lambda nn: nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False),
    lambda nn: nn.LocalResponseNorm(2),
    lambda nn: nn.LocalResponseNorm(3, 1e-3, 0.5, 2.0),
]


@pytest.mark.parametrize("factory", MODULES, ids=range(len(MODULES)))
def test_module_repr(factory):
    assert repr(factory(mnn)) == repr(factory(torch.nn))


ERRORS = [
    lambda torch, nn: nn.GroupNorm(3, 4),
    lambda torch, nn: nn.BatchNorm3d(3)(torch.ones(2, 3, 4)),
    lambda torch, nn: nn.InstanceNorm1d(5, affine=True)(torch.ones(2, 4, 3)),
    lambda torch, nn: nn.InstanceNorm2d(4)(torch.ones(2, 4)),
    lambda torch, nn: nn.functional.instance_norm(torch.ones(2, 3, 1)),
    lambda torch, nn: nn.functional.instance_norm(torch.ones(2, 3, 4), use_input_stats=False),
    lambda torch, nn: nn.RMSNorm(4)(torch.ones(2, 3)),
    lambda torch, nn: nn.RMSNorm([2, 3])(torch.ones(3)),
    lambda torch, nn: nn.functional.rms_norm(torch.ones(2, 3), [3], torch.ones(4)),
    lambda torch, nn: nn.LocalResponseNorm(2)(torch.ones(2, 3)),
]


@pytest.mark.parametrize("make", ERRORS, ids=range(len(ERRORS)))
def test_errors(make):
    theirs = outcome(make, torch, torch.nn)
    assert theirs is not None
    assert outcome(make, mt, mnn) == theirs


def warnings_of(torch, nn, make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make(torch, nn)
    return [(w.category.__name__, str(w.message)) for w in caught]


def test_instance_norm_warns_of_a_channel_count_it_does_not_use():
    def make(torch, nn):
        return nn.InstanceNorm1d(5)(torch.ones(2, 4, 3))

    theirs = warnings_of(torch, torch.nn, make)
    assert theirs
    assert warnings_of(mt, mnn, make) == theirs


def test_instance_norm_running_statistics_and_their_use_in_eval():
    """Training moves the running statistics by the mean over the samples; eval normalizes with them."""
    def run(torch, nn):
        module = nn.InstanceNorm1d(2, momentum=0.5, track_running_stats=True)
        x = torch.arange(12.0).reshape(2, 2, 3) ** 1.5
        module(x)
        stats = module.running_mean.tolist() + module.running_var.tolist()
        module.eval()
        return stats, module(x).flatten().tolist()

    theirs, ours = run(torch, torch.nn), run(mt, mnn)
    assert ours[0] == pytest.approx(theirs[0])
    assert ours[1] == pytest.approx(theirs[1], abs=1e-5)
