"""Anomaly detection: ``detect_anomaly``, ``set_detect_anomaly``, NaN checks in backward and the
forward traceback warning."""

from .. import docs
from ..case import case


@case("Entering detect_anomaly() warns that anomaly detection is on; the mode ends with the block",
      doc=docs.DETECT_ANOMALY, tags=("warning",),
      features=("anomaly",))
def detect_anomaly_warns(torch, rec):
    rec("is_anomaly_enabled() before", torch.is_anomaly_enabled())
    with torch.autograd.detect_anomaly():
        rec("is_anomaly_enabled() inside", torch.is_anomaly_enabled())
    rec("is_anomaly_enabled() after", torch.is_anomaly_enabled())


@case("set_detect_anomaly(True) turns anomaly mode on without a warning",
      doc=docs.SET_DETECT_ANOMALY, tags=("warning",),
      features=("anomaly",))
def set_detect_anomaly_is_silent(torch, rec):
    with torch.autograd.set_detect_anomaly(True):
        rec("is_anomaly_enabled() inside", torch.is_anomaly_enabled())
    rec("is_anomaly_enabled() after", torch.is_anomaly_enabled())


@case("Under detect_anomaly a NaN produced in backward raises, naming the node, after a traceback warning",
      doc=docs.ANOMALY, tags=("error", "warning", "hard"),
      features=("non-scalar", "anomaly"))
def nan_in_backward_raises(torch, rec):
    x = torch.tensor([0.0, 4.0], requires_grad=True, device=rec.device)
    with torch.autograd.detect_anomaly():
        y = (x.sqrt() * 0).sum()
        rec("y", y)
        y.backward()


@case("Without anomaly mode a NaN gradient passes silently into .grad",
      doc=docs.ANOMALY,
      features=("non-scalar",))
def nan_gradient_silent_without_anomaly(torch, rec):
    x = torch.tensor([0.0, 4.0], requires_grad=True, device=rec.device)
    y = (x.sqrt() * 0).sum()
    y.backward()
    rec("x.grad", x.grad)


@case("set_detect_anomaly(True, check_nan=False) keeps anomaly mode on but does not check for NaN",
      doc=docs.SET_DETECT_ANOMALY,
      features=("non-scalar", "anomaly"))
def check_nan_false_skips_nan_check(torch, rec):
    x = torch.tensor([0.0, 4.0], requires_grad=True, device=rec.device)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        rec("is_anomaly_enabled()", torch.is_anomaly_enabled())
        rec("is_anomaly_check_nan_enabled()", torch.is_anomaly_check_nan_enabled())
        y = (x.sqrt() * 0).sum()
        y.backward()
    rec("x.grad", x.grad)
    rec("is_anomaly_check_nan_enabled() after", torch.is_anomaly_check_nan_enabled())


@case("In anomaly mode the version-counter error ends with a different hint",
      doc=docs.ANOMALY, tags=("error", "hard"),
      features=("non-scalar", "in-place", "anomaly"))
def version_error_hint_in_anomaly_mode(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.tanh()
    y.mul_(2)
    with rec.attempt("backward without anomaly mode"):
        y.sum().backward()
    with torch.autograd.detect_anomaly():
        z = x.tanh()
        z.mul_(2)
        z.sum().backward()


@case("is_anomaly_enabled and is_anomaly_check_nan_enabled follow set_detect_anomaly called as a function",
      doc=docs.SET_DETECT_ANOMALY,
      features=("anomaly",))
def anomaly_state_functions(torch, rec):
    rec("default", (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    torch.autograd.set_detect_anomaly(True, check_nan=False)
    try:
        rec("after set_detect_anomaly(True, check_nan=False)",
            (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    finally:
        torch.autograd.set_detect_anomaly(False)
    rec("after set_detect_anomaly(False)", (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
