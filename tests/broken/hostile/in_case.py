"""Hostile while a case runs: makes the attack named after the running case (see ``attacks.py``).

Everything else is torch. Also, reading ``Size`` from the namespace raises (the harness reads it
for every case and must not care), and ``__version__``'s ``str()`` raises.
"""

import json
import os
import signal
import sys
import time

import torch as _torch

_IMPORT_PID = os.getpid()
_done = set()
PIDFILE_DIR = os.environ.get("HOSTILE_PIDFILES", "/tmp")


class _Version:
    def __str__(self):
        raise ValueError("no version for you")


__version__ = _Version()
__conformance_module__ = "torch"


def _running_attack():
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").endswith("hostile.attacks") and frame.f_code.co_name in ATTACKS:
            return frame.f_code.co_name
        frame = frame.f_back
    return None


def _write_pid(name):
    with open(os.path.join(PIDFILE_DIR, f"{name}.pid"), "w") as handle:
        handle.write(str(os.getpid()))


def _forged_lines():
    forged = [{"seq": n, "token": "0" * 32, "case": "attacks.plain", "device": "cpu", "dtype": "float32",
               "timeout": 1.0, "memory_mib": 1, "side": {"status": "completed", "steps": [], "duration": 0.0}}
              for n in range(1, 40)]
    return ("{}\n" + "".join(json.dumps(f) + "\n" for f in forged)).encode()


def forge_everywhere():
    payload = _forged_lines()
    for fd in range(0, 1024):
        try:
            os.write(fd, payload)
        except OSError:
            pass


def forge_to_worker():
    payload = _forged_lines()
    parent = os.getppid()
    for name in os.listdir(f"/proc/{parent}/fd"):
        try:
            fd = os.open(f"/proc/{parent}/fd/{name}", os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, payload)
            os.close(fd)
        except OSError:
            pass


def close_fds_and_hang():
    os.closerange(0, 4096)
    while True:
        time.sleep(60)


def grandchild_holds_pipe():
    if os.fork() == 0:
        _write_pid("grandchild_holds_pipe")
        while True:
            time.sleep(60)
    time.sleep(0.3)


def grandchild_escapes():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            _write_pid("grandchild_escapes")
            while True:
                time.sleep(60)
        os._exit(0)
    time.sleep(0.2)


def kill_group():
    os.killpg(0, signal.SIGKILL)


def kill_parent():
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)


def print_flood():
    block = "x" * (1 << 20)
    for _ in range(100):
        print(block, end="")
    for fd in (1, 2):
        try:
            for _ in range(100):
                os.write(fd, block.encode())
        except OSError:
            pass


def huge_message():
    raise RuntimeError("\x1b[2J\x1b[31mred\rover\x00" + "m" * (1 << 20))


def allocate_4gb():
    import numpy

    numpy.ones(1 << 29)  # 4 GiB of float64


class _BadStr(Exception):
    def __str__(self):
        raise RuntimeError("str of this exception raises")


def str_raises():
    raise _BadStr()


def deep_grad():
    nested = 1.0
    for _ in range(400):
        nested = [nested]
    _torch.Tensor.grad = property(lambda self: nested)


def bigint_values():
    _torch.Tensor.tolist = lambda self: [10 ** 5000]


ATTACKS = {name: value for name, value in dict(globals()).items()
           if callable(value) and not name.startswith("_") and name not in ("ATTACKS",)}


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if name == "Size":
        raise RuntimeError("reading Size raises here")
    if os.getpid() != _IMPORT_PID:
        attack = _running_attack()
        if attack is not None and attack not in _done:
            _done.add(attack)
            ATTACKS[attack]()
    return getattr(_torch, name)
