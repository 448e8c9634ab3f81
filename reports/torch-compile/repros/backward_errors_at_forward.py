"""AOTAutograd traces the backward together with the forward, when the compiled function is first
called: an error of the backward (a tensor saved for it modified in place) is raised by the forward
call, as BackendCompilerFailed, after an anomaly-mode warning, even when no backward ever runs. Eager
raises only in backward, as RuntimeError. torch 2.13.0 CPU. Run: python backward_errors_at_forward.py"""
import warnings

import torch


def f(x):
    y = x.exp()   # exp saves its output
    y.mul_(2)     # ... which is modified in place: its backward would fail
    return y


def run(fn):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            y = fn(x)
            out = f"forward runs: {y}"
        except Exception as e:  # noqa: BLE001
            out = f"forward raises {type(e).__name__}: {str(e).splitlines()[0]} / {str(e).splitlines()[1][:90]}"
    return out + f"; warnings: {[str(w.message).splitlines()[0] for w in caught]}"


print(f"  {'eager:':21} {run(f)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
