"""Anomaly detection state: whether backward errors report the forward traceback, and NaN checks."""

from __future__ import annotations

import threading


class _AnomalyState(threading.local):
    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


STATE = _AnomalyState()
