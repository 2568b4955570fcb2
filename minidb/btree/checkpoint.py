"""Checkpoints, and the finite redo log that forces them (InnoDB's ``log_free_check``).

Recovery replays the log from the checkpoint LSN, so the log since the checkpoint must stay, and it must fit in
``redo_log_bytes``. A checkpoint records as the new checkpoint LSN the oldest first change still only in the pool
(or the end of the log when nothing is dirty), once the pages written before it are durable; redo files entirely
before it are then deleted.

**Two ages.** The *checkpoint age* is the log since the last checkpoint written (``redo.age``); the *modified age*
is the log since the oldest change not yet written to the tablespace (``lsn - oldest_lsn`` of the flush list). Page
writes lower the modified age; a checkpoint then brings the checkpoint age down to it.

**The points** (InnoDB 5.7's ``log_calc_max_ages``): of the capacity, InnoDB keeps a tenth in reserve (``margin =
capacity - capacity / 10``, ignoring the few KB per thread it also reserves); then

* ``ASYNC`` (``max_modified_age_async``, 7/8 of the margin): past it, the modified age is brought back below it by
  *background* page writes (the page cleaner flushing hard, ``af_get_pct_for_lsn`` above 100%). Here that is an
  **async flush job**: the oldest pages are written under the cause ``checkpoint``, and with a clock the job takes
  simulated time on the device (``Clock.job_span``). It writes its pages oldest first at an even pace from its start
  to its end, so the log it frees becomes free page by page: a page not yet written counts as dirty for the ages,
  and the client may catch up with the job;
* ``SYNC`` (``max_modified_age_sync``, 15/16 of the margin): past it, the client itself must wait: first for the
  async job in flight, until it has written the pages the client needs (those whose first change is older than the
  point), then for a **sync flush** of whatever older pages are left (``log_preflush_pool_modified_pages``), written
  under the cause ``sync-flush``. With a clock both waits are *stalls* (``Clock.wait_until``): the client is blocked,
  which is what "limited by redo writes" means;
* ``CHECKPOINT_ASYNC`` (``max_checkpoint_age_async``, 31/32 of the margin): past it, a checkpoint is written.

"Past" a point means at it or beyond (an age of exactly the point triggers it). The engine runs this check before
each client write, as InnoDB runs ``log_free_check`` before each mini-transaction. A client write here may be a
whole commit of many mini-transactions (the insert benchmark's commit of many rows), during which InnoDB's page
cleaner keeps starting writes; here no check runs during it. So the check starts the background flush one client
write early: it treats the async point as reached when the log *after a client write as large as the previous one*
would reach it, and that flush brings the age as far below the async point. This is a choice of the model, after
InnoDB's ``log_margin`` (room reserved in the log for the mini-transaction about to run, there against the
capacity). The reserve is at most half the async point, so that one very large write does not make the next flush
write every dirty page; the sync point gets none: the client waits only once its log has reached it.
``flush()`` and ``close()`` make a *sharp* checkpoint: every dirty page is written.

An open in-place transaction (in_place.py) keeps its undo in the log, so no checkpoint passes its first uncommitted
group: a long transaction holds the log behind it, which may then grow past ``redo_log_bytes`` until it commits.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

MARGIN = 1 - 1 / 10  # log_calc_max_ages: "margin = margin - margin / 10; /* Add still some extra safety */"
ASYNC = MARGIN * (1 - 1 / 8)  # POOL_MAX_MODIFIED_AGE_ASYNC_MARGIN_FRACTION 8: background flushing below this
SYNC = MARGIN * (1 - 1 / 16)  # POOL_MAX_MODIFIED_AGE_SYNC_MARGIN_FRACTION 16: the client flushes (and waits)
CHECKPOINT_ASYNC = MARGIN * (1 - 1 / 32)  # LOG_CHECKPOINT_ASYNC_MARGIN 32: write a checkpoint past this age

_NO_LIMIT = (1 << 64) - 1


@dataclass(frozen=True)
class FlushJob:
    """An async flush in flight: its pages written oldest first, at an even pace from ``start`` to ``end``."""

    lsns: tuple[int, ...]  # each page's oldest change (its oldest_lsn when the job took it), in the order written
    start: float  # simulated second the job starts writing (after the background jobs queued before it)
    end: float  # simulated second its last page is written

    def time_of(self, k: int) -> float:
        """When the job's first ``k`` pages are written."""
        return self.end if k >= len(self.lsns) else self.start + (self.end - self.start) * k / len(self.lsns)

    def written(self, now: float) -> int:
        """How many of its pages are written by ``now``: the largest ``k`` with ``time_of(k) <= now``."""
        n = len(self.lsns)
        if now >= self.end:
            return n
        if now <= self.start:
            return 0
        # the division's estimate, then corrected against time_of itself, so that a client that waited until
        # time_of(k) finds k pages written however the floating-point sums round
        k = min(n, int((now - self.start) * n / (self.end - self.start)))
        while k < n and self.time_of(k + 1) <= now:
            k += 1
        while k > 0 and self.time_of(k) > now:
            k -= 1
        return k

    def unwritten_lsn(self, now: float) -> int | None:
        """The oldest change of its first page not yet written by ``now``, or None once all are."""
        k = self.written(now)
        return self.lsns[k] if k < len(self.lsns) else None

    def time_written_below(self, lsn: int) -> float:
        """When every page of the job whose oldest change is before ``lsn`` is written."""
        return self.time_of(bisect.bisect_left(self.lsns, lsn))


