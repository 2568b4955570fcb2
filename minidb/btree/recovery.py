"""Crash recovery: repair torn pages from the doublewrite buffer, then replay the redo log from the checkpoint.

1. **Doublewrite** (doublewrite.py): a page whose home copy fails its checksum is restored from its copy in the
   doublewrite file, which was synced before the home write started.
2. **Redo** (``replay``): every complete group from the checkpoint LSN on is replayed, in order. A record is
   applied to its page only if the page does not have it yet, i.e. the page's LSN is below the group's end LSN
   (the decision is made once per page and group, at the page's first record in the group). An INIT record is
   always applied and needs no read: it says everything about the page, so a page that is rebuilt from scratch
   by the log is not even read (which also spares a torn page that the log overwrites anyway).
3. Pages changed by replay are dirty in the pool, stamped with the group's LSNs, exactly as if the groups had just
   been committed; normal operation then writes them like any other dirty page.

Replaying a group twice is harmless (its pages already carry its LSN), so a crash during recovery is recovered the
same way. Groups that were not complete (no COMMIT, bad crc) are the end of the log: a batch that was not fully
logged is not replayed, which is why no partial batch is ever visible.
"""

from __future__ import annotations

import struct

from ..errors import CorruptionError
from . import page as pg
from .redo_records import COMMIT, INIT, NAMES, apply, decode

_LSN = struct.Struct("<Q")


def replay(redo, pool, pager) -> dict[str, int]:
    """Replay the redo log from the checkpoint into the pool; returns counters (groups, records, pages)."""
    groups = records = applied = 0
    pages: set[int] = set()
    for start, end, body in redo.read_groups():
        groups += 1
        changed = []
        decided: dict[int, tuple] = {}  # page -> (frame, apply?) for this group
        for rec in decode(body, f"redo group at LSN {start}"):
            kind = rec[0]
            if kind == COMMIT:
                continue
            records += 1
            page_no = rec[1]
            entry = decided.get(page_no)
            if entry is None:
                entry = decided[page_no] = _decide(pool, pager, page_no, kind, end)
                if entry[1]:
                    changed.append(entry[0])
            if entry[1]:
                apply(entry[0].buf, rec)
                applied += 1
        pool.commit(changed, start, end)
        pages.update(f.page_no for f in changed)
        pager.release()
    return {"groups": groups, "records": records, "records_applied": applied, "pages": len(pages)}


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
