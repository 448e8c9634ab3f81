"""Inductor: two compiled functions that call torch.func.jacfwd on the same function, the second with argnums=1:
the second call kills the process with SIGSEGV. Eager, and the eager and aot_eager backends, give the Jacobians.
Each variant runs in a child process of its own, since the crash ends the process.
torch 2.13.0 CPU. Run: python inductor_jacfwd_crash.py"""
import subprocess
import sys

import torch


def f(a, b):
    return torch.stack([a[0] * a[1], a[2] * b[0] + b[1] ** 2])


def jacobian_in_a(x, y):
    return torch.func.jacfwd(f)(x, y)


def jacobian_in_b(x, y):
    return torch.func.jacfwd(f, argnums=1)(x, y)


def child(backend):
    wrap = (lambda g: g) if backend == "none" else (lambda g: torch.compile(g, backend=backend))
    x, y = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, -1.0])
    first = wrap(jacobian_in_a)(x, y)
    second = wrap(jacobian_in_b)(x, y)
    print([first.tolist(), second.tolist()], flush=True)


if len(sys.argv) > 1:
    child(sys.argv[1])
else:
    print("jacfwd(f)(x, y), then jacfwd(f, argnums=1)(x, y), each in a compiled function of its own")
    for backend in ("none", "eager", "aot_eager", "inductor"):
        done = subprocess.run([sys.executable, __file__, backend], capture_output=True, text=True)
        out = done.stdout.strip() or f"the process ended with exit status {done.returncode}"
        if done.returncode < 0:
            out = f"the process was killed by signal {-done.returncode} (SIGSEGV is 11)"
        name = "eager:" if backend == "none" else f"compiled {backend}:"
        print(f"  {name:21} {out}")
