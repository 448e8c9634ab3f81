"""torch.save / torch.load against torch's: what comes back, and the errors.

The file format is myautograd's own, so each library reads only its own files; the scenarios run
on both libraries and compare what the loaded objects are (types, values, dtypes, flags, which
objects are the same object, which tensors share memory) and the errors (type and message,
addresses normalised). Where torch's behaviour cannot be matched (files of the other library,
garbage files) the test says what myautograd does instead.
"""

from __future__ import annotations

import collections
import io
import pickle
import re

import numpy as np
import pytest
import torch

import myautograd as mt


def describe(value):
    """What a loaded object is, as comparable Python data."""
    if isinstance(value, (torch.Tensor, mt.Tensor)):
        return (type(value).__name__, str(value.dtype), tuple(value.shape), value.tolist(), value.requires_grad,
                value.is_leaf, value.grad is None, str(value.device))
    if isinstance(value, dict):
        return (type(value).__name__, [(k, describe(v)) for k, v in value.items()],
                getattr(value, "_metadata", None))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [describe(v) for v in value])
    return (type(value).__name__, str(value))


def same(ours, theirs) -> bool:
    """Equal, except floats, which may differ at float32 precision (optimizer arithmetic)."""
    if isinstance(theirs, float) and isinstance(ours, float):
        return bool(np.isclose(ours, theirs, rtol=1e-5, atol=1e-6))
    if isinstance(theirs, (list, tuple)) and isinstance(ours, (list, tuple)):
        return len(ours) == len(theirs) and all(same(o, t) for o, t in zip(ours, theirs, strict=True))
    return ours == theirs


def outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, re.sub(r"0x[0-9a-f]+", "0x...", str(exc))
    return None


def round_trip(lib, obj, **load_options):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **load_options)


def objects(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lib.ones(2)
    base = lib.arange(6.0)
    return {
        "leaf": x, "nonleaf": x * 2, "param": lib.nn.Parameter(lib.zeros(2, 2)),
        "frozen": lib.nn.Parameter(lib.ones(1), requires_grad=False), "ints": lib.tensor([[1, 2], [3, 4]]),
        "bools": lib.tensor([True, False]), "half": lib.ones(2, dtype=lib.float16), "double": lib.zeros(1).double(),
        "scalar": lib.tensor(3.5), "empty": lib.zeros(0, 3), "transposed": lib.arange(6).view(2, 3).t(),
        "view": base[1:4], "size": lib.Size([2, 3]), "dtype": lib.float64, "bool_dtype": lib.bool,
        "device": lib.device("cpu"), "complex": 1 + 2j, "set": {1, 2}, "od": collections.OrderedDict(a=1),
        "plain": (1, 2.5, "s", None, True, b"x", [1]), "counter": collections.Counter(a=2),
    }


@pytest.mark.parametrize("weights_only", [True, False])
def test_round_trip_of_values(weights_only):
    theirs = round_trip(torch, objects(torch), weights_only=weights_only)
    ours = round_trip(mt, objects(mt), weights_only=weights_only)
    assert describe(ours) == describe(theirs)


def test_identity_and_shared_memory_survive():
    def run(lib):
        base = lib.arange(6.0)
        loaded = round_trip(lib, [base, base, base[1:3], base.view(2, 3)])
        out = [loaded[0] is loaded[1], loaded[2] is loaded[0]]
        loaded[2][0] = 100.0
        loaded[3][1, 2] = -1.0
        out += [loaded[0].tolist(), loaded[3].tolist(), loaded[2].stride(), loaded[3].is_contiguous()]
        return out

    assert run(mt) == run(torch)


def net(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def test_state_dicts_modules_and_optimizers(tmp_path):
    def run(lib, path):
        model = net(lib)
        opt = lib.optim.Adam(model.parameters(), lr=0.01)
        x = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        model(x).pow(2).sum().backward()
        opt.step()
        lib.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3}, path / "checkpoint.pt")
        lib.save(model, path / "model.pt")
        checkpoint = lib.load(path / "checkpoint.pt")
        whole = lib.load(str(path / "model.pt"), weights_only=False)
        fresh = net(lib)
        fresh_opt = lib.optim.Adam(fresh.parameters(), lr=0.5)
        keys = repr(fresh.load_state_dict(checkpoint["model"]))
        fresh_opt.load_state_dict(checkpoint["opt"])
        for m in (model, fresh):
            m.zero_grad()
        for m, o in ((model, opt), (fresh, fresh_opt)):
            m(x).pow(2).sum().backward()
            o.step()
        return [keys, checkpoint["epoch"], list(checkpoint["model"]), checkpoint["model"]._metadata,
                describe(checkpoint["opt"]), repr(whole), describe(whole.state_dict()),
                [p.tolist() for p in fresh.parameters()] == [p.tolist() for p in model.parameters()],
                fresh_opt.param_groups[0]["lr"], type(whole).__name__, describe(fresh_opt.state_dict())]

    theirs_dir, ours_dir = tmp_path / "torch", tmp_path / "ours"
    theirs_dir.mkdir()
    ours_dir.mkdir()
    theirs, ours = run(torch, theirs_dir), run(mt, ours_dir)
    assert same(ours, theirs)


