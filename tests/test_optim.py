"""myautograd.optim against torch.optim: training steps, zero_grad, optimizer state, groups,
reprs and errors, and a small training script that must print the same.

Every comparison builds the same thing on both sides (``tests/support/nn_compare.py``): modules
get torch's initial weights copied in, data come from one NumPy array; values, gradients,
optimizer state and version counters are compared.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import myautograd as mt
import myautograd.nn as mnn
import myautograd.optim as moptim
from tests.support.nn_compare import (
    ATOL,
    OURS,
    RTOL,
    STEP_ATOL,
    STEP_RTOL,
    TORCH,
    both,
    close,
    data,
    outcome,
    paired,
)

ROOT = Path(__file__).resolve().parent.parent


# -- training against torch -----------------------------------------------------------------------------------
OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.05, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.9), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "maximize": True, "amsgrad": True, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.4)}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "weight_decay": 0.1, "maximize": True, "beta2_decay": -1.0, "d": 1.5}),
    ("Adafactor", {"eps": (1e-3, 1e-2), "lr": 0.3}),
]


def train_step(lib, nn, net, opt, x, y, device="cpu"):
    opt.zero_grad()
    loss = nn.CrossEntropyLoss()(net(lib.tensor(x, device=device)), lib.tensor(y, device=device))
    loss.backward()
    opt.step()
    return loss


@pytest.mark.parametrize(("name", "options"), OPTIMIZERS, ids=[f"{n}-{o}" for n, o in OPTIMIZERS])
def test_training_matches_torch(name, options, mydevice):
    theirs, ours = paired()
    ours.to(mydevice)
    t_opt = getattr(torch.optim, name)(theirs.parameters(), **options)
    m_opt = getattr(moptim, name)(ours.parameters(), **options)
    x, y = data(1, (16, 5)), np.random.default_rng(2).integers(0, 3, 16)
    t_versions = [p._version for p in theirs.parameters()]
    m_versions = [p._version for p in ours.parameters()]
    for step in range(8):
        t_loss = train_step(torch, torch.nn, theirs, t_opt, x, y)
        m_loss = train_step(mt, mnn, ours, m_opt, x, y, mydevice)
        rtol, atol = (RTOL, ATOL) if step == 0 else (STEP_RTOL, STEP_ATOL)
        close(m_loss, t_loss, rtol, atol)
        for tp, mp in zip(theirs.parameters(), ours.parameters(), strict=True):
            close(mp, tp, rtol, atol)
            close(mp.grad, tp.grad, rtol, atol)
            t_state, m_state = t_opt.state[tp], m_opt.state[mp]
            assert list(m_state) == list(t_state)
            for key in t_state:
                close(m_state[key], t_state[key], rtol, atol)
    # the updates are in place: each step bumps every parameter's version as often as torch's does
    assert [p._version - v for p, v in zip(ours.parameters(), m_versions, strict=True)] == \
        [p._version - v for p, v in zip(theirs.parameters(), t_versions, strict=True)]
    for p in ours.parameters():
        assert p.is_leaf and p.requires_grad and type(p) is mnn.Parameter and p.device.type == mydevice


def test_identical_gradients_give_the_same_updates():
    """The optimizers alone: the same gradients fed to both for 30 steps."""
    rng = np.random.default_rng(3)
    start = [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)]
    grads = [[rng.standard_normal(a.shape).astype(np.float32) * 10 ** rng.uniform(-3, 1) for a in start]
             for _ in range(30)]
    for name, options in OPTIMIZERS:
        t_params = [torch.nn.Parameter(torch.tensor(a)) for a in start]
        m_params = [mnn.Parameter(mt.tensor(a)) for a in start]
        t_opt = getattr(torch.optim, name)(t_params, **options)
        m_opt = getattr(moptim, name)(m_params, **options)
        for step_grads in grads:
            for tp, mp, g in zip(t_params, m_params, step_grads, strict=True):
                tp.grad, mp.grad = torch.tensor(g), mt.tensor(g)
            t_opt.step()
            m_opt.step()
        for tp, mp in zip(t_params, m_params, strict=True):
            close(mp, tp, STEP_RTOL, STEP_ATOL)


def test_params_without_grad_are_skipped_and_groups_have_their_own_options():
    def build(torch, nn, optim):
        net = nn.Linear(3, 2)
        frozen = nn.Parameter(torch.ones(2))
        opt = optim.SGD([{"params": [net.weight, frozen]}, {"params": net.bias, "lr": 0.5}], lr=0.1, momentum=0.9)
        net(torch.ones(4, 3)).pow(2).sum().backward()
        opt.step()
        opt.step()
        return net, frozen, opt

    (t_net, t_frozen, t_opt), (m_net, m_frozen, m_opt) = both(build)
    assert m_frozen._version == t_frozen._version == 0
    assert m_frozen.grad is None and m_frozen not in m_opt.state
    assert len(m_opt.state) == len(t_opt.state) == 2
    assert [g["lr"] for g in m_opt.param_groups] == [g["lr"] for g in t_opt.param_groups]
    t_dict, m_dict = t_opt.state_dict(), m_opt.state_dict()
    assert m_dict["param_groups"] == t_dict["param_groups"]
    assert list(m_dict["state"]) == list(t_dict["state"]) == [0, 2]


def test_step_with_closure_returns_its_loss():
    def run(torch, nn, optim):
        net = nn.Linear(2, 1)
        opt = optim.Adam(net.parameters())
        calls = []

        def closure():
            calls.append(torch.is_grad_enabled())
            opt.zero_grad()
            loss = net(torch.ones(3, 2)).sum()
            loss.backward()
            return loss

        with torch.no_grad():
            loss = opt.step(closure)
        return calls, loss.grad_fn is not None, opt.step() is None

    assert both(run)[0] == both(run)[1] == ([True], True, True)


# -- zero_grad --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("owner", ["module", "optimizer"])
def test_zero_grad(owner):
    def run(torch, nn, optim):
        net = nn.Linear(3, 2)
        opt = optim.SGD(net.parameters(), lr=0.1)
        target = net if owner == "module" else opt
        target.zero_grad()
        seen = [net.weight.grad is None]
        net(torch.ones(1, 3)).sum().backward()
        grad = net.weight.grad
        target.zero_grad(set_to_none=False)
        seen += [net.weight.grad is grad, net.weight.grad.tolist(), net.weight.grad.requires_grad]
        target.zero_grad()
        seen.append(net.weight.grad is None)
        net.bias.grad = torch.ones(2, requires_grad=True) * 2  # a gradient with history is detached
        target.zero_grad(set_to_none=False)
        seen += [net.bias.grad.grad_fn is None, net.bias.grad.requires_grad, net.bias.grad.tolist()]
        return seen

    theirs, ours = both(run)
    assert ours == theirs


# -- optimizer API and errors --------------------------------------------------------------------------------------
def _param(torch, nn):
    return nn.Parameter(torch.ones(2))


def _with_grad(torch, nn, shape, dtype=None):
    param = nn.Parameter(torch.ones(shape, dtype=dtype))
    param.grad = torch.ones_like(param)
    return param


OPTIMIZER_ERRORS = [
    lambda torch, nn, optim: optim.SGD([], lr=0.1),
    lambda torch, nn, optim: optim.SGD(iter([]), lr=0.1),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr=-1.0),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr=-1),
    lambda torch, nn, optim: optim.SGD([], lr=-1.0),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr=0.1, momentum=-0.5),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr=0.1, weight_decay=-0.5),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr=0.1, nesterov=True),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr=0.1, nesterov=True, momentum=0.9, dampening=0.1),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], lr="x"),
    lambda torch, nn, optim: optim.SGD(_param(torch, nn), lr=0.1),
    lambda torch, nn, optim: optim.SGD(torch.ones(2, dtype=torch.float64), lr=0.1),
    lambda torch, nn, optim: optim.SGD([1.0], lr=0.1),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn) * 2], lr=0.1),
    lambda torch, nn, optim: optim.SGD([("a", _param(torch, nn)), _param(torch, nn)]),
    lambda torch, nn, optim: optim.SGD([{"params": [_param(torch, nn)]}, {"lr": 0.1}]),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], fused=True, foreach=True),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)], fused=True, differentiable=True),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], lr=-1.0),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], lr=float("nan")),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], lr="x"),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], eps=-1.0),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], betas=(1.0, 0.9)),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], betas=(0.9, -0.1)),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], weight_decay=-1),
    lambda torch, nn, optim: optim.Adam([_param(torch, nn)], fused=True, foreach=True),
    lambda torch, nn, optim: optim.AdamW([_param(torch, nn)], lr=-1e-3),
    lambda torch, nn, optim: optim.AdamW([_param(torch, nn)], weight_decay=-1e-3),
    lambda torch, nn, optim: optim.Optimizer([_param(torch, nn)], {}).step(),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], lr=-1e-2),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], lr=torch.ones(2)),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], beta2_decay=0.8),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], eps=(-1e-30, 1e-3)),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], eps=(None, -1e-3)),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], d=0.0),
    lambda torch, nn, optim: optim.Adafactor([_param(torch, nn)], weight_decay=-0.1),
    lambda torch, nn, optim: optim.Adafactor([_with_grad(torch, nn, (2, 3), torch.complex64)]).step(),
    lambda torch, nn, optim: optim.Muon([_param(torch, nn)]),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3, 4))]),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3))], adjust_lr_fn="arbitrary"),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3))], lr=-1e-3),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3))], momentum=-0.9),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3))], weight_decay=-0.1),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3), torch.complex64)]).step(),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3))], ns_steps=100).step(),
    lambda torch, nn, optim: optim.Muon([_with_grad(torch, nn, (2, 3))], ns_coefficients=(3.4, -4.7)).step(),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)]).add_param_group([_param(torch, nn)]),
    lambda torch, nn, optim: optim.SGD([_param(torch, nn)]).add_param_group({"params": {_param(torch, nn)}}),
    lambda torch, nn, optim: optim.SGD([("a", _param(torch, nn))]).add_param_group({"params": [_param(torch, nn)]}),
]


@pytest.mark.parametrize("make", OPTIMIZER_ERRORS, ids=range(len(OPTIMIZER_ERRORS)))
def test_optimizer_errors(make):
    theirs = outcome(make, *TORCH)
    assert theirs is not None
    assert outcome(make, *OURS) == theirs


def test_optimizer_group_errors_and_warnings():
    def run(torch, nn, optim):
        w, b = _param(torch, nn), _param(torch, nn)
        opt = optim.SGD([w], lr=0.1)
        out = [outcome(opt.add_param_group, {"params": [w]}),
               outcome(optim.SGD, [{"params": [w]}, {"params": [w]}], 0.1)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            optim.SGD([w, w], lr=0.1)
        out.append([(w.category.__name__, str(w.message)) for w in caught])
        opt.add_param_group({"params": b, "lr": 0.5})
        out.append(repr(opt))
        from importlib import import_module

        required = import_module(optim.__name__ + ".optimizer").required
        out.append(outcome(optim.Optimizer, [w], {"lr": required}))
        out.append(repr(required))
        return out

    theirs, ours = both(run)
    assert ours == theirs


@pytest.mark.parametrize(("name", "options"), [("SGD", {"lr": 0.1}), ("SGD", {"momentum": 0.9, "nesterov": True}),
                                               ("Adam", {"amsgrad": True}), ("AdamW", {})])
def test_optimizer_repr_groups_and_state_dict(name, options):
    def run(torch, nn, optim):
        net = nn.Linear(3, 2)
        opt = getattr(optim, name)(net.parameters(), **options)
        net(torch.ones(4, 3)).sum().backward()
        opt.step()
        state = opt.state_dict()
        summary = {index: {key: (value.tolist() if isinstance(value, torch.Tensor) else value)
                           for key, value in entry.items()} for index, entry in state["state"].items()}
        named = getattr(optim, name)(net.named_parameters(), **options)
        return (repr(opt), list(opt.param_groups[0]), dict(opt.defaults), state["param_groups"], list(state),
                type(opt.state).__name__, type(opt.param_groups[0]["params"]).__name__, repr(named),
                named.state_dict()["param_groups"], summary)

    theirs, ours = both(run)
    for m_item, t_item in zip(ours[:-1], theirs[:-1], strict=True):
        assert m_item == t_item
    assert list(ours[-1]) == list(theirs[-1])
    for index in theirs[-1]:
        assert list(ours[-1][index]) == list(theirs[-1][index])
        for key, value in theirs[-1][index].items():
            np.testing.assert_allclose(ours[-1][index][key], value, rtol=RTOL, atol=ATOL)


def test_optimizer_load_state_dict():
    def run(torch, nn, optim):
        net = nn.Linear(3, 2)
        opt = optim.Adam(net.parameters(), lr=0.01)
        net(torch.ones(4, 3)).sum().backward()
        opt.step()
        fresh = optim.Adam(net.parameters(), lr=0.5)
        fresh.load_state_dict(opt.state_dict())
        out = [fresh.param_groups[0]["lr"], fresh.param_groups[0]["params"][0] is net.weight,
               sorted(fresh.state[net.weight]), fresh.state[net.weight]["step"].item()]
        out.append(outcome(fresh.load_state_dict, {"state": {}, "param_groups": []}))
        out.append(outcome(fresh.load_state_dict, {"state": {}, "param_groups": [{"params": [0], "lr": 1}]}))
        fresh.step()
        out.append(fresh.state[net.weight]["step"].item())
        return out

    theirs, ours = both(run)
    assert ours == theirs


# -- the example script ------------------------------------------------------------------------------------------
SCRIPT = """\
import torch, torch.nn as nn, torch.optim as optim
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
print(net)
opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.ones(5, 4); y = torch.tensor([0, 1, 2, 0, 1])
for _ in range(3):
    opt.zero_grad(); loss = nn.CrossEntropyLoss()(net(x), y); loss.backward(); opt.step()
