"""myautograd refuses a call that fits none of an op's signatures as torch's argument parser does
(myautograd/_ops/signatures.py): the same TypeError, message for message, whether torch names the first
argument that does not fit or lists every signature with the reasons it did not match."""

from __future__ import annotations

import pytest
import torch

import myautograd
from myautograd._ops.reduction import EXTREME_SIGNATURES
from myautograd._ops.signatures import invalid_arguments

CALLS = {
    # one signature: the first argument that does not fit, by name and position
    "atan2_number_first": lambda t, a: t.atan2(2, 3),
    "atan2_number_second": lambda t, a: t.atan2(a, 3),
    "maximum_number_first": lambda t, a: t.maximum(2, a),
    "minimum_float_second": lambda t, a: t.minimum(a, 2.0),
    "polar_number_angle": lambda t, a: t.polar(a, 2),
    "polar_number_abs": lambda t, a: t.polar(2, a),
    "logical_and_number": lambda t, a: t.logical_and(a, 2),
    "logical_xor_number_first": lambda t, a: t.logical_xor(2, a),
    "isclose_number_first": lambda t, a: t.isclose(2, a),
    "isclose_string_rtol": lambda t, a: t.isclose(a, a, "x"),
    # one signature of several whose count fits: max(x) and its relatives take one tensor
    "max_one_number": lambda t, a: t.max(2),
    # several signatures: all listed
    "eq_number_first": lambda t, a: t.eq(2, a),
    "lt_two_numbers": lambda t, a: t.lt(2, 3),
    "alias_name": lambda t, a: t.greater_equal(2, a),
    "fmod_number_first": lambda t, a: t.fmod(2, a),
    "fmod_string": lambda t, a: t.fmod(a, "x"),
    "clamp_min_numbers": lambda t, a: t.clamp_min(2, 3),
    "clamp_max_list": lambda t, a: t.clamp_max(a, [1]),
    "rsub_number_first": lambda t, a: t.rsub(2, a),
    "xlogy_numbers": lambda t, a: t.xlogy(2, 3),
    "max_number_first": lambda t, a: t.max(2, a),
    "min_numbers": lambda t, a: t.min(2, 3),
    # a signature of as many parts as arguments: the reason, with each misfit marked
    "remainder_numbers": lambda t, a: t.remainder(2, 3),
    "remainder_none": lambda t, a: t.remainder(a, None),
    "remainder_string_first": lambda t, a: t.remainder("x", a),
    # clamp's bounds left out are not shown
    "clamp_number_and_tensor": lambda t, a: t.clamp(a, 1, a),
    "clamp_tensor_and_number": lambda t, a: t.clamp(a, a, 0.5),
}


def _refusal(fn):
    try:
        fn()
    except TypeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("call", sorted(CALLS))
def test_refused_with_torchs_message(call):
    expected = _refusal(lambda: CALLS[call](torch, torch.ones(2)))
    assert expected is not None, "torch refuses every call of the table"
    assert _refusal(lambda: CALLS[call](myautograd, myautograd.ones(2))) == expected


@pytest.mark.parametrize("call", [
    lambda t, a: t.eq(a, 2), lambda t, a: t.eq(a, True), lambda t, a: t.remainder(2, a), lambda t, a: t.xlogy(2, a),
    lambda t, a: t.rsub(a, 2), lambda t, a: t.clamp_min(a, a), lambda t, a: t.isclose(a, a, 1, 0.5),
])
def test_calls_that_fit_are_computed(call):
    expected = call(torch, torch.tensor([0.5, 2.0]))
    assert call(myautograd, myautograd.tensor([0.5, 2.0])).tolist() == expected.tolist()


def test_the_reasons_mark_every_argument_for_a_part_with_a_default():
    """torch.max(x, 0, True, 4, 5): ``bool keepdim = False`` marks ``!bool!`` (myautograd's max takes at most
    three positional arguments, so Python refuses the call first: the message is built directly)."""
    expected = _refusal(lambda: torch.max(torch.ones(2), 0, True, 4, 5))
    assert "(Tensor, int, !bool!, !int!, !int!)" in expected
    assert str(invalid_arguments("max", EXTREME_SIGNATURES, (myautograd.ones(2), 0, True, 4, 5))) == expected


def test_comparison_operators_with_a_string_refuse_as_pythons():
    for library in (torch, myautograd):
        a = library.ones(2)
        with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'str'"):
            a < "x"  # noqa: B015 - the comparison is what raises
        assert (a == "x") is False
