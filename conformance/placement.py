"""Where each side runs an item: the implementation on another device than the reference.

``--impl NAME@DEVICE`` names an implementation and the device its side runs every item on, while
the reference, torch, runs each item on the CPU. ``--impl torch@cuda`` is torch on CUDA judged
against torch on the CPU by the whole catalog; any device torch knows by name works the same way:
a PrivateUse1 backend as ``privateuseone`` or under the name its extension gave it
(``torch.utils.rename_privateuse1_backend``), with an index where the device has several
(``torch@cuda:1``). ``NAME`` is any implementation ``--impl`` takes (``myautograd@cuda``).

What the device changes, module by module:

* requests: the implementation's side is asked to run each item on ``DEVICE``
  (``Placement.device_for``, used by ``pool.SideWorker.send``): its ``rec.device`` is ``DEVICE``,
  so every tensor a scenario makes with ``device=rec.device`` is made there;
* start-up: the implementation's worker checks, in a child of its own, that the namespace knows
  the name (``namespace.device(DEVICE)``: an unknown name is a usage error, exit status 2), that
  the device can be used (else each item is ``skip`` with the reason and the run is incomplete,
  exit status 5), and how its tensors name it (``str(tensor.device)``, ``cuda:0`` for ``cuda``);
  its ready message says so (``placed_on``, see ``worker``);
* judging: the implementation's device, as its tensors name it, reads as the reference's
  (``normalize.device_rules``), so that only a tensor on an unexpected device differs, a tensor
  left on the CPU included;
* planning: only the cases that run on every device run (``Placement.skip_reason``); a case tied
  to some devices is ``skip`` with the reason, listed even where it has no CPU item
  (``Placement.tied_items``);
* the reference's device is the CPU: ``--device`` may name only ``cpu``
  (``Placement.check_reference_devices``).

This module imports neither torch nor the implementation; the judging process uses it as the
workers do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .case import ALL_DEVICES, Case
from .item import Item

SEPARATOR = "@"
REFERENCE_DEVICE = "cpu"
# A device as torch spells it: a type name, and an index where there are several.
_DEVICE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?::[0-9]{1,4})?")


class PlacementError(ValueError):
    """A device for the implementation that cannot be asked for: one line saying why."""


@dataclass(frozen=True)
class Placement:
    """``implementation``: the name of the implementation without its device (what its workers
    import); ``device``: the device its side runs every item on, None where each item runs on its
    own device on both sides (the usual run)."""

    implementation: str
    device: str | None = None

    @classmethod
    def of(cls, name: str) -> Placement:
        """The placement ``--impl name`` asks for (``torch@cuda``); a bad device is a PlacementError."""
        implementation, separator, device = name.partition(SEPARATOR)
        if not separator:
            return cls(name)
        if not implementation:
            raise PlacementError(f"--impl {name}: no implementation before {SEPARATOR!r} (expected NAME{SEPARATOR}DEVICE, "
                                 f"such as torch{SEPARATOR}cuda)")
        if not _DEVICE.fullmatch(device):
            raise PlacementError(f"--impl {name}: {device!r} is not a device name (expected NAME{SEPARATOR}DEVICE, "
                                 f"such as torch{SEPARATOR}cuda, torch{SEPARATOR}cuda:1 or torch{SEPARATOR}privateuseone)")
        if device.partition(":")[0] == REFERENCE_DEVICE:
            raise PlacementError(f"--impl {name}: the reference runs on the CPU; the implementation's device must "
                                 f"be another one (or leave out {SEPARATOR}{device})")
        return cls(implementation, device)

    def device_for(self, side: str, item_device: str) -> str:
        """The device ``side`` runs an item of ``item_device`` on."""
        return self.device if self.device is not None and side == "implementation" else item_device

    def check_reference_devices(self, devices: tuple[str, ...]) -> None:
        """A PlacementError unless the devices asked for (``--device``) can be the reference's."""
        others = [device for device in devices if device != REFERENCE_DEVICE]
        if self.device is not None and others:
            raise PlacementError(f"--device {','.join(devices)}: with the implementation on {self.device}, the "
                                 f"reference runs on the CPU only (leave --device out, or give --device "
                                 f"{REFERENCE_DEVICE})")

    def reference_devices(self, asked: tuple[str, ...] | None) -> tuple[str, ...]:
        """The items' devices: those asked for, else the CPU where the implementation has a device of
        its own, else every device."""
        if asked is not None:
            self.check_reference_devices(asked)
            return asked
        return (REFERENCE_DEVICE,) if self.device is not None else ALL_DEVICES

    def skip_reason(self, case: Case, item_device: str) -> str | None:
        """Why an item of ``case`` on ``item_device`` does not run with this placement, or None when it
        runs: a case tied to some devices cannot compare the implementation on its device with the
        reference on the CPU (the CPU-only cases check the CPU's own arithmetic or NumPy's memory, the
        CUDA-only ones place tensors on the CPU beside CUDA themselves); an item of another device
        than the CPU has no reference here."""
        if self.device is None:
            return None
        if not set(ALL_DEVICES) <= set(case.devices):
            return (f"the case runs on {', '.join(case.devices)} only: it checks behaviour of that device, or places "
                    f"tensors on several devices itself, so it cannot compare the implementation on {self.device} "
                    f"with the reference on the CPU")
        if item_device != REFERENCE_DEVICE:
            return (f"with the implementation on {self.device}, the reference runs on the CPU only: the case's "
                    f"{REFERENCE_DEVICE} item runs, not its {item_device} item")
        return None

    def tied_items(self, cases, devices: tuple[str, ...]) -> list[Item]:
        """For a run on ``devices`` with the implementation on a device of its own, an item of each
        case that has none on ``devices`` (a CUDA-only case), so that the reports list it as ``skip``
        with the reason instead of leaving it out; none for a usual run."""
        if self.device is None:
            return []
        return [Item(case, case.devices[0], dtype) for case in cases
                if not any(case.runs_on(device) for device in devices) for dtype in case.dtypes]
