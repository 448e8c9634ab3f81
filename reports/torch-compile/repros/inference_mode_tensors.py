"""Tensors made under torch.inference_mode() inside a function compiled with AOTAutograd are not
inference tensors: is_inference() is False, and what eager forbids for inference tensors (reading
_version, an in-place update outside the mode, saving one for backward) is allowed.
torch 2.13.0 CPU. Run: python inference_mode_tensors.py"""
import torch


def make(x):
    with torch.inference_mode():
        t = x * 2
    return t


def run(fn):
    t = fn(torch.ones(2))
    out = [f"is_inference() = {t.is_inference()}"]
    for label, use in (("t._version", lambda: t._version), ("t.add_(1)", lambda: t.add_(1)),
                       ("w * t", lambda: torch.ones(2, requires_grad=True) * t)):
        try:
            use()
            out.append(f"{label}: runs")
        except Exception as e:  # noqa: BLE001
            out.append(f"{label}: raises {type(e).__name__}: {str(e)[:60]}...")
    return "; ".join(out)


print(f"  {'eager:':21} {run(make)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(make, backend=backend))}")
