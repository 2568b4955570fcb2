"""The slotted page: how a B+tree page stores variable-length records, in C.

A page is ``page_size`` bytes (4, 8 or 16 KiB)::

    +--------------------+--------------------------------+ . . . free . . . +---------------------------+
    | header (40 bytes)  | record heap, growing upward -> |                  | <- slot directory (u16 x n) |
    +--------------------+--------------------------------+ . . . . . . . . .+---------------------------+
    0                    40                          heap_top          page_size - 2n            page_size

* Each **record** is ``[key length u16][value length u16][key][value]``. In a leaf the value is the row (or
  the secondary-index payload); in an internal page it is the 4-byte number of a child page.
* The **slot directory** at the end of the page holds one 2-byte record offset per record, *in key order*:
  slot 0 (at the very end of the page) points at the smallest key. Binary search runs over the slots, and an
  insert only shifts slots, never records (SQLite's cell pointer array; InnoDB keeps a sparser directory of
  every 4th to 8th record and chains records in a linked list).
* A delete removes the slot and leaves the record's bytes as **garbage**, reclaimed by a compaction when an
  insert needs the room (or at once, when the record was the last one on the heap).
* Internal pages hold one record per child; the key of record 0 is empty and means "minus infinity", so
  descending picks the last record whose key is <= the search key (InnoDB's ``REC_INFO_MIN_REC_FLAG``).

The header fields and their offsets are in ``page.pxd`` and FORMAT.md. The checksum is zlib's crc32 of the whole
page computed with the checksum field zeroed (by crc.pyx, which folds it faster); it is verified on every read and
stamped on every write.

Splits are decided by the tree (``tree.py``, ``split_policy.py``); this module only provides the pieces:
``page_put`` refuses a record that does not fit (``PUT_FULL``), and also one that would take a page filled by an
ascending insert pattern past its fill limit, so that sequential loads leave pages at the fill factor.
"""

import zlib

from minidb.crc import crc32
from minidb.crc cimport crc32_update

from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.bytes cimport PyBytes_AS_STRING
from libc.stdlib cimport free, malloc
from libc.string cimport memmove, memset

PAGE_SIZES = (4096, 8192, 16384)
NIL_PAGE = NIL  # "no page", for Python code
HEADER_BYTES = HEADER_SIZE
RECORD_OVERHEAD = REC_HEADER + SLOT_SIZE  # bytes a record costs beyond its key and value
PAGE_TYPES = {"zero": TYPE_ZERO, "fsp": TYPE_FSP, "index": TYPE_INDEX, "free": TYPE_FREE}
ZERO_PAGE = TYPE_ZERO  # page types, for Python code
FSP_PAGE_TYPE = TYPE_FSP
INDEX_PAGE = TYPE_INDEX
FREE_PAGE = TYPE_FREE
PAGE_NO_OFFSET = OFF_PAGE_NO  # header field offsets, for Python code (a compressed image has them too)
LSN_OFFSET = OFF_LSN
FLAGS_OFFSET = OFF_FLAGS
PREV_OFFSET = OFF_PREV
NEXT_OFFSET = OFF_NEXT
FULL = PUT_FULL
INSERTED = PUT_INSERTED
REPLACED = PUT_REPLACED
LAST_AT_END = FLAG_LAST_AT_END

_ZERO_CHECKSUM_SEED = zlib.crc32(b"\0\0\0\0")  # crc32 of the zeroed checksum field, the start of every page's crc


# -- C operations (declared in page.pxd) ---------------------------------------------------------------------------

cdef int page_lower_bound(const uchar* p, int ps, const uchar* key, int klen, bint* found) noexcept nogil:
    """Position of the first record whose key is >= key; ``found`` says whether it is equal."""
    cdef int lo = 0, hi = page_nrecs(p), mid
    cdef const uchar* r
    if hi > 0 and p[OFF_FLAGS] & FLAG_LAST_AT_END:
        # The last insert went to the end (ascending keys, a PK load): try the end first, one comparison
        # instead of a binary search, as InnoDB's PAGE_LAST_INSERT shortcut does.
        r = rec_at(p, ps, hi - 1)
        if key_cmp(r + REC_HEADER, rd16(r), key, klen) < 0:
            found[0] = False
            return hi
    while lo < hi:
        mid = (lo + hi) >> 1
        r = rec_at(p, ps, mid)
        if key_cmp(r + REC_HEADER, rd16(r), key, klen) < 0:
            lo = mid + 1
        else:
            hi = mid
    found[0] = False
    if lo < page_nrecs(p):
        r = rec_at(p, ps, lo)
        found[0] = key_cmp(r + REC_HEADER, rd16(r), key, klen) == 0
    return lo


