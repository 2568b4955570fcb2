"""The file-space header (page 0) and page allocation: which pages exist, which are free, which ids are next.

InnoDB's ``fsp0fsp``, reduced to a high-water mark and a free list::

    page 0 (type FSP), after the common 40-byte page header:
      40  magic "MINIDBBT"     48  format version u32     52  page size u32
      56  page count u32       pages [0, page count) exist in the tablespace, in use or free
      60  free list head u32   first free page (NIL if none); each free page links the next in its ``next`` field
      64  free page count u32
      68  next index id u32    the id the next keyspace gets
      72  flushed LSN u64      the checkpoint LSN the tablespace was last made durable for (below)

Three pages are fixed at creation: 0 (this header), 1 (root of the catalog tree, index id 1) and 2 (root of the
change buffer tree, index id 2). Roots never move: a root splits by pushing its records down (tree.py).

Every change to the header goes through the mini-transaction (``mtr.set_u32``), so it is redo-logged like any
other page change, but one: the **flushed LSN** (InnoDB's ``FIL_PAGE_FILE_FLUSH_LSN``). Each checkpoint, once the
pages it needs are written, writes it into page 0 and page 0 to the tablespace (``stamp_flushed``), and only then
the checkpoint block; it is not logged, since it describes the file, not the data. At open it must be at least the
checkpoint LSN: a tablespace replaced by an older copy of itself has an older one, and opening it would silently
bring back old data (``check``). Format version 2 added it; a tablespace of version 1 is refused by name.
"""

from __future__ import annotations

import struct

from ..errors import CorruptionError
from . import page as pg

MAGIC = b"MINIDBBT"
VERSION = 2  # 2: page 0 holds the flushed LSN
OFF_MAGIC = 40
OFF_VERSION = 48
OFF_PAGE_SIZE = 52
OFF_PAGE_COUNT = 56
OFF_FREE_HEAD = 60
OFF_FREE_COUNT = 64
OFF_NEXT_INDEX_ID = 68
OFF_FLUSHED_LSN = 72

FSP_PAGE = 0  # the file-space header
CATALOG_ROOT = 1  # root of the catalog tree (keyspace name -> index id, root, options)
CHANGE_BUFFER_ROOT = 2  # root of the change buffer tree
CATALOG_INDEX_ID = 1
CHANGE_BUFFER_INDEX_ID = 2
FIRST_USER_INDEX_ID = 3
FIRST_FREE_PAGE = 3  # pages below this are fixed

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


def read_u32(buf, offset: int) -> int:
    """A u32 field of a page."""
    return _U32.unpack_from(buf, offset)[0]


