"""Per-interval throughput: what the posts plot as "inserts per 5-second interval" or "TPS at 1 s resolution".

A run is a sequence of steps (a commit of 1000 inserts, a batch of transactions), each placed on the simulated
timeline by the simulator, and a list of stalls (periods the foreground waited for the engine's background work).
``intervals`` cuts the timeline into fixed-width intervals and counts in each the operations done (a step's
operations are spread evenly over its duration) and the stalls begun there. A stall shows as an interval with
few operations: the dips that seed 001 sees at 1-second resolution and seed 000 at 5 seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .simulator import Step

COLUMNS = ["start", "ops", "ops_per_sec", "stalls", "stalled_seconds"]


def intervals(steps: Iterable[Step], stalls: Iterable[tuple[float, float]] = (), *, width: float = 1.0,
              start: float = 0.0, end: float | None = None):
    """A DataFrame with one row per ``width``-second interval from ``start`` to ``end`` (default: the last step's
    end): ``start`` (seconds from the beginning), ``ops``, ``ops_per_sec``, ``stalls`` begun in the interval and
    ``stalled_seconds`` spent stalled in it."""
    import pandas as pd

    if not width > 0:
        raise ValueError(f"interval width must be > 0 seconds, got {width}")
    steps = [s for s in steps if s.end > start or s.start >= start]
    stalls = [(a, b) for a, b in stalls if b > start]
    if end is None:
        end = max([s.end for s in steps] + [b for _, b in stalls] + [start])
    n = max(1, math.ceil((end - start) / width - 1e-9))
    ops = np.zeros(n)
    stall_count = np.zeros(n, dtype=np.int64)
    stalled = np.zeros(n)
    for s in steps:
        _spread(ops, s.start - start, s.end - start, s.ops, width)
    for a, b in stalls:
        i = int((max(a, start) - start) // width)
        if a >= start and i < n:
            stall_count[i] += 1
        _spread(stalled, a - start, b - start, b - a, width)
    lengths = np.minimum(width, (end - start) - np.arange(n) * width)
    lengths = np.where(lengths > 0, lengths, width)
    return pd.DataFrame({
        "start": np.arange(n) * width,
        "ops": ops,
        "ops_per_sec": ops / lengths,
        "stalls": stall_count,
        "stalled_seconds": stalled,
    }, columns=COLUMNS)


def _spread(out: np.ndarray, a: float, b: float, amount: float, width: float) -> None:
    """Add ``amount``, spread evenly over [a, b), to the intervals of ``out`` it overlaps (clipped to them)."""
    n = len(out)
    if b <= a:  # an instant: all of it in the interval holding it
        i = min(max(int(a // width), 0), n - 1)
        out[i] += amount
        return
    first, last = max(int(a // width), 0), min(int(math.ceil(b / width)), n)
    rate = amount / (b - a)
    for i in range(first, last):
        lo, hi = max(a, i * width), min(b, (i + 1) * width)
        if hi > lo:
            out[i] += rate * (hi - lo)
