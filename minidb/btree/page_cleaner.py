"""The page cleaner: background writing of dirty pages, and background merging of the change buffer.

InnoDB's page cleaner thread wakes once a second and does two kinds of flushing:

* **LRU flushing**: when fewer than ``lru_scan_depth`` frames are free, dirty pages among the last ones of the LRU
  list are written, so that a client needing a frame finds a clean page to evict instead of having to write one
  itself (``buf_flush_LRU_list``).
* **Flush-list flushing**: when more than ``dirty_pct_lwm`` % of the pool is dirty, the oldest dirty pages are
  written, ``io_capacity * dirty% / dirty_pct_max`` of them per run (InnoDB's ``af_get_pct_for_dirty``), which
  keeps the checkpoint age and the dirty fraction down.

The master thread also merges some change-buffer entries in the background; here the same run does it.

The engine is single-threaded, so "background" means: run between client writes, every ``every_commits`` client
commits, or every ``interval`` simulated seconds when the engine has a clock. Its IO is counted under the cause
``page-cleaner``.
"""

from __future__ import annotations

import math


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

    def run(self, pool, pager, merge_leaf, change_buffer) -> None:
        """One run: LRU flushing, flush-list flushing, change-buffer merging (``merge_leaf(page_no, tag)`` reads a
        leaf in its own mini-transaction). The caller sets the IO cause."""
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
        dirty_pct = 100.0 * pool.dirty_count / pool.capacity
        if dirty_pct > opts.dirty_pct_lwm:
            n = math.ceil(opts.io_capacity * min(1.0, dirty_pct / opts.dirty_pct_max))
            frames = pool.oldest_dirty(n)
            pager.write(frames)
            self.flush_list_pages += len(frames)
        for page_no, tag in change_buffer.candidates(opts.change_buffer_merge_pages):
            merge_leaf(page_no, tag)
            self.merged_pages += 1

    def stats(self) -> dict:
        """Counters of the runs so far."""
        return {"runs": self.runs, "lru_pages": self.lru_pages, "flush_list_pages": self.flush_list_pages,
                "change_buffer_merged_pages": self.merged_pages}
