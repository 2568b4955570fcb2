"""The mini-transaction: page changes made together, logged together, pinned until their redo is in the log.

InnoDB changes pages only inside a mini-transaction (``mtr_t``): each change is applied to the page in the buffer
pool *and* encoded as a redo record in the mtr's buffer; at ``mtr_commit`` the records go to the log as one group
and the pages become dirty with the group's LSN. Until then its pages are pinned in the buffer pool (the
write-ahead rule forbids writing a page whose redo is not in the log).

A client write batch is one mtr or, when it changes more pages than a quarter of the pool, a sequence of them
(engine.py). An mtr of a batch also keeps *undo*: before a key of an index changes, ``undo_before`` records the
value it had (or that it was absent). The undo goes to the log only with a group that does not end the batch
(``group(last=False)``): the pages of such a group may reach the disk before the batch commits, and if it never
commits, recovery puts the keys back from the undo. The last group needs none: it and the commit are one write.

Every method below changes a frame and logs the change in one step, so no change can escape the log. The fast
path (tree_core.pyx) does the same in C for its leaf inserts and deletes. A frame with a compressed copy
(``frame.zip``, page_zip.pyx) also gets each change into that copy's modification log, or is compressed again; an
insert that does not fit the compressed page even then is ``PUT_FULL``, as when the page itself is full.
"""

from libc.stdint cimport uint8_t, uint32_t
from libc.string cimport memcpy

from .page cimport (OFF_FLAGS, OFF_NEXT, OFF_PAGE_NO, OFF_PREV, PUT_FULL, REC_HEADER, page_cut, page_init,
                    page_insert_at, page_lower_bound, page_nrecs, page_put, page_remove, rd16, rec_at, uchar, wr32)
from .page_zip cimport zip_del, zip_field, zip_put, zip_rebuild
from .redo_records import build