cdef int page_child_slot(const uchar* p, int ps, const uchar* key, int klen) noexcept nogil:
    """In an internal page: the last record whose key is <= key (record 0 is minus infinity)."""
    cdef int lo = 1, hi = page_nrecs(p), mid
    cdef const uchar* r
    if hi > 1 and p[OFF_FLAGS] & FLAG_LAST_AT_END:
        # The last separator went to the end (the rightmost child split: ascending keys): try the end first.
        r = rec_at(p, ps, hi - 1)
        if key_cmp(r + REC_HEADER, rd16(r), key, klen) <= 0:
            return hi - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        r = rec_at(p, ps, mid)
        if key_cmp(r + REC_HEADER, rd16(r), key, klen) <= 0:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


cdef uint32_t page_child(const uchar* p, int ps, int slot) noexcept nogil:
    """The child page number stored in record ``slot`` of an internal page."""
    cdef const uchar* r = rec_at(p, ps, slot)
    return rd32(r + REC_HEADER + rd16(r))


cdef void page_compact(uchar* p, int ps) noexcept nogil:
    """Rewrite the heap without garbage, records in key order; slots are updated to match."""
    cdef int n = page_nrecs(p), i, size
    cdef uchar* tmp = <uchar*> malloc(ps)
    cdef int top = HEADER_SIZE
    cdef const uchar* r
    if tmp == NULL:
        return  # out of memory: leave the page as it is (still valid, just fragmented)
    memcpy(tmp, p, ps)
    for i in range(n):
        r = rec_at(tmp, ps, i)
        size = rec_size(r)
        memcpy(p + top, r, size)
        wr16(p + ps - SLOT_SIZE * (i + 1), <uint16_t> top)
        top += size
    free(tmp)
    memset(p + top, 0, rd16(p + OFF_HEAP_TOP) - top if rd16(p + OFF_HEAP_TOP) > top else 0)
    wr16(p + OFF_HEAP_TOP, <uint16_t> top)
    wr16(p + OFF_GARBAGE, 0)


cdef bint page_insert_at(uchar* p, int ps, int pos, const uchar* key, int klen,
                         const uchar* val, int vlen) noexcept nogil:
    """Insert a new record as record ``pos`` (the caller keeps key order); False if it does not fit."""
    cdef int n = page_nrecs(p)
    cdef int size = REC_HEADER + klen + vlen
    cdef int top = rd16(p + OFF_HEAP_TOP)
    cdef int room = ps - SLOT_SIZE * n - top
    if room < size + SLOT_SIZE:
        if room + rd16(p + OFF_GARBAGE) < size + SLOT_SIZE:
            return False
        page_compact(p, ps)
        top = rd16(p + OFF_HEAP_TOP)
    wr16(p + top, <uint16_t> klen)
    wr16(p + top + 2, <uint16_t> vlen)
    memcpy(p + top + REC_HEADER, key, klen)
    if vlen:
        memcpy(p + top + REC_HEADER + klen, val, vlen)
    # Slots pos..n-1 move one place toward the heap to open slot pos.
    memmove(p + ps - SLOT_SIZE * (n + 1), p + ps - SLOT_SIZE * n, SLOT_SIZE * (n - pos))
    wr16(p + ps - SLOT_SIZE * (pos + 1), <uint16_t> top)
    wr16(p + OFF_HEAP_TOP, <uint16_t> (top + size))
    wr16(p + OFF_NRECS, <uint16_t> (n + 1))
    return True


cdef void page_delete_at(uchar* p, int ps, int pos) noexcept nogil:
    """Remove record ``pos``: its slot goes, its bytes become garbage (or free space if last on the heap)."""
    cdef int n = page_nrecs(p)
    cdef int off = rd16(p + ps - SLOT_SIZE * (pos + 1))
    cdef int size = rec_size(p + off)
    memmove(p + ps - SLOT_SIZE * (n - 1), p + ps - SLOT_SIZE * n, SLOT_SIZE * (n - 1 - pos))
    wr16(p + ps - SLOT_SIZE * n, 0)
    wr16(p + OFF_NRECS, <uint16_t> (n - 1))
    if off + size == rd16(p + OFF_HEAP_TOP):
        wr16(p + OFF_HEAP_TOP, <uint16_t> off)
    else:
        wr16(p + OFF_GARBAGE, <uint16_t> (rd16(p + OFF_GARBAGE) + size))


