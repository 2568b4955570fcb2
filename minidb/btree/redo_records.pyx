"""Redo records: how one page change is written to the redo log, read back, and replayed.

The redo is *physiological*, as InnoDB's: each record names one page (physical) and says what to do inside it in
terms of records (logical within the page), so replaying it needs only that page::

    PUT    page, key, value       insert the record, or replace the value of an equal key
    DEL    page, key              delete the record with this key (if present)
    INIT   page, header, records  the page now holds exactly this (new pages, splits, merges, a new root)
    CUT    page, n, flags         keep only the first n records (the left page of a split)
    FIELD  page, offset, bytes    raw bytes at an offset: sibling links, flags, file-space header fields

Two more records name no page. They make a write batch atomic even when its pages leave the buffer pool before it
commits (see engine.py): the batch's groups carry its *undo*, which recovery uses to roll back a batch whose last
group never reached the log::

    UNDO   index, key, old value  the key had this value (or was absent) before the batch changed it
    UNDONE n                      n more UNDO records of the open batch have been rolled back

A group ends with one byte: COMMIT if it ends its transaction (a client batch, or a system change that is a
transaction alone), CONTINUE if its transaction goes on in the next group.

Encoding (all integers little-endian)::

    type u8 | page u32 | PUT:   klen u16, vlen u16, key, value
                         DEL:   klen u16, key
                         INIT:  ptype u8, level u8, flags u8, index_id u32, prev u32, next u32, nrecs u16,
                                then nrecs x (klen u16, vlen u16, key, value)
                         CUT:   keep u16, flags u8
                         FIELD: offset u16, length u8, bytes
    UNDO:   type u8 | index id u32 | klen u16 | vlen u16 | present u8 | key | value (vlen 0 if absent)
    UNDONE: type u8 | count u32
    COMMIT is the single byte 255, CONTINUE the single byte 254.

A page record's effect depends only on the page it names, so recovery can skip it when the page already has it
(its LSN is at least the group's end). ``apply`` is the one replay function; the mini-transaction (mtr.pyx)
changes pages with the same page functions, so replay reproduces the page byte for byte.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Resize
from libc.stdint cimport uint16_t, uint32_t
from libc.string cimport memcpy

from ..errors import CorruptionError
from .page cimport (HEADER_SIZE, OFF_FLAGS, OFF_INDEX_ID, OFF_LEVEL, OFF_NEXT, OFF_PAGE_NO, OFF_PREV,
                    OFF_TYPE, PUT_FULL, REC_HEADER, page_cut, page_init, page_insert_at, page_nrecs, page_put,
                    page_remove, rd16, rd32, rec_at, rec_size, wr16, wr32)

PUT = REC_PUT
DEL = REC_DEL
INIT = REC_INIT
CUT = REC_CUT
FIELD = REC_FIELD
UNDO = REC_UNDO
UNDONE = REC_UNDONE
CONTINUE = REC_CONTINUE
COMMIT = REC_COMMIT
NAMES = {REC_PUT: "PUT", REC_DEL: "DEL", REC_INIT: "INIT", REC_CUT: "CUT", REC_FIELD: "FIELD", REC_UNDO: "UNDO",
         REC_UNDONE: "UNDONE", REC_CONTINUE: "CONTINUE", REC_COMMIT: "COMMIT"}


cdef class RedoBuffer:
    """Redo records being collected for one group, encoded in a growable buffer.

    The buffer is reused from group to group (``reset``), and the first ``reserve`` bytes are left free for the
    group header, so that the whole group goes to the log without being copied into another buffer.
    """

    def __cinit__(self, *args, **kwargs):
        self.buf = bytearray(1 << 16)
        self.n = 0
        self.start = 0

    cdef uchar* reserve(self, Py_ssize_t k) except NULL:
        """Room for k more bytes; returns where they go and counts them as used."""
        cdef Py_ssize_t size = len(self.buf)
        cdef uchar* out
        if self.n + k > size:
            PyByteArray_Resize(self.buf, max(2 * size, self.n + k))
        out = <uchar*> PyByteArray_AS_STRING(self.buf) + self.n
        self.n += k
        return out

    cdef int log_put(self, uint32_t page_no, const uchar* key, int klen, const uchar* val, int vlen) except -1:
        cdef uchar* o = self.reserve(9 + klen + vlen)
        o[0] = REC_PUT
        wr32(o + 1, page_no)
        wr16(o + 5, <uint16_t> klen)
        wr16(o + 7, <uint16_t> vlen)
        memcpy(o + 9, key, klen)
        if vlen:
            memcpy(o + 9 + klen, val, vlen)
        self.nrecords += 1
        return 0

    cdef int log_del(self, uint32_t page_no, const uchar* key, int klen) except -1:
        cdef uchar* o = self.reserve(7 + klen)
        o[0] = REC_DEL
        wr32(o + 1, page_no)
        wr16(o + 5, <uint16_t> klen)
        memcpy(o + 7, key, klen)
        self.nrecords += 1
        return 0

    cdef int log_init_from(self, const uchar* p, int ps) except -1:
        """An INIT record carrying page ``p``'s header fields and all its records."""
        cdef int n = page_nrecs(p), i, size, total = 0
        cdef const uchar* r
        for i in range(n):
            total += rec_size(rec_at(p, ps, i))
        cdef uchar* o = self.reserve(22 + total)
        o[0] = REC_INIT
        wr32(o + 1, rd32(p + OFF_PAGE_NO))
        o[5] = p[OFF_TYPE]
        o[6] = p[OFF_LEVEL]
        o[7] = p[OFF_FLAGS]
        wr32(o + 8, rd32(p + OFF_INDEX_ID))
        wr32(o + 12, rd32(p + OFF_PREV))
        wr32(o + 16, rd32(p + OFF_NEXT))
        wr16(o + 20, <uint16_t> n)
        o += 22
        for i in range(n):
            r = rec_at(p, ps, i)
            size = rec_size(r)
            memcpy(o, r, size)  # a record's page layout is its redo layout: klen, vlen, key, value
            o += size
        self.nrecords += 1
        return 0

    cdef int log_cut(self, uint32_t page_no, int keep, int flags) except -1:
        cdef uchar* o = self.reserve(8)
        o[0] = REC_CUT
        wr32(o + 1, page_no)
        wr16(o + 5, <uint16_t> keep)
        o[7] = <uchar> flags
        self.nrecords += 1
        return 0

    cdef int log_field(self, uint32_t page_no, int offset, const uchar* data, int n) except -1:
        cdef uchar* o = self.reserve(8 + n)
        o[0] = REC_FIELD
        wr32(o + 1, page_no)
        wr16(o + 5, <uint16_t> offset)
        o[7] = <uchar> n
        memcpy(o + 8, data, n)
        self.nrecords += 1
        return 0

    cdef int log_undo(self, uint32_t index_id, const uchar* key, int klen, const uchar* old, int olen) except -1:
        """An UNDO record: ``key`` of index ``index_id`` held ``old`` (``olen`` bytes), or was absent (olen < 0)."""
        cdef int vlen = olen if olen > 0 else 0
        cdef uchar* o = self.reserve(10 + klen + vlen)
        o[0] = REC_UNDO
        wr32(o + 1, index_id)
        wr16(o + 5, <uint16_t> klen)
        wr16(o + 7, <uint16_t> vlen)
        o[9] = olen >= 0
        memcpy(o + 10, key, klen)
        if vlen:
            memcpy(o + 10 + klen, old, vlen)
        self.nrecords += 1
        return 0

    cdef int log_undone(self, uint32_t count) except -1:
        cdef uchar* o = self.reserve(5)
        o[0] = REC_UNDONE
        wr32(o + 1, count)
        self.nrecords += 1
        return 0

    cdef int log_from(self, RedoBuffer other) except -1:
        """Append every record of ``other`` (its bytes after its reserved header room)."""
        cdef Py_ssize_t k = other.n - other.start
        if k:
            memcpy(self.reserve(k), <const uchar*> PyByteArray_AS_STRING(other.buf) + other.start, k)
        self.nrecords += other.nrecords
        return 0

    cdef void forget_after(self, Py_ssize_t n, int nrecords) noexcept:
        """Drop what was encoded since the buffer held ``n`` bytes and ``nrecords`` records."""
        self.n = n
        self.nrecords = nrecords

    def __len__(self):
        """Bytes of encoded records."""
        return self.n - self.start

    def reset(self, Py_ssize_t reserve):
        """Forget every record; the next group's records start after ``reserve`` bytes left for its header."""
        if reserve < 0 or reserve > len(self.buf):
            raise ValueError(f"bad header reserve {reserve}")
        self.start = self.n = reserve
        self.nrecords = 0

    def group(self, bint last=True):
        """Close the group with its end byte, COMMIT if ``last`` (it ends its transaction) else CONTINUE; a
        memoryview of [reserved header | records | end byte]."""
        self.reserve(1)[0] = REC_COMMIT if last else REC_CONTINUE
        return memoryview(self.buf)[:self.n]


