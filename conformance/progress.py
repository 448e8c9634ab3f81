"""Progress display for long runs.

On a terminal: one line rewritten in place with the count done, the outcome counts so far and
the item that just finished. Elsewhere (CI logs): one line per item that does not pass, and a
count every 10% of the run, so a log shows what went wrong as soon as it happens. Every text that
comes from the implementation is shown escaped and cut (``bounds.for_console``): it cannot move
the cursor, clear the screen or flood the log.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

from .bounds import for_console
from .item import label_of

GOOD = ("pass", "xfail", "skip", "n/a")


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.stream = stream or sys.stderr
        try:
            self.live = self.stream.isatty() if live is None else live
        except (AttributeError, ValueError):
            self.live = False
        self.started = time.monotonic()
        self._next_milestone = 0.1

    def update(self, record: dict) -> None:
        self.done += 1
        self.counts[record["outcome"]] += 1
        label = label_of(record["id"], record["device"], record.get("dtype", ""), record.get("several_dtypes", False))
        if self.live:
            width = 100
            line = f"[{self.done}/{self.total}] {self._counts()} {label}"
            self._write("\r" + line[:width].ljust(width))
        else:
            if record["outcome"] not in GOOD:
                self._write(f"{record['outcome'].upper()} {label}: {for_console(record.get('detail', ''))}\n")
            if self.total and self.done / self.total >= self._next_milestone:
                self._next_milestone += 0.1
                self._write(f"[{self.done}/{self.total}] {self._counts()}\n")

    def _counts(self) -> str:
        return " ".join(f"{name} {count}" for name, count in sorted(self.counts.items()))

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken console must not end the run
            pass

    def close(self, interrupted: bool = False) -> None:
        if self.live:
            self._write("\n")
        elapsed = time.monotonic() - self.started
        done = f"interrupted: {self.done} of {self.total}" if interrupted else f"{self.done}"
        self._write(f"{done} items in {elapsed:.1f} s: {self._counts() or 'nothing run'}\n")
