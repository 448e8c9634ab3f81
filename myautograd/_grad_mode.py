"""Grad modes: whether operations are recorded for backward, per thread.

``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode`` and
``set_multithreading_enabled`` work as context managers and as decorators, as torch's do.
``STATE`` is read on every operation, so it is a thread-local object with plain attributes.
"""

from __future__ import annotations

import functools
import inspect
import threading


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.grad_enabled = True
        self.inference = False
        self.multithreading = True  # set_multithreading_enabled's flag: myautograd's backward uses one thread
        self.grad_layout_enforced = True  # enforce_grad_layout_policy's flag (accumulate.py reads it)


STATE = _ThreadState()


def is_grad_enabled() -> bool:
    return STATE.grad_enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _DecoratorContextManager:
    """Base for grad-mode context managers that can also decorate functions and generators."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is deprecated and will be disabled in future versions. "
                               "You should only decorate functions or methods. To preserve the current "
                               "behavior of class decoration, you can directly decorate the `__init__` method "
                               "and nothing else.")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            return generator

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _GradModeBlock(_DecoratorContextManager):
    """Sets grad mode to ``enabled`` for a block, then restores it."""

    enabled = True

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = STATE.grad_enabled
        STATE.grad_enabled = self.enabled

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled = self.prev


class no_grad(_GradModeBlock):
    """Context manager and decorator that disables recording operations for backward."""

    enabled = False


class enable_grad(_GradModeBlock):
    """Context manager and decorator that enables recording, e.g. inside ``no_grad``."""

    enabled = True


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off: as a function call, a context manager or a decorator."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {type(mode).__name__}")
        self.prev = STATE.grad_enabled
        self.mode = mode
        STATE.grad_enabled = mode

    def __call__(self, func):
        STATE.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        STATE.grad_enabled = self.mode

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors created inside are inference tensors."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self.prev = (True, False)

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as a bare decorator: @inference_mode

    def __enter__(self) -> None:
        self.prev = (STATE.grad_enabled, STATE.inference)
        STATE.grad_enabled = not self.mode
        STATE.inference = self.mode

    def __exit__(self, *exc) -> None:
        STATE.grad_enabled, STATE.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Whether a leaf's first gradient must obey the gradient layout contract (its parameter's strides):
    with False, a gradient the engine owns is adopted as it is laid out, as torch's engine steals it.
    From the call (or the block) on; decorating a function sets it for the function's calls only."""

    def __init__(self, enable: bool = True) -> None:
        self.prev = STATE.grad_layout_enforced
        self.mode = enable
        STATE.grad_layout_enforced = enable

    def __call__(self, func):
        STATE.grad_layout_enforced = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        STATE.grad_layout_enforced = self.prev

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_DecoratorContextManager):
    """Sets whether backward may run on device worker threads, from the call (or the block) on, as
    torch's does; myautograd's engine always runs on the calling thread, so only the flag changes."""

    def __init__(self, mode: bool) -> None:
        self.prev = STATE.multithreading
        self.mode = mode
        STATE.multithreading = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        STATE.multithreading = self.prev

    def clone(self):
        return self.__class__(self.mode)