def decode(const uchar[::1] body, str where="redo group"):
    """The records of a group body as tuples (see the module docstring); CorruptionError if malformed.

    PUT -> (PUT, page, key, value); DEL -> (DEL, page, key); INIT -> (INIT, page, ptype, level, flags,
    index_id, prev, next, [(key, value)]); CUT -> (CUT, page, keep, flags); FIELD -> (FIELD, page, offset, bytes);
    UNDO -> (UNDO, index_id, key, old value or None); UNDONE -> (UNDONE, count); COMMIT -> (COMMIT, None);
    CONTINUE -> (CONTINUE, None).
    """
    cdef Py_ssize_t i = 0, n = body.shape[0]
    cdef const uchar* b = &body[0] if n else NULL
    cdef int t, klen, vlen, nrecs, j, length
    cdef uint32_t page_no
    cdef const char* c = <const char*> b
    out = []
    while i < n:
        t = b[i]
        if t == REC_COMMIT or t == REC_CONTINUE:
            out.append((t, None))
            i += 1
            continue
        _need(i, 5, n, where)
        page_no = rd32(b + i + 1)
        i += 5
        if t == REC_PUT:
            _need(i, 4, n, where)
            klen = rd16(b + i)
            vlen = rd16(b + i + 2)
            _need(i, 4 + klen + vlen, n, where)
            out.append((REC_PUT, page_no, c[i + 4:i + 4 + klen], c[i + 4 + klen:i + 4 + klen + vlen]))
            i += 4 + klen + vlen
        elif t == REC_DEL:
            _need(i, 2, n, where)
            klen = rd16(b + i)
            _need(i, 2 + klen, n, where)
            out.append((REC_DEL, page_no, c[i + 2:i + 2 + klen]))
            i += 2 + klen
        elif t == REC_INIT:
            _need(i, 17, n, where)
            head = (REC_INIT, page_no, b[i], b[i + 1], b[i + 2], rd32(b + i + 3), rd32(b + i + 7),
                    rd32(b + i + 11))
            nrecs = rd16(b + i + 15)
            i += 17
            recs = []
            for j in range(nrecs):
                _need(i, 4, n, where)
                klen = rd16(b + i)
                vlen = rd16(b + i + 2)
                _need(i, 4 + klen + vlen, n, where)
                recs.append((c[i + 4:i + 4 + klen], c[i + 4 + klen:i + 4 + klen + vlen]))
                i += 4 + klen + vlen
            out.append(head + (recs,))
        elif t == REC_CUT:
            _need(i, 3, n, where)
            out.append((REC_CUT, page_no, rd16(b + i), b[i + 2]))
            i += 3
        elif t == REC_UNDO:
            _need(i, 5, n, where)
            klen = rd16(b + i)
            vlen = rd16(b + i + 2)
            _need(i, 5 + klen + vlen, n, where)
            key = c[i + 5:i + 5 + klen]
            out.append((REC_UNDO, page_no, key, c[i + 5 + klen:i + 5 + klen + vlen] if b[i + 4] else None))
            i += 5 + klen + vlen
        elif t == REC_UNDONE:
            out.append((REC_UNDONE, page_no))
        elif t == REC_FIELD:
            _need(i, 3, n, where)
            length = b[i + 2]
            _need(i, 3 + length, n, where)
            out.append((REC_FIELD, page_no, rd16(b + i), c[i + 3:i + 3 + length]))
            i += 3 + length
        else:
            raise CorruptionError(f"{where}: unknown redo record type {t} at byte {i - 5}")
    return out


