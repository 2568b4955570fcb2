"""The driver every workload runner uses: open an engine under simulated time, run steps, build the result.

A runner creates a ``Driver`` from its ``RunSetup`` (setup.py), its tables and its data (the load phase), calls
``start_measuring()``, then runs
its operations in steps (``with driver.step(ops=n):``), and finally asks for ``result(...)``. Everything a result
reports comes from the measured phase only, except ``rows`` and ``db_bytes``, which describe the database at the
end.

The summary's fields, all per operation of the workload (an insert, a transaction, a request):

* ``ops``, ``seconds`` (simulated), ``ops_per_sec``;
* ``rkb_per_op``, ``wkb_per_op``, ``reads_per_op``, ``writes_per_op``, ``syncs_per_op``: iostat's figures
  (KB = 1024 bytes), from the device's ``IOStats``, background IO included as iostat would see it;
* ``foreground_reads_per_op``, ``foreground_rkb_per_op``: reads a client waited for (causes foreground,
  eviction): an LSM's non-unique index maintenance reads nothing here;
* ``write_amp``: device bytes written / bytes of keys and values the transactions wrote;
* ``db_bytes``: bytes the engine's files hold at the end; ``rows``: rows in the tables at the end;
* ``cache_hit_rate``: the buffer pool's or block cache's hits / lookups in the phase (NaN if the engine does
  not report them);
* ``page_cache_rkb_per_op``: KB the operating system's page cache served (``RunSetup.page_cache_bytes``), reads
  that never reached the device and that iostat does not see (0 without a page cache);
* ``stalls``, ``stalled_seconds``: write stalls; ``cpu_seconds_per_op`` (engine and server),
  ``server_cpu_seconds_per_op`` (the SQL layer's share), ``serial_seconds_per_op`` (the server's serial section),
  ``engine_serial_seconds_per_op`` (its part that is the engine's write path);
  ``bottleneck``: the resource that set the most simulated time.

**The server** (``minidb.sim.server``): every step pays the SQL layer's CPU for its statements and rows and the
serial section of its commits, and, with ``server_model.binlog``, the binary log's writes (``binlog_kb_per_op``),
as the setup's ``server_model`` prices them (by default the workload's own post's server: the calibrated SQL layer,
``ServerModel.calibrated``, with that post's binlog, the workload's ``SERVER``). A step's rows are
the rows its tables read, inserted, updated or deleted; its statements are given by the workload (``step(ops,
statements=...)``) or taken as one per row, as TPC-C's single-row statements are; its commits are counted.
"""

from __future__ import annotations

import math
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from .. import scales
from ..engines import EngineSizes, engine_name, open_engine
from ..engines import get as engine_spec
from ..schema import Schema
from ..sim.bottleneck import Host
from ..sim.clock import Clock
from ..sim.cpu import CostModel
from ..sim.server import Binlog, ServerModel
from ..sim.series import intervals
from ..sim.simulator import FOREGROUND_CAUSES, Simulator, Step
from ..storage.iostats import IOCounts, IOStats
from ..storage.models import DeviceModel, preset
from ..storage.page_cache import PageCache
from ..storage.sim_device import SimDevice
from ..table import Table
from ..transaction import CommitStats, Transaction
from .setup import RunSetup

TABLE_WORK = ("rows_encoded", "rows_decoded", "keys_encoded", "keys_decoded")  # table counters the CPU model charges


@dataclass
class WorkloadResult:
    """What a workload run measured."""

    workload: str  # which workload ran
    summary: dict  # the figures of the measured phase (see minidb.workloads.driver)
    intervals: object  # pandas DataFrame: start, ops, ops_per_sec, stalls, stalled_seconds per interval
    io: IOStats  # the measured phase's IO, by file kind, cause and tag
    engine_stats: dict  # engine.stats() at the end of the run
    params: dict = field(default_factory=dict)  # the run's parameters
    steps: list[Step] = field(default_factory=list, repr=False)  # the measured steps on the timeline

    def __repr__(self) -> str:
        s = self.summary
        return (f"<WorkloadResult {self.workload} on {s['engine']}: {s['ops']} ops, {s['ops_per_sec']:.0f} ops/s, "
                f"wKB/op {s['wkb_per_op']:.2f}, rKB/op {s['rkb_per_op']:.2f}>")


def device_model(device) -> DeviceModel:
    """``device`` as a DeviceModel: a preset name (``nvme``, ``slow-ssd``, ``sm863``, ``gp2``, ``io1``) or a model."""
    if isinstance(device, DeviceModel):
        return device
    if isinstance(device, str):
        return preset(device)
    raise ValueError(f"bad device {device!r}: give a preset name or a minidb.storage.DeviceModel")


