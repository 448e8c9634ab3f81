"""myautograd refuses the invalid calls of shape, range and reduction ops as torch does: the same
exception type and message (dims of a 0-dim tensor, empty lists, negative sizes, ranges that cannot
be built, ambiguous shapes, narrow's and movedim's arguments), and computes the calls beside them
that torch computes."""

from __future__ import annotations

import pytest
import torch

import myautograd

CALLS = {
    # a dim of a 0-dim tensor: refused where torch refuses it, after wrapping as torch wraps it
    "roll_scalar_dim": lambda t, s, m: t.roll(s, 0, 0),
    "roll_scalar_negative_dim": lambda t, s, m: t.roll(s, 0, -1),
    "roll_scalar_no_dim": lambda t, s, m: t.roll(s, 1),
    "roll_no_shifts": lambda t, s, m: t.roll(m, ()),
    "unbind_scalar": lambda t, s, m: t.unbind(s, 0),
    "unbind_scalar_wrapped": lambda t, s, m: t.unbind(s, -1),
    "unbind_scalar_out_of_range": lambda t, s, m: t.unbind(s, 1),
    "fft_scalar": lambda t, s, m: t.fft.fft(s.to(t.complex64), dim=1),
    # empty lists and negative sizes
    "hstack_empty": lambda t, s, m: t.hstack(()),
    "vstack_empty": lambda t, s, m: t.vstack([]),
    "eye_negative_n": lambda t, s, m: t.eye(-7, 42),
    "eye_negative_m": lambda t, s, m: t.eye(0, -3),
    "eye_square": lambda t, s, m: t.eye(2),
    # shapes and dtypes
    "reshape_ambiguous": lambda t, s, m: t.reshape(t.ones(0), (2, 0, -1)),
    "view_ambiguous": lambda t, s, m: t.ones(0, 3).view(-1, 0),
    "reshape_zero_known_size": lambda t, s, m: t.reshape(t.ones(4), (0, -1)),
    "reshape_empty_inferred": lambda t, s, m: t.ones(0).reshape(3, -1),
    "mean_integer_dtype_requested": lambda t, s, m: t.mean(m, [], dtype=t.int64),
    "mean_integer_input": lambda t, s, m: t.mean(m.long()),
    # narrow: in torch's order of checks
    "narrow_scalar": lambda t, s, m: t.narrow(s, 0, 0, 1),
    "narrow_start_past_end": lambda t, s, m: t.narrow(m, 1, 11, 0),
    "narrow_start_before_start": lambda t, s, m: t.narrow(m, 1, -11, 0),
    "narrow_negative_length_first": lambda t, s, m: t.narrow(m, 1, 11, -1),
    "narrow_bool_start": lambda t, s, m: t.narrow(m, 1, t.tensor(True), 3),
    "narrow_float_start": lambda t, s, m: t.narrow(m, 1, t.tensor(2.0), 3),
    "narrow_vector_start": lambda t, s, m: t.narrow(m, 1, t.tensor([2]), 3),
    "narrow_tensor_start": lambda t, s, m: t.narrow(m, 1, t.tensor(-2), 2),
    "narrow_too_long": lambda t, s, m: t.narrow(m, 1, 5, 6),
    "narrow_empty_at_end": lambda t, s, m: t.narrow(m, 1, -10, 0),
    # movedim: counts, then each dim's range, then repeats (of the wrapped dims, shown as given)
    "movedim_counts": lambda t, s, m: t.movedim(m, (0,), (1, 0)),
    "movedim_range_before_repeat": lambda t, s, m: t.movedim(m, (1, 1), (0, 5)),
    "movedim_repeated_source": lambda t, s, m: t.movedim(m, [1, -1], [0, 1]),
    "movedim_repeated_destination": lambda t, s, m: t.movedim(m, (1, 0), (0, -2)),
    "movedim_int": lambda t, s, m: t.movedim(m, 0, 1),
    # ranges
    "arange_infinite": lambda t, s, m: t.arange(0, float("inf"), 2),
    "arange_nan_from_float": lambda t, s, m: t.arange(0.5, float("nan")),
    "arange_large_bound": lambda t, s, m: t.arange(1e20, float("inf")),
    "arange_zero_step_first": lambda t, s, m: t.arange(0, float("inf"), 0),
    "arange_integer_step_truncated": lambda t, s, m: t.arange(0, 64, 0.5, out=t.ones(0, dtype=t.int64)),
    "arange_integer_dtype": lambda t, s, m: t.arange(0, 64, 0.5, dtype=t.int64),
    "linspace_negative_steps": lambda t, s, m: t.linspace(0, 3, -1),
    "linspace_float_steps": lambda t, s, m: t.linspace(0, 3, 1.0),
    "linspace_vector_ends": lambda t, s, m: t.linspace(m[0], m[0], 1),
    "logspace_vector_start": lambda t, s, m: t.logspace(m[0], 1, -1),
    "logspace_vector_end": lambda t, s, m: t.logspace(1, m[0], 3),
    "logspace_scalar_tensors": lambda t, s, m: t.logspace(t.tensor(1.0), t.tensor(2.0), 3, 2),
}


def _outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return type(error).__name__, str(error)
    return "computed", [tuple(part.shape) for part in result] if isinstance(result, tuple) else result.tolist()


@pytest.mark.parametrize("call", sorted(CALLS))
def test_refused_or_computed_as_torch(call):
    def run(t):
        return _outcome(lambda: CALLS[call](t, t.tensor(1.5), t.ones(2, 10)))

    assert run(myautograd) == run(torch)
