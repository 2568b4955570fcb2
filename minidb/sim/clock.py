"""Clock: simulated seconds, shared by a workload and the engine it drives.

Engines are single-threaded and deterministic, so "background" work cannot run beside the foreground for real.
Instead an engine computes a background job (a flush, a compaction, a page-cleaner pass) when it starts, asks the
clock how long the job's IO takes on the modelled device (``job_duration``), and makes the result visible only
once ``now`` has reached the job's end. Meanwhile foreground work advances ``now``; when the engine must wait
(a write stall), it calls ``wait_until`` and the waited time is recorded as a stall.

Without a device model the clock charges nothing: background jobs finish at once and nothing ever stalls for time,
which is what unit tests of an engine's logic want.
"""

from __future__ import annotations

from ..storage.iostats import IOCounts
from ..storage.models import DeviceModel


class Clock:
    """Simulated time in seconds; see the module docstring."""

    def __init__(self, model: DeviceModel | None = None) -> None:
        self.model = model  # device whose time IO costs, or None to charge nothing
        self.now = 0.0  # simulated seconds since the start
        self.stalled = 0.0  # seconds spent in wait_until (write stalls)
        self.stalls = 0  # number of waits that took time

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` of foreground work."""
        if seconds < 0:
            raise ValueError(f"time cannot go backwards: advance({seconds})")
        self.now += seconds

    def wait_until(self, t: float) -> None:
        """Stall the foreground until time ``t`` (no-op if ``t`` has passed); the wait is counted as a stall."""
        if t > self.now:
            self.stalled += t - self.now
            self.stalls += 1
            self.now = t

    def job_duration(self, io: IOCounts) -> float:
        """Seconds a background job doing ``io`` keeps the device busy (0 without a model)."""
        return 0.0 if self.model is None else self.model.busy_time(io)
