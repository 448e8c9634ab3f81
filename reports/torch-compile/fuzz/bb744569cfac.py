"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 49 (the runs part here: one side raised or ended where the other went on): torch s22: gradients of t1 with respect to t0, t6 raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]] is at version 9; expected ve…

Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 1 --level api --max-steps 20 (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (bb744569cfac)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_bb744569cfac(torch, rec):
    F = torch.nn.functional
    t0 = torch.tensor([-1.0, 1.0, 0.5], dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t1 = t0.amax(dim=-1, keepdim=False)'):
        t1 = t0.amax(dim=-1, keepdim=False)
        rec('t1', t1)
    with rec.attempt('s2: t0.tolist()'):
        rec('t0.tolist()', t0.tolist())
    with rec.attempt('s3: t2 = 3 - t0'):
        t2 = 3 - t0
        rec('t2', t2)
    with rec.attempt('s4: t3 = t1 ** 2'):
        t3 = t1 ** 2
        rec('t3', t3)
    with rec.attempt('s5: t2.sum().backward(retain_graph=True, inputs=[t0])'):
        t2.sum().backward(retain_graph=True, inputs=[t0])
        rec('t0.grad', t0.grad)
    with rec.attempt('s6: Adam(lr=0.1, betas=(0.8, 0.9), eps=0.1, weight_decay=0, amsgrad=True) steps on t0'):
        opt = torch.optim.Adam([t0], lr=0.1, betas=(0.8, 0.9), eps=0.1, weight_decay=0, amsgrad=True)
        opt.step()
        for p in [t0]:
            if p.grad is not None:
                p.grad.mul_(-0.5)
        opt.step()
        for p in [t0]:
            if p.grad is not None:
                p.grad.mul_(0.25)
        opt.step()
        rec('t0', t0, version=True)
        rec('t0.grad', t0.grad)
    with rec.attempt('s7: t4 = t2.view(-1)'):
        t4 = t2.view(-1)
        rec('t4', t4)
    with rec.attempt('s8: t5 = t4.detach()'):
        t5 = t4.detach()
        rec('t5', t5, version=True)
    with rec.attempt('s9: AdamW(lr=0.1, betas=(0.8, 0.9), eps=1e-08, weight_decay=0, amsgrad=False) steps on t0'):
        opt = torch.optim.AdamW([t0], lr=0.1, betas=(0.8, 0.9), eps=1e-08, weight_decay=0, amsgrad=False)
        opt.step()
        for p in [t0]:
            if p.grad is not None:
                p.grad.mul_(-0.5)
        opt.step()
        for p in [t0]:
            if p.grad is not None:
                p.grad.mul_(0.25)
        opt.step()
        rec('t0', t0, version=True)
        opt.zero_grad()
        rec('t0.grad', t0.grad)
    with rec.attempt('s10: t4.sum().backward(retain_graph=True)'):
        t4.sum().backward(retain_graph=True)
        rec('t0.grad', t0.grad)
    t6 = torch.tensor(1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s11: t7 = t6.sum()'):
        t7 = t6.sum()
        rec('t7', t7)
    with rec.attempt('s12: t8 = t7 / -1.5'):
        t8 = t7 / -1.5
        rec('t8', t8)
    with rec.attempt('s13: an exception leaves the block torch.no_grad()'):
        with torch.no_grad():
            raise ValueError('leaving the block')
    rec('torch.is_grad_enabled() after the block', torch.is_grad_enabled())
    with rec.attempt('s14: t8.sum().backward()'):
        t8.sum().backward()
        rec('t0.grad', t0.grad)
        rec('t6.grad', t6.grad)
    with rec.attempt('s15: SGD(lr=0.1, momentum=0.9, dampening=0, nesterov=True, weight_decay=0.1) steps on t6'):
        opt = torch.optim.SGD([t6], lr=0.1, momentum=0.9, dampening=0, nesterov=True, weight_decay=0.1)
        opt.step()
        for p in [t6]:
            if p.grad is not None:
                p.grad.mul_(-0.5)
        opt.step()
        for p in [t6]:
            if p.grad is not None:
                p.grad.mul_(0.25)
        opt.step()
        rec('t6', t6, version=True)
        opt.zero_grad()
        rec('t6.grad', t6.grad)
    with rec.attempt('s16: t8.sum().backward(retain_graph=True)'):
        t8.sum().backward(retain_graph=True)
        rec('t0.grad', t0.grad)
        rec('t6.grad', t6.grad)
    with rec.attempt('s17: SGD(lr=0.1, momentum=0, dampening=0.5, nesterov=False, weight_decay=0.1) steps on t0, t6'):
        opt = torch.optim.SGD([t0, t6], lr=0.1, momentum=0, dampening=0.5, nesterov=False, weight_decay=0.1)
        opt.step()
        for p in [t0, t6]:
            if p.grad is not None:
                p.grad.mul_(-0.5)
        opt.step()
        for p in [t0, t6]:
            if p.grad is not None:
                p.grad.mul_(0.25)
        opt.step()
        rec('t0', t0, version=True)
        rec('t6', t6, version=True)
        opt.zero_grad()
        rec('t0.grad', t0.grad)
        rec('t6.grad', t6.grad)
    t9 = torch.tensor([3.7, 4.6, -3.7], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s18: t10 = F.softplus(t9)'):
        t10 = F.softplus(t9)
        rec('t10', t10)
    with rec.attempt('s19: t11 = F.leaky_relu(t10, 0.25)'):
        t11 = F.leaky_relu(t10, 0.25)
        rec('t11', t11)
    with rec.attempt('s20: t6.grad = None'):
        t6.grad = None
        rec('t6.grad', t6.grad)
    t12 = torch.tensor([0.0, -0.0, -1.0], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s21: t13 = leaky_relu: F.leaky_relu(x, negative_slope=0.2)'):
        t13 = (lambda x: F.leaky_relu(x, negative_slope=0.2))(t12)
        rec('t13', t13)
    with rec.attempt('s22: gradients of t1 with respect to t0, t6'):
        grads = torch.autograd.grad(t1, [t0, t6], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt1/dt0', grads[0])
        rec('dt1/dt6', grads[1])
    with rec.attempt('s23: gradients of t2 with respect to t0, t6'):
        grads = torch.autograd.grad(t2, [t0, t6], grad_outputs=torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt2/dt0', grads[0])
        rec('dt2/dt6', grads[1])
    with rec.attempt('s24: gradients of t3 with respect to t0, t6'):
        grads = torch.autograd.grad(t3, [t0, t6], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt3/dt0', grads[0])
        rec('dt3/dt6', grads[1])
    with rec.attempt('s25: gradients of t4 with respect to t0, t6'):
        grads = torch.autograd.grad(t4, [t0, t6], grad_outputs=torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt4/dt0', grads[0])
        rec('dt4/dt6', grads[1])
    with rec.attempt('s26: gradients of t7 with respect to t0, t6'):
        grads = torch.autograd.grad(t7, [t0, t6], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt7/dt0', grads[0])
        rec('dt7/dt6', grads[1])
    with rec.attempt('s27: gradients of t8 with respect to t0, t6'):
        grads = torch.autograd.grad(t8, [t0, t6], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt8/dt0', grads[0])
        rec('dt8/dt6', grads[1])
    with rec.attempt('s28: t8.sum().backward()'):
        t8.sum().backward()
        rec('t0.grad', t0.grad)
        rec('t6.grad', t6.grad)
    rec('t0.grad', t0.grad)
    rec('t6.grad', t6.grad)