cdef int page_put(uchar* p, int ps, const uchar* key, int klen, const uchar* val, int vlen,
                  int fill_limit) noexcept nogil:
    """Insert or replace ``key``; PUT_FULL if it does not fit, or if an ascending insert would pass fill_limit.

    ``fill_limit`` is in bytes of ``page_used``: an insert at the end of the page right after another insert at
    the end (InnoDB's PAGE_LAST_INSERT / PAGE_DIRECTION heuristic) is refused once the page holds that much, so
    the caller splits with the new record starting the right page.
    """
    cdef bint found
    cdef int pos = page_lower_bound(p, ps, key, klen, &found)
    return page_put_at(p, ps, pos, found, key, klen, val, vlen, fill_limit)


cdef int page_put_at(uchar* p, int ps, int pos, bint found, const uchar* key, int klen, const uchar* val, int vlen,
                     int fill_limit) noexcept nogil:
    """``page_put`` where the caller has already searched: ``pos`` and ``found`` are ``page_lower_bound``'s."""
    cdef int n = page_nrecs(p)
    cdef uchar* r
    cdef int old_size, need
    if found:
        r = <uchar*> rec_at(p, ps, pos)
        if rd16(r + 2) == vlen:
            if vlen:
                memcpy(r + REC_HEADER + klen, val, vlen)
            return PUT_REPLACED
        old_size = rec_size(r)
        if page_free(p, ps) + old_size < REC_HEADER + klen + vlen:
            return PUT_FULL
        page_delete_at(p, ps, pos)
        page_insert_at(p, ps, pos, key, klen, val, vlen)
        return PUT_REPLACED
    need = REC_HEADER + klen + vlen + SLOT_SIZE
    if pos == n and n > 0 and (p[OFF_FLAGS] & FLAG_LAST_AT_END) and page_used(p) + need > fill_limit:
        return PUT_FULL
    if not page_insert_at(p, ps, pos, key, klen, val, vlen):
        return PUT_FULL
    if pos == n:
        p[OFF_FLAGS] |= FLAG_LAST_AT_END
    else:
        p[OFF_FLAGS] &= ~FLAG_LAST_AT_END
    return PUT_INSERTED


cdef bint page_remove(uchar* p, int ps, const uchar* key, int klen) noexcept nogil:
    """Delete ``key`` if present; True if it was."""
    cdef bint found
    cdef int pos = page_lower_bound(p, ps, key, klen, &found)
    if found:
        page_delete_at(p, ps, pos)
    return found


cdef void page_cut(uchar* p, int ps, int keep) noexcept nogil:
    """Keep only the first ``keep`` records (the left half of a split)."""
    cdef int i
    for i in range(page_nrecs(p) - 1, keep - 1, -1):
        page_delete_at(p, ps, i)


cdef void page_init(uchar* p, int ps, uint32_t page_no, int ptype, int level, uint32_t index_id,
                    uint32_t prev, uint32_t next) noexcept nogil:
    """Zero the page and write a header for an empty page (the LSN is stamped at commit)."""
    memset(p, 0, ps)
    wr32(p + OFF_PAGE_NO, page_no)
    p[OFF_TYPE] = <uchar> ptype
    p[OFF_LEVEL] = <uchar> level
    wr32(p + OFF_INDEX_ID, index_id)
    wr16(p + OFF_HEAP_TOP, HEADER_SIZE)
    wr32(p + OFF_PREV, prev)
    wr32(p + OFF_NEXT, next)


# -- Python interface ------------------------------------------------------------------------------------------------

def max_record_bytes(int page_size):
    """Most bytes of key + value one record may hold: two records (with overhead) must fit in half-full pages."""
    return (page_size - HEADER_SIZE) // 2 - REC_HEADER - SLOT_SIZE


def max_key_bytes(int page_size):
    """Most bytes a key may hold: internal records add a 4-byte child number to a separator as long as a key."""
    return max_record_bytes(page_size) - 16


