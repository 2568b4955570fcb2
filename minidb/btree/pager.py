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

**Checks on reading.** A page number read from another page (a child, a sibling, the free list) or from the redo
log is trusted only below page 0's page count (``check_page_number``): past it lies no page, and a frame for it would
grow the pool's page table without bound. A page read from the tablespace whose LSN is past the end of the log
recovery replayed (``recovered_lsn``), and that this engine has not written since, was written after changes the
log no longer holds: ``CorruptionError``, as InnoDB reports a page "in the future". (The end of the log itself moves
on as soon as recovery's rollback logs its changes, so it cannot be the bound.)

**Compressed tablespaces** (page_zip.pyx): a page read is its compressed image, expanded into the frame, and the
image stays with the frame as its compressed copy (``frame.zip``); a page written is that copy's image, one key
block. Both copies take pool memory: the pool holds ``pool_bytes // (page_size + key block size)`` frames.
Eviction drops the uncompressed frame first (InnoDB's ``unzip_LRU``): a clean page leaving the pool keeps its
compressed copy in memory (``zip_only``), and a later access expands it again without a read, until those copies
take ``ZIP_ONLY_SHARE`` of the pool, beyond which the oldest is dropped. Each kept copy takes a key block from the
frames' share of the pool. (InnoDB chooses between the two evictions by whether the workload is IO-bound or
CPU-bound, ``buf_LRU_evict_from_unzip_LRU``; a fixed share keeps the counts deterministic.)
"""

from __future__ import annotations

import struct
from collections import OrderedDict

from ..errors import CorruptionError
from . import fsp
from . import page as pg
from . import page_zip as zp
from .doublewrite import SLOTS as DOUBLEWRITE_SLOTS
from .recovery import future_page

EVICT_SCAN = 100  # LRU tail frames searched for a clean victim (InnoDB: BUF_LRU_SEARCH_SCAN_THRESHOLD)
LRU_FLUSH_BATCH = 32  # dirty tail frames written together when no clean victim is found
ZIP_ONLY_SHARE = 0.1  # most of the pool compressed copies without their frame may take (InnoDB's unzip_LRU: 10%)

_LSN = struct.Struct("<Q")


class BufferPoolFull(MemoryError):
    """Every frame of the buffer pool is pinned by the open mini-transaction or in use by the operation."""


class Pager:
    """Page access and write-back for one database (see the module docstring)."""

    def __init__(self, pool, tablespace, redo, doublewrite, stats, tag_of, pool_bytes: int | None = None) -> None:
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
        self.pool_bytes = pool_bytes  # the pool's memory (sizes frames and compressed copies when compressed)
        self.zip_only: OrderedDict[int, bytes] = OrderedDict()  # page -> image kept after its frame left, oldest first
        self.zip_only_hits = 0  # accesses served by expanding a kept compressed copy (no read)
        self.page_count = 0  # page 0's page count when last looked at (check_page_number)
        self.recovered_lsn: int | None = 0  # the end of the log recovery replayed (None while it replays)
        self.written = bytearray()  # bit n: this engine wrote page n to the tablespace (it may be newer than that)

    # -- access -------------------------------------------------------------------------------------------------------
    def fetch(self, page_no: int, tag: str):
        """The frame of ``page_no``, read in if needed; fixed until ``release()``."""
        frame = self.pool.get(page_no)
        if frame is None:
            self.check_page_number(page_no, f"tablespace.ibd, read for {tag or 'the engine'}")
            image = self.zip_only.pop(page_no, None)
            if image is not None:  # the compressed copy is still in the pool: expand it, no read
                self._resize()
                self.make_room()
                buf, zip_copy = zp.expand(image, self.pool.page_size, self.tablespace.zip_stats)
                self.zip_only_hits += 1
                frame = self.pool.add(page_no, buf, False)
            else:
                self.make_room()
                with self.stats.tag(tag):
                    buf, zip_copy = self.tablespace.read_frame(page_no)
                if self.recovered_lsn is not None and not self._wrote(page_no):
                    lsn = _LSN.unpack_from(buf, pg.LSN_OFFSET)[0]
                    if lsn > self.recovered_lsn:
                        raise CorruptionError(future_page(page_no, lsn, self.recovered_lsn))
                self.pages_read += 1
                frame = self.pool.add(page_no, buf, True)
            self._attach(frame, zip_copy)
            self.fix(frame)
            if self.on_read is not None:
                self.on_read(frame)
            return frame
        self.fix(frame)
        return frame

    def check_page_number(self, page_no: int, what: str) -> None:
        """CorruptionError unless page ``page_no`` (named by ``what``) lies below page 0's page count."""
        if page_no == fsp.FSP_PAGE or page_no < self.page_count:  # (the page count never shrinks)
            return
        self.page_count = fsp.read_u32(self.fetch(fsp.FSP_PAGE, "__fsp").buf, fsp.OFF_PAGE_COUNT)
        if page_no >= self.page_count:
            raise CorruptionError(f"{what}: page {page_no} is past the tablespace's {self.page_count} pages")

    def fix_cached(self, page_no: int):
        """Fix the frame of a page known to be in the pool (no counting, no LRU move)."""
        frame = self.pool.peek(page_no)
        if frame is None:
            raise RuntimeError(f"page {page_no} was expected in the buffer pool")
        self.fix(frame)
        return frame

    def new_page(self, page_no: int):
        """A zeroed frame for a page that has no content yet (never read from disk); fixed."""
        if self.zip_only.pop(page_no, None) is not None:  # recovery re-initialising a page: the copy is stale
            self._resize()
        self.make_room()
        frame = self.pool.add(page_no, bytearray(self.pool.page_size), False)
        self._attach(frame, None)
        self.fix(frame)
        return frame

    def _attach(self, frame, zip_copy) -> None:
        """Give a frame of a compressed tablespace its compressed copy: the one read, or an empty one that the
        page's first change (always an INIT for a new page) compresses."""
        ts = self.tablespace
        if ts.compressed:
            frame.zip = zip_copy if zip_copy is not None else zp.PageZip(ts.block, ts.zip_stats)

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
            limit = max(1, min(EVICT_SCAN, pool.old_count))
            clean = pool.clean_victim(limit)
            if clean is not None:
                self.evict(clean)
                continue
            victims = pool.victims(limit)
            if not victims:
                raise BufferPoolFull(
                    f"buffer pool full: all {pool.capacity} frames of {pool.page_size} bytes are pinned by the open "
                    f"mini-transaction or in use by the current operation: give the engine a larger "
                    f"buffer_pool_bytes")
            with self.stats.cause("eviction"):
                self.write(victims[:LRU_FLUSH_BATCH])

    def evict(self, frame) -> None:
        """Remove a clean, evictable frame (keeping its compressed copy, if it has one: see the module
        docstring)."""
        if self.on_evict is not None:
            self.on_evict(frame)
        if frame.zip is not None and self.pool_bytes is not None:
            self.zip_only[frame.page_no] = frame.zip.image(frame)
            limit = int(ZIP_ONLY_SHARE * self.pool_bytes) // self.tablespace.block
            while len(self.zip_only) > limit:
                self.zip_only.popitem(last=False)
        self.pool.evict(frame)
        self._resize()

    def _resize(self) -> None:
        """Frames the pool may hold, after the compressed copies kept without their frame."""
        if self.pool_bytes is not None and self.tablespace.compressed:
            block = self.tablespace.block
            self.pool.capacity = (self.pool_bytes - len(self.zip_only) * block) // (self.pool.page_size + block)

    # -- writing ------------------------------------------------------------------------------------------------------
    def write(self, frames) -> None:
        """Write dirty frames back (write-ahead rule, doublewrite, home writes) and mark them clean."""
        self.write_now([f for f in frames if f.dirty])

    def _mark_written(self, page_no: int) -> None:
        byte = page_no >> 3
        if byte >= len(self.written):
            self.written.extend(bytes(byte + 1 - len(self.written)))
        self.written[byte] |= 1 << (page_no & 7)

    def _wrote(self, page_no: int) -> bool:
        byte = page_no >> 3
        return byte < len(self.written) and bool(self.written[byte] >> (page_no & 7) & 1)

    def stamp_flushed(self, lsn: int) -> None:
        """Write page 0 with flushed LSN ``lsn`` (fsp.py): a checkpoint's last page write."""
        fsp.stamp_flushed(self, lsn)

    def write_now(self, frames) -> None:
        """Write ``frames`` back as ``write`` does, dirty or not (a change no redo describes: fsp.py's flushed
        LSN)."""
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
                if f.zip is not None:
                    image = f.zip.image(f)  # the compressed copy, one key block
                else:
                    pg.stamp_checksum(f.buf)
                    image = bytes(f.buf)
                images.append((self.tag_of(f), f.page_no, image))
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
                self._mark_written(f.page_no)
            self.pages_written += len(chunk)
