"""Crash recovery: repair torn pages from the doublewrite buffer, then replay the redo log from the checkpoint.

1. **Doublewrite** (doublewrite.py): a page whose home copy fails its checksum is restored from its copy in the
   doublewrite file, which was synced before the home write started.
2. **Redo** (``replay``): every complete group from the checkpoint LSN on is replayed, in order. A record is
   applied to its page only if the page does not have it yet, i.e. the page's LSN is below the group's end LSN
   (the decision is made once per page and group, at the page's first record in the group). An INIT record is
   always applied and needs no read: it says everything about the page, so a page that is rebuilt from scratch
   by the log is not even read (which also spares a torn page that the log overwrites anyway).
3. Pages changed by replay are dirty in the pool, stamped with the group's LSNs, exactly as if the groups had just
   been committed; normal operation then writes them like any other dirty page. Redo applies to the uncompressed
   page: in a compressed tablespace the page's compressed copy is rebuilt from it when it is written.
4. **Undo**: replay also collects the UNDO records of the batch that was open at the crash, if any (groups that
   end with CONTINUE and no COMMIT group after them). The engine then rolls that batch back (engine.py,
   ``_rollback``): the log holds its undo before any of its pages could reach the disk (write-ahead rule), so
   every change of a batch that did not commit is taken back, in the pages and in the log. All of that batch is
   after the checkpoint, since checkpoints are taken between batches only.

Replaying a group twice is harmless (its pages already carry its LSN), so a crash during recovery is recovered the
same way; a rollback that was cut short logged how far it got (UNDONE records), and the next recovery finishes it.
Groups that were not complete (bad crc, torn) are the end of the log.

**A log is not trusted blindly.** A crc proves a group's bytes are those written, not that they were written right
(nor forged with the crc recomputed), so replay checks what the records do: every page a record names lies below
page 0's page count (a page number past it would make the pool and the file grow without bound), every page a
group changed is well formed afterwards (``page.structure_error``), a group never consists of CONTINUE alone (the
engine never writes one), and a record that does not decode or apply is ``CorruptionError`` naming the group's LSN.
Replay's work is bounded by the bytes it reads: each record moves the decoder forward and changes one page.

**Rollback of files.** Once the log is replayed, its end is the newest change the database has made durable:
a page whose LSN is past it was written after changes this log no longer holds (redo files cut short or replaced
by older copies), so every page in the pool is checked now, and every page read from then on that the engine has
not written since (``Pager``), and is ``CorruptionError`` if its LSN is in the future. The tablespace itself must
be at least as new as the checkpoint: page 0 records the checkpoint LSN each checkpoint made the tablespace durable
for (fsp.py, ``flushed LSN``).
"""

from __future__ import annotations

import struct

from ..errors import CorruptionError
from . import fsp
from . import page as pg
from .redo_records import COMMIT, CONTINUE, INIT, NAMES, UNDO, UNDONE, apply, decode

_LSN = struct.Struct("<Q")


def replay(redo, pool, pager) -> tuple[dict[str, int], list]:
    """Replay the redo log from the checkpoint into the pool; returns (counters, undo), ``undo`` being the
    (index id, key, old value or None) records of the batch left open at the end of the log, oldest first.
    CorruptionError for a log whose records cannot be what the engine wrote, or a page newer than the log (see the
    module docstring)."""
    groups = records = applied = 0
    pages: set[int] = set()
    undo: list = []
    # A fuzzy checkpoint may fall inside a batch that ended before it was taken (its first pages were written, its
    # later ones not): until the first COMMIT, a rollback's UNDONE may count undo records from before the checkpoint.
    seen_commit = False
    pager.recovered_lsn = None  # pages read during replay may be newer than the position replay has reached
    fsp.check_flushed(pager.fetch(fsp.FSP_PAGE, "__fsp").buf, redo.checkpoint_lsn)
    for start, end, body in redo.read_groups():
        groups += 1
        changed = []
        decided: dict[int, tuple] = {}  # page -> (frame, apply?) for this group
        where = f"redo group at LSN {start}"
        if len(body) == 1 and body[0] == CONTINUE:
            raise CorruptionError(f"{where}: a group of CONTINUE alone, which the engine never writes")
        for rec in decode(body, where):
            kind = rec[0]
            if kind == COMMIT:
                undo.clear()  # the batch (or system change) ended here: nothing of it is to be undone
                seen_commit = True
                continue
            if kind == CONTINUE:
                continue
            if kind == UNDO:
                undo.append(rec[1:])
                continue
            if kind == UNDONE:
                if rec[1] > len(undo) and seen_commit:
                    raise CorruptionError(f"redo group at LSN {start}: {rec[1]} UNDO records rolled back, but "
                                          f"only {len(undo)} are open")
                del undo[max(0, len(undo) - rec[1]):]
                continue
            records += 1
            page_no = rec[1]
            entry = decided.get(page_no)
            if entry is None:
                # below page 0's page count as it is now: after this group's own FIELD records, which come before
                # the INIT of a page they allocate
                pager.check_page_number(page_no, f"{where}, {NAMES[kind]} record")
                entry = decided[page_no] = _decide(pool, pager, page_no, kind, end)
                if entry[1]:
                    changed.append(entry[0])
            if entry[1]:
                try:
                    apply(entry[0].buf, rec)
                except ValueError as exc:
                    raise CorruptionError(f"{where}: {NAMES[kind]} record for page {page_no}: {exc}") from None
                if entry[0].zip is not None:
                    entry[0].zip.mark_stale()  # compressed again when written (page_zip.pyx)
                applied += 1
        for frame in changed:
            problem = pg.structure_error(frame.buf, frame.page_no)
            if problem is not None:
                raise CorruptionError(f"{where}: page {frame.page_no} is malformed after replay: {problem}")
        pool.commit(changed, start, end)
        pages.update(f.page_no for f in changed)
        pager.release()
    _check_no_future_pages(pool, redo.lsn)
    pager.recovered_lsn = redo.lsn
    return {"groups": groups, "records": records, "records_applied": applied, "pages": len(pages)}, undo


def _check_no_future_pages(pool, log_end: int) -> None:
    """CorruptionError for a page in the pool whose LSN is past ``log_end``, the end of the replayed log."""
    for frame in pool.frames():
        lsn = _LSN.unpack_from(frame.buf, pg.LSN_OFFSET)[0]
        if lsn > log_end:
            raise CorruptionError(future_page(frame.page_no, lsn, log_end))


def future_page(page_no: int, lsn: int, log_end: int) -> str:
    """The message for page ``page_no`` whose LSN ``lsn`` is past the end of the redo log ``log_end``."""
    return (f"tablespace.ibd page {page_no}: LSN {lsn} is past the end of the redo log ({log_end}): the page was "
            f"written after changes the log no longer holds (a redo file cut short or replaced by an older copy)")


def _decide(pool, pager, page_no: int, kind: int, end: int):
    """(frame, whether this group's records apply to it) for the first record of a group touching ``page_no``."""
    frame = pool.peek(page_no)
    if frame is not None:
        pager.fix(frame)
        return frame, kind == INIT or _LSN.unpack_from(frame.buf, pg.LSN_OFFSET)[0] < end
    if kind == INIT:
        return pager.new_page(page_no), True
    frame = pager.fetch(page_no, "")
    if pg.is_zero(frame.buf):
        raise CorruptionError(f"redo {NAMES[kind]} record for page {page_no}, which was never initialised "
                              f"(all zero on disk and no INIT record before it)")
    return frame, _LSN.unpack_from(frame.buf, pg.LSN_OFFSET)[0] < end