class Driver:
    """One workload run: the engine, its device and clock, the tables, the simulator; see the module docstring."""

    def __init__(self, setup: RunSetup, sizes: EngineSizes, host: Host, server: ServerModel | None = None) -> None:
        if not setup.interval > 0:
            raise ValueError(f"interval must be > 0 seconds, got {setup.interval}")
        data = setup.data
        self.setup_data = data  # what shaped the database (minidb.workloads.loaded keeps it with a frozen load)
        self.seed = data.seed  # the run's seed, reported in the summary
        self.model = device_model(setup.device)  # turns counted IO into time
        self.storage = setup.storage if setup.storage is not None else SimDevice()  # holds the engine's files
        # the OS's page cache, in the RAM the caches leave; none unless the setup gives one, whatever the storage had
        self.storage.page_cache = PageCache(setup.page_cache_bytes) if setup.page_cache_bytes else None
        self.cost = CostModel()  # turns counted work into CPU time
        self.clock = Clock(self.model, self.cost)  # simulated time, shared with the engine
        self.host = host  # the modelled server's machine and its clients
        self.sizes = sizes  # cache and LSM sizes the engine was opened with
        self.engine_name = engine_name(data.engine)  # for the summary
        self.engine = open_engine(data.engine, self.storage, sizes, clock=self.clock, **data.engine_options)
        if self.storage.page_cache is not None and isinstance(data.engine, str):
            # meanwhile the page cache also holds what the engine's cache has not taken yet (storage.page_cache)
            self.storage.page_cache.lent = partial(engine_spec(data.engine).cache_unused, self.engine)
        self.commits = CommitStats()  # what every transaction of the run wrote
        self.tables: list[Table] = []  # tables created through table()
        self.rows_before = 0  # rows the tables held when this driver opened them (a reopened load's)
        self.interval = setup.interval  # seconds per row of the interval series
        self._engine_units = [u for u in self.cost.units if u not in TABLE_WORK]  # work the engine counts
        # the SQL layer's and the binlog's costs: the setup's, else the workload's (``server``), else none at all
        self.server_model = setup.server(server if server is not None else ServerModel.none())
        self.binlog = None  # None: log_bin off
        if self.server_model.binlog:  # its flush stage syncs the engine's log once per group (minidb.sim.server)
            self.engine.set_group_commit(True)
            self.binlog = Binlog(self.storage, self.server_model, self.engine.sync_log)
        self.sim = Simulator(self.storage, self.clock, self.host, cost=self.cost, work=self._work,
                             server_model=self.server_model, serial_work=self.engine.serial_work)
        self._mark: dict | None = None  # counters at start_measuring()

    @classmethod
    def sized(cls, setup: RunSetup, db_bytes: float, reference: scales.Reference, host: Host,
              server: ServerModel | None = None) -> Driver:
        """A driver whose engine is sized for a database of about ``db_bytes``: the cache from the reference's
        cache fraction unless the setup gives ``cache_bytes``, the LSM's sizes scaled (``minidb.scales.engine_sizes``);
        the reference is the setup's (``data.reference``) if it names one, else ``reference`` (the workload's); the
        server's costs the setup's, else ``server`` (the workload's)."""
        data = setup.data
        sizes = scales.engine_sizes(data.engine, db_bytes, data.reference or reference, setup.cache_bytes)
        return cls(setup, sizes, host, server)

    def table(self, schema: Schema, **options) -> Table:
        """A table of ``schema`` on the run's engine, counted in the run's work and commits."""
        table = Table(self.engine, schema, commit_stats=self.commits, **options)
        self.tables.append(table)
        return table

    def transaction(self, **options) -> Transaction:
        """A new transaction on the run's engine, counted in the run's commits."""
        return Transaction(self.engine, stats=self.commits, **options)

    @contextmanager
    def step(self, ops: int, statements=None):
        """Time the work done inside the block as one step of ``ops`` operations and ``statements`` SQL
        statements (default: one per row the step touched; a function is called when the block ends, for a
        workload that counts its statements as it sends them)."""
        rows0, commits0, bytes0 = self._rows_touched(), self.commits.commits, self.commits.logical_bytes
        logged0 = self.commits.writing_commits
        self.sim.begin()
        try:
            yield
        finally:
            rows, commits = self._rows_touched() - rows0, self.commits.commits - commits0
            logged = self.commits.writing_commits - logged0  # a read-only commit writes no binlog events
            if self.binlog is not None and logged:
                written = self.commits.logical_bytes - bytes0
                for i in range(logged):  # the step's row images, shared evenly among its writing commits
                    self.binlog.commit(self.host.clients, written * (i + 1) // logged - written * i // logged)
            if callable(statements):
                statements = statements()
            self.sim.end(ops, statements=rows if statements is None else statements, rows=rows, commits=commits)

    def _rows_touched(self) -> int:
        """Rows the tables have passed to or from the engine so far (read, inserted, updated, deleted)."""
        return sum(t.counts.rows_decoded + t.counts.rows_inserted + t.counts.rows_updated + t.counts.rows_deleted
                   for t in self.tables)

    def _work(self) -> Counter:
        """Cumulative CPU work counts: the engine's (``minidb.kv.WORK``, the cost model's units) and the tables'."""
        counts = self.engine.work()
        work = Counter({unit: counts[unit] for unit in self._engine_units if unit in counts})
        for table in self.tables:
            for unit in TABLE_WORK:
                work[unit] += getattr(table.counts, unit)
        return work

    def _cache(self) -> tuple[int, int]:
        """The buffer pool's or block cache's cumulative (hits, misses)."""
        counts = self.engine.work()
        return counts["cache_hits"], counts["cache_misses"]

    def _os_cached(self) -> int:
        """Bytes the OS page cache has served so far: reads that never reached the device."""
        cache = self.storage.page_cache
        return 0 if cache is None else cache.hits.total().read_bytes

    def rows(self) -> int:
        """Rows in the run's tables now."""
        return self.rows_before + sum(t.counts.rows_inserted - t.counts.rows_deleted for t in self.tables)

    def start_measuring(self) -> None:
        """Begin the measured phase: what came before (the load) is left out of the result."""
        if self.binlog is not None:
            self.binlog.flush()  # the load's partly filled group is written with the load
        self._mark = {
            "cache": self._cache(), "io": self.storage.stats.snapshot(), "os_cached": self._os_cached(),
            "time": self.clock.now, "logical": self.commits.logical_bytes, "steps": len(self.sim.steps),
            "stall_log": len(self.clock.stall_log), "stalled": self.clock.stalled, "stalls": self.clock.stalls,
        }

    def result(self, workload: str, *, ops: int, params: dict | None = None, extra: dict | None = None,
               rates: dict[str, int] | None = None) -> WorkloadResult:
        """The measured phase's result; ``extra`` fields are added to the summary as they are, ``rates`` counts
        (e.g. ``queries``) with their rate per second too."""
        if self._mark is None:
            raise ValueError("call start_measuring() before result()")
        if ops < 1:
            raise ValueError(f"a result needs ops >= 1, got {ops}")
        mark = self._mark
        if self.binlog is not None:
            self.binlog.flush()  # the last, partly filled group
        io = self.storage.stats - mark["io"]
        total = io.total()
        fg = IOCounts()
        for cause in FOREGROUND_CAUSES:
            fg = fg + io.total(cause=cause)
        seconds = self.clock.now - mark["time"]
        logical = self.commits.logical_bytes - mark["logical"]
        steps = self.sim.steps[mark["steps"]:]
        cache = self._cache()
        summary = {
            "workload": workload,
            "engine": self.engine_name,
            "device": self.model.name,
            "seed": self.seed,
            "rows": self.rows(),
            "ops": ops,
            "seconds": seconds,
            "ops_per_sec": ops / seconds if seconds > 0 else math.inf,
            **total.per_op(ops),
            "foreground_reads_per_op": fg.reads / ops,
            "foreground_rkb_per_op": fg.read_bytes / 1024 / ops,
            "write_amp": total.write_amp(logical) if logical > 0 else math.nan,
            "db_bytes": self.storage.used - (self.binlog.size if self.binlog is not None else 0),
            "cache_bytes": self.sizes.cache_bytes,
            "cache_hit_rate": _hit_rate(mark["cache"], cache),
            "stalls": self.clock.stalls - mark["stalls"],
            "stalled_seconds": self.clock.stalled - mark["stalled"],
            "cpu_seconds_per_op": sum(s.cpu_seconds for s in steps) / ops,
            "server_cpu_seconds_per_op": sum(s.server_cpu_seconds for s in steps) / ops,
            "serial_seconds_per_op": sum(s.serial_seconds for s in steps) / ops,
            "engine_serial_seconds_per_op": sum(s.engine_serial_seconds for s in steps) / ops,
            "binlog_kb_per_op": io.total(kind="binlog").write_bytes / 1024 / ops,
            "page_cache_rkb_per_op": (self._os_cached() - mark["os_cached"]) / 1024 / ops,
            "bottleneck": _bottleneck(steps),
        }
        summary.update(extra or {})
        for name, count in (rates or {}).items():
            summary[name] = count
            summary[f"{name}_per_sec"] = count / seconds if seconds > 0 else math.inf
        series = intervals(steps, self.clock.stall_log[mark["stall_log"]:], width=self.interval, start=mark["time"],
                           end=self.clock.now)
        return WorkloadResult(workload, summary, series, io, self.engine.stats(), dict(params or {}), steps)


def _hit_rate(before: tuple[int, int], after: tuple[int, int]) -> float:
    """Hits / lookups between two readings of the cache's (hits, misses) (NaN if there was no lookup)."""
    hits, misses = after[0] - before[0], after[1] - before[1]
    return hits / (hits + misses) if hits + misses > 0 else math.nan


def _bottleneck(steps: list[Step]) -> str:
    """The resource that set the most simulated time over ``steps``."""
    time = Counter()
    for s in steps:
        time[s.bottleneck] += s.end - s.start
    return time.most_common(1)[0][0] if time else "none"
