"""Process-wide settings against torch: the default dtype and device, the deprecated default tensor
type, ``torch.backends`` and ``torch.accelerator``.

Each scenario runs on torch and on myautograd and restores the defaults afterwards. The
once-per-process deprecation warning of ``set_default_tensor_type`` is compared in fresh
interpreters (``python -m myautograd``). The CUDA comparisons hold where CUDA is unavailable to
both (torch here is a CPU build), so they are made only where myautograd has no GPU either.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import myautograd as mt

ROOT = Path(__file__).resolve().parent.parent


def outcome(fn, *args):
    try:
        result = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return ("ok", str(result))


def restoring(scenario):
    """``scenario(lib)`` on both libraries, each with its defaults restored afterwards."""
    results = []
    for lib in (torch, mt):
        try:
            results.append(scenario(lib))
        finally:
            lib.set_default_dtype(lib.float32)
            lib.set_default_device(None)
    return results


def dtypes_made(lib):
    return [str(t.dtype) for t in (
        lib.tensor([1.5]), lib.tensor(2.5), lib.zeros(2), lib.ones(1), lib.empty(1), lib.rand(2), lib.randn(2),
        lib.arange(0.0, 1.0, 0.5), lib.arange(3), lib.linspace(0, 1, 3), lib.full((1,), 2.5), lib.full((1,), 2),
        lib.eye(2), lib.tensor([1, 2]) * 1.5, lib.tensor([1, 2]) / 2, lib.tensor(3), lib.tensor([1j]),
        lib.tensor([1, 2]).float(), lib.nn.Linear(2, 2).weight, lib.tensor([True]) + 0.5,
    )]


@pytest.mark.parametrize("name", ["float64", "float16", "float32"])
def test_default_dtype_reaches_factories_and_python_floats(name):
    def run(lib):
        lib.set_default_dtype(getattr(lib, name))
        made = dtypes_made(lib)
        if name == "float16":
            made = [d for d in made if "complex" not in d]  # NumPy has no complex32
        return [str(lib.get_default_dtype())] + made

    theirs, ours = restoring(run)
    assert ours == theirs


SETTING_ERRORS = [
    lambda lib: lib.set_default_dtype(lib.int64),
    lambda lib: lib.set_default_dtype(lib.complex64),
    lambda lib: lib.set_default_dtype("float64"),
    lambda lib: lib.set_default_tensor_type(lib.LongTensor),
    lambda lib: lib.set_default_tensor_type("torch.IntTensor"),
    lambda lib: lib.set_default_tensor_type(lib.float64),
    lambda lib: lib.set_default_tensor_type(3),
    lambda lib: lib.set_default_tensor_type("torch.Nope"),
    lambda lib: lib.set_default_tensor_type("torch.cuda.Nope"),
    lambda lib: lib.accelerator.current_device_index(),
    lambda lib: lib.accelerator.synchronize(),
]


@pytest.mark.parametrize("make", SETTING_ERRORS, ids=range(len(SETTING_ERRORS)))
def test_setting_errors(make):
    if mt.cuda.is_available() and "accelerator" in repr(make.__code__.co_names):
        pytest.skip("an accelerator is present for myautograd, not for this CPU build of torch")

    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return outcome(make, lib)

    theirs, ours = restoring(run)
    assert theirs[0] != "ok"
    assert ours == theirs


def test_default_tensor_type_sets_the_dtype():
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_default_tensor_type(lib.DoubleTensor)
            out = [str(lib.get_default_dtype()), lib.zeros(1).type(), str(lib.tensor([0.5]).dtype)]
            lib.set_default_tensor_type("torch.FloatTensor")
            out += [str(lib.get_default_dtype()), lib.zeros(1).type(), repr(lib.FloatTensor), repr(lib.cuda.LongTensor)]
        return out

    theirs, ours = restoring(run)
    assert ours == theirs


def test_default_device():
    def run(lib):
        out = [repr(lib.get_default_device())]
        lib.set_default_device("cpu")
        out += [repr(lib.get_default_device()), str(lib.zeros(1).device), str(lib.tensor([1.0]).device)]
        lib.set_default_device(lib.device("cpu"))
        out.append(str(lib.nn.Linear(1, 1).weight.device))
        lib.set_default_device(None)
        out.append(repr(lib.get_default_device()))
        if not mt.cuda.is_available():
            lib.set_default_device("cuda")
            out += [outcome(lib.zeros, 1), outcome(lib.tensor, [1.0]), outcome(lib.get_default_device)]
        return out

    theirs, ours = restoring(run)
    assert ours == theirs


def test_backends_and_accelerator():
    def run(lib):
        return [lib.backends.mps.is_available(), lib.backends.mps.is_built(), lib.backends.cudnn.enabled,
                lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic, lib.backends.cudnn.is_available(),
                lib.backends.cuda.matmul.allow_tf32, lib.backends.cuda.is_built(), lib.accelerator.is_available(),
                lib.accelerator.current_accelerator(), lib.accelerator.device_count()]

    if mt.cuda.is_available():
        pytest.skip("an accelerator is present for myautograd, not for this CPU build of torch")
    theirs, ours = restoring(run)
    assert ours == theirs


SCRIPT = """\
import warnings
import torch
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.set_default_tensor_type(torch.DoubleTensor)
    torch.set_default_tensor_type("torch.FloatTensor")
print([str(w.message).split(" (Triggered")[0] for w in caught])
torch.backends.cudnn.deterministic = True
print(torch.backends.cudnn.deterministic)
device = (torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu")
print(device, torch.get_default_dtype())
"""


def test_deprecation_warning_once_per_process(tmp_path):
    script = tmp_path / "settings.py"
    script.write_text(SCRIPT)
    outputs = []
    for command in ([sys.executable, str(script)], [sys.executable, "-m", "myautograd", str(script)]):
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[1] == outputs[0]
    assert outputs[0].count("deprecated") == 1
