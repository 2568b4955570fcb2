"""The page cleaner: background writing of dirty pages, and background merging of the change buffer.

InnoDB's page cleaner thread wakes once a second and does two kinds of flushing:

* **LRU flushing**: when fewer than ``lru_scan_depth`` frames are free, dirty pages among the last ones of the LRU
  list are written, so that a client needing a frame finds a clean page to evict instead of having to write one
  itself (``buf_flush_LRU_list``).
* **Flush-list flushing**: the oldest dirty pages are written, as many per run as the larger of two percentages of
  ``io_capacity`` asks (InnoDB's ``page_cleaner_flush_pages_recommendation``), at most ``io_capacity_max``:

  - for the dirty pages (``af_get_pct_for_dirty``): above ``dirty_pct_lwm`` % dirty, ``100 * dirty% /
    dirty_pct_max``;
  - for the redo log (``af_get_pct_for_lsn``, *adaptive flushing*): once the modified age (the log since the oldest
    unwritten change) passes ``adaptive_flushing_lwm`` % of the log's capacity, ``(io_capacity_max / io_capacity) *
    f * sqrt(f) / 7.5`` where ``f`` is the age in % of the async point (checkpoint.py's ``ASYNC``). The power 3/2
    makes the pace climb steeply as the log fills: at the async point it asks for 13 times ``io_capacity``
    with the defaults, so ``io_capacity_max`` caps it. With ``adaptive_flushing`` off it asks nothing below the
    async point, as InnoDB.

  InnoDB averages this with the recent page and LSN rates; this cleaner takes the percentage alone, so its pace
  follows the log's age and the dirty fraction directly.

The master thread also merges some change-buffer entries in the background; here the same run does it.

The engine is single-threaded, so "background" means: run between client writes, every ``every_commits`` client
commits, or every ``interval`` simulated seconds when the engine has a clock. Its IO is counted under the cause
``page-cleaner``.
"""

from __future__ import annotations

import math

from .checkpoint import ASYNC, point


class PageCleaner:
    """Decides when the page cleaner runs and what it writes (see the module docstring)."""

    def __init__(self, options, clock) -> None:
        self.options = options  # PageCleanerOptions
        self.clock = clock  # Clock or None
        self.commits = 0  # client commits since the last run
        self.next_time = (clock.now + options.interval) if clock is not None else 0.0  # next run, with a clock
        self.runs = 0  # runs so far
        self.lru_pages = 0  # pages written by LRU flushing
        self.flush_list_pages = 0  # pages written by flush-list flushing
        self.merged_pages = 0  # leaves read to merge their buffered changes

    def due(self) -> bool:
        """True if a run is due."""
        if self.clock is not None:
            return self.clock.now >= self.next_time
        return self.commits >= self.options.every_commits

    def run(self, pool, pager, merge_leaf, change_buffer, modified_age: int, capacity: int) -> None:
        """One run: LRU flushing, flush-list flushing for the dirty pages and the redo log's ``modified_age`` (of
        ``capacity`` bytes), change-buffer merging (``merge_leaf(page_no, tag)`` reads a leaf in its own
        mini-transaction). The caller sets the IO cause."""
        opts = self.options
        self.runs += 1
        self.commits = 0
        if self.clock is not None:
            self.next_time = self.clock.now + opts.interval
        depth = math.ceil(opts.lru_scan_depth * pool.capacity)
        free = pool.capacity - len(pool)
        if free < depth:
            tail = [f for f in pool.tail(depth - free) if f.dirty and pool.evictable(f)]
            pager.write(tail)
            self.lru_pages += len(tail)
        pct = max(self.pct_for_dirty(100.0 * pool.dirty_count / pool.capacity),
                  self.pct_for_lsn(modified_age, capacity))
        if pct > 0:
            n = min(opts.io_capacity_max, math.ceil(opts.io_capacity * pct / 100.0))
            frames = pool.oldest_dirty(n)
            pager.write(frames)
            self.flush_list_pages += len(frames)
        for page_no, tag in change_buffer.candidates(opts.change_buffer_merge_pages):
            merge_leaf(page_no, tag)
            self.merged_pages += 1

    def pct_for_dirty(self, dirty_pct: float) -> float:
        """% of io_capacity to write for ``dirty_pct`` % of the pool dirty (af_get_pct_for_dirty)."""
        opts = self.options
        if dirty_pct <= opts.dirty_pct_lwm:
            return 0.0
        return 100.0 * min(1.0, dirty_pct / opts.dirty_pct_max)

    def pct_for_lsn(self, modified_age: int, capacity: int) -> float:
        """% of io_capacity to write for a redo log whose modified age is ``modified_age`` of ``capacity`` bytes
        (af_get_pct_for_lsn; see the module docstring)."""
        opts = self.options
        async_age = point(ASYNC, capacity)
        if modified_age < opts.adaptive_flushing_lwm / 100.0 * capacity:
            return 0.0
        if modified_age < async_age and not opts.adaptive_flushing:
            return 0.0
        f = 100.0 * modified_age / async_age
        return (opts.io_capacity_max // opts.io_capacity) * f * math.sqrt(f) / 7.5

    def stats(self) -> dict:
        """Counters of the runs so far."""
        return {"runs": self.runs, "lru_pages": self.lru_pages, "flush_list_pages": self.flush_list_pages,
                "change_buffer_merged_pages": self.merged_pages}
