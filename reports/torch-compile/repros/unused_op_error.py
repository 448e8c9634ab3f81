"""An op whose result is not used and that raises in eager (mismatched dtypes, an index out of range)
raises nothing when the function is compiled with AOTAutograd: the op is dropped as dead code.
torch 2.13.0 CPU. Run: python unused_op_error.py"""
import torch


def unused_matmul(a, b):
    a @ b  # float32 @ float64: eager raises
    return a + 1


def unused_index_select(x, idx):
    x.index_select(0, idx)  # index 3 of 3 elements: eager raises
    return x + 1


def run(f, *args):
    try:
        return repr(f(*args).tolist())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for f, args in ((unused_matmul, (torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))),
                (unused_index_select, (torch.tensor([0.5, -0.5, 1.5]), torch.tensor([3])))):
    print(f.__name__)
    print(f"  {'eager:':21} {run(f, *args)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend), *args)}")
