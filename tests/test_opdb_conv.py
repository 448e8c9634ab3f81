"""The conversions, copies and shape functions implemented for torch's op_db (``opinfo.to``, ``opinfo.float``,
...): what their op_db cases do not show (memory formats' layouts and refusals), and the mutants of
``tests/mutants/opdb_conv.py`` killed by a named opinfo item."""

from __future__ import annotations

import pytest
import torch

import myautograd
from conformance.implementations import REFERENCE, resolve
from tests.test_opdb import REGISTRY, judged, mutant_record

FORMATS = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")


@pytest.mark.parametrize("name", FORMATS)
def test_a_memory_format_is_named_as_torch_s_and_cannot_be_made(name):
    fmt = getattr(myautograd, name)
    assert isinstance(fmt, myautograd.memory_format)
    assert repr(fmt) == repr(getattr(torch, name))
    with pytest.raises(TypeError) as theirs:
        torch.memory_format()
    with pytest.raises(TypeError) as mine:
        myautograd.memory_format()
    assert str(mine.value) == str(theirs.value)


def _both(make):
    """``make(lib)`` on torch and on myautograd, from the same float32 values."""
    values = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    return make(torch, values), make(myautograd, myautograd.tensor(values.tolist()))


@pytest.mark.parametrize("call", [
    lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last).double(),  # preserve_format keeps the channels last
    lambda lib, x: x.to(memory_format=lib.channels_last).float(memory_format=lib.contiguous_format),
    lambda lib, x: x.transpose(1, 3).to("cpu", lib.float64, False, False, memory_format=lib.preserve_format),
    lambda lib, x: x[None].half(memory_format=lib.channels_last_3d),
])
def test_a_conversion_lays_its_copy_out_as_torch_s(call):
    theirs, mine = _both(call)
    assert mine.stride() == theirs.stride()
    assert mine.tolist() == theirs.tolist()


def test_a_conversion_that_changes_nothing_returns_the_tensor_itself_as_torch_s():
    laid_out = {lib: x.to(memory_format=lib.channels_last) for lib, x in zip((torch, myautograd), _both(lambda lib, x: x))}
    for lib, x in laid_out.items():
        assert x.float() is x, lib
        assert x.to(lib.float32, memory_format=lib.channels_last) is x, lib
        assert x.float(memory_format=lib.contiguous_format) is not x, lib
        assert x.to(lib.float32, False, True) is not x, lib  # copy= by position


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2, 3).to(lib.float64, memory_format=lib.channels_last),
    lambda lib: lib.ones(2, 3, 4, 5).float(memory_format=lib.channels_last_3d),
])
def test_a_channels_last_format_of_the_wrong_rank_is_refused_as_torch_refuses_it(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as mine:
        call(myautograd)
    assert str(mine.value) == str(theirs.value)


def test_the_mutant_of_to_s_positional_copy_is_killed_by_op_db():
    """op_db's to samples pass copy= by position (``a.to('cpu', torch.float64, True, True, ...)``)."""
    case = REGISTRY.get("opinfo.to.default")
    assert judged(case, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record("to_positional_copy_ignored", case, "float64")
    assert record["outcome"] == "fail", record
