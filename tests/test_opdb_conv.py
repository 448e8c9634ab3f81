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


def test_the_mutant_of_rot90_s_gradient_is_killed_by_op_db():
    case = REGISTRY.get("opinfo.rot90.default")
    assert judged(case, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record("rot90_gradient_turned_forward", case, "float64")
    assert record["outcome"] == "fail", record
    assert record["diff"][0]["aspect"] == "gradient", record["diff"][0]


# -- the shape functions torch composes ----------------------------------------------------------

def _grad_fn_names(outputs):
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return [type(o.grad_fn).__name__ for o in outputs]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.ravel(x.transpose(0, 1)),  # a copy (CloneBackward0) then its view
    lambda lib, x: lib.atleast_1d(x[0, 0, 0], x),  # several tensors: a tuple, the 3-d one itself
    lambda lib, x: lib.atleast_2d([x[0, 0], x[0, 0, 0]]),
    lambda lib, x: lib.atleast_3d(x[0]),
    lambda lib, x: lib.broadcast_tensors(x, x[0, :, :1]),
    lambda lib, x: lib.column_stack([x[0, 0], x[0].t()]),
    lambda lib, x: lib.dstack([x[0, 0], x[1, 1]]),
    lambda lib, x: lib.rot90(x, 2, (2, 0)),
    lambda lib, x: lib.unsafe_chunk(x, 3, -1),  # sizes 2, 2: new tensors, not views
    lambda lib, x: x.vsplit([1]),
])
def test_a_composition_records_torch_s_nodes_and_values(call):
    values = torch.arange(2 * 3 * 4, dtype=torch.float64).reshape(2, 3, 4)
    theirs = call(torch, values.clone().requires_grad_())
    mine = call(myautograd, myautograd.tensor(values.tolist(), dtype=myautograd.float64).requires_grad_())
    pairs = zip(theirs, mine) if isinstance(theirs, tuple) else [(theirs, mine)]
    for t, m in pairs:
        assert m.tolist() == t.tolist()
        assert m._base is not None if t._base is not None else m._base is None
    assert _grad_fn_names(mine) == _grad_fn_names(theirs)


def test_unsafe_split_s_parts_may_be_modified_in_place_where_split_s_may_not():
    for lib in (torch, myautograd):
        x = lib.ones(4, 2, requires_grad=True)
        first, second = lib.unsafe_split(x * 1, 2)
        first.mul_(3)
        (first.sum() + second.sum()).backward()
        assert x.grad.tolist() == [[3.0, 3.0], [3.0, 3.0], [1.0, 1.0], [1.0, 1.0]], lib
        with pytest.raises(RuntimeError, match="is the output of a function that returns multiple views"):
            lib.split(x * 1, 2)[0].mul_(3)


@pytest.mark.parametrize("call", [
    lambda lib: lib.positive(lib.ones(2, dtype=lib.bool)),
    lambda lib: lib.rot90(lib.ones(2, 2), 1, (0, -2)),
    lambda lib: lib.hsplit(lib.ones(4, 6), 4),
    lambda lib: lib.vsplit(lib.ones(4, 6), 3),
    lambda lib: lib.column_stack([]),
    lambda lib: lib.unsafe_split(lib.ones(3), 0),
    lambda lib: lib.unsafe_chunk(lib.ones(3), -1),
])
def test_a_shape_function_refuses_as_torch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as mine:
        call(myautograd)
    assert (type(mine.value), str(mine.value)) == (type(theirs.value), str(theirs.value))


# -- the *_copy functions -------------------------------------------------------------------------