def point(fraction: float, capacity: int) -> int:
    """The age in bytes at which a point (``ASYNC``, ``SYNC``, ``CHECKPOINT_ASYNC``) of ``capacity`` is reached."""
    return int(fraction * capacity)


class LogFreeCheck:
    """Keeps the redo log within its capacity by forcing page writes and checkpoints (see the module docstring).

    ``stats`` is the device's IOStats (the IO causes are set here); ``clock`` None makes every job instant;
    ``keep_from()`` is the LSN no checkpoint may pass (an open in-place transaction's first group), or None.
    """

    def __init__(self, pool, pager, redo, tablespace, doublewrite, page_size: int, stats, clock,
                 counters: dict, keep_from=lambda: None) -> None:
        self.pool, self.pager, self.redo = pool, pager, redo
        self.tablespace, self.doublewrite, self.page_size = tablespace, doublewrite, page_size
        self.stats = stats  # IOStats: the writes are counted under "checkpoint" or "sync-flush"
        self.clock = clock  # Clock or None
        self.counters = counters  # the engine's counters, updated here
        self.job: FlushJob | None = None  # the async flush in flight
        self.keep_from = keep_from  # () -> the LSN an open transaction holds the log from, or None
        self.last_lsn: int | None = None  # the log's end at the previous check (what came since is mostly the
        # last client write; background merges of buffered changes add their redo too)

    # -- ages --------------------------------------------------------------------------------------------------------
    def oldest(self) -> int:
        """The oldest change not yet durable in the tablespace, as of now on the clock (the end of the log if none):
        an async job still in flight has not written all its pages yet."""
        oldest = self.pool.oldest_lsn
        oldest = self.redo.lsn if oldest is None else min(oldest, self.redo.lsn)
        if self.job is not None:
            unwritten = self.job.unwritten_lsn(self.clock.now)
            if unwritten is not None:
                oldest = min(oldest, unwritten)
        return oldest

    def modified_age(self) -> int:
        """Bytes of redo since the oldest change not yet written (see ``oldest``)."""
        return self.redo.lsn - self.oldest()

    # -- the check before a client write ----------------------------------------------------------------------------
    def run(self) -> None:
        """InnoDB's log_free_check: flush and checkpoint as the ages require (see the module docstring)."""
        self._job_done()
        capacity = self.redo.capacity
        sync = point(SYNC, capacity)
        if self.modified_age() >= sync:
            if self.job is not None:  # first wait for the background flush in flight to write what is needed
                self._stall_until(self.job.time_written_below(self.redo.lsn - sync + 1))
                self.counters["redo_waits"] += 1
                self._job_done()
            if self.modified_age() >= sync:
                self._sync_flush(sync)
        # the reserve for the coming client write: as large as the last one, at most half the point (module docstring)
        reserve = 0 if self.last_lsn is None else self.redo.lsn - self.last_lsn
        async_age = point(ASYNC, capacity) - min(reserve, point(ASYNC, capacity) // 2)
        if self.job is None and self.modified_age() >= async_age:
            self._async_flush(async_age)
        self.last_lsn = self.redo.lsn
        if self.redo.age >= point(CHECKPOINT_ASYNC, capacity) and self.checkpointable() > self.redo.checkpoint_lsn:
            with self.stats.cause("checkpoint"):
                self.write_checkpoint(self.checkpointable())

    def _job_done(self) -> None:
        """Forget the async job once it has ended (a job exists only with a clock)."""
        if self.job is not None and self.clock.now >= self.job.end:
            self.job = None

    def _stall_until(self, t: float) -> None:
        """With a clock, the client waits until ``t``: a stall."""
        if self.clock is not None:
            self.clock.wait_until(t)

    def _write_below(self, lsn: int) -> tuple[tuple[int, ...], object]:
        """Write every dirty page whose oldest change is before ``lsn``, oldest first; (their oldest changes, the
        IO they took). Ages are brought *below* a point by writing below ``lsn - point + 1``."""
        before = self.stats.snapshot()
        frames = self.pool.oldest_dirty(self.pool.dirty_count, lsn)
        lsns = tuple(f.oldest_lsn for f in frames)  # taken before the write cleans the frames
        self.pager.write(frames)
        return lsns, (self.stats - before).total()

    def _async_flush(self, age: int) -> None:
        """Background writes bringing the modified age below ``age``; with a clock a job that takes time."""
        with self.stats.cause("checkpoint"):
            lsns, io = self._write_below(self.redo.lsn - age + 1)
        if not lsns:
            return  # the pages in question were written already
        self.counters["async_flushes"] += 1
        self.counters["async_flush_pages"] += len(lsns)
        if self.clock is not None:
            start, end = self.clock.job_span(io)
            if end > self.clock.now:
                self.job = FlushJob(lsns, start, end)

    def _sync_flush(self, age: int) -> None:
        """The client writes the oldest pages until the modified age is below ``age``, and waits for them."""
        with self.stats.cause("sync-flush"):
            lsns, io = self._write_below(self.redo.lsn - age + 1)
        if not lsns:
            return  # nothing older is left: the client has nothing to wait for
        self.counters["sync_flushes"] += 1
        self.counters["sync_flush_pages"] += len(lsns)
        if self.clock is not None:
            self._stall_until(self.clock.now + self.clock.job_duration(io))

    # -- checkpoints -------------------------------------------------------------------------------------------------
    def checkpointable(self) -> int:
        """The furthest LSN a checkpoint may record now: the oldest unwritten change, or an open transaction's
        first group if that is older (its undo must stay in the log)."""
        keep = self.keep_from()
        return self.oldest() if keep is None else min(self.oldest(), keep)

    def write_checkpoint(self, lsn: int) -> None:
        """Record checkpoint LSN ``lsn`` (at most ``checkpointable()``: every change before it is durable in the
        tablespace and no open transaction needs it). The caller sets the IO cause."""
        self.pager.stamp_flushed(lsn)  # the tablespace says it is this new (an older copy of it will not)
        if self.doublewrite is None:
            self.tablespace.sync()  # pages written without doublewrite are made durable here, before the log goes
        self.redo.write_checkpoint(lsn, self.page_size)
        self.counters["checkpoints"] += 1

    def sharp(self) -> int:
        """Write every dirty page and checkpoint at the end of the log; returns the pages written. The caller sets
        the IO cause."""
        lsns, _ = self._write_below(_NO_LIMIT)
        self.job = None  # whatever was in flight is written now
        self.write_checkpoint(self.checkpointable())
        return len(lsns)
