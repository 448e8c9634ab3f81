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


# -- out= of cat, take and masked_select ---------------------------------------------------------

def _values(lib):
    return lib.tensor([0.5, -1.25, 2.0, 3.5, -0.75, 1.0])


OUT_CALLS = {  # with the shape of each result
    "cat": (lambda lib, x, out: lib.cat([x.view(2, 3), x.view(2, 3)], out=out), (4, 3)),
    "take": (lambda lib, x, out: lib.take(x, lib.tensor([2, 0, 5]), out=out), (3,)),
    "masked_select": (lambda lib, x, out: lib.masked_select(x, x > 0, out=out), (4,)),
}


@pytest.mark.parametrize("name", OUT_CALLS)
@pytest.mark.parametrize("make_out", [
    lambda lib, shape: lib.zeros(*shape[:-1], 2 * shape[-1])[..., ::2],  # a strided view of the result's shape
    lambda lib, shape: lib.zeros(0),  # resized silently
    lambda lib, shape: lib.zeros(2, 2),  # resized, with torch's deprecation warning
])
def test_out_is_written_as_torch_writes_it(name, make_out, recwarn):
    call, shape = OUT_CALLS[name]
    seen = {}
    for lib in (torch, myautograd):
        out = make_out(lib, shape)
        recwarn.clear()
        assert call(lib, _values(lib), out) is out
        base = out if out._base is None else out._base  # a strided out is written in its base
        warned = [str(w.message).split(" (Triggered internally")[0] for w in recwarn]
        seen[lib] = (out.tolist(), base.tolist(), tuple(out.shape), warned)
    assert seen[myautograd] == seen[torch]


@pytest.mark.parametrize("name", OUT_CALLS)
@pytest.mark.parametrize("case", ["input requires grad", "out requires grad", "out of another dtype"])
def test_out_is_refused_as_torch_refuses_it(name, case):
    messages = {}
    for lib in (torch, myautograd):
        x = _values(lib).requires_grad_(case == "input requires grad")
        out = lib.zeros(12, dtype=lib.int64 if case == "out of another dtype" else lib.float32)
        out.requires_grad_(case == "out requires grad")
        with pytest.raises((RuntimeError, TypeError)) as raised:
            OUT_CALLS[name][0](lib, x, out)
        messages[lib] = (type(raised.value), str(raised.value))
    assert messages[myautograd] == messages[torch]


def test_cat_out_casts_within_a_category_as_torch_s():
    for lib in (torch, myautograd):
        out = lib.zeros(6, dtype=lib.float16)
        assert lib.cat([_values(lib).double()], out=out).dtype == lib.float16
    with pytest.raises(TypeError) as theirs:
        torch.cat(_values(torch), out=torch.zeros(6))
    with pytest.raises(TypeError) as mine:
        myautograd.cat(_values(myautograd), out=myautograd.zeros(6))
    assert str(mine.value) == str(theirs.value)
