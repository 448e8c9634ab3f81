"""myautograd's CUDA code path, checked on every machine, GPU or not.

On a GPU the catalog compares myautograd on CUDA with torch on CUDA (``tests/test_catalog.py``,
``python -m conformance run``). Without one, those items skip, and code that is right on NumPy
but breaks on CuPy would go unnoticed. Here every catalog case that runs on CUDA runs twice on
myautograd, each side in a forked child, both with ``tests.support.strict_cupy`` standing in
for CuPy (a stand-in that enforces the rules by which CuPy differs from NumPy): on the CPU,
as on a GPU machine where CuPy is installed, and on "cuda". The two must observe the same
thing, apart from the device itself.

The CPU run adds float sums in NumPy's order, as the CUDA path does (``observed_on_cpu``). What is
allowed to differ, and nothing else: the device's name in observations and messages
(``cuda:0`` or ``device(type='cuda', index=0)`` for the CPU's, ``torch.cuda.FloatTensor`` for
``torch.FloatTensor``, ``"fmod_cuda"`` for ``"fmod_cpu"`` in a dtype refusal), the
``device='cuda:0'`` part of a tensor's repr, the line breaks that longer repr causes, and the
operand names in the matmul dtype error (torch's CUDA kernel says ``mat1 and mat2`` where its
CPU kernel says ``m1 and m2``; seen on an H100).
"""

from __future__ import annotations

import re

import pytest

import myautograd
from conformance import catalog
from conformance.compare import Comparison
from conformance.normalize import Normalizer
from conformance.recorder import observe
from myautograd import _backend
from tests.support import strict_cupy
from tests.support.sides import isolated

# Cases that run on both devices; CUDA-only cases (mixing devices) have no CPU run to compare with,
# and are checked against torch on a GPU.
# Cases that record measures of printed text (its length, a slice of it): the device suffix torch prints on CUDA
# changes them there as it changes torch's own, so they are compared with torch on a GPU, not with the CPU run.
PRINTED_MEASURES = {"printing.summarised_with_ellipsis", "printing.set_printoptions_profiles"}
CUDA_CASES = [case for case in catalog.load() if case.runs_on("cuda") and case.runs_on("cpu")
              and case.id not in PRINTED_MEASURES]
TIMEOUT = 30.0
_DEVICE_IN_REPR = re.compile(r",\s*device='cuda:0'")
_WHITESPACE = re.compile(r"\s+")
_CUDA_KERNEL_NAME = re.compile(r'"(\w+)_cuda"')


def device_blind(text: str) -> str:
    """A text observed on CUDA, as the CPU run would show it (see the module docstring)."""
    text = _DEVICE_IN_REPR.sub("", text).replace("torch.cuda.", "torch.").replace("cuda:0", "cpu")
    text = text.replace("device(type='cuda', index=0)", "device(type='cpu')")
    text = _CUDA_KERNEL_NAME.sub(r'"\1_cpu"', text)
    text = text.replace("expected mat1 and mat2 to have the same dtype", "expected m1 and m2 to have the same dtype")
    return _WHITESPACE.sub(" ", text)


def observed_on_cpu(case) -> dict:
    """On the CPU with CuPy present (the stand-in), as on every GPU machine; its float sums in NumPy's
    order, as the CUDA path adds (CuPy's own order there): on the CPU myautograd adds them in torch's
    CPU order (``myautograd/_summation.py``, checked against torch by ``tests/test_summation_order.py``),
    which torch's CUDA kernels do not follow either."""
    def task() -> dict:
        from myautograd import _summation

        _summation.torch_sum = lambda data, axes, keepdim: None  # in this forked child only
        with strict_cupy.installed(_backend):
            return observe(case, myautograd, "cpu")

    return isolated(task, TIMEOUT)


def observed_on_standin_cuda(case) -> dict:
    def task() -> dict:
        with strict_cupy.installed(_backend):
            return observe(case, myautograd, "cuda")

    return isolated(task, TIMEOUT, device="cuda")


def blind_values(value):
    """Device fields of recorded tensors read as the CPU's."""
    if isinstance(value, dict):
        return {k: ("cpu" if k == "device" and v == "cuda:0" else blind_values(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [blind_values(v) for v in value]
    return value


def test_device_blind_rules():
    assert device_blind("tensor([1., 2.], device='cuda:0',\n       grad_fn=<MulBackward0>)") == \
        device_blind("tensor([1., 2.], grad_fn=<MulBackward0>)")
    assert device_blind("[torch.cuda.FloatTensor [2]] on cuda:0") == "[torch.FloatTensor [2]] on cpu"
    assert device_blind("expected mat1 and mat2 to have the same dtype, but got: float != double") == \
        "expected m1 and m2 to have the same dtype, but got: float != double"


def test_standin_refuses_what_cupy_refuses():
    import numpy as np

    cupy = strict_cupy.module()
    a = cupy.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(a)
    with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>"):
        a + np.asarray(1.0)
    with pytest.raises(TypeError):
        np.add.at(a, [0], 1.0)
    assert not hasattr(a.flags, "writeable")
    assert isinstance(a.sum(), cupy.ndarray) and a.sum().shape == ()
    assert (a + np.float64(1.0)).tolist() == [2.0, 3.0]


@pytest.mark.parametrize("case", CUDA_CASES, ids=lambda case: case.id)
def test_case_on_standin_cuda_matches_cpu(case):
    cpu = observed_on_cpu(case)
    cuda = blind_values(observed_on_standin_cuda(case))
    normalize = Normalizer("myautograd")
    comparison = Comparison(lambda text: device_blind(normalize(text)), lambda text: device_blind(normalize(text)),
                            case.tolerances)
    assert cpu["status"] in ("completed", "raised") and cuda["status"] == cpu["status"], (cpu, cuda)
    diffs = comparison.steps(cpu["steps"], cuda["steps"])
    shown = "\n".join(f"{d.where}\n  cpu:  {d.reference}\n  cuda: {d.implementation}" for d in diffs[:3])
    assert not diffs, shown


def test_pickle_and_deepcopy_keep_the_device(mydevice):
    import copy
    import pickle

    x = myautograd.tensor([1.0, 2.0], requires_grad=True, device=mydevice)
    for clone in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert clone.device == x.device and clone.requires_grad and clone.tolist() == [1.0, 2.0]
        assert clone._data is not x._data