class FileSpace:
    """Allocates and frees pages of the tablespace, keeping page 0 up to date through the open mtr."""

    def __init__(self, pager, current_mtr) -> None:
        self.pager = pager  # gets pages into frames
        self.current_mtr = current_mtr  # callable returning the open mini-transaction

    def header(self):
        """The frame of page 0 (fixed for the current operation)."""
        return self.pager.fetch(FSP_PAGE, "__fsp")

    def create(self, mtr, page_size: int) -> None:
        """Write a fresh header into page 0 (database creation): pages 0..2 exist, none is free."""
        frame = self.pager.new_page(FSP_PAGE)
        mtr.init(frame, pg.PAGE_TYPES["fsp"], 0, 0, pg.NIL_PAGE, pg.NIL_PAGE, 0, [])
        for offset, value in ((OFF_VERSION, VERSION), (OFF_PAGE_SIZE, page_size),
                              (OFF_PAGE_COUNT, FIRST_FREE_PAGE), (OFF_FREE_HEAD, pg.NIL_PAGE),
                              (OFF_FREE_COUNT, 0), (OFF_NEXT_INDEX_ID, FIRST_USER_INDEX_ID)):
            mtr.set_u32(frame, offset, value)
        for i in range(0, len(MAGIC), 4):
            mtr.set_u32(frame, OFF_MAGIC + i, _U32.unpack(MAGIC[i:i + 4])[0])

    def check(self, page_size: int, checkpoint_lsn: int) -> None:
        """CorruptionError unless page 0 is a file-space header of this format for ``page_size``-byte pages, made
        durable for a checkpoint at or after ``checkpoint_lsn`` (see the module docstring), counting no more pages
        than the file holds or recovery rebuilt (called after redo replay)."""
        buf = self.header().buf
        pool = self.pager.pool
        pages_known = max([self.pager.tablespace.size // self.pager.tablespace.block]
                          + [f.page_no + 1 for f in pool.frames()])
        if bytes(buf[OFF_MAGIC:OFF_MAGIC + 8]) != MAGIC:
            raise CorruptionError(f"tablespace.ibd page 0: not a minidb B+tree file-space header "
                                  f"(magic {bytes(buf[OFF_MAGIC:OFF_MAGIC + 8])!r})")
        if read_u32(buf, OFF_PAGE_SIZE) != page_size:
            raise CorruptionError(f"tablespace.ibd page 0: records {read_u32(buf, OFF_PAGE_SIZE)}-byte pages, but "
                                  f"the redo checkpoint says {page_size}")
        check_flushed(buf, checkpoint_lsn)
        count = read_u32(buf, OFF_PAGE_COUNT)
        if count > pages_known:
            raise CorruptionError(f"tablespace.ibd page 0: counts {count} pages, but the file and the redo log hold "
                                  f"{pages_known}")


    def alloc(self):
        """A page for new content: the head of the free list, or a new page past the high-water mark, for which
        the tablespace file grows (TableFullError if it cannot).

        Returns its frame (fixed); the caller initialises it through the mtr.
        """
        mtr = self.current_mtr()
        head = self.header()
        free = read_u32(head.buf, OFF_FREE_HEAD)
        if free != pg.NIL_PAGE:
            frame = self.pager.fetch(free, "__free")
            page = pg.Page(frame.buf)
            if page.type != pg.PAGE_TYPES["free"]:
                raise CorruptionError(f"tablespace page {free}: on the free list but of type {page.type}")
            mtr.set_u32(head, OFF_FREE_HEAD, page.next)
            mtr.set_u32(head, OFF_FREE_COUNT, read_u32(head.buf, OFF_FREE_COUNT) - 1)
            return frame
        page_no = read_u32(head.buf, OFF_PAGE_COUNT)
        self.pager.tablespace.extend(page_no + 1)  # TableFullError on a full disk, before anything changes
        mtr.set_u32(head, OFF_PAGE_COUNT, page_no + 1)
        return self.pager.new_page(page_no)

    def free(self, frame) -> None:
        """Put the page of ``frame`` on the free list (its contents are gone)."""
        mtr = self.current_mtr()
        head = self.header()
        mtr.init(frame, pg.PAGE_TYPES["free"], 0, 0, pg.NIL_PAGE, read_u32(head.buf, OFF_FREE_HEAD), 0, [])
        mtr.set_u32(head, OFF_FREE_HEAD, frame.page_no)
        mtr.set_u32(head, OFF_FREE_COUNT, read_u32(head.buf, OFF_FREE_COUNT) + 1)

    def next_index_id(self) -> int:
        """Take the next index id (logged)."""
        head = self.header()
        index_id = read_u32(head.buf, OFF_NEXT_INDEX_ID)
        self.current_mtr().set_u32(head, OFF_NEXT_INDEX_ID, index_id + 1)
        return index_id


def stamp_flushed(pager, lsn: int) -> None:
    """Record in page 0, and write to the tablespace now through ``pager``, that every change before ``lsn`` is
    durable in it (a checkpoint's last step before its block; see the module docstring)."""
    frame = pager.fetch(FSP_PAGE, "__fsp")
    _U64.pack_into(frame.buf, OFF_FLUSHED_LSN, lsn)
    if frame.zip is not None:
        frame.zip.mark_stale()  # a change outside the modification log: compressed again
    pager.write_now([frame])


def check_flushed(buf, checkpoint_lsn: int) -> None:
    """CorruptionError unless page 0 (``buf``) is of this format and was made durable for a checkpoint at or after
    ``checkpoint_lsn`` (see the module docstring). Recovery checks it before replaying the log, whose changes an
    older tablespace would lack."""
    if bytes(buf[OFF_MAGIC:OFF_MAGIC + 8]) == MAGIC and read_u32(buf, OFF_VERSION) != VERSION:
        raise CorruptionError(f"tablespace.ibd page 0: format version {read_u32(buf, OFF_VERSION)}, but this minidb "
                              f"reads version {VERSION} only (a database made by another minidb: recreate it)")
    flushed = _U64.unpack_from(buf, OFF_FLUSHED_LSN)[0]
    if flushed < checkpoint_lsn:
        raise CorruptionError(f"tablespace.ibd is older than redo-checkpoint: it was last made durable for LSN "
                              f"{flushed}, but the checkpoint is at LSN {checkpoint_lsn} (an older copy of the "
                              f"tablespace, whose later changes the redo log no longer holds)")


def check_flushed_on_disk(tablespace, checkpoint_lsn: int) -> None:
    """``check_flushed`` on page 0 as the tablespace holds it, if it is intact there (before recovery's doublewrite
    repair writes to the file: an older tablespace is refused before anything is written to it); a torn page 0
    is left to the doublewrite repair, and checked after it."""
    raw = tablespace.read_raw(FSP_PAGE)
    if raw is not None and not pg.is_zero(raw) and tablespace.valid(FSP_PAGE, raw):
        check_flushed(tablespace.page_of(raw), checkpoint_lsn)