def checksum(buf):
    """crc32 of the page with its checksum field taken as zero."""
    cdef const uchar* p
    cdef Py_ssize_t n = len(buf)
    # Every page read and written passes here: a bytearray (a frame) or bytes (an image) goes straight to the CRC,
    # without the memoryviews that cost as much as the CRC of a 16 KiB page.
    if n <= 4:
        return _ZERO_CHECKSUM_SEED  # nothing past the field
    if type(buf) is bytearray:
        p = <const uchar*> PyByteArray_AS_STRING(buf)
    elif type(buf) is bytes:
        p = <const uchar*> PyBytes_AS_STRING(buf)
    else:
        return crc32(memoryview(buf)[4:], _ZERO_CHECKSUM_SEED)
    return crc32_update(_ZERO_CHECKSUM_SEED, p + 4, n - 4)


def stamp_checksum(bytearray buf):
    """Write the page's checksum into its header (just before the page is written)."""
    wr32(<uchar*> PyByteArray_AS_STRING(buf) + OFF_CHECKSUM, checksum(buf))


def stored_checksum(buf):
    """The checksum recorded in the header."""
    return int.from_bytes(bytes(buf[0:4]), "little")


MAX_LEVEL = 32  # far above any real tree's height: a larger level is damage


def structure_error(buf, uint32_t page_no):
    """Why the page image ``buf`` (its checksum already verified) is not a well-formed page ``page_no``, or None.

    A checksum proves the bytes are those written, not that they were written right (nor forged); the readers
    trust every offset on the page, so this checks them all, in int arithmetic that cannot wrap (u16 fields): the
    header (type, level, heap top, garbage, slot directory inside the page), each record inside the heap, keys
    strictly ascending (record 0 of an internal page empty), children 4 bytes and not the page itself, sibling
    links that do not point at the page itself, and the heap's accounts: the records the slots point at plus the
    garbage fill the heap exactly (a record count lowered, a slot lost or a length shrunk all break it).
    """
    cdef bytes keep = None
    cdef const uchar* p
    cdef int ps = len(buf), n, top, garbage, i, off, klen, vlen, ptype, level
    cdef int prev_off = -1, prev_klen = 0
    cdef long used = 0
    if isinstance(buf, bytearray):
        p = <const uchar*> PyByteArray_AS_STRING(buf)
    else:
        keep = bytes(buf)
        p = <const uchar*> keep
    if ps not in PAGE_SIZES:
        return f"page of {ps} bytes"
    ptype = p[OFF_TYPE]
    if ptype == TYPE_FREE:
        return "links to itself" if rd32(p + OFF_NEXT) == page_no else None
    if ptype == TYPE_FSP:
        return None if page_no == 0 else "file-space header away from page 0"
    if ptype != TYPE_INDEX:
        return f"unknown page type {ptype}"
    level = p[OFF_LEVEL]
    if level > MAX_LEVEL:
        return f"level {level}"
    if rd32(p + OFF_PREV) == page_no or rd32(p + OFF_NEXT) == page_no:
        return "sibling link to itself"
    n = page_nrecs(p)
    top = rd16(p + OFF_HEAP_TOP)
    garbage = rd16(p + OFF_GARBAGE)
    if top < HEADER_SIZE or top > ps - SLOT_SIZE * n:
        return f"heap top {top} and {n} slots overlap or leave the page"
    if garbage > top - HEADER_SIZE:
        return f"{garbage} bytes of garbage in a heap of {top - HEADER_SIZE}"
    for i in range(n):
        off = rd16(p + ps - SLOT_SIZE * (i + 1))
        if off < HEADER_SIZE or off > top - REC_HEADER:
            return f"slot {i} points at {off}, outside the heap [{HEADER_SIZE}, {top})"
        klen = rd16(p + off)
        vlen = rd16(p + off + 2)
        if off + REC_HEADER + klen + vlen > top:
            return f"record {i} at {off} runs past the heap top {top}"
        used += REC_HEADER + klen + vlen
        if level > 0:
            if vlen != 4:
                return f"record {i} of an internal page has a {vlen}-byte child number"
            if rd32(p + off + REC_HEADER + klen) == page_no or rd32(p + off + REC_HEADER + klen) == NIL:
                return f"record {i} points at page {rd32(p + off + REC_HEADER + klen)} as its child"
            if i == 0 and klen != 0:
                return "record 0 of an internal page has a key (it must be minus infinity)"
        if i > 0 and not (level > 0 and i == 1):
            if key_cmp(p + prev_off + REC_HEADER, prev_klen, p + off + REC_HEADER, klen) >= 0:
                return f"record {i} is not above record {i - 1}"
        prev_off, prev_klen = off, klen
    if used + garbage != top - HEADER_SIZE:
        return (f"{n} records of {used} bytes and {garbage} bytes of garbage, but a heap of {top - HEADER_SIZE} "
                f"bytes: a record count, a slot or a length is wrong")
    return None


