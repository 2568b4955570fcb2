"""What every loader does, and the one function that drives it: ``load(loader, batches, rows) -> LoadCounts``.

A loader takes commits of (keyspace, key, value) entries with ``write`` and, at ``finish``, flushes whatever it holds
in memory, waits for its background work, and reports its counts. ``load`` times the whole of it with the wall clock,
the same way for every engine.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Protocol

from .counts import LoadCounts
from .rows import Entry


class Loader(Protocol):
    """An engine being loaded: ours or a real one."""

    name: str  # the engine's name in result tables

    def write(self, entries: list[Entry]) -> None:
        """Apply ``entries`` as one atomic commit."""

    def finish(self, rows: int, logical_bytes: int) -> LoadCounts:
        """Flush, wait for background work to end, close, and report the load's counts (``seconds`` left 0)."""


def load(loader: Loader, batches, rows: int) -> LoadCounts:
    """Write every batch of ``batches`` (``rows`` rows in all) through ``loader``, then finish it; the wall clock
    covers both."""
    logical = 0
    start = time.perf_counter()
    for entries in batches:
        loader.write(entries)
        logical += sum(len(k) + len(v) for _, k, v in entries)
    counts = loader.finish(rows, logical)
    return dataclasses.replace(counts, seconds=time.perf_counter() - start)
