"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 45 (the runs part here): torch observed 'dt13/dt0' at line 81: rec('dt13/dt0', grads[0]) / implementation observed 'Fn0.backward: the gradient of the non-differentiable output' at line 13: rec('Fn0.backward: the gradient of the non-differentiable output', grad_sign)

Shrunk by hypothesis in 106 runs, from 33 steps to 27.
Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 1 --level api --max-steps 20 --shrinker hypothesis (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (d39f14cb24ba)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_d39f14cb24ba(torch, rec):
    t0 = torch.tensor(-1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: class Fn0(torch.autograd.Function)'):
        class Fn0(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                sign = a.sign()
                ctx.mark_non_differentiable(sign)
                return a * 2, sign
        
            @staticmethod
            def backward(ctx, grad, grad_sign):
                rec('Fn0.backward: the gradient of the non-differentiable output', grad_sign)
                return grad * 2
    with rec.attempt('s2: t1, t2 = Fn0.apply(t0)'):
        t1, t2 = Fn0.apply(t0)
        rec('t1', t1)
        rec('t2', t2)
    t3 = torch.tensor(-1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s3: t4, = torch.autograd.grad(t3 * t3, [t3], grad_outputs=torch.stack([torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), torch.tensor(0.25, dtype=rec.float_dtype, device=rec.device)]), is_grads_batched=True)'):
        t4, = torch.autograd.grad(t3 * t3, [t3], grad_outputs=torch.stack([torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), torch.tensor(0.25, dtype=rec.float_dtype, device=rec.device)]), is_grads_batched=True)
        rec('t4', t4)
    with rec.attempt('s4: t5 = t4[1:]'):
        t5 = t4[1:]
        rec('t5', t5)
    with rec.attempt('s5: t6 = t0.detach()'):
        t6 = t0.detach()
        rec('t6', t6, version=True)
    with rec.attempt('s6: t7 = torch.add(t0, t0)'):
        t7 = torch.add(t0, t0)
        rec('t7', t7)
    with rec.attempt('s7: t8 = torch.add(t0, t0)'):
        t8 = torch.add(t0, t0)
        rec('t8', t8)
    with rec.attempt('s8: t0.retain_grad()'):
        t0.retain_grad()
    with rec.attempt('s9: t9 = torch.add(t0, t0)'):
        t9 = torch.add(t0, t0)
        rec('t9', t9)
    with rec.attempt('s10: t0.register_hook(lambda g: g * 2)'):
        t0.register_hook(lambda g: g * 2)
    with rec.attempt('s11: t10 = torch.add(t0, t0)'):
        t10 = torch.add(t0, t0)
        rec('t10', t10)
    with rec.attempt('s12: t11 = torch.add(t0, t0)'):
        t11 = torch.add(t0, t0)
        rec('t11', t11)
    with rec.attempt('s13: t12 = torch.add(t0, t0)'):
        t12 = torch.add(t0, t0)
        rec('t12', t12)
    with rec.attempt('s14: t0.retain_grad()'):
        t0.retain_grad()
    with rec.attempt('s15: t13 = torch.add(t0, t2)'):
        t13 = torch.add(t0, t2)
        rec('t13', t13)
    with rec.attempt('s16: t14 = t5.neg()'):
        t14 = t5.neg()
        rec('t14', t14)
    with rec.attempt('s17: gradients of t8 with respect to t0, t3'):
        grads = torch.autograd.grad(t8, [t0, t3], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt8/dt0', grads[0])
        rec('dt8/dt3', grads[1])
    with rec.attempt('s18: gradients of t9 with respect to t0, t3'):
        grads = torch.autograd.grad(t9, [t0, t3], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt9/dt0', grads[0])
        rec('dt9/dt3', grads[1])
    with rec.attempt('s19: gradients of t10 with respect to t0, t3'):
        grads = torch.autograd.grad(t10, [t0, t3], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt10/dt0', grads[0])
        rec('dt10/dt3', grads[1])
    with rec.attempt('s20: gradients of t11 with respect to t0, t3'):
        grads = torch.autograd.grad(t11, [t0, t3], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt11/dt0', grads[0])
        rec('dt11/dt3', grads[1])
    with rec.attempt('s21: gradients of t12 with respect to t0, t3'):
        grads = torch.autograd.grad(t12, [t0, t3], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt12/dt0', grads[0])
        rec('dt12/dt3', grads[1])
    with rec.attempt('s22: gradients of t13 with respect to t0, t3'):
        grads = torch.autograd.grad(t13, [t0, t3], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt13/dt0', grads[0])
        rec('dt13/dt3', grads[1])
    with rec.attempt('s23: t13.sum().backward()'):
        t13.sum().backward()
        rec('t0.grad', t0.grad)
        rec('t3.grad', t3.grad)
    rec('t0.grad', t0.grad)
    rec('t3.grad', t3.grad)
