"""myautograd.nn against torch.nn: module reprs and behaviour, parameters, containers, hooks,
state dicts, activations, losses and init, compared value by value and message by message.

Every comparison builds the same thing on both sides (``tests/support/nn_compare.py``): modules
get torch's initial weights copied in, data come from one NumPy array.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import myautograd as mt
import myautograd.nn as mnn
from tests.support.nn_compare import (
    both,
    close,
    data,
    outcome,
    paired,
)

ROOT = Path(__file__).resolve().parent.parent


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
