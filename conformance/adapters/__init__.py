"""Thin adapters that let the catalog's torch-style scenarios reach other autograd engines.

Each module here exposes ``namespace``: an object with torch's names (``tensor``, ``Tensor``,
``float32``, ``autograd``, ...) that forward to the engine's own API. ``--impl mygrad``,
``--impl tinygrad`` and ``--impl micrograd`` name them (``implementations.ADAPTERS``);
``pip install .[peers]`` installs the engines. What the adapters share is in ``_wrapping``.

The rules every adapter follows (``docs/writing-an-adapter.md`` explains them for authors):

* translate names and calling conventions only: a torch name reaches the engine's equivalent,
  a torch keyword the engine's spelling of it;
* never forge a behaviour the engine lacks: a torch name without an equivalent stays missing,
  so the suite reports it ``unsupported`` in torch's spelling; an argument the engine cannot
  express raises ``NotImplementedError`` from the adapter's function, which the suite reports
  the same way;
* keep identity: one wrapper per engine object while it lives, so ``a is b`` on the wrappers
  says what it says on the engine's objects;
* never look at which case is running.

An adapter imports its engine when it is imported; without the engine installed, ``--impl``
stops with one line naming what to install.

``torch_compile`` (``--impl torch-compile``, ``torch-compile-aot-eager``, ``torch-compile-eager``,
``torch-compile-compiled-autograd``) is no adapter of another engine either: it is torch whose
scenarios run under ``torch.compile`` (through the run hook, ``regions`` rewriting each scenario),
judged against eager torch.

``canary`` (``--impl canary``) is not an adapter of another engine: it is torch with one deliberate
fault per aspect, which ``tests/test_canary.py`` requires the judge to catch (see its docstring).
"""
