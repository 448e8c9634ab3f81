"""Running single items on demand, judged: for the pytest plugin, ``conformance show`` and tests.

A :class:`Session` keeps one worker per side (started on first use, see ``pool``) and runs one
item at a time (or locates where its gradients diverge, ``Session.locate``); the process that
holds it judges and never imports the implementation.
"""

from __future__ import annotations

from dataclasses import replace

from .item import Item, ItemRecord
from .judge import judge
from .levels import DEFAULT_LEVEL
from .locate import locate
from .pool import SIDES, Pool, PoolConfig
from .runner import DEFAULT_MEMORY_MIB, DEFAULT_TIMEOUT, merged_devices, placed_device_name


class Session:
    def __init__(self, impl: str, registry: str = "conformance.catalog:load", devices: tuple[str, ...] = ("cpu", "cuda"),
                 isolation: str = "fork", memory_mib: int = DEFAULT_MEMORY_MIB, startup_timeout: float = 120.0,
                 level: str = DEFAULT_LEVEL, extra_env: dict | None = None, set_aside_from: tuple[str, ...] = ()) -> None:
        self.set_aside_from = tuple(set_aside_from)  # warnings the judge sets aside (expectations.WarningRule)
        self.config = PoolConfig(impl=impl, jobs=1, isolation=isolation, devices=devices, registry=registry,
                                 startup_timeout=startup_timeout, memory_mib=memory_mib, extra_env=extra_env or {})
        self.level = level
        self.pool: Pool | None = None
        self.info: dict[str, dict] = {}
        self.devices: dict[str, str | None] = {}

    def start(self) -> None:
        """Start the workers (a ``pool.StartupError`` says why they could not start)."""
        if self.pool is None:
            pool = Pool(self.config)
            self.info = pool.start()
            self.pool = pool
            self.devices = merged_devices(self.info, self.config.devices, self.config.placement)

    def device_reason(self, device: str) -> str | None:
        self.start()
        return self.devices.get(device, f"device {device} was not checked")

    def observe(self, item: Item, timeout: float = DEFAULT_TIMEOUT, source: str | None = None,
                sides: tuple[str, ...] = SIDES) -> tuple[dict | None, dict | None]:
        """Both sides' results for one item (reference, implementation); ``source``: the item's case
        is a program (``case.case_from_source``) that the workers compile from this source;
        ``sides``: run it on these only (the other's result is None)."""
        self.start()
        self.pool.submit(item, timeout, source, sides=sides)
        while True:
            for _, reference, implementation in self.pool.poll():
                return reference, implementation

    def run(self, item: Item, timeout: float = DEFAULT_TIMEOUT, source: str | None = None) -> ItemRecord:
        reference, implementation = self.observe(item, timeout, source)
        return judge(item, reference, implementation, self.impl_module, self.level, self.config.memory_mib,
                     self.set_aside_from, self.impl_device)

    def locate(self, item: Item, timeout: float = DEFAULT_TIMEOUT, source: str | None = None) -> dict:
        """Where the gradients of ``item`` first diverge between the two sides (``locate``): both run
        it once more, tracing every backward call. Worth calling when the item's gradients differ
        (``locate.needs_locating`` of its record)."""
        traced = replace(item, trace=True)
        reference, implementation = self.observe(traced, timeout, source)
        return locate(traced, reference, implementation, self.impl_module, self.impl_device)

    @property
    def impl_module(self) -> str:
        return self.info.get("implementation", {}).get("module", self.config.impl)

    @property
    def impl_device(self) -> str | None:
        """The implementation's own device as its tensors name it, where it has one (``placement``)."""
        return placed_device_name(self.info)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
