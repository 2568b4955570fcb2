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
  simulated time on the device (``Clock.job_duration``); until it ends, the log it frees is not yet free (its pages
  count as dirty for the ages), so the client may catch up with it;
* ``SYNC`` (``max_modified_age_sync``, 15/16 of the margin): past it, the client itself must wait: first for the
  async job in flight, then for a **sync flush** of the oldest pages down to the point
  (``log_preflush_pool_modified_pages``), written under the cause ``sync-flush``. With a clock both waits are *stalls* (``Clock.wait_until``):
  the client is blocked, which is what "limited by redo writes" means;
* ``CHECKPOINT_ASYNC`` (``max_checkpoint_age_async``, 31/32 of the margin): past it, a checkpoint is written.

"Past" a point means at it or beyond (an age of exactly the point triggers it). The engine runs this check before
each client write, as InnoDB runs ``log_free_check`` before each mini-transaction (a batch of many
mini-transactions may overshoot by its own redo, as InnoDB reserves ``log_margin`` for one mtr).
``flush()`` and ``close()`` make a *sharp* checkpoint: every dirty page is written.

An open in-place transaction (in_place.py) keeps its undo in the log, so no checkpoint passes its first uncommitted
group: a long transaction holds the log behind it, which may then grow past ``redo_log_bytes`` until it commits.
"""

from __future__ import annotations

MARGIN = 1 - 1 / 10  # log_calc_max_ages: "margin = margin - margin / 10; /* Add still some extra safety */"
ASYNC = MARGIN * (1 - 1 / 8)  # POOL_MAX_MODIFIED_AGE_ASYNC_MARGIN_FRACTION 8: background flushing below this
SYNC = MARGIN * (1 - 1 / 16)  # POOL_MAX_MODIFIED_AGE_SYNC_MARGIN_FRACTION 16: the client flushes (and waits)
CHECKPOINT_ASYNC = MARGIN * (1 - 1 / 32)  # LOG_CHECKPOINT_ASYNC_MARGIN 32: write a checkpoint past this age

_NO_LIMIT = (1 << 64) - 1


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
        self.job: tuple[int, float] | None = None  # async flush in flight: (oldest LSN it was writing from, end)
        self.keep_from = keep_from  # () -> the LSN an open transaction holds the log from, or None

    # -- ages --------------------------------------------------------------------------------------------------------
    def oldest(self) -> int:
        """The oldest change not yet durable in the tablespace, as of now on the clock (the end of the log if none):
        an async job still in flight has not written its pages yet."""
        oldest = self.pool.oldest_lsn
        oldest = self.redo.lsn if oldest is None else min(oldest, self.redo.lsn)
        if self.job is not None:
            oldest = min(oldest, self.job[0])
        return oldest

    def modified_age(self) -> int:
        """Bytes of redo since the oldest change not yet written (see ``oldest``)."""
        return self.redo.lsn - self.oldest()

    # -- the check before a client write ----------------------------------------------------------------------------
    def run(self) -> None:
        """InnoDB's log_free_check: flush and checkpoint as the ages require (see the module docstring)."""
        self._job_done()
        capacity = self.redo.capacity
        if self.modified_age() >= point(SYNC, capacity):
            if self.job is not None:  # first wait for the background flush in flight
                self._stall_until(self.job[1])
                self.job = None
                self.counters["redo_waits"] += 1
            if self.modified_age() >= point(SYNC, capacity):
                self._sync_flush(point(SYNC, capacity))
        if self.job is None and self.modified_age() >= point(ASYNC, capacity):
            self._async_flush(point(ASYNC, capacity))
        if self.redo.age >= point(CHECKPOINT_ASYNC, capacity) and self.checkpointable() > self.redo.checkpoint_lsn:
            with self.stats.cause("checkpoint"):
                self.write_checkpoint(self.checkpointable())

    def _job_done(self) -> None:
        if self.job is not None and (self.clock is None or self.clock.now >= self.job[1]):
            self.job = None

    def _stall_until(self, t: float) -> None:
        if self.clock is not None:
            self.clock.wait_until(t)

    def _write_below(self, lsn: int) -> tuple[int, object]:
        """Write every dirty page whose oldest change is before ``lsn``; (pages written, the IO they took). Ages
        are brought *below* a point by writing below ``lsn - point + 1``."""
        before = self.stats.snapshot()
        frames = self.pool.oldest_dirty(self.pool.dirty_count, lsn)
        self.pager.write(frames)
        return len(frames), (self.stats - before).total()

    def _async_flush(self, age: int) -> None:
        """Background writes bringing the modified age below ``age``; with a clock a job that takes time."""
        start = self.oldest()
        with self.stats.cause("checkpoint"):
            pages, io = self._write_below(self.redo.lsn - age + 1)
        self.counters["async_flushes"] += 1
        self.counters["async_flush_pages"] += pages
        if self.clock is not None:
            seconds = self.clock.job_duration(io)
            if seconds > 0:
                self.job = (start, self.clock.now + seconds)

    def _sync_flush(self, age: int) -> None:
        """The client writes the oldest pages until the modified age is below ``age``, and waits for them."""
        with self.stats.cause("sync-flush"):
            pages, io = self._write_below(self.redo.lsn - age + 1)
        self.counters["sync_flushes"] += 1
        self.counters["sync_flush_pages"] += pages
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
        if self.doublewrite is None:
            self.tablespace.sync()  # pages written without doublewrite are made durable here, before the log goes
        self.redo.write_checkpoint(lsn, self.page_size)
        self.counters["checkpoints"] += 1

    def sharp(self) -> int:
        """Write every dirty page and checkpoint at the end of the log; returns the pages written. The caller sets
        the IO cause."""
        pages, _ = self._write_below(_NO_LIMIT)
        self.job = None  # whatever was in flight is written now
        self.write_checkpoint(self.checkpointable())
        return pages