def is_zero(buf):
    """True for a page that was never written (all zero bytes), which has no checksum to verify."""
    return not any(buf)


cdef class Page:
    """A view of one page held in a ``bytearray``: header fields as properties, records by position or key.

    The tree's fast path works on the raw bytes; this class is for the slower paths (splits, merges, redo replay)
    and for tests and readers. It never copies the page: changes go straight to the bytearray.
    """

    cdef readonly bytearray buf  # the page's bytes
    cdef uchar* p  # the bytes, for C
    cdef readonly int page_size  # len(buf)

    def __cinit__(self, bytearray buf):
        if len(buf) not in PAGE_SIZES:
            raise ValueError(f"a page must be {', '.join(map(str, PAGE_SIZES))} bytes, got {len(buf)}")
        self.buf = buf
        self.p = <uchar*> PyByteArray_AS_STRING(buf)
        self.page_size = len(buf)

    # -- header ---------------------------------------------------------------------------------------------------
    @property
    def page_no(self):
        """Number of the page in the tablespace."""
        return rd32(self.p + OFF_PAGE_NO)

    @property
    def lsn(self):
        """LSN of the last redo group applied to the page."""
        return rd64(self.p + OFF_LSN)

    @lsn.setter
    def lsn(self, uint64_t value):
        wr64(self.p + OFF_LSN, value)

    @property
    def type(self):
        """Page type: TYPE_ZERO, TYPE_FSP, TYPE_INDEX or TYPE_FREE (see PAGE_TYPES)."""
        return self.p[OFF_TYPE]

    @property
    def level(self):
        """0 for a leaf; a parent's level is its children's plus one."""
        return self.p[OFF_LEVEL]

    @property
    def is_leaf(self):
        """True for a leaf page."""
        return self.p[OFF_LEVEL] == 0

    @property
    def flags(self):
        """FLAG_* bits (LAST_AT_END)."""
        return self.p[OFF_FLAGS]

    @flags.setter
    def flags(self, int value):
        self.p[OFF_FLAGS] = <uchar> value

    @property
    def index_id(self):
        """Id of the index the page belongs to."""
        return rd32(self.p + OFF_INDEX_ID)

    @property
    def nrecs(self):
        """Number of records."""
        return page_nrecs(self.p)

    @property
    def prev(self):
        """Previous page on the same level (NIL_PAGE if none)."""
        return rd32(self.p + OFF_PREV)

    @prev.setter
    def prev(self, uint32_t value):
        wr32(self.p + OFF_PREV, value)

    @property
    def next(self):
        """Next page on the same level (NIL_PAGE if none)."""
        return rd32(self.p + OFF_NEXT)

    @next.setter
    def next(self, uint32_t value):
        wr32(self.p + OFF_NEXT, value)

    @property
    def heap_top(self):
        """First free byte after the record heap."""
        return rd16(self.p + OFF_HEAP_TOP)

    @property
    def garbage(self):
        """Bytes of deleted records still inside the heap."""
        return rd16(self.p + OFF_GARBAGE)

    @property
    def capacity(self):
        """Bytes available to records and slots (the page minus its header)."""
        return self.page_size - HEADER_SIZE

    @property
    def used(self):
        """Bytes taken by live records and their slots."""
        return page_used(self.p)

    @property
    def free(self):
        """Bytes still available to new records and slots (garbage counts as available)."""
        return page_free(self.p, self.page_size)

    @property
    def fill(self):
        """Fraction of the capacity that live records use."""
        return page_used(self.p) / <double> (self.page_size - HEADER_SIZE)

    def init(self, uint32_t page_no, int ptype, int level, uint32_t index_id, uint32_t prev=NIL,
             uint32_t next=NIL):
        """Make this an empty page with the given header (LSN 0, no records)."""
        page_init(self.p, self.page_size, page_no, ptype, level, index_id, prev, next)

    # -- records --------------------------------------------------------------------------------------------------
    def _check_pos(self, int i):
        if i < 0 or i >= page_nrecs(self.p):
            raise IndexError(f"record {i} out of range: page {self.page_no} holds {page_nrecs(self.p)}")

    def key(self, int i):
        """Key of record i."""
        self._check_pos(i)
        cdef const uchar* r = rec_at(self.p, self.page_size, i)
        return (<const char*> r)[REC_HEADER:REC_HEADER + rd16(r)]

    def value(self, int i):
        """Value of record i."""
        self._check_pos(i)
        cdef const uchar* r = rec_at(self.p, self.page_size, i)
        cdef int k = rd16(r)
        return (<const char*> r)[REC_HEADER + k:REC_HEADER + k + rd16(r + 2)]

    def child(self, int i):
        """Child page number of record i of an internal page."""
        self._check_pos(i)
        return page_child(self.p, self.page_size, i)

    def records(self, int start=0, int stop=-1):
        """[(key, value)] of records start..stop-1 in key order (stop -1: to the end)."""
        cdef int n = page_nrecs(self.p), i, k
        cdef const uchar* r
        cdef const char* c
        if stop < 0 or stop > n:
            stop = n
        out = []
        for i in range(start, stop):
            r = rec_at(self.p, self.page_size, i)
            k = rd16(r)
            c = <const char*> r
            out.append((c[REC_HEADER:REC_HEADER + k], c[REC_HEADER + k:REC_HEADER + k + rd16(r + 2)]))
        return out

    def keys(self):
        """Every key, in order."""
        return [k for k, _ in self.records()]

    def record_sizes(self):
        """Bytes each record takes, slot included, in key order."""
        cdef int i
        return [rec_size(rec_at(self.p, self.page_size, i)) + SLOT_SIZE for i in range(page_nrecs(self.p))]

    def search(self, bytes key):
        """(position of the first key >= key, whether it is equal)."""
        cdef bint found
        cdef int pos = page_lower_bound(self.p, self.page_size, <const uchar*> key, len(key), &found)
        return pos, bool(found)

    def get(self, bytes key):
        """Value stored under ``key`` in this page, or None."""
        pos, found = self.search(key)
        return self.value(pos) if found else None

    def child_slot(self, bytes key):
        """Internal page: the record whose child covers ``key``."""
        return page_child_slot(self.p, self.page_size, <const uchar*> key, len(key))

    def put(self, bytes key, bytes value, fill_limit=None):
        """Insert or replace; returns FULL, INSERTED or REPLACED (see ``page_put``)."""
        cdef int limit = self.page_size if fill_limit is None else fill_limit
        return page_put(self.p, self.page_size, <const uchar*> key, len(key), <const uchar*> value,
                        len(value), limit)

    def insert_at(self, int pos, bytes key, bytes value):
        """Insert a new record at position ``pos`` (key order is the caller's duty); False if it does not fit."""
        if pos < 0 or pos > page_nrecs(self.p):
            raise IndexError(f"insert position {pos} out of range 0..{page_nrecs(self.p)}")
        return bool(page_insert_at(self.p, self.page_size, pos, <const uchar*> key, len(key),
                                   <const uchar*> value, len(value)))

    def append(self, bytes key, bytes value):
        """Insert a record after the last one; False if it does not fit."""
        return self.insert_at(page_nrecs(self.p), key, value)

    def extend(self, records):
        """Append (key, value) records in order; ValueError if they do not fit."""
        for key, value in records:
            if not self.insert_at(page_nrecs(self.p), key, value):
                raise ValueError(f"records do not fit in page {self.page_no} ({self.page_size} bytes)")

    def delete(self, bytes key):
        """Remove ``key``; True if it was there."""
        return bool(page_remove(self.p, self.page_size, <const uchar*> key, len(key)))

    def delete_at(self, int pos):
        """Remove record ``pos``."""
        self._check_pos(pos)
        page_delete_at(self.p, self.page_size, pos)

    def cut(self, int keep):
        """Keep only the first ``keep`` records."""
        if keep < 0 or keep > page_nrecs(self.p):
            raise IndexError(f"cannot keep {keep} of {page_nrecs(self.p)} records")
        page_cut(self.p, self.page_size, keep)

    def compact(self):
        """Rewrite the heap without garbage."""
        page_compact(self.p, self.page_size)

    # -- checksum -------------------------------------------------------------------------------------------------
    def stamp_checksum(self):
        """Write the checksum into the header."""
        stamp_checksum(self.buf)

    def checksum_ok(self):
        """True if the stored checksum matches the contents."""
        return stored_checksum(self.buf) == checksum(self.buf)

    def __repr__(self):
        return (f"<Page {self.page_no} type={self.type} level={self.level} index={self.index_id} "
                f"nrecs={self.nrecs} used={self.used}/{self.capacity} lsn={self.lsn}>")