@pytest.mark.parametrize("where", ["cpu", "device", "dict", "callable", "callable-none"])
def test_map_location(where):
    def run(lib):
        location = {"cpu": "cpu", "device": lib.device("cpu"), "dict": {"cpu": "cpu", "cuda:0": "cpu"},
                    "callable": lambda storage, loc: storage, "callable-none": lambda storage, loc: None}[where]
        loaded = round_trip(lib, {"w": lib.ones(2, requires_grad=True)}, map_location=location)
        return describe(loaded)

    assert run(mt) == run(torch)


class Custom:
    """A class that weights-only loading refuses unless it is allowed."""

    def __init__(self, value):
        self.value = value


def test_weights_only_refuses_and_allows():
    def run(lib):
        buffer = io.BytesIO()
        lib.save({"custom": Custom(3), "w": lib.ones(1)}, buffer)
        out = []
        for _ in range(2):
            buffer.seek(0)
            out.append(outcome(lib.load, buffer))
        with lib.serialization.safe_globals([Custom]):
            buffer.seek(0)
            out.append(lib.load(buffer)["custom"].value)
        buffer.seek(0)
        out.append(outcome(lib.load, buffer))
        lib.serialization.add_safe_globals([Custom])
        buffer.seek(0)
        out.append(lib.load(buffer)["custom"].value)
        out.append(Custom in lib.serialization.get_safe_globals())
        lib.serialization.clear_safe_globals()
        module_buffer = io.BytesIO()
        lib.save(lib.nn.Linear(1, 1), module_buffer)
        module_buffer.seek(0)
        out.append(outcome(lib.load, module_buffer))
        return out

    assert run(mt) == run(torch)


SAVE_LOAD_ERRORS = [
    lambda lib, tmp: lib.load(tmp / "missing.pt"),
    lambda lib, tmp: lib.save(lib.ones(1), tmp / "no" / "such" / "dir.pt"),
    lambda lib, tmp: lib.save(lib.ones(1), 3),
    lambda lib, tmp: lib.load(3),
    lambda lib, tmp: lib.load(io.BytesIO(b"")),
    lambda lib, tmp: lib.load(io.BytesIO(), pickle_module=pickle, weights_only=True),
    lambda lib, tmp: lib.save({"f": lambda: 1}, io.BytesIO()),
    lambda lib, tmp: round_trip(lib, lib.ones(1), map_location="cuda"),
]


@pytest.mark.parametrize("make", SAVE_LOAD_ERRORS, ids=range(len(SAVE_LOAD_ERRORS)))
def test_save_load_errors(make, tmp_path):
    if mt.cuda.is_available() and make is SAVE_LOAD_ERRORS[-1]:
        pytest.skip("myautograd has a GPU here; this torch build has none")
    theirs = outcome(make, torch, tmp_path)
    assert theirs is not None
    assert outcome(make, mt, tmp_path) == theirs


def test_files_of_another_format_are_refused_with_a_clear_message(tmp_path):
    """torch's own files (and garbage) cannot be read: myautograd says so (torch's own errors for
    garbage are incidental: KeyError '101' for a text file)."""
    torch_file = tmp_path / "torch.pt"
    torch.save({"w": torch.ones(1)}, torch_file)
    text_file = tmp_path / "text.pt"
    text_file.write_text("hello world")
    for path in (torch_file, text_file):
        kind, message = outcome(mt.load, path)
        assert kind == "UnpicklingError" and "cannot be read" in message
