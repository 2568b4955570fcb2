"""Background work of the engine: sealing memtables, scheduling and installing jobs, write stalls, errors.

Everything here runs inside client calls (the engine is single-threaded, see jobs.py):

* before a write, ``_make_room`` seals full memtables (switching to a new WAL) and applies the write controller
  (stalls.py): it waits for the next job when writes must stop, delays the write when they must slow down. (Should
  writes have to stop while no job can run, e.g. universal compaction with equal compaction and stop triggers, the
  write goes through rather than wait forever, where RocksDB would hang.)
* after a write (and while waiting), ``_run_background`` installs the jobs whose time has come and starts new ones:
  a flush for each family with sealed memtables, and a compaction for each family that needs one, within
  ``max_background_jobs`` (RocksDB gives flushes ``max(1, jobs // 4)`` slots and compactions the rest, at least 1);
  one flush and one compaction per column family at a time.

**Listeners** (the ``listeners`` option, RocksDB's EventListener): once a job is installed, each listener's
``on_flush_completed(engine, job)`` or ``on_compaction_completed(engine, job)`` is called with the installed ``Job``
(jobs.py: what was written or merged, why it was picked, its simulated start and end), the engine already showing
the new shape. A listener must only look: it is called in the middle of a client's write.

**Background errors** (RocksDB after its 2018 fix, seed 004): an OSError in a flush or a compaction (a full disk)
deletes the job's partial output and puts the engine in a read-only state: every write raises ReadOnlyError naming
the failed job, reads still work, and nothing already acknowledged is lost (sealed memtables stay in memory and in
the WAL). A failed WAL write does the same (engine.py; RocksDB's error handler counts it a hard error). ``resume()``
retries: the flush or compaction is picked again, and succeeds once space has been freed.
"""

from __future__ import annotations

from minidb.errors import ReadOnlyError

from .column_family import SealedMemTable
from .compaction_picker import pick_leveled
from .jobs import run_compaction, run_flush
from .memtable import MemTable
from .stalls import slowdown_reason, stop_reason
from .table_outputs import sst_name
from .universal_picker import pick_universal
from .wal import WalWriter, wal_name


