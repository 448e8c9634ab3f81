"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 1: t0.grad: requires_grad: torch False / implementation True

Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 2 --level api --max-steps 20 (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (6cd34173b117)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_6cd34173b117(torch, rec):
    t0 = torch.tensor(-1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t0.sum().backward(create_graph=True, inputs=[t0])'):
        t0.sum().backward(create_graph=True, inputs=[t0])
        rec('t0.grad', t0.grad)
    rec('t0.grad', t0.grad)