print(loss.grad_fn, net[0].weight.grad is not None, net[0].weight.requires_grad)
"""
OURS_HEADER = "import myautograd as torch\nimport myautograd.nn as nn\nimport myautograd.optim as optim\n"


def _run_script(source: str) -> str:
    result = subprocess.run([sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return re.sub(r"0x[0-9a-f]+", "0x...", result.stdout)


def test_example_script_prints_the_same():
    ours_source = OURS_HEADER + SCRIPT.split("\n", 1)[1]
    assert _run_script(ours_source) == _run_script(SCRIPT)


def test_nn_and_optim_never_import_torch():
    source = ("import sys\nimport myautograd, myautograd.nn, myautograd.nn.functional, myautograd.nn.init, "
              "myautograd.optim\nassert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_steps_complex_parameters_as_pairs_of_reals(amsgrad):
    start = np.array([1 + 1j, 2 - 1j, -0.5 + 0.25j], dtype=np.complex64)
    target = np.array([0.5 - 1j, 1 + 2j, 0.0 + 0.0j], dtype=np.complex64)
    results = []
    for lib in (torch, mt):
        p = lib.nn.Parameter(lib.tensor(start))
        opt = lib.optim.Adam([p], lr=0.1, amsgrad=amsgrad, weight_decay=0.01)
        for _ in range(4):
            opt.zero_grad()
            ((p - lib.tensor(target)).abs() ** 2).sum().backward()
            opt.step()
        state = opt.state[p]
        results.append([t.detach().numpy() for t in (p, state["exp_avg"], state["exp_avg_sq"])])
    for theirs, ours in zip(*results):
        assert ours.dtype == theirs.dtype == np.complex64
        np.testing.assert_allclose(ours, theirs, rtol=STEP_RTOL, atol=STEP_ATOL)


def _fit(lib, optimizer, shapes, steps=5, **options):
    """``steps`` steps of ``optimizer`` on parameters of ``shapes`` fitted to fixed targets (a loss whose
    gradient changes from step to step); the parameters and the optimizer's state after each."""
    rng = np.random.default_rng(5)
    params = [lib.nn.Parameter(lib.tensor(rng.standard_normal(shape).astype(np.float32))) for shape in shapes]
    targets = [lib.tensor(rng.standard_normal(shape).astype(np.float32)) for shape in shapes]
    opt = getattr(lib.optim, optimizer)(params, **options)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        sum(((p - t) ** 2 * (p + 2)).sum() for p, t in zip(params, targets, strict=True)).backward()
        opt.step()
        history.append([(p.detach().numpy().copy(), {key: value.numpy().copy() for key, value in opt.state[p].items()})
                        for p in params])
    return history