cdef class Mtr(RedoBuffer):
    """One mini-transaction (see the module docstring)."""

    def __cinit__(self, *args, **kwargs):
        self.frames = []
        self.undo = RedoBuffer()

    def begin(self, uint64_t seq, Py_ssize_t reserve, bint keeps_undo=False):
        """Start mini-transaction ``seq`` (the object is reused from one to the next); ``reserve`` bytes are
        left at the front of the redo buffer for the group header; ``keeps_undo`` for an mtr of a client batch."""
        self.seq = seq
        self.frames = []
        self.keeps_undo = keeps_undo
        self.reset(reserve)
        self.undo.reset(0)

    cdef int undo_in_page(self, uint32_t index_id, const uchar* key, int klen, Frame f) except -1:
        """Record what ``key`` of index ``index_id`` holds in page ``f`` (its leaf) before it changes."""
        cdef bint found
        cdef int pos
        if not self.keeps_undo:
            return 0
        pos = page_lower_bound(f.data, len(f.buf), key, klen, &found)  # before reading found
        return self.undo_at(index_id, key, klen, f, pos, found)

    cdef int undo_at(self, uint32_t index_id, const uchar* key, int klen, Frame f, int pos, bint found) except -1:
        """``undo_in_page`` where the caller has already searched the leaf: ``pos``, ``found`` as page_lower_bound's."""
        cdef int kl
        cdef const uchar* r
        if not self.keeps_undo:
            return 0
        if not found:
            return self.undo.log_undo(index_id, key, klen, NULL, -1)
        r = rec_at(f.data, len(f.buf), pos)
        kl = rd16(r)
        return self.undo.log_undo(index_id, key, klen, r + REC_HEADER + kl, rd16(r + 2))

    def undo_before(self, Frame f, uint32_t index_id, bytes key):
        """Before ``key`` of index ``index_id`` changes in its leaf ``f``: record its value (for a client batch)."""
        self.undo_in_page(index_id, <const uchar*> key, len(key), f)

    def undone(self, uint32_t count):
        """Log that ``count`` more UNDO records of the open batch have been rolled back (recovery's rollback)."""
        self.log_undone(count)

    def group(self, bint last=True):
        """Close the group (see RedoBuffer.group); a group that does not end its batch carries the batch's undo."""
        if not last:
            self.log_from(self.undo)
        return RedoBuffer.group(self, last)

    def put(self, Frame f, bytes key, bytes value, int fill_limit):
        """Insert or replace in page ``f`` (page.PUT_* result); logged unless it did not fit."""
        cdef int r
        if f.zip is None:
            r = page_put(f.data, len(f.buf), <const uchar*> key, len(key), <const uchar*> value, len(value),
                         fill_limit)
        else:
            r = zip_put(f, len(f.buf), <const uchar*> key, len(key), <const uchar*> value, len(value), fill_limit)
        if r != PUT_FULL:
            self.log_put(f.page_no, <const uchar*> key, len(key), <const uchar*> value, len(value))
            self.touch(f)
        return r

    def delete(self, Frame f, bytes key):
        """Delete ``key`` from page ``f``; True (and logged) if it was there."""
        if page_remove(f.data, len(f.buf), <const uchar*> key, len(key)):
            if f.zip is not None:
                zip_del(f, <const uchar*> key, len(key))
            self.log_del(f.page_no, <const uchar*> key, len(key))
            self.touch(f)
            return True
        return False

    def init(self, Frame f, int ptype, int level, uint32_t index_id, uint32_t prev, uint32_t next, int flags,
             records):
        """Make page ``f`` hold exactly this header and these records (logged as one INIT record)."""
        build(f.buf, f.page_no, ptype, level, flags, index_id, prev, next, records)
        if f.zip is not None:
            zip_rebuild(f)
        self.log_init_from(f.data, len(f.buf))
        self.touch(f)

    def init_copy(self, Frame f, int ptype, int level, uint32_t index_id, uint32_t prev, uint32_t next,
                  int flags, Frame src, int start):
        """Make page ``f`` hold this header and the records ``start..`` of page ``src`` (the right page of a
        split), logged as one INIT record."""
        cdef int ps = len(f.buf), i, n = page_nrecs(src.data), klen
        cdef const uchar* r
        if start < 0 or start > n:
            raise ValueError(f"cannot copy records from {start} of page {src.page_no}, which holds {n}")
        page_init(f.data, ps, f.page_no, ptype, level, index_id, prev, next)
        for i in range(start, n):
            r = rec_at(src.data, ps, i)
            klen = rd16(r)
            page_insert_at(f.data, ps, i - start, r + REC_HEADER, klen, r + REC_HEADER + klen, rd16(r + 2))
        f.data[OFF_FLAGS] = <uchar> flags
        if f.zip is not None:
            zip_rebuild(f)
        self.log_init_from(f.data, ps)
        self.touch(f)

    def init_clone(self, Frame f, Frame src, uint32_t prev, uint32_t next):
        """Make page ``f`` a byte-for-byte copy of page ``src`` with these sibling links, logged as one INIT record; a
        compressed copy is taken as it is (``PageZip.copy_from``), since the same records laid out anew might not
        compress into the block again."""
        cdef int ps = len(f.buf)
        memcpy(f.data, src.data, ps)
        wr32(f.data + OFF_PAGE_NO, f.page_no)
        wr32(f.data + OFF_PREV, prev)
        wr32(f.data + OFF_NEXT, next)
        if f.zip is not None:
            f.zip.copy_from(src.zip)
        self.log_init_from(f.data, ps)
        self.touch(f)

    def cut(self, Frame f, int keep, int flags):
        """Keep only the first ``keep`` records of page ``f`` and set its flags byte."""
        if keep < 0 or keep > page_nrecs(f.data):
            raise ValueError(f"cannot keep {keep} of {page_nrecs(f.data)} records of page {f.page_no}")
        page_cut(f.data, len(f.buf), keep)
        f.data[OFF_FLAGS] = <uchar> flags
        if f.zip is not None:
            zip_rebuild(f)
        self.log_cut(f.page_no, keep, flags)
        self.touch(f)

    def set_u32(self, Frame f, int offset, uint32_t value):
        """Write a 4-byte header field (a sibling link, a file-space counter) of page ``f``."""
        wr32(f.data + offset, value)
        if f.zip is not None:
            zip_field(f, offset, 4)
        self.log_field(f.page_no, offset, f.data + offset, 4)
        self.touch(f)

    def set_u8(self, Frame f, int offset, uint8_t value):
        """Write a 1-byte header field of page ``f``."""
        f.data[offset] = value
        if f.zip is not None:
            zip_field(f, offset, 1)
        self.log_field(f.page_no, offset, f.data + offset, 1)
        self.touch(f)

    @property
    def undo_bytes(self):
        """Bytes of UNDO records the mtr holds in memory (until its group goes to the log buffer)."""
        return self.undo.n - self.undo.start

    @property
    def empty(self):
        """True if nothing was changed."""
        return self.nrecords == 0
