"""The scheduler: the LSM's background work (RocksDB's flush and compaction scheduling, write controller and error
handler), an object the engine holds. It reaches the engine through one small named interface, ``SchedulerHost``:
what it reads of the engine (the column families, the MANIFEST, the WAL files, the table cache, the options) and the
one thing it asks of it (``job_context``, what a job started now works with).

Everything here runs inside client calls (the engine is single-threaded, see jobs.py):

* before a write, ``make_room`` seals full memtables (``seal``: a new WAL, wal_files.py) and applies the
  write controller (stalls.py): it waits for the next job when writes must stop, delays the write when they must
  slow down. (Should writes have to stop while no job can run, e.g. universal compaction with equal compaction and
  stop triggers, the write goes through rather than wait forever, where RocksDB would hang.)
* after a write (and while waiting), ``run`` installs the jobs whose time has come and starts new ones: a flush for
  each family with sealed memtables, and a compaction for each family that needs one, within
  ``max_background_jobs`` (RocksDB gives flushes ``max(1, jobs // 4)`` slots and compactions the rest, at least 1);
  one flush and one compaction per column family at a time.

**Installing** a job logs its edit to the MANIFEST, makes its result visible (the flushed memtables go, the
compaction's inputs are replaced) and counts it in the family's Compaction Stats; then it deletes what the job made
obsolete (WALs, input SSTs) and tells the listeners (the ``listeners`` option,
RocksDB's EventListener: ``on_flush_completed(engine, job)`` or ``on_compaction_completed(engine, job)`` with the
installed ``Job`` of jobs.py, the engine already showing the new shape).

**Background errors** (RocksDB after its 2018 fix, seed 004): an OSError in a flush or a compaction (a full disk)
deletes the job's partial output and sets ``error``: the engine turns read-only, every write raises ReadOnlyError
naming the failed job, reads still work, and nothing already acknowledged is lost (sealed memtables stay in memory
and in the WAL). A failed WAL write sets it too (engine.py; RocksDB's error handler counts it a hard error).
``resume`` retries: the flush or compaction is picked again, and succeeds once space has been freed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from minidb.errors import ReadOnlyError

from .compaction_picker import pick_leveled
from .jobs import run_compaction, run_flush
from .stalls import slowdown_reason, stop_reason
from .universal_picker import pick_universal


class SchedulerHost(Protocol):
    """What the scheduler uses of the engine it works for (``LSMEngine`` is the one), and nothing else."""

    cfs: dict  # column family id -> ColumnFamily
    vs: Any  # version_set.VersionSet: the MANIFEST every job's edit is logged to
    device: Any  # where the MANIFEST's writes are counted, under the job's cause
    clock: Any  # simulated time: when a job's IO is done, how long a write waits
    db: Any  # the DBOptions: max_background_jobs, delayed_write_rate, listeners
    counters: Any  # the engine's counters: flushes, compactions, stalls, background errors
    last_sequence: int  # the engine's last sequence number (each edit records it)
    num_levels: Callable[[str], int]  # column family name -> its levels (for the MANIFEST's edits)
    wal_files: Any  # wal_files.WalFiles: sealing starts a new WAL, a flush makes older ones obsolete
    tables: Any  # table_cache.TableCache: a compaction makes its input SSTs obsolete

    def job_context(self, versions, families: dict) -> Any:
        """The job_context.JobContext a flush or compaction started now works with."""


class Scheduler:
    """Background jobs of one LSM engine: when they start, when they are installed, and what stalls or stops the
    writes meanwhile (see the module docstring). Each method's contract is one line."""

    def __init__(self, engine: SchedulerHost) -> None:
        self.engine = engine  # the engine it works for, through SchedulerHost
        self.families = engine.cfs  # column family id -> ColumnFamily (the engine's own dict)
        self.versions = engine.vs  # the MANIFEST every job's edit is logged to
        self.clock = engine.clock  # simulated time: when a job's IO is done, how long a write waits
        self.options = engine.db  # the DBOptions: max_background_jobs, delayed_write_rate
        self.counters = engine.counters  # the engine's counters: flushes, compactions, stalls, background errors
        self.jobs: list = []  # jobs computed but not yet installed
        self.needs_schedule = True  # something changed that may call for a job
        self.error: str | None = None  # why writes are refused (a failed job or WAL write) until resume()
        self.manual = False  # a manual compaction is running: no automatic compaction starts meanwhile

    # -- background errors ------------------------------------------------------------------------------------
    def read_only_error(self) -> ReadOnlyError:
        """The error a refused write raises while ``error`` is set."""
        return ReadOnlyError(f"the LSM engine refuses writes after a background error: {self.error}; "
                             f"free space, then call resume()")

    def _fail(self, what: str, cf, exc: OSError) -> None:
        self.error = f"{what} of column family {cf.name!r} failed: {exc}"
        self.counters["background_errors"] += 1

    def resume(self) -> None:
        """Clear the background error and retry the failed work; ReadOnlyError if it fails again."""
        self.error = None
        self.needs_schedule = True
        self.run()
        if self.error is not None:
            raise self.read_only_error()

    # -- before a write -------------------------------------------------------------------------------------------
    def make_room(self, nbytes: int) -> None:
        """Seal full memtables and apply the write controller before a write of ``nbytes``."""
        waited_from = None
        while True:
            self.run()
            if self.error is not None:
                raise self.read_only_error()
            sealable = [cf for cf in self.families.values()
                        if cf.memtable_full() and len(cf.imm) < cf.options.max_immutable_memtables]
            if sealable:
                self.seal(sealable)
                continue
            reason = next(filter(None, (stop_reason(cf) for cf in self.families.values())), None)
            if reason is not None and self.jobs:
                if waited_from is None:
                    waited_from = self.clock.now
                    self.counters["stall_writes_stopped"] += 1
                    self.counters[f"stall_stop_{reason}"] += 1
                self.clock.wait_until(min(j.done_at for j in self.jobs))
                continue
            break
        if waited_from is not None:
            self.counters["stall_seconds"] += self.clock.now - waited_from
        reason = next(filter(None, (slowdown_reason(cf) for cf in self.families.values())), None)
        if reason is not None:
            delay = nbytes / self.options.delayed_write_rate
            self.clock.advance(delay)
            self.counters["stall_writes_slowed"] += 1
            self.counters[f"stall_slowdown_{reason}"] += 1
            self.counters["stall_seconds"] += delay

    def seal(self, families) -> None:
        """Make the active memtables of ``families`` immutable and start a new WAL (wal_files.py)."""
        self.engine.wal_files.seal(families, self.engine.last_sequence)
        self.needs_schedule = True

    # -- scheduling -------------------------------------------------------------------------------------------
    def run(self) -> None:
        """Install finished jobs and start new ones until nothing changes."""
        if not self.needs_schedule and not (self.jobs and self.clock.now >= min(j.done_at for j in self.jobs)):
            return
        while True:
            progressed = False
            for job in sorted(self.jobs, key=lambda j: j.done_at):
                if job.done_at <= self.clock.now and self.error is None:
                    self._install(job)
                    progressed = True
            if self.error is not None:
                return
            if self._start_one():
                progressed = True
            if not progressed:
                break
        self.needs_schedule = False

    def _start_one(self) -> bool:
        """Start one flush or compaction if a slot is free and some family needs one; True if it did."""
        jobs = self.options.max_background_jobs
        flush_slots = max(1, jobs // 4)
        compaction_slots = max(1, jobs - flush_slots)
        if sum(j.kind == "flush" for j in self.jobs) < flush_slots:
            for cf in self.families.values():
                if cf.imm and not cf.flushing:
                    cf.flushing = True
                    try:
                        ctx = self.engine.job_context(self.versions, self.families)
                        self.jobs.append(run_flush(ctx, cf, self.families.values(),
                                                   self.engine.wal_files.writer.number))
                    except OSError as exc:
                        cf.flushing = False
                        self._fail("flush", cf, exc)
                    return True
        if self.manual or sum(j.kind == "compaction" for j in self.jobs) >= compaction_slots:
            return False
        for cf in self.families.values():
            if cf.compacting or cf.options.disable_auto_compactions:
                continue
            if cf.options.compaction == "universal":
                c = pick_universal(cf.id, cf.version, cf.options)
            else:
                c = pick_leveled(cf.id, cf.version, cf.options, cf.state.compact_pointers)
            if c is not None:
                self.start_compaction(cf, c)
                return True
        return False

    def start_compaction(self, cf, c) -> None:
        """Start compaction ``c`` of family ``cf`` now (its inputs marked busy); a failure sets ``error``."""
        cf.compacting = True
        c.mark(True)
        try:
            self.jobs.append(run_compaction(self.engine.job_context(self.versions, self.families), cf, c))
        except OSError as exc:
            c.mark(False)
            cf.compacting = False
            self._fail("compaction", cf, exc)

    # -- installing -------------------------------------------------------------------------------------------
    def _install(self, job) -> None:
        """Log the job's edit to the MANIFEST, then make its result visible and delete what it made obsolete."""
        self.jobs.remove(job)
        cf = job.cf
        self.needs_schedule = True
        with self.engine.device.stats.cause(job.kind):
            try:
                self.versions.log_and_apply(job.edit, self.engine.last_sequence, self.engine.num_levels)
            except OSError as exc:
                if job.outputs is not None and not self.versions.broken:
                    job.outputs.abandon()  # the edit is surely not in the MANIFEST: the outputs are garbage
                self._release(job)
                self._fail(job.kind, cf, exc)
                return
        self._release(job)
        if job.kind == "flush":
            # The flushed memtables are dropped: keep the comparisons their inserts made in the totals.
            self.counters["key_compares"] += sum(s.mem.compares for s in job.sealed)
            del cf.imm[:len(job.sealed)]
            cf.stats.add_flush(job.outputs.bytes_written(), job.seconds)
            self.counters["flushes"] += 1
        else:
            c = job.compaction
            if c.trivial_move:
                cf.stats.add_move(c.output_level, sum(f.size for f in c.input_files))
                self.counters["trivial_moves"] += 1
            else:
                rn, rnp1 = c.bytes_read()
                cf.stats.add_compaction(c.output_level, rn, rnp1, job.outputs.bytes_written(), job.key_in,
                                        job.key_drop, job.seconds)
                self.counters["compactions"] += 1
        self._after_install(job)

    def _after_install(self, job) -> None:
        """Delete the WALs or SSTs the installed ``job`` made obsolete, then tell the listeners."""
        engine = self.engine
        if job.kind == "flush":
            engine.wal_files.delete_obsolete(self.families.values())
        elif not job.compaction.trivial_move:
            for f in job.compaction.input_files:
                engine.tables.obsolete(f.number)
        method = "on_flush_completed" if job.kind == "flush" else "on_compaction_completed"
        for listener in self.options.listeners:
            hook = getattr(listener, method, None)
            if hook is not None:
                hook(engine, job)

    @staticmethod
    def _release(job) -> None:
        if job.kind == "flush":
            job.cf.flushing = False
        else:
            job.compaction.mark(False)
            job.cf.compacting = False

    # -- waiting --------------------------------------------------------------------------------------------------
    def wait_for(self, done: Callable[[], bool]) -> None:
        """Advance simulated time job by job until ``done()``; ReadOnlyError if a job fails meanwhile."""
        while True:
            self.run()
            if self.error is not None:
                raise self.read_only_error()
            if done():
                return
            if not self.jobs:
                raise RuntimeError("waiting for background work, but none is running")
            t = min(j.done_at for j in self.jobs)
            if t > self.clock.now:
                self.clock.advance(t - self.clock.now)
            self.needs_schedule = True
