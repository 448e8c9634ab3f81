"""Recurrent layers, the extra containers, ``Unflatten``, ``DataParallel`` and the ``keepdims``
alias, against torch.

Modules are built on both sides after the same ``manual_seed``: myautograd draws as torch does,
so their initial parameters must be equal bit for bit (that checks names, shapes, order and
initialisation at once). Values and gradients are compared at float32 precision over the
sequence (rtol 1e-5, atol 1e-6: BLAS sums in another order). Node names are compared, except
the documented differences in ``NODE_NAME_DIFFERENCES``.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import myautograd as mt
from tests.support.outcome import outcome

RTOL, ATOL = 1e-5, 1e-6



def seeded(make, lib, seed=0):
    lib.manual_seed(seed)
    return make(lib.nn)


def close(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=RTOL, atol=ATOL)


# -- recurrent layers ---------------------------------------------------------------------------------------------
RECURRENT = [
    ("RNN(3, 4)", {}),
    ("RNN(3, 4, 2, 'relu', bias=False, bidirectional=True)", {}),
    ("RNN(3, 4, batch_first=True)", {}),
    ("RNN(3, 4, nonlinearity='relu', num_layers=3)", {}),
    ("LSTM(3, 4)", {}),
    ("LSTM(3, 4, 2, batch_first=True)", {}),
    ("LSTM(3, 5, proj_size=2, bidirectional=True, num_layers=2)", {}),
    ("LSTM(3, 4, bias=False)", {"dtype": "float64"}),
    ("GRU(3, 4)", {}),
    ("GRU(3, 4, bidirectional=True)", {}),
    ("GRU(3, 4, 2, batch_first=True, dropout=0.3)", {"eval": True}),
    ("GRU(3, 4, num_layers=2)", {"dtype": "float64"}),
]
# (module, what) whose node name differs from torch's, and why:
NODE_NAME_DIFFERENCES = {
    # torch's float32 CPU LSTM runs in oneDNN (MkldnnRnnLayerBackward0); myautograd stacks the steps
    ("LSTM(3, 4)", "output"),
    # torch transposes a batch-first RNN/GRU output in place (TransposeBackward1), myautograd out of place
    ("RNN(3, 4, batch_first=True)", "output"),
    ("GRU(3, 4, 2, batch_first=True, dropout=0.3)", "output"),
}


def build(spec, lib, options):
    module = seeded(lambda nn: eval(f"nn.{spec}", {"nn": nn}), lib)  # noqa: S307 - our own literal specs
    if options.get("dtype") == "float64":
        module.double()
    if options.get("eval"):
        module.eval()
    return module


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero-state", "given-state"])
@pytest.mark.parametrize(("spec", "options"), RECURRENT, ids=[s for s, _ in RECURRENT])
def test_recurrent_layer_matches_torch(spec, options, with_state, batched):
    dtype = options.get("dtype", "float32")
    rng = np.random.default_rng(1)
    results = []
    for lib in (torch, mt):
        module = build(spec, lib, options)
        shape = (5, 2, 3) if batched else (5, 3)
        if batched and module.batch_first:
            shape = (2, 5, 3)
        x = lib.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
        rng = np.random.default_rng(1)  # the same data on both sides
        args = (x,)
        if with_state:
            layers = module.num_layers * (2 if module.bidirectional else 1)
            h_size = module.proj_size or module.hidden_size
            hidden_shape = (layers, 2, h_size) if batched else (layers, h_size)
            cell_shape = hidden_shape[:-1] + (module.hidden_size,)
            state = np.random.default_rng(2)
            h0 = lib.tensor(state.standard_normal(hidden_shape).astype(dtype), requires_grad=True)
            c0 = lib.tensor(state.standard_normal(cell_shape).astype(dtype), requires_grad=True)
            args = (x, (h0, c0)) if isinstance(module, lib.nn.LSTM) else (x, h0)
        output, final = module(*args)
        finals = final if isinstance(final, tuple) else (final,)
        weights = np.random.default_rng(3)
        loss = (output * lib.tensor(weights.standard_normal(tuple(output.shape)).astype(dtype))).sum()
        for value in finals:
            loss = loss + (value * lib.tensor(weights.standard_normal(tuple(value.shape)).astype(dtype))).sum()
        loss.backward()
        grads = [x.grad] + [p.grad for p in module.parameters()]
        if with_state:
            grads += [h0.grad] + ([c0.grad] if isinstance(module, lib.nn.LSTM) else [])
        results.append((module, output, finals, grads))
    (t_mod, t_out, t_finals, t_grads), (m_mod, m_out, m_finals, m_grads) = results
    assert repr(m_mod) == repr(t_mod)
    assert list(m_mod.state_dict()) == list(t_mod.state_dict())
    close(m_out, t_out)
    assert len(m_finals) == len(t_finals)
    for ours, theirs in zip(m_finals, t_finals, strict=True):
        close(ours, theirs)
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    for ours, theirs in zip(m_grads, t_grads, strict=True):
        close(ours, theirs)
    if batched and (spec, "output") in NODE_NAME_DIFFERENCES:  # unbatched outputs are squeezed last, on both
        assert m_out.grad_fn.name() != t_out.grad_fn.name()  # the difference is still there: update the table
    else:
        assert m_out.grad_fn.name() == t_out.grad_fn.name()


@pytest.mark.parametrize("spec", ["LSTM(3, 4, batch_first=True)", "GRU(3, 4)", "RNN(3, 4, num_layers=2)"])
def test_a_sequence_of_length_one_with_the_state_carried(spec):
    """The char-RNN tutorials' loop: one step at a time, the state handed back in (the LSTM of a
    length-1 sequence crashed: unbinding a dimension of size 1 recorded a one-output node wrongly)."""
    results = []
    for lib in (torch, mt):
        module = build(spec, lib, {})
        data = np.random.default_rng(4).standard_normal((2, 3, 3) if module.batch_first else (3, 2, 3))
        data = data.astype("float32")
        x = lib.tensor(data, requires_grad=True)
        state, outputs = None, []
        for step in range(3):
            one = x[:, step:step + 1] if module.batch_first else x[step:step + 1]
            output, state = module(one, state) if state is not None else module(one)
            outputs.append(output)
        finals = state if isinstance(state, tuple) else (state,)
        loss = sum((o * o).sum() for o in outputs) + sum(f.sum() for f in finals)
        loss.backward()
        results.append((outputs, finals, [x.grad] + [p.grad for p in module.parameters()]))
    (t_outs, t_finals, t_grads), (m_outs, m_finals, m_grads) = results
    for ours, theirs in zip(m_outs + list(m_finals) + m_grads, t_outs + list(t_finals) + t_grads, strict=True):
        close(ours, theirs)
    for ours, theirs in zip(m_finals, t_finals, strict=True):
        assert ours.grad_fn.name() == theirs.grad_fn.name()


def test_unbind_of_a_dimension_of_size_one_is_one_view():
    for lib in (torch, mt):
        x = lib.ones(1, 3, requires_grad=True)
        (row,) = x.unbind(0)
        (part,) = x.split(1, dim=0)
        assert (row.grad_fn.name(), tuple(row.shape), row._base is x) == ("UnbindBackward0", (3,), True)
        assert (part.grad_fn.name(), tuple(part.shape)) == ("SplitBackward0", (1, 3))
        (row * 2 + part.squeeze(0)).sum().backward()
        assert x.grad.tolist() == [[3.0, 3.0, 3.0]]


def test_recurrent_initial_parameters_are_torchs():
    for spec, options in RECURRENT:
        theirs, ours = build(spec, torch, options), build(spec, mt, options)
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        for (_, tp), (_, mp) in zip(theirs.named_parameters(), ours.named_parameters(), strict=True):
            np.testing.assert_array_equal(mp.detach().numpy(), tp.detach().numpy())
        assert ours._flat_weights_names == theirs._flat_weights_names
        assert [[tuple(p.shape) for p in group] for group in ours.all_weights] == \
            [[tuple(p.shape) for p in group] for group in theirs.all_weights]


def test_dropout_between_layers_in_training():
    def run(lib):
        module = seeded(lambda nn: nn.GRU(3, 4, 3, dropout=0.5), lib)
        x = lib.ones(6, 2, 3)
        train_out, _ = module(x)
        module.eval()
        first, _ = module(x)
        second, _ = module(x)
        return tuple(train_out.shape), (first - second).abs().max().item(), first

    theirs, ours = run(torch), run(mt)
    assert ours[:2] == theirs[:2]
    close(ours[2], theirs[2])


CELLS = ["RNNCell(3, 4)", "RNNCell(3, 4, bias=False, nonlinearity='relu')", "LSTMCell(3, 4)", "GRUCell(3, 4)",
         "GRUCell(3, 4, bias=False)"]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("spec", CELLS)
def test_cells_match_torch(spec, batched):
    results = []
    for lib in (torch, mt):
        cell = seeded(lambda nn, spec=spec: eval(f"nn.{spec}", {"nn": nn}), lib)  # noqa: S307
        x = lib.tensor(np.linspace(-1, 1, 6 if batched else 3, dtype=np.float32).reshape((2, 3) if batched else (3,)),
                       requires_grad=True)
        state = None
        outputs = []
        for _ in range(3):  # a hand-written loop over time, as tutorials write it
            state = cell(x, state)
            outputs.append(state[0] if isinstance(state, tuple) else state)
        total = sum(o.sum() for o in outputs)
        total.backward()
        results.append((repr(cell), outputs, x.grad, [p.grad for p in cell.parameters()],
                        [n for n, _ in cell.named_parameters()]))
    theirs, ours = results
    assert ours[0] == theirs[0] and ours[4] == theirs[4]
    for m, t in zip(ours[1] + [ours[2]] + ours[3], theirs[1] + [theirs[2]] + theirs[3], strict=True):
        close(m, t)


RECURRENT_ERRORS = [
    lambda nn, torch: nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda nn, torch: nn.GRU(3, 4, proj_size=2),
    lambda nn, torch: nn.LSTM(3, 4, proj_size=4),
    lambda nn, torch: nn.LSTM(3, 4, proj_size=-1),
    lambda nn, torch: nn.RNN(3, 4, dropout=1.5),
    lambda nn, torch: nn.RNN(3, 4, dropout=True),
    lambda nn, torch: nn.RNN(3, 0),
    lambda nn, torch: nn.RNN(0, 3),
    lambda nn, torch: nn.RNN(3, 4.0),
    lambda nn, torch: nn.RNN(3, 4, num_layers=0),
    lambda nn, torch: nn.RNN(3, 4, bias=1),
    lambda nn, torch: nn.LSTM(3, 4, batch_first="yes"),
    lambda nn, torch: nn.RNN(3, 4)(torch.zeros(5)),
    lambda nn, torch: nn.LSTM(3, 4)(torch.zeros(1, 2, 3, 4)),
    lambda nn, torch: nn.GRU(3, 4)(torch.zeros(1, 2, 3, 4)),
    lambda nn, torch: nn.RNN(3, 4)(torch.zeros(5, 2, 2)),
    lambda nn, torch: nn.RNN(3, 4)(torch.zeros(5, 2, 3, dtype=torch.float64)),
    lambda nn, torch: nn.RNN(3, 4)(torch.zeros(5, 2, 3), torch.zeros(1, 3, 4)),
    lambda nn, torch: nn.RNN(3, 4)(torch.zeros(5, 2, 3), torch.zeros(2, 4)),
    lambda nn, torch: nn.GRU(3, 4)(torch.zeros(5, 3), torch.zeros(1, 1, 4)),
    lambda nn, torch: nn.LSTM(3, 4)(torch.zeros(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 5))),
    lambda nn, torch: nn.LSTM(3, 4)(torch.zeros(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 2, 4))),
    lambda nn, torch: nn.LSTM(3, 4)(torch.zeros(5, 2, 3), (torch.zeros(2, 4), torch.zeros(2, 4))),
    lambda nn, torch: nn.LSTM(3, 4)(torch.zeros(5, 3), (torch.zeros(1, 1, 4), torch.zeros(1, 4))),
    lambda nn, torch: nn.RNNCell(3, 4)(torch.zeros(1, 2, 3)),
    lambda nn, torch: nn.RNNCell(3, 4)(torch.zeros(2, 3), torch.zeros(1, 2, 4)),
    lambda nn, torch: nn.LSTMCell(3, 4)(torch.zeros(2, 3), (torch.zeros(2, 4), torch.zeros(1, 2, 4))),
    lambda nn, torch: nn.GRUCell(3, 4)(torch.zeros(1, 1, 3)),
    lambda nn, torch: nn.RNNCell(3, 4, nonlinearity="gelu")(torch.zeros(2, 3)),
]


@pytest.mark.parametrize("make", RECURRENT_ERRORS, ids=range(len(RECURRENT_ERRORS)))
def test_recurrent_errors(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = outcome(make, torch.nn, torch)
        ours = outcome(make, mt.nn, mt)
    assert theirs is not None
    assert ours == theirs


def test_recurrent_warnings():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.LSTM(3, 4, dropout=0.5)
            lib.nn.GRU(3, 4, num_layers=2, dropout=0.5)
        return [(w.category.__name__, str(w.message)) for w in caught]

    assert run(mt) == run(torch)


# -- containers and small modules -----------------------------------------------------------------------------------
def containers(torch, nn):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleDict({"enc": nn.Linear(2, 3), "act": nn.ReLU()})
            self.blocks["dec"] = nn.Linear(3, 2)
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3), "note"])
            self.table = nn.ParameterDict({"b": torch.ones(2), "a": nn.Parameter(torch.zeros(1, 3))})
            self.table["c"] = 4

        def forward(self, x):
            h = self.blocks["act"](self.blocks["enc"](x))
            return self.blocks["dec"](h) * self.scales[0] + self.table["b"]

    return Net()


def test_containers_structure_and_repr():
    def run(torch, nn):
        net = containers(torch, nn)
        out = [repr(net), [n for n, _ in net.named_parameters()], list(net.state_dict()),
               [tuple(p.shape) for p in net.parameters()], list(net.blocks), list(net.blocks.keys()),
               [type(m).__name__ for m in net.blocks.values()], "enc" in net.blocks, len(net.blocks),
               len(net.scales), net.scales[2], type(net.scales[1]).__name__, list(net.table), net.table["c"],
               len(net.table), "a" in net.table, net.table.get("z", 7), repr(net.scales[1:]),
               type(net.scales[-3]).__name__, tuple(net(torch.tensor([[0.5, -1.0]])).shape)]
        popped = net.blocks.pop("act")
        out += [type(popped).__name__, list(net.blocks)]
        net.blocks.update([("act2", nn.Tanh())])
        net.blocks.update(OrderedDict(z=nn.Identity()))
        out.append(repr(net.blocks))
        net.table.update({"y": torch.ones(1), "x": torch.ones(1)})
        out.append(list(net.table.keys()))
        out.append(list(net.table.popitem()[0]))
        del net.table["a"]
        out.append(list(net.table))
        merged = net.table | nn.ParameterDict({"q": torch.ones(1)})
        out.append(list(merged))
        net.scales.append(torch.ones(4, 4))
        net.scales.extend([nn.Parameter(torch.ones(1))])
        out.append(repr(net.scales))
        out.append(repr(nn.ParameterDict()))
        out.append(repr(nn.ModuleDict()))
        out.append(repr(nn.ParameterList()))
        return out

    assert run(mt, mt.nn) == run(torch, torch.nn)


CONTAINER_ERRORS = [
    lambda torch, nn: nn.ModuleDict(3),
    lambda torch, nn: nn.ModuleDict([3]),
    lambda torch, nn: nn.ModuleDict([("a", nn.ReLU(), 1)]),
    lambda torch, nn: nn.ModuleDict({"a": 3}),
    lambda torch, nn: nn.ModuleDict({"a.b": nn.ReLU()}),
    lambda torch, nn: nn.ModuleDict()["x"],
    lambda torch, nn: nn.ParameterDict(3),
    lambda torch, nn: nn.ParameterDict([5]),
    lambda torch, nn: nn.ParameterDict([("a",)]),
    lambda torch, nn: nn.ParameterDict()[3],
    lambda torch, nn: nn.ParameterDict()["missing"],
    lambda torch, nn: nn.ParameterDict()(1),
    lambda torch, nn: nn.ParameterList()(1),
    lambda torch, nn: nn.ParameterList().extend(torch.ones(2)),
    lambda torch, nn: nn.ParameterList().extend(3),
    lambda torch, nn: nn.ParameterList([torch.ones(1)])[3],
    lambda torch, nn: nn.ParameterList([torch.ones(1)])[-2],
    lambda torch, nn: nn.ParameterList([torch.ones(1, dtype=torch.int64)]),
    lambda torch, nn: nn.Unflatten(1, 6),
    lambda torch, nn: nn.Unflatten(1, (2, 3.0)),
    lambda torch, nn: nn.Unflatten(1, (4, 2))(torch.zeros(3, 6)),
]


@pytest.mark.parametrize("make", CONTAINER_ERRORS, ids=range(len(CONTAINER_ERRORS)))
def test_container_errors(make):
    theirs = outcome(make, torch, torch.nn)
    assert theirs is not None
    ours = outcome(make, mt, mt.nn)
    assert ours == theirs


def test_unflatten_identity_and_data_parallel():
    def run(torch, nn):
        x = torch.tensor(np.arange(12, dtype=np.float32).reshape(2, 6), requires_grad=True)
        unflatten = nn.Unflatten(1, (2, 3))
        y = unflatten(x)
        net = nn.DataParallel(nn.Sequential(nn.Linear(3, 2), nn.Identity(7, key="ignored")))
        z = net(y)
        z.sum().backward()
        return [repr(unflatten), repr(nn.Unflatten(-1, [3, 2])), tuple(y.shape), y.grad_fn.name(), repr(net),
                list(net.state_dict()), tuple(z.shape), net.device_ids, type(net.module).__name__,
                [n for n, _ in net.named_parameters()], x.grad.tolist()]

    ours, theirs = run(mt, mt.nn), run(torch, torch.nn)
    assert ours[:-1] == theirs[:-1]
    if mt.cuda.is_available():
        pytest.skip("device_ids differ where myautograd has a GPU and this torch has none")


def test_keepdims_alias():
    def run(torch):
        x = torch.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        values = [x.sum(1, keepdims=True), torch.mean(x, dim=0, keepdims=True), x.amax(1, keepdims=True),
                  x.std(1, keepdims=True), x.var(0, keepdims=True), x.prod(1, keepdims=True), x.argmax(1, keepdims=True),
                  torch.logsumexp(x, 1, keepdims=True), x.max(1, keepdims=True).values, x.min(0, keepdims=True)[1],
                  (x > 2).any(1, keepdims=True), x.sum(1, keepdims=False)]
        out = [(tuple(v.shape), v.tolist()) for v in values]
        out.append(outcome(x.sum, 1, keepdim=True, keepdims=True))
        out.append(outcome(torch.norm, x, dim=1, keepdims=True) is not None)
        return out

    ours, theirs = run(mt), run(torch)
    assert len(ours) == len(theirs)
    for m, t in zip(ours, theirs, strict=True):
        if isinstance(t, tuple) and isinstance(t[1], list):
            assert m[0] == t[0]
            np.testing.assert_allclose(m[1], t[1], rtol=1e-6)
        else:
            assert m == t
