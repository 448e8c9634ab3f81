"""Mutants of tensor printing: the automatic choice of scientific notation, and ``set_printoptions``."""

from __future__ import annotations

import functools

import myautograd
from myautograd import _printing

from ._registry import mutant, replace


@mutant("printing", "scientific notation only above 1e9, not 1e8 (the threshold off by a factor of 10)")
def sci_threshold_off_by_ten():
    def make(original):
        @functools.wraps(original)
        def planted(smallest, largest):
            return largest / smallest > 1000.0 or largest > 1.0e9 or smallest < 1.0e-4
        return planted

    replace(_printing, "_automatic_sci_mode", make)


@mutant("printing", "set_printoptions without sci_mode (or with None) keeps the sci_mode set before")
def set_printoptions_keeps_sci_mode():
    def make(original):
        @functools.wraps(original)
        def planted(*args, sci_mode=None, **kwargs):
            kept = _printing.get_printoptions()["sci_mode"]
            original(*args, sci_mode=kept if sci_mode is None else sci_mode, **kwargs)
        return planted

    replace(_printing, "set_printoptions", make)
    myautograd.set_printoptions = _printing.set_printoptions
