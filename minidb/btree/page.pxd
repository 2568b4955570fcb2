# The slotted page, as C: offsets of the header fields, inline accessors, and the page operations other Cython
# modules (the tree's fast path, redo replay) call directly. The layout is described in FORMAT.md and page.pyx.

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

from minidb.coding cimport load_be64

ctypedef unsigned char uchar

cdef enum:
    # Byte offsets of the page header fields (all integers little-endian).
    OFF_CHECKSUM = 0    # u32 crc32 of the whole page computed with this field zeroed
    OFF_PAGE_NO = 4     # u32 the page's own number: catches a page written to the wrong place
    OFF_LSN = 8         # u64 LSN of the last redo group applied to the page
    OFF_TYPE = 16       # u8  TYPE_*
    OFF_LEVEL = 17      # u8  0 for a leaf, parent level = child level + 1
    OFF_FLAGS = 18      # u8  FLAG_* bits
    OFF_INDEX_ID = 20   # u32 the index (tree) the page belongs to
    OFF_NRECS = 24      # u16 number of records (= slots)
    OFF_HEAP_TOP = 26   # u16 first free byte after the record heap
    OFF_GARBAGE = 28    # u16 bytes of deleted records still inside the heap
    OFF_PREV = 32       # u32 previous page on the same level, or NIL
    OFF_NEXT = 36       # u32 next page on the same level, or NIL
    HEADER_SIZE = 40    # records start here
    REC_HEADER = 4      # u16 key length + u16 value length before each record's bytes
    SLOT_SIZE = 2       # one u16 record offset per record, at the end of the page

cdef enum:
    TYPE_ZERO = 0       # never written (all-zero page)
    TYPE_FSP = 1        # page 0: the file-space header
    TYPE_INDEX = 2      # a B+tree page (leaf or internal, see level)
    TYPE_FREE = 3       # on the free list; next links to the next free page

cdef enum:
    FLAG_LAST_AT_END = 1   # the last insert into this page went to its end (ascending pattern)

cdef enum:
    PUT_FULL = 0        # the record does not fit: the caller splits the page
    PUT_INSERTED = 1    # a new key was inserted
    PUT_REPLACED = 2    # the key existed; its value was replaced

cdef extern from *:
    """
    #define MINIDB_BTREE_NIL 0xFFFFFFFFu
    """
    const uint32_t NIL "MINIDB_BTREE_NIL"  # "no page" in prev/next links


cdef inline uint16_t rd16(const uchar* p) noexcept nogil:
    cdef uint16_t v
    memcpy(&v, p, 2)
    return v

cdef inline uint32_t rd32(const uchar* p) noexcept nogil:
    cdef uint32_t v
    memcpy(&v, p, 4)
    return v

cdef inline uint64_t rd64(const uchar* p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return v

cdef inline void wr16(uchar* p, uint16_t v) noexcept nogil:
    memcpy(p, &v, 2)

cdef inline void wr32(uchar* p, uint32_t v) noexcept nogil:
    memcpy(p, &v, 4)

cdef inline void wr64(uchar* p, uint64_t v) noexcept nogil:
    memcpy(p, &v, 8)


cdef inline int key_cmp(const uchar* a, int alen, const uchar* b, int blen) noexcept nogil:
    """memcmp order: bytes compared unsigned, a proper prefix sorts first."""
    cdef int n = alen if alen < blen else blen
    cdef uint64_t x, y
    cdef int c, i
    if n >= 8:
        # Most keys differ in their first 8 bytes: compare them as one big-endian integer, without a call.
        x = load_be64(a)
        y = load_be64(b)
        if x != y:
            return 1 if x > y else -1
        c = memcmp(a + 8, b + 8, n - 8)
        if c != 0:
            return c
    else:
        # Short keys (the separators of internal pages, cut short by the split policy) mostly differ in their
        # first byte: a loop finds it sooner than a call to memcmp.
        for i in range(n):
            if a[i] != b[i]:
                return <int> a[i] - <int> b[i]
    return alen - blen

cdef inline int page_nrecs(const uchar* p) noexcept nogil:
    return rd16(p + OFF_NRECS)

cdef inline const uchar* rec_at(const uchar* p, int ps, int i) noexcept nogil:
    """Record i in key order: [klen u16][vlen u16][key][value]."""
    return p + rd16(p + ps - SLOT_SIZE * (i + 1))

cdef inline int rec_size(const uchar* r) noexcept nogil:
    return REC_HEADER + rd16(r) + rd16(r + 2)

cdef inline int page_used(const uchar* p) noexcept nogil:
    """Bytes taken by live records and their slots (what the fill factor and merge threshold measure)."""
    return rd16(p + OFF_HEAP_TOP) - HEADER_SIZE - rd16(p + OFF_GARBAGE) + SLOT_SIZE * page_nrecs(p)

cdef inline int page_free(const uchar* p, int ps) noexcept nogil:
    """Bytes a new record (with its slot) may use, counting garbage a compaction would reclaim."""
    return ps - HEADER_SIZE - page_used(p)

cdef int page_lower_bound(const uchar* p, int ps, const uchar* key, int klen, bint* found) noexcept nogil
cdef int page_child_slot(const uchar* p, int ps, const uchar* key, int klen) noexcept nogil
cdef uint32_t page_child(const uchar* p, int ps, int slot) noexcept nogil
cdef bint page_insert_at(uchar* p, int ps, int pos, const uchar* key, int klen,
                         const uchar* val, int vlen) noexcept nogil
cdef void page_delete_at(uchar* p, int ps, int pos) noexcept nogil
cdef int page_put(uchar* p, int ps, const uchar* key, int klen, const uchar* val, int vlen,
                  int fill_limit) noexcept nogil
cdef int page_put_at(uchar* p, int ps, int pos, bint found, const uchar* key, int klen, const uchar* val, int vlen,
                     int fill_limit) noexcept nogil
cdef bint page_remove(uchar* p, int ps, const uchar* key, int klen) noexcept nogil
cdef void page_compact(uchar* p, int ps) noexcept nogil
cdef void page_cut(uchar* p, int ps, int keep) noexcept nogil
cdef void page_init(uchar* p, int ps, uint32_t page_no, int ptype, int level, uint32_t index_id,
                    uint32_t prev, uint32_t next) noexcept nogil
