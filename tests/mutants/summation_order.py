"""A mutant of torch's order of additions in float32 and float64 sums (``myautograd/_summation.py``).

The catalog compares values within tolerances, so it cannot see a sum's last bit; this mutant is
killed by ``tests/test_summation_order.py``, which compares sums, means and gradients with torch's
bit for bit (``test_a_planted_order_bug_is_caught`` there applies it).
"""

from __future__ import annotations

from myautograd import _summation

from ._registry import mutant, replace


@mutant("reductions and broadcasting", "sums skip torch's interleaving: one cascade, not four dealt round-robin")
def sum_not_interleaved():
    replace(_summation, "_interleaved", lambda original: _summation._cascade)
