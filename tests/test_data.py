"""myautograd.utils.data against torch.utils.data.

Each test runs the same scenario on both libraries (``run(torch, data)``) and compares what it
returns: batches as nested Python values with their types and dtypes, lengths, orders, messages
of errors (type and ``str``) and warnings. Shuffled orders are compared exactly: myautograd's
generator draws as torch's does, and each pass of a DataLoader consumes the generator as
torch's does (checked by drawing after the passes).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple

import numpy as np
import pytest
import torch
import torch.utils.data

import myautograd as mt
import myautograd.utils.data
from tests.support.outcome import outcome

Point = namedtuple("Point", ["x", "y"])


def plain(value):
    """A batch as comparable Python data: tensors become (dtype, shape, values)."""
    if isinstance(value, (torch.Tensor, mt.Tensor)):
        return ("tensor", str(value.dtype), tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, [(k, plain(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    if isinstance(value, (np.ndarray, np.generic)):
        return ("numpy", repr(value))
    if value is None or isinstance(value, (int, float, str, bytes)):
        return value
    return type(value).__name__


def both(scenario):
    return scenario(torch, torch.utils.data), scenario(mt, mt.utils.data)



def xy(lib, n=10):
    x = lib.tensor(np.arange(n * 3, dtype=np.float32).reshape(n, 3))
    y = lib.tensor(np.arange(n) % 3)
    return x, y


# -- datasets ---------------------------------------------------------------------------------------------------
def test_tensor_dataset_and_subset():
    def run(torch, data):
        x, y = xy(torch)
        ds = data.TensorDataset(x, y)
        sub = data.Subset(ds, [4, 1, 7])
        concat = ds + sub
        out = [len(ds), plain(ds[3]), plain(ds[-1]), plain(ds[2:4]), len(sub), plain(sub[0]), plain(sub[[0, 2]]),
               plain(sub.__getitems__([2, 1])), len(concat), plain(concat[11]), plain(concat[-1]),
               type(concat).__name__, concat.cumulative_sizes, isinstance(ds, data.Dataset)]
        out += [outcome(data.TensorDataset, x, y[:4]), outcome(lambda: concat[-20]), outcome(data.ConcatDataset, []),
                outcome(data.Dataset().__getitem__, 0)]
        return out

    theirs, ours = both(run)
    assert ours == theirs


def test_custom_and_iterable_datasets():
    def run(torch, data):
        class Squares(data.Dataset):
            def __len__(self):
                return 7

            def __getitem__(self, i):
                return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"s{i}"}

        class Stream(data.IterableDataset):
            def __iter__(self):
                return iter(range(7))

        out = [[plain(b) for b in data.DataLoader(Squares(), batch_size=3)]]
        for options in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None},
                        {"batch_size": 7}, {"batch_size": 8}):
            loader = data.DataLoader(Stream(), **options)
            out.append([plain(b) for b in loader])
        out.append(outcome(data.DataLoader, Stream(), shuffle=True))
        out.append(plain(list(data.ChainDataset([Stream(), Stream()]))))
        out.append([plain(b) for b in data.DataLoader(Stream() + Stream(), batch_size=5)])
        return out

    theirs, ours = both(run)
    assert ours == theirs


def test_random_split():
    def run(torch, data):
        torch.manual_seed(7)
        parts = data.random_split(range(10), [3, 7])
        out = [[list(p) for p in parts], [type(p).__name__ for p in parts]]
        g = torch.Generator().manual_seed(42)
        out.append([p.indices for p in data.random_split(range(30), [0.3, 0.3, 0.4], generator=g)])
        out.append([len(p) for p in data.random_split(range(11), [0.5, 0.5])])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out.append([len(p) for p in data.random_split(range(2), [0.1, 0.1, 0.8])])
        out.append([str(w.message) for w in caught])
        out.append(outcome(data.random_split, range(10), [3, 3]))
        out.append(outcome(data.random_split, range(10), [1.5, -0.5]))
        out.append(torch.rand(2).tolist())  # the default generator moved as torch's did
        return out

    theirs, ours = both(run)
    assert ours == theirs


# -- the loader ---------------------------------------------------------------------------------------------------
LOADER_OPTIONS = [
    {},
    {"batch_size": 4},
    {"batch_size": 4, "drop_last": True},
    {"batch_size": 5, "drop_last": True},
    {"batch_size": 3, "shuffle": True},
    {"batch_size": 3, "shuffle": True, "drop_last": True},
    {"batch_size": None},
    {"batch_size": None, "shuffle": True},
    {"batch_size": 4, "num_workers": 2},
    {"batch_size": 4, "shuffle": False},
    {"batch_size": 20},
]


@pytest.mark.parametrize("options", LOADER_OPTIONS, ids=[str(o) for o in LOADER_OPTIONS])
def test_loader_batches_match(options):
    def run(torch, data):
        torch.manual_seed(3)
        loader = data.DataLoader(data.TensorDataset(*xy(torch)), **options)
        passes = [[plain(batch) for batch in loader] for _ in range(2)]
        iterator = iter(loader)
        first = plain(next(iterator))
        return passes, len(loader), len(iterator), first, type(iterator).__name__, torch.rand(3).tolist()

    theirs, ours = both(run)
    assert ours == theirs


def test_shuffle_with_a_generator_and_samplers():
    def run(torch, data):
        ds = data.TensorDataset(*xy(torch, 13))
        g = torch.Generator().manual_seed(5)
        out = [[b[1].tolist() for b in data.DataLoader(ds, batch_size=4, shuffle=True, generator=g)]]
        out.append(g.initial_seed())
        out.append(list(data.RandomSampler(range(6), generator=torch.Generator().manual_seed(1))))
        out.append(list(data.RandomSampler(range(6), num_samples=9, generator=torch.Generator().manual_seed(1))))
        out.append(list(data.RandomSampler(range(6), replacement=True, num_samples=40,
                                           generator=torch.Generator().manual_seed(2))))
        out.append(list(data.SubsetRandomSampler([10, 20, 30, 40], generator=torch.Generator().manual_seed(3))))
        out.append(list(data.BatchSampler(data.SequentialSampler(range(10)), 3, False)))
        out.append(list(data.BatchSampler(range(10), 3, True)))
        out.append([b[1].tolist() for b in data.DataLoader(ds, batch_sampler=[[0, 5], [12, 1, 2]])])
        out.append([b[1].tolist() for b in data.DataLoader(ds, sampler=[3, 1, 2], batch_size=2)])
        out.append(len(data.DataLoader(ds, batch_size=4, sampler=data.SubsetRandomSampler(range(9)))))
        return out

    theirs, ours = both(run)
    assert ours == theirs


COLLATED = [
    lambda torch: [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])],
    lambda torch: [(torch.tensor(1.0), 2), (torch.tensor(3.0), 4)],
    lambda torch: [[1, 2.5], [3, 4.5]],
    lambda torch: [{"a": 1.5, "b": "x"}, {"a": 2.5, "b": "y"}],
    lambda torch: [OrderedDict(k=np.float32(1)), OrderedDict(k=np.float32(2))],
    lambda torch: [Point(1, torch.zeros(2)), Point(2, torch.ones(2))],
    lambda torch: [np.arange(3), np.arange(3, 6)],
    lambda torch: [np.int32(4), np.int32(5)],
    lambda torch: [True, False],
    lambda torch: [b"ab", b"cd"],
    lambda torch: [{"nested": [(1, 2.0)]}, {"nested": [(3, 4.0)]}],
    lambda torch: [torch.tensor(1, dtype=torch.int32), torch.tensor(2, dtype=torch.int32)],
    lambda torch: [[1, 2], [3]],
    lambda torch: [object(), object()],
    lambda torch: [np.array(["a"]), np.array(["b"])],
    lambda torch: [torch.ones(2), torch.ones(3)],
]


@pytest.mark.parametrize("make", COLLATED, ids=range(len(COLLATED)))
def test_default_collate(make):
    def run(torch, data):
        batch = make(torch)
        try:
            result = plain(data.default_collate(batch))
        except Exception as exc:  # noqa: BLE001 - compared
            result = (type(exc).__name__, str(exc).replace("myautograd.", "torch."))
        return result, plain(data.default_convert(batch))

    theirs, ours = both(run)
    assert ours == theirs


LOADER_ERRORS = [
    lambda data, ds: data.DataLoader(ds, num_workers=-1),
    lambda data, ds: data.DataLoader(ds, timeout=-1),
    lambda data, ds: data.DataLoader(ds, prefetch_factor=2),
    lambda data, ds: data.DataLoader(ds, persistent_workers=True),
    lambda data, ds: data.DataLoader(ds, sampler=[1, 2], shuffle=True),
    lambda data, ds: data.DataLoader(ds, batch_sampler=[[1]], batch_size=2),
    lambda data, ds: data.DataLoader(ds, batch_sampler=[[1]], drop_last=True),
    lambda data, ds: data.DataLoader(ds, batch_size=None, drop_last=True),
    lambda data, ds: data.DataLoader(ds, batch_size=0),
    lambda data, ds: data.DataLoader(ds, batch_size=2.0),
    lambda data, ds: data.DataLoader(ds, drop_last=1),
    lambda data, ds: data.DataLoader(ds, multiprocessing_context="spawn"),
    lambda data, ds: setattr(data.DataLoader(ds), "batch_size", 3),
    lambda data, ds: data.RandomSampler(ds, replacement=1),
    lambda data, ds: data.RandomSampler(ds, num_samples=0),
    lambda data, ds: data.WeightedRandomSampler([1.0, 2.0], 0),
    lambda data, ds: data.WeightedRandomSampler([[1.0]], 1),
]


@pytest.mark.parametrize("make", LOADER_ERRORS, ids=range(len(LOADER_ERRORS)))
def test_loader_errors(make):
    theirs = outcome(make, torch.utils.data, torch.utils.data.TensorDataset(*xy(torch)))
    assert theirs is not None
    assert outcome(make, mt.utils.data, mt.utils.data.TensorDataset(*xy(mt))) == theirs


def test_loader_attributes_and_warnings():
    def run(torch, data):
        ds = data.TensorDataset(*xy(torch))
        loader = data.DataLoader(ds, batch_size=4, shuffle=True)
        out = [type(loader.sampler).__name__, type(loader.batch_sampler).__name__, loader.batch_size,
               loader.drop_last, loader.num_workers, loader.collate_fn is data.default_collate,
               data.DataLoader(ds, batch_size=None).collate_fn is data.default_convert, data.get_worker_info(),
               loader.dataset is ds, loader.generator, type(loader).__module__.replace("myautograd", "torch")]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(data.DataLoader(ds, pin_memory=True))
        out.append([str(w.message) for w in caught])
        return out

    theirs, ours = both(run)
    assert ours == theirs


def test_training_loop_over_a_loader_matches():
    """A typical epoch loop: shuffled mini-batches, a linear model, SGD; the loss per batch."""
    def run(torch, data):
        torch.manual_seed(0)
        x = torch.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(12, 2))
        y = x.sum(1, keepdim=True) * 3 + 1
        model = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for _epoch in range(3):
            for xb, yb in data.DataLoader(data.TensorDataset(x, y), batch_size=5, shuffle=True):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(xb), yb)
                loss.backward()
                opt.step()
                losses.append(round(loss.item(), 4))
        return losses

    theirs, ours = both(run)
    assert ours == theirs


def test_data_never_imports_torch():
    import subprocess
    import sys

    source = "import sys, myautograd.utils.data\nassert 'torch' not in sys.modules\n"
    assert subprocess.run([sys.executable, "-c", source], capture_output=True).returncode == 0
