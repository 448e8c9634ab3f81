"""Mutants of anomaly mode's contexts: what their exit restores."""

from __future__ import annotations

from myautograd._autograd.anomaly import STATE
from myautograd.autograd import anomaly_mode

from ._registry import mutant, replace


@mutant("grad modes", "detect_anomaly's exit turns anomaly mode off (the default) instead of restoring an enclosing "
        "mode: nested anomaly blocks are not restored")
def nested_anomaly_not_restored():
    def make(original):
        def planted(self, *exc):
            STATE.enabled, STATE.check_nan = False, True
        return planted

    replace(anomaly_mode.detect_anomaly, "__exit__", make)