def _assert_same_history(ours, theirs):
    for m_step, t_step in zip(ours, theirs, strict=True):
        for (m_param, m_state), (t_param, t_state) in zip(m_step, t_step, strict=True):
            np.testing.assert_allclose(m_param, t_param, rtol=STEP_RTOL, atol=STEP_ATOL)
            assert list(m_state) == list(t_state)
            for key, value in t_state.items():
                assert m_state[key].shape == value.shape and m_state[key].dtype == value.dtype
                np.testing.assert_allclose(m_state[key], value, rtol=STEP_RTOL, atol=STEP_ATOL)


@pytest.mark.parametrize("options", [{}, {"weight_decay": 0.1, "eps": (1e-4, 1e-3)},
                                     {"d": 1.2, "maximize": True, "foreach": True}])
def test_adafactor_factors_the_last_two_dims_of_every_rank_as_torch(options):
    """A scalar and a vector keep a full second moment; a matrix and a 3-D parameter keep a row and a
    column factor over their last two dims (batched over the first). torch's foreach path computes the
    same update (myautograd always steps per tensor)."""
    shapes = [(), (4,), (3, 5), (2, 3, 4)]
    _assert_same_history(_fit(mt, "Adafactor", shapes, **options), _fit(torch, "Adafactor", shapes, **options))


