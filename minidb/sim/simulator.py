"""The simulator: places each step of a workload on the simulated timeline.

A workload runs in *steps*: a commit of 1000 inserts, a batch of transactions. Around each step the simulator reads
what the step did, counted IO by cause and counted CPU work, and works out how long it took on the modelled server:

1. IO with a foreground cause (``foreground``, ``eviction``, ``recovery``, ``binlog``) and the CPU work done
   (minus the work of background jobs declared to the clock) are the step's demand, with the server's own CPU for
   the step's statements and rows and its serial section for its commits and for the engine's write path
   (``minidb.sim.server``: the work the engine's ``serial_work`` counted, priced by the CPU model).
2. IO with a background cause (``flush``, ``compaction``, ``page-cleaner``, ``checkpoint``) belongs to background
   jobs. Engines declare their jobs to the clock (``Clock.job_duration``); background IO a step did beyond what was
   declared is queued as one more job.
3. The step takes what the bottleneck law says (``minidb.sim.bottleneck``): the largest of its CPU time over the
   cores, its device time, its serial section, and its unqueued response time over the clients; where background
   jobs share the device, its device time stretches (``BackgroundQueue.foreground_time``).
4. The clock advances by that duration. Stalls the engine took inside the step (``Clock.wait_until``) already moved
   it, and came first.

The step's device time, its duration without background work and its actual duration go to the clock
(``Clock.record_foreground``), from which the next background jobs get their share of the device.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..storage.device import Device
from ..storage.iostats import IOCounts
from ..storage.models import DeviceModel
from .bottleneck import Demand, Host, resource_times
from .clock import Clock
from .cpu import CostModel, io_work
from .server import ServerModel

FOREGROUND_CAUSES = ("foreground", "eviction", "recovery", "binlog")  # IO a client waits for


@dataclass(frozen=True)
class Step:
    """One step as placed on the timeline."""

    start: float  # simulated second the step's work starts (after any stall inside it)
    end: float  # simulated second it ends
    ops: int  # operations it did
    stalled: float  # seconds the engine stalled during the step (before ``start``)
    cpu_seconds: float  # foreground CPU time charged
    device_seconds: float  # foreground device time with the device to itself
    bottleneck: str  # the resource that set its duration: cpu, iops, bandwidth, latency or serial
    server_cpu_seconds: float = 0.0  # the part of cpu_seconds the server's SQL layer spent (minidb.sim.server)
    serial_seconds: float = 0.0  # its serial section
    engine_serial_seconds: float = 0.0  # the part of serial_seconds that was the engine's write path
    statements: int = 0  # SQL statements it ran
    rows: int = 0  # rows its statements passed to or from the engine


def _nonnegative(c: IOCounts) -> IOCounts:
    return IOCounts(*(max(0, v) for v in c.astuple()))


class Simulator:
    """Times the steps of one run; ``begin()`` before a step's work, ``end(ops)`` after it."""

    def __init__(self, device: Device, clock: Clock, host: Host, *, cost: CostModel | None = None,
                 work: Callable[[], Mapping[str, float]] | None = None,
                 times: Callable[[Demand, DeviceModel, Host], Mapping[str, float]] = resource_times,
                 server_model: ServerModel | None = None,
                 serial_work: Callable[[], Mapping[str, float]] | None = None) -> None:
        if clock.model is None:
            raise ValueError("the simulator needs a clock with a device model (Clock(model=...))")
        self.device = device  # whose IOStats count the steps' IO
        self.clock = clock  # the timeline, shared with the engine
        self.host = host  # cores and clients of the modelled server
        self.server_model = server_model or ServerModel.none()  # the SQL layer's and the binlog's costs
        self.cost = cost or clock.cost or CostModel()  # per-unit CPU costs
        self.work = work or dict  # returns cumulative work counts (unit -> count)
        self.serial_work = serial_work or dict  # the part of it the engine does one writer at a time (same units)
        self.times = times  # seconds per resource of a step's demand: the device model (device_time.py plugs one)
        self.steps: list[Step] = []  # every step timed so far
        self._mark: tuple | None = None  # counters at begin(), while a step is open

    def begin(self) -> None:
        """Mark the start of a step: snapshot the counters it will be measured against."""
        if self._mark is not None:
            raise ValueError("a step is already open: call end() first")
        self._mark = (self.device.stats.snapshot(), Counter(self.work()), self.clock.declared_io,
                      Counter(self.clock.declared_work), self.clock.stalled, Counter(self.serial_work()))

    def end(self, ops: int, *, statements: int = 0, rows: int = 0, commits: int = 0) -> Step:
        """Close the step that did ``ops`` operations (``statements`` SQL statements passing ``rows`` rows, and
        ``commits`` commits, for the server's costs), advance the clock by its duration, and return it."""
        if self._mark is None:
            raise ValueError("no step is open: call begin() first")
        io0, work0, declared0, declared_work0, stalled0, serial_work0 = self._mark
        self._mark = None
        clock, model = self.clock, self.clock.model
        io = self.device.stats - io0
        fg = IOCounts()
        for cause in FOREGROUND_CAUSES:
            fg = fg + io.total(cause=cause)
        undeclared = _nonnegative((io.total() - fg) - (clock.declared_io - declared0))
        if any(undeclared.astuple()):
            clock.job_duration(undeclared)
        work = Counter(self.work())
        work.subtract(work0)
        job_work = clock.declared_work - declared_work0
        units = set(self.cost.units)
        fg_work = {u: max(0, n - job_work[u]) for u, n in work.items() if u in units}
        server_cpu = self.server_model.cpu_seconds(statements, rows)
        cpu = self.cost.seconds(fg_work) + self.cost.seconds(io_work(fg)) + server_cpu
        engine_serial = 0.0
        if self.server_model.engine_serial:
            serial_work = Counter(self.serial_work())
            serial_work.subtract(serial_work0)
            engine_serial = self.cost.seconds({u: max(0, n) for u, n in serial_work.items()})
        serial = (self.server_model.serial_seconds(commits, io.total(cause="binlog"), model.sync_latency)
                  + engine_serial)
        times = self.times(Demand(cpu, fg, serial, engine_serial), model, self.host)
        device_alone = max(times["iops"], times["bandwidth"])
        times_shared = dict(times)
        device_kind = "iops" if times["iops"] >= times["bandwidth"] else "bandwidth"
        times_shared.pop("iops")
        times_shared.pop("bandwidth")
        times_shared[device_kind] = clock.background.foreground_time(clock.now, device_alone)
        bottleneck = max(times_shared, key=times_shared.get)
        duration = times_shared[bottleneck]
        alone = max(times.values())
        start = clock.now
        clock.advance(duration)
        clock.record_foreground(device_alone, alone, duration)
        step = Step(start, clock.now, ops, clock.stalled - stalled0, cpu, device_alone, bottleneck, server_cpu, serial,
                    engine_serial, statements, rows)
        self.steps.append(step)
        return step
