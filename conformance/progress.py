"""Progress display for long runs.

On a terminal: one line rewritten in place with the count done, the outcome counts so far and
the item that just finished. Elsewhere (CI logs): one line per item that does not pass, and a
count every 10% of the run, so a log shows what went wrong as soon as it happens.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TextIO

GOOD = ("pass", "xfail", "skip")


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.monotonic()
        self._next_milestone = 0.1

    def update(self, record: dict) -> None:
        self.done += 1
        self.counts[record["outcome"]] += 1
        label = f"{record['id']}[{record['device']}]"
        if self.live:
            width = 100
            line = f"[{self.done}/{self.total}] {self._counts()} {label}"
            self.stream.write("\r" + line[:width].ljust(width))
        else:
            if record["outcome"] not in GOOD:
                self.stream.write(f"{record['outcome'].upper()} {label}: {record.get('detail', '')}\n")
            if self.total and self.done / self.total >= self._next_milestone:
                self._next_milestone += 0.1
                self.stream.write(f"[{self.done}/{self.total}] {self._counts()}\n")
        self.stream.flush()

    def _counts(self) -> str:
        return " ".join(f"{name} {count}" for name, count in sorted(self.counts.items()))

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
        elapsed = time.monotonic() - self.started
        self.stream.write(f"{self.done} items in {elapsed:.1f} s: {self._counts() or 'nothing run'}\n")
        self.stream.flush()