COPIES = {
    "view_copy": lambda lib, x: lib.view_copy(x, (6, 4)),
    "transpose_copy": lambda lib, x: lib.transpose_copy(x, 0, 2),
    "expand_copy": lambda lib, x: lib.expand_copy(x[:, :1], (2, 3, 4)),
    "unbind_copy": lambda lib, x: lib.unbind_copy(x, 1),
    "split_with_sizes_copy": lambda lib, x: lib.split_with_sizes_copy(x, (1, 2), 1),
    "narrow_copy": lambda lib, x: lib.narrow_copy(x, -1, -3, 2),
}


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_function_gives_new_tensors_recorded_as_torch_s(name):
    seen = {}
    for lib in (torch, myautograd):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        outs = COPIES[name](lib, x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        assert all(out._base is None and out.is_contiguous() for out in outs), lib
        outs[0].add_(1)  # a copy may be modified in place: x keeps its values
        (grad,) = lib.autograd.grad([out.sum() for out in outs], x)
        seen[lib] = ([out.tolist() for out in outs], x.tolist(), grad.tolist(), _grad_fn_names(outs))
    assert seen[myautograd] == seen[torch]


def test_a_copy_function_under_no_grad_gives_a_tensor_that_does_not_require_grad():
    for lib in (torch, myautograd):
        x = lib.ones(2, 3, requires_grad=True)
        with lib.no_grad():
            out = lib.t_copy(x)
        assert not out.requires_grad and out.grad_fn is None, lib
        with lib.no_grad():
            assert lib.t(x).requires_grad, lib  # where the view of a tensor that requires grad still does


@pytest.mark.parametrize("call", [
    lambda lib: lib.narrow_copy(lib.ones(10), 0, 0, -1),
    lambda lib: lib.narrow_copy(lib.ones(10), 0, -4, -2),
    lambda lib: lib.narrow_copy(lib.ones(10), 0, 11, -1),
    lambda lib: lib.view_copy(lib.ones(4, 3), (4, 2)),
    lambda lib: lib.t_copy(lib.ones(2, 3, 4)),
])
def test_a_copy_function_refuses_as_torch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as mine:
        call(myautograd)
    assert (type(mine.value), str(mine.value)) == (type(theirs.value), str(theirs.value))


def test_the_mutant_of_the_copies_left_copying_is_killed_by_op_db():
    """unbind_copy's forward-mode rule selects from the tangent: a view, which must not be copied in turn."""
    case = REGISTRY.get("opinfo.unbind_copy.default")
    assert judged(case, resolve(REFERENCE), resolve("myautograd"), dtype="float64")["outcome"] == "pass"
    record = mutant_record("view_copies_copying_left_on", case, "float64")
    assert record["outcome"] == "fail", record
    assert "SelectBackward0_copy" in record["detail"], record["detail"]


@pytest.mark.parametrize("call", [
    lambda lib, x: x.is_contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last).is_contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last).is_contiguous(),
    lambda lib, x: x[0].is_contiguous(memory_format=lib.channels_last),  # another rank: not, and no error
    lambda lib, x: x.clone(memory_format=lib.channels_last).stride(),
    lambda lib, x: x.to(memory_format=lib.channels_last).clone().stride(),
    lambda lib, x: x.to(memory_format=lib.channels_last).contiguous().stride(),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).stride(),
    lambda lib, x: x[:, :1].expand(2, 3, 4, 5).clone().stride(),  # repeated elements: row-major
])
def test_clone_contiguous_and_is_contiguous_take_a_memory_format_as_torch_s(call):
    theirs, mine = _both(call)
    assert mine == theirs


def test_contiguous_refuses_preserve_format_as_torch():
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2, 3).t().contiguous(memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError) as mine:
        myautograd.ones(2, 3).t().contiguous(memory_format=myautograd.preserve_format)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("shapes", [
    ((2,), (3,)), ((5, 2), (1, 3)), ((2, 1), (1, 2), [3]), ((1, -1), (2,)), ((2,), "ab"), (2, (3, 1)), (None, (2,)), (),
])
def test_broadcast_shapes_gives_or_refuses_as_torch(shapes):
    seen = {}
    for lib in (torch, myautograd):
        try:
            seen[lib] = tuple(lib.broadcast_shapes(*shapes))
        except (RuntimeError, ValueError) as error:
            seen[lib] = (type(error), str(error))
    assert seen[myautograd] == seen[torch]