class BackgroundMixin:
    """Job scheduling, installation, stalls and background errors (see the module docstring)."""

    # -- read-only state ---------------------------------------------------------------------------------------
    def _read_only_error(self) -> ReadOnlyError:
        if self.read_only:
            return ReadOnlyError("the LSM engine was opened with read_only=True: it refuses writes")
        return ReadOnlyError(f"the LSM engine refuses writes after a background error: {self._bg_error}; "
                             f"free space, then call resume()")

    def _fail(self, what: str, cf, exc: OSError) -> None:
        self._bg_error = f"{what} of column family {cf.name!r} failed: {exc}"
        self.counters["background_errors"] += 1

    # -- before a write -------------------------------------------------------------------------------------------
    def _make_room(self, nbytes: int) -> None:
        """Seal full memtables and apply the write controller before writing ``nbytes``."""
        waited_from = None
        while True:
            self._run_background()
            if self._bg_error is not None:
                raise self._read_only_error()
            sealable = [cf for cf in self.cfs.values()
                        if cf.memtable_full() and len(cf.imm) < cf.options.max_immutable_memtables]
            if sealable:
                self._seal(sealable)
                continue
            reason = next(filter(None, (stop_reason(cf) for cf in self.cfs.values())), None)
            if reason is not None and self._jobs:
                if waited_from is None:
                    waited_from = self.clock.now
                    self.counters["stall_writes_stopped"] += 1
                    self.counters[f"stall_stop_{reason}"] += 1
                self.clock.wait_until(min(j.done_at for j in self._jobs))
                continue
            break
        if waited_from is not None:
            self.counters["stall_seconds"] += self.clock.now - waited_from
        reason = next(filter(None, (slowdown_reason(cf) for cf in self.cfs.values())), None)
        if reason is not None:
            delay = nbytes / self.db.delayed_write_rate
            self.clock.advance(delay)
            self.counters["stall_writes_slowed"] += 1
            self.counters[f"stall_slowdown_{reason}"] += 1
            self.counters["stall_seconds"] += delay

    def _seal(self, cfs) -> None:
        """Make the active memtables of ``cfs`` immutable and start a new WAL (the old one synced in full)."""
        with self.device.stats.cause("foreground"):
            self.wal.sync(self.last_sequence)
            number = self.vs.new_file_number()
            new_wal = WalWriter(self.device, number, self.db.wal_sync, not self.db.reproduce_2018_disk_full_bug)
        new_wal.synced_seq = self.last_sequence
        for cf in cfs:
            cf.imm.append(SealedMemTable(cf.mem, number))
            cf.mem = self._memtables[cf.id] = MemTable()
        self.wal.close()
        self.wal = new_wal
        self._wal_numbers.append(number)
        self._needs_schedule = True

    # -- scheduling -------------------------------------------------------------------------------------------
    def _run_background(self) -> None:
        """Install finished jobs and start new ones until nothing changes."""
        if not self._needs_schedule and not (self._jobs and self.clock.now >= min(j.done_at for j in self._jobs)):
            return
        while True:
            progressed = False
            for job in sorted(self._jobs, key=lambda j: j.done_at):
                if job.done_at <= self.clock.now and self._bg_error is None:
                    self._install(job)
                    progressed = True
            if self._bg_error is not None:
                return
            if self._start_one():
                progressed = True
            if not progressed:
                break
        self._needs_schedule = False

    def _start_one(self) -> bool:
        """Start one flush or compaction if a slot is free and some family needs one; True if it did."""
        jobs = self.db.max_background_jobs
        flush_slots = max(1, jobs // 4)
        compaction_slots = max(1, jobs - flush_slots)
        if sum(j.kind == "flush" for j in self._jobs) < flush_slots:
            for cf in self.cfs.values():
                if cf.imm and not cf.flushing:
                    cf.flushing = True
                    try:
                        ctx = self._job_context(self.vs, self.cfs)
                        self._jobs.append(run_flush(ctx, cf, self.cfs.values(), self.wal.number))
                    except OSError as exc:
                        cf.flushing = False
                        self._fail("flush", cf, exc)
                    return True
        if self._manual or sum(j.kind == "compaction" for j in self._jobs) >= compaction_slots:
            return False
        for cf in self.cfs.values():
            if cf.compacting or cf.options.disable_auto_compactions:
                continue
            if cf.options.compaction == "universal":
                c = pick_universal(cf.id, cf.version, cf.options)
            else:
                c = pick_leveled(cf.id, cf.version, cf.options, cf.state.compact_pointers)
            if c is not None:
                self._start_compaction(cf, c)
                return True
        return False

    def _start_compaction(self, cf, c) -> None:
        cf.compacting = True
        c.mark(True)
        try:
            self._jobs.append(run_compaction(self._job_context(self.vs, self.cfs), cf, c))
        except OSError as exc:
            c.mark(False)
            cf.compacting = False
            self._fail("compaction", cf, exc)

    # -- installing -------------------------------------------------------------------------------------------
    def _install(self, job) -> None:
        """Log the job's edit to the MANIFEST, then make its result visible and delete what it made obsolete."""
        self._jobs.remove(job)
        cf = job.cf
        self._needs_schedule = True
        with self.device.stats.cause(job.kind):
            try:
                self.vs.log_and_apply(job.edit, self.last_sequence, self._num_levels)
            except OSError as exc:
                if job.outputs is not None and not self.vs.broken:
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
            self._delete_obsolete_wals()
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
                for f in c.input_files:
                    self._obsolete_file(f.number)
        self._notify(job)

    def _notify(self, job) -> None:
        """Tell every listener that ``job`` was installed."""
        method = "on_flush_completed" if job.kind == "flush" else "on_compaction_completed"
        for listener in self.db.listeners:
            hook = getattr(listener, method, None)
            if hook is not None:
                hook(self, job)

    def _release(self, job) -> None:
        if job.kind == "flush":
            job.cf.flushing = False
        else:
            job.compaction.mark(False)
            job.cf.compacting = False

    def _delete_obsolete_wals(self) -> None:
        oldest = min(cf.state.log_number for cf in self.cfs.values())
        while self._wal_numbers and self._wal_numbers[0] < oldest and self._wal_numbers[0] != self.wal.number:
            number = self._wal_numbers.pop(0)
            if self.device.exists(wal_name(number)):
                self.device.delete(wal_name(number))

    def _obsolete_file(self, number: int) -> None:
        """Delete SST ``number`` now, or when the last scan reading it ends."""
        if self._file_refs.get(number):
            self._obsolete.add(number)
            return
        reader = self._tables.pop(number, None)
        if reader is not None:
            reader.close()
        self.cache.erase_file(number)
        if self.device.exists(sst_name(number)):
            self.device.delete(sst_name(number))

    # -- waiting --------------------------------------------------------------------------------------------------
    def _wait_for(self, done) -> None:
        """Advance simulated time job by job until ``done()``; ReadOnlyError if a job fails meanwhile."""
        while True:
            self._run_background()
            if self._bg_error is not None:
                raise self._read_only_error()
            if done():
                return
            if not self._jobs:
                raise RuntimeError("waiting for background work, but none is running")
            t = min(j.done_at for j in self._jobs)
            if t > self.clock.now:
                self.clock.advance(t - self.clock.now)
            self._needs_schedule = True
