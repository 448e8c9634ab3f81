"""myautograd.nn and myautograd.optim against torch.nn and torch.optim.

Every comparison builds the same thing on both sides: modules get torch's initial weights copied
in (``copy_weights``), data come from one NumPy array, and values, gradients, optimizer state,
version counters, reprs and error messages (type and ``str``) are compared.

Tolerances: one step is compared at float32 precision (rtol 1.3e-6, atol 1e-5). torch's CPU
kernels fuse multiply-adds (``add(alpha=)``, ``addcmul``, ``lerp``) and its ``sqrt`` is not
correctly rounded, so single elements differ by an ulp; across several optimizer steps those
differences are carried along (and Adam divides by small second moments), so multi-step runs use
rtol 1e-5, atol 2e-5 (observed worst case after 20 steps: about 4e-7 absolute).
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

ROOT = Path(__file__).resolve().parent.parent
RTOL, ATOL = 1.3e-6, 1e-5
STEP_RTOL, STEP_ATOL = 1e-5, 2e-5

TORCH = (torch, torch.nn, torch.optim)
OURS = (mt, mnn, moptim)


# -- helpers ------------------------------------------------------------------------------------------------
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


# -- reprs ------------------------------------------------------------------------------------------------------
MODULES = [
    lambda nn: nn.Linear(3, 2),
    lambda nn: nn.Linear(3, 2, bias=False),
    lambda nn: nn.Identity(),
    lambda nn: nn.Identity(54, unused="argument"),
    lambda nn: nn.ReLU(),
    lambda nn: nn.ReLU(inplace=True),
    lambda nn: nn.Sigmoid(),
    lambda nn: nn.Tanh(),
    lambda nn: nn.Softmax(),
    lambda nn: nn.Softmax(dim=1),
    lambda nn: nn.LogSoftmax(dim=-1),
    lambda nn: nn.LeakyReLU(),
    lambda nn: nn.LeakyReLU(0.2, inplace=True),
    lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"),
    lambda nn: nn.SiLU(),
    lambda nn: nn.SiLU(inplace=True),
    lambda nn: nn.ELU(),
    lambda nn: nn.ELU(alpha=0.5, inplace=True),
    lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(beta=2, threshold=10),
    lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-2, 2, True),
    lambda nn: nn.Dropout(),
    lambda nn: nn.Dropout(0.1, inplace=True),
    lambda nn: nn.Flatten(),
    lambda nn: nn.Flatten(0, 2),
    lambda nn: nn.MSELoss(),
    lambda nn: nn.L1Loss(reduction="sum"),
    lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1),
    lambda nn: nn.NLLLoss(),
    lambda nn: nn.BCELoss(),
    lambda nn: nn.BCEWithLogitsLoss(),
    lambda nn: nn.Sequential(),
    lambda nn: nn.ModuleList(),
    lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)),
    lambda nn: nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Tanh(), nn.Sequential(nn.Dropout(0.2))), nn.ReLU()),
    lambda nn: nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()]),
    lambda nn: nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.Sequential(nn.ReLU()), nn.Sequential(nn.ReLU()),
                              nn.ReLU()]),
    lambda nn: nn.Sequential(nn.ModuleList([nn.Sequential(nn.Linear(1, 1), nn.ReLU())] * 2), nn.Identity()),
]


@pytest.mark.parametrize("factory", MODULES, ids=range(len(MODULES)))
def test_module_repr(factory):
    assert repr(factory(mnn)) == repr(factory(torch.nn))
    assert str(factory(mnn)) == str(factory(torch.nn))


def custom(torch, nn, optim):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(3))
            self.body = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2, bias=False))
            self.register_buffer("running", torch.zeros(2))
            self.register_buffer("scratch", torch.zeros(1), persistent=False)
            self.register_buffer("empty", None)
            self.head = nn.Linear(2, 1)
            self.shared = self.head
            self.register_parameter("unused", None)
            self.offset = nn.Parameter(torch.zeros(1))

        def forward(self, x):
            return self.head(self.body(x * self.scale) + self.running) + self.offset

        def extra_repr(self):
            return "custom=True\nsecond line"

    return Net()


def test_custom_module_structure_and_repr():
    theirs, ours = both(custom)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [tuple(p.shape) for p in ours.parameters()] == [tuple(p.shape) for p in theirs.parameters()]
    assert [n for n, _ in ours.named_parameters(recurse=False)] == \
        [n for n, _ in theirs.named_parameters(recurse=False)]
    assert [n for n, _ in ours.named_parameters(prefix="m")] == [n for n, _ in theirs.named_parameters(prefix="m")]
    assert [n for n, _ in ours.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert [type(m).__name__ for m in ours.modules()] == [type(m).__name__ for m in theirs.modules()]
    assert [type(m).__name__ for m in ours.children()] == [type(m).__name__ for m in theirs.children()]
    assert len(list(ours.buffers())) == len(list(theirs.buffers()))
    t_state, m_state = theirs.state_dict(), ours.state_dict()
    assert list(m_state) == list(t_state)
    assert type(m_state).__name__ == "OrderedDict"
    assert m_state._metadata == t_state._metadata
    for key in t_state:
        assert not m_state[key].requires_grad and type(m_state[key]) is mt.Tensor
    assert ours.state_dict(keep_vars=True)["scale"] is ours.scale
    assert "body" in dir(ours) and "scale" in dir(ours) and "running" in dir(ours)


def test_parameter():
    assert repr(mnn.Parameter(mt.tensor([1.0, 2.0]))) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    assert str(mnn.Parameter(mt.zeros(2, 3, dtype=mt.float64))) == \
        str(torch.nn.Parameter(torch.zeros(2, 3, dtype=torch.float64)))
    assert repr(mnn.Parameter()) == repr(torch.nn.Parameter())
    assert repr(mnn.Parameter(mt.tensor(3.0))) == repr(torch.nn.Parameter(torch.tensor(3.0)))
    assert repr(mnn.Parameter(mt.tensor([1, 2]), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.tensor([1, 2]), requires_grad=False))
    assert outcome(mnn.Parameter, mt.tensor([1, 2])) == outcome(torch.nn.Parameter, torch.tensor([1, 2]))
    assert outcome(mnn.Parameter, [1.0]) == outcome(torch.nn.Parameter, [1.0])

    def run(torch, nn, optim):
        source = torch.zeros(3, requires_grad=True)
        p = nn.Parameter(source * 2)  # made from a non-leaf: still a leaf
        base = torch.zeros(2)
        q = nn.Parameter(base)
        base.add_(1)  # shares values and version counter with its source
        return (p.is_leaf, p.grad_fn, p.requires_grad, type(p * 2).__name__, type(p.detach()).__name__,
                q.tolist(), q._version, isinstance(q, torch.Tensor))

    assert both(run)[1] == both(run)[0]
    import copy

    p = mnn.Parameter(mt.ones(2))
    clone = copy.deepcopy(p)
    assert type(clone) is mnn.Parameter and clone.requires_grad and clone is not p


# -- module behaviour --------------------------------------------------------------------------------------------
def test_train_eval_and_dropout():
    net = mnn.Sequential(mnn.Linear(3, 3), mnn.Dropout(0.5), mnn.Sequential(mnn.Dropout(0.9)))
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    x = mt.randn(4, 3)
    assert net[1](x) is x
    drop = mnn.Dropout(0.5)
    drop.eval()
    assert drop(x) is x
    assert net.train() is net and all(m.training for m in net.modules())
    mt.manual_seed(0)
    y = mnn.Dropout(0.5)(mt.ones(1000, requires_grad=True))
    values = set(y.detach().numpy().tolist())
    assert values <= {0.0, 2.0} and len(values) == 2
    assert y.grad_fn.name() == "MulBackward0"  # torch's CPU kernel; NativeDropoutBackward0 on CUDA
    assert outcome(net.train, 1) == outcome(torch.nn.Linear(1, 1).train, 1)
    assert outcome(mnn.Dropout, 1.5) == outcome(torch.nn.Dropout, 1.5)


def test_linear_shapes_and_init():
    mt.manual_seed(0)
    lin = mnn.Linear(3, 2)
    assert tuple(lin.weight.shape) == (2, 3) and tuple(lin.bias.shape) == (2,)
    assert type(lin.weight) is mnn.Parameter and lin.weight.requires_grad and lin.weight.is_leaf
    assert lin.weight._version == lin.bias._version == 1  # one in-place fill each, as in torch
    bound = 1 / np.sqrt(3)
    assert np.all(np.abs(lin.weight.detach().numpy()) <= bound)
    assert np.all(np.abs(lin.bias.detach().numpy()) <= bound)
    assert mnn.Linear(3, 2, bias=False).bias is None
    assert mnn.Linear(3, 2, dtype=mt.float64).weight.dtype is mt.float64
    mt.manual_seed(5)
    first = mnn.Linear(4, 4).weight.detach().numpy().copy()
    mt.manual_seed(5)
    assert np.array_equal(first, mnn.Linear(4, 4).weight.detach().numpy())


@pytest.mark.parametrize("shape", [(5,), (4, 5), (2, 3, 5)])
def test_linear_forward_backward(shape):
    theirs, ours = paired(lambda torch, nn, optim: nn.Linear(5, 3))
    x = data(4, shape)
    tx, mx = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    t_out, m_out = theirs(tx), ours(mx)
    close(m_out, t_out)
    if len(shape) == 2:
        assert m_out.grad_fn.name() == t_out.grad_fn.name() == "AddmmBackward0"
    t_out.pow(2).sum().backward()
    m_out.pow(2).sum().backward()
    close(mx.grad, tx.grad)
    close(ours.weight.grad, theirs.weight.grad)
    close(ours.bias.grad, theirs.bias.grad)


def test_containers():
    def run(torch, nn, optim):
        s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        out = [len(s), type(s[0]).__name__, type(s[-1]).__name__, repr(s[1:]), type(s[1:]).__name__,
               [type(m).__name__ for m in s]]
        s.append(nn.Sigmoid())
        del s[0]
        s[0] = nn.Tanh()
        out.append(repr(s))
        out.append(repr(s + nn.Sequential(nn.ReLU())))
        ml = nn.ModuleList([nn.ReLU()])
        ml.append(nn.Tanh())
        ml.extend([nn.Sigmoid()])
        ml.insert(0, nn.Identity())
        ml += [nn.ReLU()]
        out += [repr(ml), repr(ml[1:3]), type(ml[-1]).__name__, len(ml), len(list(ml.parameters()))]
        from collections import OrderedDict

        named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
        out += [repr(named), type(named.fc).__name__, named[0] is named.fc, repr(named[1:])]
        for bad in (lambda: s[3], lambda: s[-4], lambda: ml[7], lambda: ml[-8], lambda: s["a"]):
            out.append(outcome(bad))
        return out

    theirs, ours = both(run)
    assert ours == theirs


def test_sequential_forward_matches():
    theirs, ours = paired()
    x = data(5, (7, 5))
    close(ours(mt.tensor(x)), theirs(torch.tensor(x)))


def test_module_conversions_and_flags():
    def run(torch, nn, optim):
        lin = nn.Linear(2, 2)
        weight = lin.weight
        lin.weight.grad = torch.ones(2, 2)
        out = [lin.double() is lin, lin.weight is weight, str(lin.weight.dtype), type(lin.weight).__name__,
               lin.weight.requires_grad, str(lin.weight.grad.dtype), lin.weight._version]
        lin.float()
        out.append(str(lin.weight.dtype))
        lin.to(torch.float64)
        out.append(str(lin.bias.dtype))
        lin.to("cpu")
        lin.to(dtype=torch.float32)
        out.append(str(lin.bias.dtype))
        out.append(outcome(lin.to, torch.int64))
        out += [lin.requires_grad_(False) is lin, lin.weight.requires_grad]
        lin.requires_grad_()
        out.append(lin.weight.requires_grad)
        visited = []
        net = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
        out += [net.apply(lambda m: visited.append(type(m).__name__)) is net, visited]
        return out

    theirs, ours = both(run)
    assert ours == theirs


def test_forward_hooks():
    def run(torch, nn, optim):
        lin = nn.Linear(2, 2)
        with torch.no_grad():
            lin.weight.fill_(1.0)
            lin.bias.fill_(0.5)
        log = []
        h1 = lin.register_forward_pre_hook(lambda m, args: log.append(("pre", type(args).__name__, len(args))))
        h2 = lin.register_forward_hook(lambda m, args, out: log.append(("post", out.tolist())))
        lin(torch.ones(1, 2))
        h1.remove()
        h2.remove()
        lin(torch.ones(1, 2))
        h3 = lin.register_forward_hook(lambda m, args, out: out * 0)
        replaced = lin(torch.ones(1, 2)).tolist()
        h3.remove()
        h4 = lin.register_forward_pre_hook(lambda m, args: args[0] * 2)
        doubled = lin(torch.ones(1, 2)).tolist()
        h4.remove()
        lin.register_forward_hook(lambda m, args, out: log.append("second"))
        lin.register_forward_hook(lambda m, args, out: log.append("first"), prepend=True)
        lin(torch.ones(1, 2))
        return log, replaced, doubled, type(h1).__name__

    theirs, ours = both(run)
    assert ours == theirs


def test_state_dict_round_trip_from_torch():
    theirs, ours = both(custom)
    with torch.no_grad():
        theirs.running.fill_(0.25)
    state = {k: mt.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    m_versions = [p._version for p in ours.parameters()]
    t_versions = [p._version for p in theirs.parameters()]
    result = ours.load_state_dict(state)
    assert repr(result) == repr(theirs.load_state_dict(theirs.state_dict())) == "<All keys matched successfully>"
    # copied in place (the shared head is loaded twice, under both of its names)
    assert [p._version - v for p, v in zip(ours.parameters(), m_versions, strict=True)] == \
        [p._version - v for p, v in zip(theirs.parameters(), t_versions, strict=True)]
    x = data(6, (4, 3))
    close(ours(mt.tensor(x)), theirs(torch.tensor(x)))
    close(ours.running, theirs.running)


def test_load_state_dict_errors():
    def run(torch, nn, optim):
        net = custom(torch, nn, optim)
        state = net.state_dict()
        out = [repr(net.load_state_dict({**state, "extra": torch.zeros(1)}, strict=False))]
        out.append(tuple(net.load_state_dict({**state, "extra": torch.zeros(1)}, strict=False)))
        del state["scale"]
        out.append(outcome(net.load_state_dict, {**state, "extra": torch.zeros(1), "head.weight": torch.zeros(3, 3)}))
        out.append(repr(net.load_state_dict(state, strict=False)))
        out.append(outcome(net.load_state_dict, {**state, "scale": 3}))
        out.append(outcome(net.load_state_dict, [1]))
        return out

    theirs, ours = both(run)
    assert ours == theirs


MODULE_ERRORS = [
    lambda torch, nn: nn.Module()(1),
    lambda torch, nn: nn.Module(3),
    lambda torch, nn: nn.Module(a=3),
    lambda torch, nn: nn.Linear(2, 2).nope,
    lambda torch, nn: setattr(nn.Linear(2, 2), "weight", torch.zeros(2)),
    lambda torch, nn: setattr(nn.Sequential(nn.ReLU()), "0", 3),
    lambda torch, nn: setattr(nn.BCEWithLogitsLoss(pos_weight=torch.ones(1)), "pos_weight", 3),
    lambda torch, nn: setattr(nn.Linear(2, 2), "weight", nn.Linear(1, 1)),
    lambda torch, nn: nn.Linear(2, 2).register_buffer("a.b", torch.zeros(1)),
    lambda torch, nn: nn.Linear(2, 2).register_buffer("", torch.zeros(1)),
    lambda torch, nn: nn.Linear(2, 2).register_buffer("weight", torch.zeros(1)),
    lambda torch, nn: nn.Linear(2, 2).register_buffer(3, torch.zeros(1)),
    lambda torch, nn: nn.Linear(2, 2).register_buffer("zz", 3),
    lambda torch, nn: nn.Linear(2, 2).register_parameter("zz", torch.zeros(1)),
    lambda torch, nn: nn.Linear(2, 2).register_parameter("zz", nn.Parameter(torch.zeros(1)) * 2),
    lambda torch, nn: nn.Sequential(nn.ReLU()).register_parameter("0", nn.Parameter(torch.zeros(1))),
    lambda torch, nn: nn.Linear(2, 2).register_parameter("a.c", nn.Parameter(torch.zeros(1))),
    lambda torch, nn: nn.Linear(2, 2).register_parameter("", nn.Parameter(torch.zeros(1))),
    lambda torch, nn: nn.Linear(2, 2).add_module("a.c", nn.ReLU()),
    lambda torch, nn: nn.Linear(2, 2).add_module("weight", nn.ReLU()),
    lambda torch, nn: nn.Linear(2, 2).add_module("x", 3),
    lambda torch, nn: nn.Linear(2, 2).add_module(3, nn.ReLU()),
    lambda torch, nn: nn.Linear(2, 2).add_module("", nn.ReLU()),
    lambda torch, nn: nn.Linear(2, 2).train("yes"),
    lambda torch, nn: nn.Linear(2, 2).to(torch.int64),
    lambda torch, nn: nn.Linear(2, 3)(torch.ones(4, 5)),
    lambda torch, nn: nn.ModuleList().extend(3),
]


@pytest.mark.parametrize("make", MODULE_ERRORS, ids=range(len(MODULE_ERRORS)))
def test_module_errors(make):
    theirs = outcome(make, torch, torch.nn)
    assert theirs is not None
    assert outcome(make, mt, mnn) == theirs


def test_registration_before_init_and_reassignment():
    def run(torch, nn, optim):
        out = []
        for member in (lambda: nn.Parameter(torch.ones(1)), lambda: nn.Linear(1, 1)):
            class Early(nn.Module):
                def __init__(self, make=member):
                    self.w = make()

            out.append(outcome(Early))

        class Buffered(nn.Module):
            def __init__(self):
                self.register_buffer("x", None)

        out.append(outcome(Buffered))
        lin = nn.Linear(2, 2)
        lin.weight = nn.Parameter(torch.ones(2, 2))
        lin.extra = nn.Parameter(torch.ones(1))
        lin.child = nn.ReLU()
        lin.child = None
        lin.bias = None
        lin.note = "plain attribute"
        del lin.extra
        out += [[n for n, _ in lin.named_parameters()], list(lin._modules), lin.bias, lin.note, lin.weight.tolist()]
        seq = nn.Sequential(nn.ReLU(), nn.Tanh())
        seq[0] = nn.Sigmoid()  # keeps its position
        out.append(repr(seq))
        return out

    theirs, ours = both(run)
    assert ours == theirs


# -- activations and losses ------------------------------------------------------------------------------------
ACTIVATIONS = [
    lambda nn: nn.ReLU(), lambda nn: nn.Sigmoid(), lambda nn: nn.Tanh(), lambda nn: nn.Softmax(dim=1),
    lambda nn: nn.Softmax(dim=0), lambda nn: nn.LogSoftmax(dim=1), lambda nn: nn.LeakyReLU(0.2), lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"), lambda nn: nn.SiLU(), lambda nn: nn.ELU(0.7), lambda nn: nn.Softplus(),
    lambda nn: nn.Softplus(2.0, 1.0), lambda nn: nn.Hardtanh(-0.5, 0.8), lambda nn: nn.Identity(),
    lambda nn: nn.Flatten(0), lambda nn: nn.Dropout(0.0),
]


@pytest.mark.parametrize("factory", ACTIVATIONS, ids=range(len(ACTIVATIONS)))
def test_activation_values_and_grads(factory):
    x = data(7, (4, 6)) * 3
    tx, mx = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    t_out, m_out = factory(torch.nn)(tx * 1), factory(mnn)(mx * 1)
    close(m_out, t_out)
    assert m_out.grad_fn.name() == t_out.grad_fn.name()
    weights = data(8, tuple(t_out.shape))
    (t_out * torch.tensor(weights)).sum().backward()
    (m_out * mt.tensor(weights)).sum().backward()
    close(mx.grad, tx.grad)


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "silu", "elu", "hardtanh"])
def test_inplace_activation_values(name):
    x = data(9, (3, 4)) * 2

    def run(torch, nn, optim):
        source = torch.tensor(x, requires_grad=True)
        work = source * 1
        out = getattr(nn.functional, name)(work, inplace=True)
        out.sum().backward()
        return out is work, out.detach().numpy().copy(), source.grad.numpy().copy()

    theirs, ours = both(run)
    assert ours[0] is theirs[0] is True
    np.testing.assert_allclose(ours[1], theirs[1], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=RTOL, atol=ATOL)


def test_softmax_implicit_dim_warns():
    def run(torch, nn, optim):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = [nn.functional.softmax(torch.ones(2, 3)).tolist(), nn.Softmax()(torch.ones(3)).tolist(),
                      nn.functional.log_softmax(torch.ones(2, 2, 2)).tolist()]
        return values, [str(w.message) for w in caught]

    assert both(run)[1] == both(run)[0]


def _loss_inputs(kind, lib):
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    if kind == "regression":
        return [lib.tensor(logits, requires_grad=True), lib.tensor(rng.standard_normal((6, 4)).astype(np.float32))]
    if kind == "classes":
        return [lib.tensor(logits, requires_grad=True), lib.tensor([0, 3, 1, 1, 2, 0])]
    if kind == "ignored":
        return [lib.tensor(logits, requires_grad=True), lib.tensor([0, -100, 1, 1, 2, -100])]
    if kind == "spatial":
        return [lib.tensor(rng.standard_normal((2, 4, 3)).astype(np.float32), requires_grad=True),
                lib.tensor([[0, 1, 3], [2, 2, 1]])]
    if kind == "unbatched":
        return [lib.tensor(logits[0], requires_grad=True), lib.tensor(2)]
    if kind == "probabilities":
        target = np.exp(rng.standard_normal((6, 4))).astype(np.float32)
        return [lib.tensor(logits, requires_grad=True), lib.tensor(target / target.sum(1, keepdims=True))]
    if kind == "log_probabilities":
        shifted = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        return [lib.tensor(shifted, requires_grad=True), lib.tensor([0, 3, 1, 1, 2, 0])]
    if kind == "binary":
        probs = (1 / (1 + np.exp(-logits))).astype(np.float32)
        return [lib.tensor(probs, requires_grad=True), lib.tensor((rng.random((6, 4)) > 0.5).astype(np.float32))]
    if kind == "logits":
        return [lib.tensor(logits * 3, requires_grad=True), lib.tensor(rng.random((6, 4)).astype(np.float32))]
    raise AssertionError(kind)


CLASS_WEIGHTS = np.array([0.5, 2.0, 1.0, 3.0], dtype=np.float32)
LOSSES = [
    ("MSELoss", {}, "regression"),
    ("L1Loss", {}, "regression"),
    ("CrossEntropyLoss", {}, "classes"),
    ("CrossEntropyLoss", {"weight": CLASS_WEIGHTS}, "classes"),
    ("CrossEntropyLoss", {"weight": CLASS_WEIGHTS}, "ignored"),
    ("CrossEntropyLoss", {"ignore_index": 1}, "classes"),
    ("CrossEntropyLoss", {}, "spatial"),
    ("CrossEntropyLoss", {}, "unbatched"),
    ("CrossEntropyLoss", {"label_smoothing": 0.2}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "weight": CLASS_WEIGHTS}, "ignored"),
    ("CrossEntropyLoss", {"label_smoothing": 0.3}, "spatial"),
    ("CrossEntropyLoss", {}, "probabilities"),
    ("CrossEntropyLoss", {"weight": CLASS_WEIGHTS}, "probabilities"),
    ("CrossEntropyLoss", {"label_smoothing": 0.25}, "probabilities"),
    ("NLLLoss", {}, "log_probabilities"),
    ("NLLLoss", {"weight": CLASS_WEIGHTS, "ignore_index": 3}, "log_probabilities"),
    ("BCELoss", {}, "binary"),
    ("BCELoss", {"weight": np.linspace(0.5, 2, 4, dtype=np.float32)}, "binary"),
    ("BCEWithLogitsLoss", {}, "logits"),
    ("BCEWithLogitsLoss", {"pos_weight": CLASS_WEIGHTS}, "logits"),
    ("BCEWithLogitsLoss", {"weight": np.linspace(0.5, 2, 4, dtype=np.float32), "pos_weight": CLASS_WEIGHTS},
     "logits"),
]
# Known node-name differences of the engine: torch records the mean over probability targets as
# div.Scalar (DivBackward1), which myautograd has no node for, and losses of inputs with more than two
# dimensions as NllLoss2DBackward0 (viewed back for reduction="none"); myautograd records NllLossBackward0.
NODE_NAME_EXCEPTIONS = {("mean", "probabilities"), ("none", "spatial"), ("mean", "spatial"), ("sum", "spatial")}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize(("name", "options", "kind"), LOSSES, ids=[f"{n}-{k}-{o}" for n, o, k in LOSSES])
def test_loss_values_and_grads(name, options, kind, reduction):
    results = []
    for lib, nn in ((torch, torch.nn), (mt, mnn)):
        kwargs = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in options.items()}
        loss_fn = getattr(nn, name)(reduction=reduction, **kwargs)
        input, target = _loss_inputs(kind, lib)
        loss = loss_fn(input, target)
        upstream = lib.tensor(data(12, tuple(loss.shape)) if loss.dim() else np.float32(1.5))
        (loss * upstream).sum().backward()
        results.append((loss, input.grad))
    (t_loss, t_grad), (m_loss, m_grad) = results
    close(m_loss, t_loss)
    close(m_grad, t_grad)
    if (reduction, kind) not in NODE_NAME_EXCEPTIONS:
        assert m_loss.grad_fn.name() == t_loss.grad_fn.name()


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_weighted_regression_losses(name, reduction):
    x, y, w = data(13, (3, 4)), data(14, (3, 4)), np.abs(data(15, (3, 4)))

    def run(torch, nn, optim):
        input = torch.tensor(x, requires_grad=True)
        loss = getattr(nn.functional, name)(input, torch.tensor(y), reduction=reduction, weight=torch.tensor(w))
        loss.sum().backward()
        return loss, input.grad

    (t_loss, t_grad), (m_loss, m_grad) = both(run)
    close(m_loss, t_loss)
    close(m_grad, t_grad)
    assert m_loss.grad_fn.name() == t_loss.grad_fn.name()


LOSS_ERRORS = [
    lambda torch, nn: nn.MSELoss(reduction="bogus")(torch.ones(2), torch.ones(2)),
    lambda torch, nn: nn.functional.mse_loss(torch.ones(2), torch.ones(2), weight=torch.ones(3)),
    lambda torch, nn: nn.BCEWithLogitsLoss()(torch.ones(3), torch.ones(2)),
    lambda torch, nn: nn.BCELoss()(torch.ones(3) / 2, torch.ones(2)),
    lambda torch, nn: nn.CrossEntropyLoss(label_smoothing=1.5)(torch.ones(2, 3), torch.tensor([0, 1])),
    lambda torch, nn: nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0, 3])),
    lambda torch, nn: nn.NLLLoss()(torch.ones(2, 3), torch.tensor([0.0, 1.0])),
    lambda torch, nn: nn.NLLLoss()(torch.ones(2, 3), torch.tensor([0, 1], dtype=torch.int32)),
    lambda torch, nn: nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0.0, 1.0])),
    lambda torch, nn: nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([[0, 1, 1], [1, 0, 0]])),
]


@pytest.mark.parametrize("make", LOSS_ERRORS, ids=range(len(LOSS_ERRORS)))
def test_loss_errors(make):
    theirs = outcome(make, torch, torch.nn)
    assert theirs is not None
    assert outcome(make, mt, mnn) == theirs


def test_legacy_reduction_arguments_warn():
    def run(torch, nn, optim):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reductions = [nn.MSELoss(size_average=False).reduction, nn.L1Loss(reduce=False).reduction,
                          nn.NLLLoss(size_average=True, reduce=True).reduction]
            value = nn.functional.mse_loss(torch.ones(2), torch.zeros(2), size_average=False).item()
        return reductions, value, [str(w.message) for w in caught]

    assert both(run)[1] == both(run)[0]


def test_mse_size_mismatch_warns():
    def run(torch, nn, optim):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = nn.MSELoss()(torch.ones(3, 1), torch.zeros(3)).item()
        return value, [str(w.message) for w in caught]

    assert both(run)[1] == both(run)[0]


# -- init ---------------------------------------------------------------------------------------------------------
def test_init_functions():
    init = mnn.init
    w = mt.zeros(20, 30, requires_grad=True)
    for fill, args in ((init.uniform_, (-0.5, 0.5)), (init.normal_, (0.0, 0.1)), (init.constant_, (2.5,)),
                       (init.zeros_, ()), (init.ones_, ()), (init.xavier_uniform_, ()), (init.kaiming_uniform_, ()),
                       (init.xavier_normal_, ()), (init.kaiming_normal_, ())):
        version = w._version
        assert fill(w, *args) is w
        assert w._version == version + 1 and w.grad_fn is None and w.requires_grad
    values = init.uniform_(mt.zeros(1000), -0.5, 0.5).numpy()
    assert values.min() >= -0.5 and values.max() <= 0.5 and values.std() > 0.2
    assert init.constant_(mt.zeros(3), 2.5).tolist() == [2.5] * 3
    assert init.zeros_(mt.ones(2)).tolist() == [0.0, 0.0] and init.ones_(mt.zeros(2)).tolist() == [1.0, 1.0]
    bound = np.sqrt(6 / (30 + 20))
    assert np.abs(init.xavier_uniform_(mt.zeros(20, 30)).numpy()).max() <= bound
    kaiming_bound = np.sqrt(3) * init.calculate_gain("leaky_relu", 0) / np.sqrt(30)
    assert np.abs(init.kaiming_uniform_(mt.zeros(20, 30)).numpy()).max() <= kaiming_bound
    assert init.constant_(mt.zeros(2, dtype=mt.int64), 2.7).tolist() == [2, 2]
    for args in (("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2), ("selu",), ("conv2d",), ("sigmoid",)):
        assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


INIT_ERRORS = [
    lambda torch, init: init.kaiming_uniform_(torch.zeros(3)),
    lambda torch, init: init.xavier_uniform_(torch.zeros(3)),
    lambda torch, init: init.kaiming_uniform_(torch.zeros(3, 2), mode="x"),
    lambda torch, init: init.kaiming_uniform_(torch.zeros(3, 2), nonlinearity="x"),
    lambda torch, init: init.calculate_gain("leaky_relu", "a"),
]


@pytest.mark.parametrize("make", INIT_ERRORS, ids=range(len(INIT_ERRORS)))
def test_init_errors(make):
    theirs = outcome(make, torch, torch.nn.init)
    assert theirs is not None
    assert outcome(make, mt, mnn.init) == theirs


def test_init_of_empty_tensor_warns():
    def run(torch, nn, optim):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = nn.init.kaiming_uniform_(torch.zeros(0, 2))
        return tuple(result.shape), [str(w.message) for w in caught]

    assert both(run)[1] == both(run)[0]


# -- optimizer API and errors --------------------------------------------------------------------------------------
def _param(torch, nn):
    return nn.Parameter(torch.ones(2))


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
