"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 5 (the runs part here: one side raised or ended where the other went on): torch observed 'dt1/dt0' at line 11: rec('dt1/dt0', grads[0]) / implementation s3: gradients of t1 with respect to t0 raised RuntimeError: Trying to backward through the graph a second time (or directly access saved tens…

Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 2 --level api --max-steps 20 (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (686c27f08fa8)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_686c27f08fa8(torch, rec):
    t0 = torch.tensor(-1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t1 = t0.sum()'):
        t1 = t0.sum()
        rec('t1', t1)
    with rec.attempt('s2: t1.sum().backward()'):
        t1.sum().backward()
        rec('t0.grad', t0.grad)
    with rec.attempt('s3: gradients of t1 with respect to t0'):
        grads = torch.autograd.grad(t1, [t0], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt1/dt0', grads[0])
    with rec.attempt('s4: t1.sum().backward()'):
        t1.sum().backward()
        rec('t0.grad', t0.grad)
    rec('t0.grad', t0.grad)