cdef inline int _need(Py_ssize_t i, Py_ssize_t k, Py_ssize_t n, str where) except -1:
    if i + k > n:
        raise CorruptionError(f"{where}: redo record truncated at byte {i} (needs {k} more of {n - i})")
    return 0


def apply(bytearray page, tuple rec):
    """Replay one decoded page record on ``page``; the caller checks LSNs and stamps the new one."""
    cdef uchar* p = <uchar*> PyByteArray_AS_STRING(page)
    cdef int ps = len(page)
    cdef int t = rec[0]
    cdef uint32_t page_no = rec[1]
    cdef bytes key, value, data
    cdef int offset
    if t == REC_PUT:
        key, value = rec[2], rec[3]
        if page_put(p, ps, <const uchar*> key, len(key), <const uchar*> value, len(value), ps) == PUT_FULL:
            raise CorruptionError(f"redo PUT of {len(key) + len(value)} bytes does not fit in page {page_no}")
    elif t == REC_DEL:
        key = rec[2]
        page_remove(p, ps, <const uchar*> key, len(key))
    elif t == REC_INIT:
        build(page, page_no, rec[2], rec[3], rec[4], rec[5], rec[6], rec[7], rec[8])
    elif t == REC_CUT:
        if rec[2] > page_nrecs(p):
            raise CorruptionError(f"redo CUT keeps {rec[2]} records of page {page_no}, which holds {page_nrecs(p)}")
        page_cut(p, ps, rec[2])
        p[OFF_FLAGS] = <uchar> rec[3]
    elif t == REC_FIELD:
        offset, data = rec[2], rec[3]
        if offset + len(data) > ps:
            raise CorruptionError(f"redo FIELD at offset {offset} runs past the end of page {page_no}")
        memcpy(p + offset, <const uchar*> data, len(data))
    else:
        raise CorruptionError(f"cannot apply redo record type {t} to page {page_no}")


def build(bytearray page, uint32_t page_no, int ptype, int level, int flags, uint32_t index_id,
          uint32_t prev, uint32_t next, records):
    """Make ``page`` hold exactly this header and these (key, value) records, in the given (key) order."""
    cdef uchar* p = <uchar*> PyByteArray_AS_STRING(page)
    cdef int ps = len(page)
    cdef int i = 0
    cdef bytes key, value
    page_init(p, ps, page_no, ptype, level, index_id, prev, next)
    for key, value in records:
        if not page_insert_at(p, ps, i, <const uchar*> key, len(key), <const uchar*> value, len(value)):
            raise ValueError(f"{len(records)} records do not fit in page {page_no} ({ps} bytes)")
        i += 1
    p[OFF_FLAGS] = <uchar> flags
