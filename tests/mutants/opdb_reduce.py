"""Mutants of the selections along a dim (``myautograd/_ops/selection.py``): caught by op_db's samples
(``opinfo.median.default``), which the hand-written table does not reach."""

from __future__ import annotations

from myautograd._ops import selection

from ._registry import mutant, replace


@mutant("reductions and broadcasting", "median of a line of even length takes the upper of its two middle "
                                       "elements (torch takes the lower)")
def median_upper_middle():
    # the lower middle of the negated line is the upper middle of the line
    replace(selection, "_middle", lambda original: lambda lines, ignore_nan: original(-lines, ignore_nan))