@pytest.mark.parametrize("options", [{}, {"lr": 0.02, "nesterov": False, "momentum": 0.8},
                                     {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0, "ns_steps": 3},
                                     {"adjust_lr_fn": "original", "ns_coefficients": (3.4, -4.7, 2.0), "lr": 0.01}])
def test_muon_orthogonalizes_wide_and_tall_matrices_as_torch(options):
    """Muon's Newton-Schulz iteration runs in bfloat16 on the smaller Gram matrix (a tall matrix is
    iterated transposed); the learning rate is scaled by the shape."""
    shapes = [(3, 5), (6, 4), (2, 2)]
    _assert_same_history(_fit(mt, "Muon", shapes, **options), _fit(torch, "Muon", shapes, **options))


def test_muon_trains_a_bias_free_network_as_torch():
    """From fixed initial weights: a gradient one float32 ulp from torch's (another summation order)
    can round to another bfloat16 in the Newton-Schulz iteration, and the steps then part by about
    lr * 2**-8 (measured: 2 of 40 random initialisations of this network go past the tolerance)."""
    factory = (lambda torch, nn, optim: nn.Sequential(nn.Linear(5, 8, bias=False), nn.Tanh(),
                                                       nn.Linear(8, 3, bias=False)))
    with torch.random.fork_rng():
        torch.manual_seed(0)
        theirs, ours = paired(factory)
    t_opt, m_opt = torch.optim.Muon(theirs.parameters(), lr=0.02), moptim.Muon(ours.parameters(), lr=0.02)
    x, y = data(1, (16, 5)), np.random.default_rng(2).integers(0, 3, 16)
    for _ in range(6):
        close(train_step(mt, mnn, ours, m_opt, x, y), train_step(torch, torch.nn, theirs, t_opt, x, y),
              STEP_RTOL, STEP_ATOL)
        for tp, mp in zip(theirs.parameters(), ours.parameters(), strict=True):
            close(mp, tp, STEP_RTOL, STEP_ATOL)
            close(m_opt.state[mp]["momentum_buffer"], t_opt.state[tp]["momentum_buffer"], STEP_RTOL, STEP_ATOL)
