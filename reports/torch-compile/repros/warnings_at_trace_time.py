"""A warning an op issues (KLDivLoss's reduction='mean'): eager issues it at every call; a function
compiled with AOTAutograd issues it while compiling, from torch's compiler modules (several times),
and never again when it runs. torch 2.13.0 CPU. Run: python warnings_at_trace_time.py"""
import warnings

import torch


def kl(x, t):
    return torch.nn.KLDivLoss()(x, t)


def calls(fn):
    x, t = torch.tensor([[-1.0, -2.0]]), torch.tensor([[0.5, 0.5]])
    out = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(x, t)
        out.append([f"{w.filename.split('site-packages/')[-1]}:{w.lineno}" for w in caught])
    return f"call 1 warns from {out[0]}; call 2 from {out[1]}"


print(f"  {'eager:':21} {calls(kl)}")
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()
    print(f"  {'compiled ' + backend + ':':21} {calls(torch.compile(kl, backend=backend))}")
