"""Two checks eager makes on a tensor that requires grad are not made under torch.compile (any
backend): Tensor.numpy() and register_post_accumulate_grad_hook on a non-leaf.
torch 2.13.0 CPU. Run: python missing_tensor_checks.py"""
import torch


def to_numpy(x):
    return x.numpy()


def post_accumulate_hook_on_nonleaf(x):
    y = x * 2
    y.register_post_accumulate_grad_hook(lambda p: None)
    return y


def run(f):
    try:
        return repr(f(torch.ones(2, requires_grad=True)))
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for f in (to_numpy, post_accumulate_hook_on_nonleaf):
    print(f.__name__)
    print(f"  {'eager:':21} {run(f)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
