"""Clock: simulated seconds, shared by a workload and the engine it drives.

Engines are single-threaded and deterministic, so "background" work cannot run beside the foreground for real.
Instead an engine computes a background job (a flush, a compaction, a page-cleaner pass) when it starts, asks the
clock how long the job takes (``job_duration``), and makes the result visible only once ``now`` has reached the
job's end. Meanwhile foreground work advances ``now``; when the engine must wait (a write stall), it calls
``wait_until`` and the waited time is recorded as a stall.

``job_duration`` *submits* the job to the device's background queue (``minidb.sim.background_queue``): jobs' IO runs
one job after another on the modelled device, each with the share of the device the foreground leaves it, so a job
queued behind others, or competing with a busy foreground, takes longer than its IO alone would. A job's CPU work
(optional ``work`` counts, charged by the CPU cost model) bounds it too, on a core of its own beside the other jobs': a
compaction cannot go faster than one core merges and compresses, and a flush does not wait for it to.

What the foreground leaves is measured since the previous job was submitted: the device time the foreground's steps
needed, over the time they would have taken without background work plus the time the foreground sat idle (stalled,
slowed down). A foreground that keeps the device busy leaves a job half of it (processor sharing); a stalled
foreground leaves it all, so the job that ends the stall runs at full speed.

Without a device model the clock charges nothing: background jobs finish at once and nothing ever stalls for time,
which is what unit tests of an engine's logic want.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..storage.iostats import IOCounts
from ..storage.models import DeviceModel
from .background_queue import MIN_SHARE, BackgroundQueue
from .cpu import CostModel, io_work


class Clock:
    """Simulated time in seconds; see the module docstring."""

    def __init__(self, model: DeviceModel | None = None, cost: CostModel | None = None) -> None:
        self.model = model  # device whose time IO costs, or None to charge nothing
        self.cost = cost  # CPU cost model for background jobs' work, or None to charge only their IO
        self.now = 0.0  # simulated seconds since the start
        self.stalled = 0.0  # seconds spent in wait_until (write stalls)
        self.stalls = 0  # number of waits that took time
        self.stall_log: list[tuple[float, float]] = []  # (start, end) of every wait that took time
        self.background = BackgroundQueue()  # background jobs on the device
        self.foreground_utilization = 0.0  # device fraction the foreground used, as of the last job submitted
        self.declared_io = IOCounts()  # IO of every job submitted through job_duration
        self.declared_work: Counter = Counter()  # CPU work counts of those jobs
        self._window = [0.0, 0.0, 0.0, 0.0]  # since the last job: start time, fg device, fg alone and actual seconds

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` of foreground work."""
        if seconds < 0:
            raise ValueError(f"time cannot go backwards: advance({seconds})")
        self.now += seconds

    def wait_until(self, t: float) -> None:
        """Stall the foreground until time ``t`` (no-op if ``t`` has passed); the wait is counted as a stall."""
        if t > self.now:
            self.stall_log.append((self.now, t))
            self.stalled += t - self.now
            self.stalls += 1
            self.now = t

    def record_foreground(self, device_seconds: float, alone_seconds: float, actual_seconds: float) -> None:
        """Note a foreground step: the device time it needed, the time it would have taken with no background work,
        and the time it took (the simulator calls this after each step)."""
        w = self._window
        w[1] += device_seconds
        w[2] += alone_seconds
        w[3] += actual_seconds

    def utilization(self) -> float:
        """The device fraction the foreground used since the last job (see the module docstring)."""
        start, device, alone, actual = self._window
        idle = max(0.0, (self.now - start) - actual)  # stalls, slowdowns and gaps between steps
        total = alone + idle
        return device / total if total > 0 else self.foreground_utilization

    def job_duration(self, io: IOCounts, work: Mapping[str, float] | None = None) -> float:
        """Submit a background job doing ``io`` (and CPU ``work``, unit -> count) now; return the seconds from
        ``now`` until it has finished (0 without a model)."""
        return self.job_span(io, work)[1] - self.now

    def job_span(self, io: IOCounts, work: Mapping[str, float] | None = None) -> tuple[float, float]:
        """Submit a background job as ``job_duration`` does; return the simulated seconds it starts (after the
        jobs queued before it) and ends: (now, now) without a model."""
        self.declared_io = self.declared_io + io
        if work:
            self.declared_work.update(work)
        if self.model is None:
            return self.now, self.now
        device = self.model.busy_time(io)
        cpu = 0.0
        if self.cost is not None:
            cpu = self.cost.seconds(work or {}) + self.cost.seconds(io_work(io))
        self.foreground_utilization = self.utilization()
        self._window = [self.now, 0.0, 0.0, 0.0]
        share = min(1.0, max(MIN_SHARE, 1.0 - self.foreground_utilization))
        job = self.background.submit(self.now, device, cpu, share)
        return job.start, job.end
