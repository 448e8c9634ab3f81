"""Anomaly detection: forward tracebacks for backward errors, and NaN checks on gradients."""

from __future__ import annotations

import warnings

from .._autograd.anomaly import STATE
from .._missing import missing_attribute as _missing_attribute

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                   "enabled for debugging.")


def is_anomaly_enabled() -> bool:
    return STATE.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return STATE.check_nan


class detect_anomaly:
    """Context manager that turns anomaly detection on (and warns that it does). As torch's, it is no decorator,
    and its exit restores the mode as it was when the object was made, not when the block was entered."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = STATE.enabled, STATE.check_nan
        self.check_nan = check_nan
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        STATE.enabled, STATE.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        STATE.enabled, STATE.check_nan = self.prev, self.prev_check_nan


class set_detect_anomaly:
    """Sets anomaly detection on or off: as a function call or a context manager (no warning)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = STATE.enabled, STATE.check_nan
        STATE.enabled, STATE.check_nan = mode, check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        STATE.enabled, STATE.check_nan = self.prev, self.prev_check_nan


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
