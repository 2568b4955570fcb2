"""Checkpoints: write the oldest dirty pages so that the redo log before them is no longer needed.

Recovery replays the log from the checkpoint LSN, so the log since the checkpoint must stay, and it must fit in
``redo_log_bytes``. A checkpoint writes dirty pages in flush-list order (oldest first change first), makes the
tablespace durable, and records as the new checkpoint LSN the oldest first change still unwritten (or the end of
the log when nothing is dirty). Redo files entirely before it are then deleted.

InnoDB flushes ahead of need (adaptive flushing) and forces a checkpoint when the checkpoint age passes
``log_max_modified_age_async``, 7/8 of the capacity. Here the engine checks the age before each client write:
past ``TRIGGER`` of the capacity, it writes pages until the age is back to ``TARGET`` (a *fuzzy* checkpoint).
``flush()`` and ``close()`` make a *sharp* checkpoint: every dirty page is written.

An open in-place transaction (in_place.py) keeps its undo in the log, so no checkpoint passes its first uncommitted
group: a long transaction holds the log behind it, which may then grow past ``redo_log_bytes`` until it commits.
"""

from __future__ import annotations

TRIGGER = 7 / 8  # checkpoint when the log since the checkpoint exceeds this fraction of redo_log_bytes
TARGET = 1 / 2  # ... and write pages until it is back below this fraction

_NO_LIMIT = (1 << 64) - 1


def due(redo, keep_from: int | None = None) -> bool:
    """True if the log since the checkpoint is past the trigger (only the log before ``keep_from`` counts: a
    checkpoint cannot free the rest)."""
    end = redo.lsn if keep_from is None else min(keep_from, redo.lsn)
    return end - redo.checkpoint_lsn > TRIGGER * redo.capacity


def checkpoint(pool, pager, redo, tablespace, doublewrite, page_size: int, sharp: bool,
               keep_from: int | None = None) -> int:
    """Write dirty pages (all if ``sharp``, else those needed to bring the age to TARGET), advance the checkpoint,
    but not past ``keep_from`` (an open transaction's undo is in the log from there); returns the pages written.
    The caller sets the IO cause."""
    below = _NO_LIMIT if sharp else int(redo.lsn - TARGET * redo.capacity)
    frames = pool.oldest_dirty(pool.dirty_count, below)
    pager.write(frames)
    if doublewrite is None:
        tablespace.sync()  # page writes without doublewrite are made durable here, before the log is released
    oldest = pool.oldest_lsn
    lsn = redo.lsn if oldest is None else min(oldest, redo.lsn)
    redo.write_checkpoint(lsn if keep_from is None else min(lsn, keep_from), page_size)
    return len(frames)
