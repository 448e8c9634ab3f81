"""RMSprop, Adagrad and the learning-rate schedulers against torch.

Optimizers: the same model (torch's weights copied in) trained on both sides; losses, parameters,
gradients and state compared at float32 precision (multi-step tolerance as in
tests/support/nn_compare.py: rtol 1e-5, atol 2e-5, the atol scaled by a tensor's largest
magnitude). Schedulers: the learning rates they produce each epoch, their state dicts, warnings and
errors; rates are Python floats computed by the same formulas, so they are compared exactly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd as mt
from tests.support.outcome import outcome

RTOL, ATOL = 1e-5, 2e-5



def close(ours, theirs):
    """Equal within the multi-step tolerance, ``atol`` scaled by the tensor's largest magnitude: an element that
    is the small difference of larger terms (RMSprop's momentum buffer, 0.5 * -10 + 10.2) carries their
    rounding, not its own."""
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    expected = theirs.detach().numpy()
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    np.testing.assert_allclose(ours.detach().numpy(), expected, rtol=RTOL, atol=ATOL * scale)


def model(lib):
    lib.manual_seed(0)  # the same initial weights on both sides (myautograd draws as torch does)
    return lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))


OPTIMIZERS = [
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.02, "alpha": 0.5, "eps": 1e-4}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.01}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-6, "maximize": True}),
]


@pytest.mark.parametrize(("name", "options"), OPTIMIZERS, ids=[f"{n}-{o}" for n, o in OPTIMIZERS])
def test_training_matches_torch(name, options):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((16, 5)).astype(np.float32), rng.integers(0, 3, 16)
    runs = []
    for lib in (torch, mt):
        net = model(lib)
        opt = getattr(lib.optim, name)(net.parameters(), **options)
        state_before = {k: sorted(v) for k, v in opt.state_dict()["state"].items()}
        losses = []
        for _ in range(10):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(net(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            losses.append(loss)
        runs.append((net, opt, losses, state_before))
    (t_net, t_opt, t_losses, t_before), (m_net, m_opt, m_losses, m_before) = runs
    assert m_before == t_before  # Adagrad makes its state when built, RMSprop on the first step
    for ours, theirs in zip(m_losses, t_losses, strict=True):
        close(ours, theirs)
    for tp, mp in zip(t_net.parameters(), m_net.parameters(), strict=True):
        close(mp, tp)
        t_state, m_state = t_opt.state[tp], m_opt.state[mp]
        assert list(m_state) == list(t_state)
        for key in t_state:
            close(m_state[key], t_state[key])
    assert repr(m_opt) == repr(t_opt)
    assert m_opt.state_dict()["param_groups"] == t_opt.state_dict()["param_groups"]


OPTIMIZER_ERRORS = [
    lambda optim, p: optim.RMSprop([p], lr=-1),
    lambda optim, p: optim.RMSprop([p], eps=-1),
    lambda optim, p: optim.RMSprop([p], momentum=-1),
    lambda optim, p: optim.RMSprop([p], weight_decay=-1),
    lambda optim, p: optim.RMSprop([p], alpha=-1),
    lambda optim, p: optim.Adagrad([p], lr=-1),
    lambda optim, p: optim.Adagrad([p], lr_decay=-1),
    lambda optim, p: optim.Adagrad([p], weight_decay=-1),
    lambda optim, p: optim.Adagrad([p], initial_accumulator_value=-1),
    lambda optim, p: optim.Adagrad([p], eps=-1),
    lambda optim, p: optim.Adagrad([p], fused=True, differentiable=True),
    lambda optim, p: optim.Adagrad([p], fused=True, foreach=True),
    lambda optim, p: optim.RMSprop([]),
]


@pytest.mark.parametrize("make", OPTIMIZER_ERRORS, ids=range(len(OPTIMIZER_ERRORS)))
def test_optimizer_errors(make):
    theirs = outcome(make, torch.optim, torch.nn.Parameter(torch.ones(1)))
    assert theirs is not None
    assert outcome(make, mt.optim, mt.nn.Parameter(mt.ones(1))) == theirs


# -- schedulers -------------------------------------------------------------------------------------------------------
SCHEDULERS = [
    ("StepLR", {"step_size": 3}),
    ("StepLR", {"step_size": 2, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 5}),
    ("CosineAnnealingLR", {"T_max": 4, "eta_min": 0.01}),
    ("LambdaLR", {"lr_lambda": "halving"}),
    ("LambdaLR", {"lr_lambda": "per-group"}),
]
LAMBDAS = {"halving": lambda epoch: 0.5 ** epoch,
           "per-group": [lambda epoch: 1 / (epoch + 1), lambda epoch: 0.95 ** epoch]}


def optimizer_with_two_groups(lib):
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)


@pytest.mark.parametrize(("name", "options"), SCHEDULERS, ids=[f"{n}-{o}" for n, o in SCHEDULERS])
def test_scheduler_rates_match(name, options):
    def run(lib):
        opt = optimizer_with_two_groups(lib)
        kwargs = dict(options)
        if name == "LambdaLR":
            kwargs["lr_lambda"] = LAMBDAS[options["lr_lambda"]]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
            rates = [scheduler.get_last_lr()]
            for _ in range(14):
                opt.step()
                scheduler.step()
                rates.append(scheduler.get_last_lr() + [group["lr"] for group in opt.param_groups])
        state = scheduler.state_dict()
        return rates, list(state), {k: v for k, v in state.items() if k != "lr_lambdas"}, \
            [str(w.message) for w in caught], [sorted(g) for g in opt.param_groups]

    assert run(mt) == run(torch)


def test_scheduler_warnings():
    def run(lib):
        messages = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            opt = optimizer_with_two_groups(lib)
            scheduler = lib.optim.lr_scheduler.StepLR(opt, 2)
            scheduler.step()  # before any optimizer.step()
            scheduler.get_lr()  # outside step
            scheduler.step(5)  # the deprecated epoch argument
            opt2 = optimizer_with_two_groups(lib)
            scheduler2 = lib.optim.lr_scheduler.ExponentialLR(opt2, 0.5)
            opt2.step = lambda closure=None: None  # replaced after the scheduler wrapped it
            scheduler2.step()
            messages = [(w.category.__name__, str(w.message)) for w in caught]
        return messages, scheduler.get_last_lr(), scheduler.last_epoch

    assert run(mt) == run(torch)


def test_resume_from_state_dict():
    def run(lib):
        opt = optimizer_with_two_groups(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
        for _ in range(3):
            opt.step()
            scheduler.step()
        saved_opt, saved_sched = opt.state_dict(), scheduler.state_dict()
        fresh = optimizer_with_two_groups(lib)
        fresh.load_state_dict(saved_opt)
        resumed = lib.optim.lr_scheduler.CosineAnnealingLR(fresh, T_max=6, last_epoch=2)
        resumed.load_state_dict(saved_sched)
        rates = []
        for _ in range(4):
            fresh.step()
            resumed.step()
            opt.step()
            scheduler.step()
            rates.append((resumed.get_last_lr(), scheduler.get_last_lr()))
        return rates

    assert run(mt) == run(torch)


def test_reduce_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.61, 0.62, 0.63, 0.64, 0.65, 0.7, 0.8]

    def run(lib, **options):
        opt = optimizer_with_two_groups(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **options)
        rates = []
        for value in metrics:
            opt.step()
            scheduler.step(lib.tensor(value) if value > 0.9 else value)
            rates.append((scheduler.get_last_lr(), scheduler.num_bad_epochs, scheduler.cooldown_counter, scheduler.best))
        return rates, scheduler.state_dict()

    for options in ({"patience": 2}, {"patience": 1, "cooldown": 2, "factor": 0.5}, {"mode": "max", "patience": 1},
                    {"patience": 0, "threshold_mode": "abs", "threshold": 0.05, "min_lr": [0.05, 0.2]},
                    {"patience": 0, "min_lr": 0.04, "eps": 0.01}):
        assert run(mt, **options) == run(torch, **options)


SCHEDULER_ERRORS = [
    lambda sched, opt: sched.StepLR("not an optimizer", 2),
    lambda sched, opt: sched.StepLR(opt, 2, last_epoch=3),
    lambda sched, opt: sched.LambdaLR(opt, [lambda e: 1.0]),
    lambda sched, opt: sched.ReduceLROnPlateau(opt, factor=1.0),
    lambda sched, opt: sched.ReduceLROnPlateau(opt, mode="middle"),
    lambda sched, opt: sched.ReduceLROnPlateau(opt, threshold_mode="both"),
    lambda sched, opt: sched.ReduceLROnPlateau(opt, min_lr=[0.1]),
    lambda sched, opt: sched.ReduceLROnPlateau(3),
    lambda sched, opt: sched.LRScheduler(opt),
]


@pytest.mark.parametrize("make", SCHEDULER_ERRORS, ids=range(len(SCHEDULER_ERRORS)))
def test_scheduler_errors(make):
    theirs = outcome(make, torch.optim.lr_scheduler, optimizer_with_two_groups(torch))
    assert theirs is not None
    assert outcome(make, mt.optim.lr_scheduler, optimizer_with_two_groups(mt)) == theirs


# -- gradient clipping -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    def run(lib):
        net = model(lib)
        x = lib.tensor(np.linspace(-2, 2, 20, dtype=np.float32).reshape(4, 5))
        net(x).pow(2).sum().backward()
        total = lib.nn.utils.clip_grad_norm_(net.parameters(), max_norm, norm_type=norm_type)
        return total, [p.grad for p in net.parameters()]

    (t_total, t_grads), (m_total, m_grads) = run(torch), run(mt)
    close(m_total, t_total)
    for ours, theirs in zip(m_grads, t_grads, strict=True):
        close(ours, theirs)


def test_clip_grad_value_and_errors():
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([0.5, -3.0, 2.0]))
        p.grad = lib.tensor([0.5, -3.0, 2.0])
        lib.nn.utils.clip_grad_value_([p], 1.0)
        out = [p.grad.tolist(), lib.nn.utils.clip_grad_norm_([], 1.0).item()]
        q = lib.nn.Parameter(lib.ones(2))
        q.grad = lib.tensor([float("inf"), 1.0])
        out.append(outcome(lib.nn.utils.clip_grad_norm_, [q], 1.0, error_if_nonfinite=True))
        out.append(lib.nn.utils.clip_grad_norm_(q, 1.0).item())
        return out

    assert run(mt) == run(torch)
