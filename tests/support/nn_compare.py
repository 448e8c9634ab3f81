"""Comparing myautograd.nn and myautograd.optim with torch's: the same modules, weights and data
on both sides (see tests/test_nn.py and tests/test_optim.py).

Tolerances: one step is compared at float32 precision (rtol 1.3e-6, atol 1e-5). torch's CPU
kernels fuse multiply-adds (``add(alpha=)``, ``addcmul``, ``lerp``) and its ``sqrt`` is not
correctly rounded, so single elements differ by an ulp; across several optimizer steps those
differences are carried along (and Adam divides by small second moments), so multi-step runs use
rtol 1e-5, atol 2e-5 (observed worst case after 20 steps: about 4e-7 absolute).
"""

from __future__ import annotations

import numpy as np
import torch

import myautograd as mt
import myautograd.nn as mnn
import myautograd.optim as moptim

RTOL, ATOL = 1.3e-6, 1e-5
STEP_RTOL, STEP_ATOL = 1e-5, 2e-5

TORCH = (torch, torch.nn, torch.optim)
OURS = (mt, mnn, moptim)


def close(ours, theirs, rtol=RTOL, atol=ATOL):
    assert type(ours).__name__ == type(theirs).__name__ or isinstance(ours, mt.Tensor)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


def copy_weights(theirs, ours):
    """Give ``ours`` the parameters and buffers of the torch module ``theirs``."""
    t_names = [name for name, _ in theirs.named_parameters()]
    assert t_names == [name for name, _ in ours.named_parameters()]
    with mt.no_grad():
        for (_, tp), (_, mp) in zip(theirs.named_parameters(), ours.named_parameters(), strict=True):
            mp.copy_(mt.tensor(tp.detach().numpy()))


def both(fn):
    """``fn(torch, nn, optim)`` run on torch and on myautograd."""
    return fn(*TORCH), fn(*OURS)


def outcome(fn, *args):
    """``(exception type name, message)`` of ``fn(*args)``, or ``None`` when it succeeds."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return None


def data(seed=0, shape=(6, 5)):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32)


def mlp(torch, nn, optim):
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 3))


def paired(factory=mlp):
    theirs, ours = both(factory)
    copy_weights(theirs, ours)
    return theirs, ours
