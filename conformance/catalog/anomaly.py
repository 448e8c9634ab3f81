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


def _anomaly(torch):
    """Anomaly mode and its NaN check, as a pair."""
    return torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()


@case("Nested anomaly contexts (detect_anomaly, set_detect_anomaly, with check_nan) each restore the enclosing "
      "mode and NaN check on exit, and on an exception; the restored mode checks NaN in backward again",
      doc=docs.SET_DETECT_ANOMALY, tags=("error", "warning"),
      features=("non-scalar", "anomaly"))
def nested_anomaly_modes_restored(torch, rec):
    x = torch.tensor([0.0, 1.0], requires_grad=True, device=rec.device)
    with torch.autograd.detect_anomaly():
        rec("detect_anomaly()", _anomaly(torch))
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            rec("set_detect_anomaly(True, check_nan=False) inside it", _anomaly(torch))
            with torch.autograd.detect_anomaly():
                rec("detect_anomaly() inside that", _anomaly(torch))
            rec("after the inner detect_anomaly()", _anomaly(torch))
            (x.sqrt() * 0).sum().backward()
            rec("no NaN check there: x.grad", x.grad)
        with torch.autograd.set_detect_anomaly(False):
            with torch.autograd.detect_anomaly(check_nan=False):
                rec("detect_anomaly(check_nan=False) inside set_detect_anomaly(False)", _anomaly(torch))
            rec("after it", _anomaly(torch))
        rec("after set_detect_anomaly(False)", _anomaly(torch))
        with rec.attempt("backward producing NaN once the NaN check is restored"):
            (x.sqrt() * 0).sum().backward()
        with rec.attempt("an exception inside an inner detect_anomaly(check_nan=False)"):
            with torch.autograd.detect_anomaly(check_nan=False):
                raise ValueError("inside detect_anomaly")
        rec("after the exception, in the outer block", _anomaly(torch))
    rec("after detect_anomaly()", _anomaly(torch))


@case("detect_anomaly and set_detect_anomaly are no decorators (TypeError: the object is not callable); "
      "set_detect_anomaly has already set the mode when it is made, and detect_anomaly's exit restores the mode "
      "of when it was made", doc=docs.DETECT_ANOMALY, tags=("error", "warning"),
      features=("anomaly",))
def anomaly_contexts_are_not_decorators(torch, rec):
    with rec.attempt("@detect_anomaly(check_nan=False)"):
        @torch.autograd.detect_anomaly(check_nan=False)
        def checked():
            return _anomaly(torch)
    rec("after it", _anomaly(torch))
    with rec.attempt("@set_detect_anomaly(True)"):
        @torch.autograd.set_detect_anomaly(True)
        def set_on():
            return _anomaly(torch)
    rec("after it: the mode it set stays", _anomaly(torch))
    torch.autograd.set_detect_anomaly(False)
    context = torch.autograd.detect_anomaly(check_nan=False)
    torch.autograd.set_detect_anomaly(True)
    with context:
        rec("inside a detect_anomaly made before set_detect_anomaly(True)", _anomaly(torch))
    rec("after it: the mode of when it was made", _anomaly(torch))
