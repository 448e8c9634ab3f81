"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float64, cpu): step 4: t1: values (mismatched elements: 1 / 1; greatest absolute difference 1.25 at index (); rtol=1e-12, atol=1e-12): torch 3.75 / implementation 2.5

Shrunk by hypothesis in 171 runs, from 24 steps to 7.
Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 3 --level api --max-steps 20 --shrinker hypothesis (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case


@case("A fuzzed program (388012df59b3)", doc=docs.HISTORY, dtypes=('float64',), tags=("hard",))
def fuzzed_388012df59b3(torch, rec):
    t0 = torch.tensor(-1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t1 = torch.rsub(t0, 1.5)'):
        t1 = torch.rsub(t0, 1.5)
        rec('t1', t1)
    with rec.attempt('s2: t0.register_hook(lambda g: g * 2)'):
        t0.register_hook(lambda g: g * 2)
    with rec.attempt('s3: t1.mul_(1.5)'):
        t1.mul_(1.5)
        rec('t1', t1, version=True)
    with rec.attempt('s4: gradients of t1 with respect to t0'):
        grads = torch.autograd.grad(t1, [t0], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt1/dt0', grads[0])
    with rec.attempt('s5: t1.sum().backward()'):
        t1.sum().backward()
        rec('t0.grad', t0.grad)
    rec('t0.grad', t0.grad)
