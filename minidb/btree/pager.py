"""The pager: brings pages into buffer-pool frames and writes dirty frames back, in the right order.

* ``fetch``: a page access. A hit costs nothing; a miss first makes room (evicting, which may mean writing), then
  reads the page from the tablespace (checksum verified) into a frame at the LRU midpoint.
* **Eviction** (cause ``"eviction"``): the victim is the first *clean* evictable frame among the last
  ``EVICT_SCAN`` frames of the LRU list, within the old sublist (InnoDB searches the tail for a clean block the
  same way); if every one of them is dirty, up to ``LRU_FLUSH_BATCH`` of them, tail first, are written first.
  This is where a small buffer pool turns changes into page writes: a page is written back with however few
  changed rows it holds (seed 002).
* ``write``: the write-ahead rule first (the redo log is made durable up to the newest page LSN of the batch),
  then each chunk of pages goes to the doublewrite file (synced) and to its home position (then the tablespace is
  synced); without doublewrite, pages go home directly and the tablespace is synced at checkpoints.
* **Fixes**: every frame an operation fetches stays fixed (not evictable) until ``release()`` at the end of the
  operation, so a page being split cannot be evicted by a read the split itself needs. A frame changed by the open
  mini-transaction is also unevictable until its redo group is appended (``BufferPool.evictable``); a batch's mtr
  ends after a quarter of the pool (engine.py), so only a pool of a handful of frames can run out of evictable
  frames, which raises ``BufferPoolFull``.

Every read and write is tagged with the keyspace the page belongs to, so IOStats counts IO per index.
"""

from __future__ import annotations

import struct

from . import page as pg
from .doublewrite import SLOTS as DOUBLEWRITE_SLOTS

EVICT_SCAN = 100  # LRU tail frames searched for a clean victim (InnoDB: BUF_LRU_SEARCH_SCAN_THRESHOLD)
LRU_FLUSH_BATCH = 32  # dirty tail frames written together when no clean victim is found

_LSN = struct.Struct("<Q")


class BufferPoolFull(MemoryError):
    """Every frame of the buffer pool is pinned by the open mini-transaction or in use by the operation."""


class Pager:
    """Page access and write-back for one database (see the module docstring)."""

    def __init__(self, pool, tablespace, redo, doublewrite, stats, tag_of) -> None:
        self.pool = pool  # the buffer pool
        self.tablespace = tablespace  # the data file
        self.redo = redo  # the redo log (for the write-ahead rule)
        self.doublewrite = doublewrite  # the Doublewrite, or None when it is off
        self.stats = stats  # the device's IOStats, for tags
        self.tag_of = tag_of  # frame -> IO tag (the keyspace the page belongs to)
        self.on_read = None  # called with each frame read from the tablespace (the change buffer merges there)
        self.on_evict = None  # called with each frame about to leave the pool
        self.fixed: list = []  # frames fixed by the current operation
        self.pages_written = 0  # page writes to the tablespace
        self.pages_read = 0  # page reads from the tablespace

    # -- access -------------------------------------------------------------------------------------------------------
    def fetch(self, page_no: int, tag: str):
        """The frame of ``page_no``, read in if needed; fixed until ``release()``."""
        frame = self.pool.get(page_no)
        if frame is None:
            self.make_room()
            with self.stats.tag(tag):
                buf = self.tablespace.read_page(page_no)
            self.pages_read += 1
            frame = self.pool.add(page_no, buf, True)
            self.fix(frame)
            if self.on_read is not None:
                self.on_read(frame)
            return frame
        self.fix(frame)
        return frame

    def fix_cached(self, page_no: int):
        """Fix the frame of a page known to be in the pool (no counting, no LRU move)."""
        frame = self.pool.peek(page_no)
        if frame is None:
            raise RuntimeError(f"page {page_no} was expected in the buffer pool")
        self.fix(frame)
        return frame

    def new_page(self, page_no: int):
        """A zeroed frame for a page that has no content yet (never read from disk); fixed."""
        self.make_room()
        frame = self.pool.add(page_no, bytearray(self.pool.page_size), False)
        self.fix(frame)
        return frame

    def fix(self, frame) -> None:
        """Keep ``frame`` in the pool until ``release()``."""
        frame.fix += 1
        self.fixed.append(frame)

    def release(self) -> None:
        """End of an operation: unfix every frame it fixed."""
        for frame in self.fixed:
            frame.fix -= 1
        self.fixed.clear()

    # -- eviction -----------------------------------------------------------------------------------------------------
    def make_room(self) -> None:
        """Free a frame if the pool is full (see the module docstring)."""
        pool = self.pool
        while pool.full:
            # Search the old sublist only: in a small pool, skipping more dirty pages than that would evict hot
            # (young) pages just because they happen to be clean.
            victims = pool.victims(max(1, min(EVICT_SCAN, pool.old_count)))
            clean = next((f for f in victims if not f.dirty), None)
            if clean is not None:
                self.evict(clean)
                continue
            if not victims:
                raise BufferPoolFull(
                    f"buffer pool full: all {pool.capacity} frames of {pool.page_size} bytes are pinned by the open "
                    f"mini-transaction or in use by the current operation: give the engine a larger "
                    f"buffer_pool_bytes")
            with self.stats.cause("eviction"):
                self.write(victims[:LRU_FLUSH_BATCH])

    def evict(self, frame) -> None:
        """Remove a clean, evictable frame."""
        if self.on_evict is not None:
            self.on_evict(frame)
        self.pool.evict(frame)

    # -- writing ------------------------------------------------------------------------------------------------------
    def write(self, frames) -> None:
        """Write dirty frames back (write-ahead rule, doublewrite, home writes) and mark them clean."""
        frames = [f for f in frames if f.dirty]
        if not frames:
            return
        for f in frames:
            if self.pool.pinned(f):
                raise RuntimeError(f"page {f.page_no} is changed by the open mini-transaction: its redo is not in "
                                   f"the log")
        self.redo.flush_up_to(max(_LSN.unpack_from(f.buf, pg.LSN_OFFSET)[0] for f in frames))
        step = len(frames) if self.doublewrite is None else DOUBLEWRITE_SLOTS
        for i in range(0, len(frames), step):
            chunk = frames[i:i + step]
            images = []
            for f in chunk:
                pg.stamp_checksum(f.buf)
                images.append((self.tag_of(f), f.page_no, bytes(f.buf)))
            images.sort()  # by keyspace, then page number: one doublewrite request per keyspace
            if self.doublewrite is not None:
                self.doublewrite.write(images)
            for tag, page_no, image in images:
                with self.stats.tag(tag):
                    self.tablespace.write_page(page_no, image)
            if self.doublewrite is not None:
                self.tablespace.sync()
            for f in chunk:
                self.pool.cleaned(f)
            self.pages_written += len(chunk)
