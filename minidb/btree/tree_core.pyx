"""TreeCore: the part of every B+tree operation that runs while all its pages are in the buffer pool, in C.

Most operations of a workload whose working set is cached never leave this file: descend from the root through
cached internal pages (binary search in each), then search, insert, replace or delete in the leaf, encode the redo
record and pin the leaf in the open mini-transaction. No Python object is created on the way.

When something needs more than that, the operation stops *before changing anything* and says why:

* ``R_MISS``: a page on the way is not in the pool (``miss_page``; ``miss_level`` is 0 for a leaf). The caller
  reads it in (or, for a leaf of a non-unique index, buffers the change instead: change_buffer.py) and retries.
* ``R_FULL``: the record does not fit in the leaf (or in its compressed copy, page_zip.pyx), or an ascending
  insert reached the fill limit: split first.
* ``R_UNDERFULL``: the delete would leave the leaf below the merge threshold: delete and merge.

**Counting CPU work.** ``compares`` counts the key comparisons of the binary searches on the way (for the CPU
cost model, ``minidb.sim.cpu``): one search in each internal page and one in the leaf per operation, each charged
what a binary search over that page's records makes (``search_compares``), however the code finds the position.

**Loading ahead.** On a large load the leaves a batch changes are cold: each probe of a leaf's binary search
waits for memory, one miss after the other. ``apply_ops`` therefore looks ahead while it works: two ops ahead it
finds the next leaf's frame (``leaf_ahead``: the cached internal pages lead there, and nothing is counted or
moved), one op ahead it asks the CPU to load that leaf's header and slot directory (``prefetch_page``), so those
misses overlap the current op's work instead of following it. It is only a hint: a wrong guess (a split in
between) costs a few loads, never a different result, and every count is the same with or without it.

The methods are ``try_put``, ``try_delete``, ``try_get``, ``try_seek`` and ``try_peek``; tree.py's ``BTree`` (a
subclass) wraps them into complete operations. ``path()`` gives the pages of the descent, root first, for tree.py's split
and merge code. A page that is not an index page of this tree, or not one level below its parent, raises
``CorruptionError``.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_GetItem
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.ref cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM

from ..errors import CorruptionError
from .page cimport (OFF_INDEX_ID, OFF_LEVEL, OFF_TYPE, PUT_FULL, REC_HEADER, SLOT_SIZE, TYPE_INDEX,
                    page_child, page_child_slot, page_delete_at, page_lower_bound, page_nrecs, page_put_at,
                    page_used, rd16, rd32, rec_at, rec_size)
from .page_zip cimport zip_del, zip_put

DONE = R_DONE
MISS = R_MISS
FULL = R_FULL
UNDERFULL = R_UNDERFULL
MISSING = object()  # what get() returns when a page on the way is not in the pool


cdef extern from *:
    """
    #define MINIDB_PREFETCH(p) __builtin_prefetch((p), 1, 3)
    """
    void prefetch_line "MINIDB_PREFETCH"(const void* p) noexcept nogil  # a hint to the CPU: load this line


cdef enum:
    CACHE_LINE = 64  # bytes the CPU loads at a time
    SLOT_PREFETCH = 1024  # bytes at the end of a leaf loaded ahead: the slot directory of up to 512 records
    # (a 60%-full 16 KiB leaf of secondary keys holds about 500). Loading more ahead measured no faster: with the
    # whole page (256 lines) or 2 KiB, the loop waits on its own prefetches (a core has few line-fill buffers).


cdef inline int search_compares(int n) noexcept nogil:
    """Comparisons a binary search over ``n`` keys makes: ceil(log2(n + 1)), the bits of n."""
    cdef int bits = 0
    while n:
        bits += 1
        n >>= 1
    return bits


cdef class TreeCore:
    """The cached-path operations of one B+tree (see the module docstring)."""

    def __cinit__(self, BufferPool pool, str name, uint32_t index_id, uint32_t root, bint unique,
                  int fill_limit, int merge_limit, *args, **kwargs):
        self.pool = pool
        self.ps = pool.page_size
        self.name = name
        self.index_id = index_id
        self.root = root
        self.unique = unique
        self.fill_limit = fill_limit
        self.merge_limit = merge_limit
        self.path_len = 0

    cdef int descend(self, const uchar* key, int klen) except -1:
        cdef uint32_t page_no = self.root
        cdef int d = 0, level = -1, slot
        cdef Frame f
        cdef const uchar* p
        while True:
            f = self.pool.lookup(page_no)
            if f is None:
                self.miss_page = page_no
                self.miss_level = level - 1 if level > 0 else -1
                self.path_len = d
                return R_MISS
            p = f.data
            if (p[OFF_TYPE] != TYPE_INDEX or rd32(p + OFF_INDEX_ID) != self.index_id
                    or (level > 0 and p[OFF_LEVEL] != level - 1)):
                raise CorruptionError(
                    f"index {self.name!r}: page {page_no} (type {p[OFF_TYPE]}, index {rd32(p + OFF_INDEX_ID)}, "
                    f"level {p[OFF_LEVEL]}) is not the level-{level - 1 if level > 0 else 'any'} page of this "
                    f"index its parent points to")
            level = p[OFF_LEVEL]
            self.path_page[d] = page_no
            if level == 0:
                self.path_slot[d] = -1
                self.path_len = d + 1
                self.leaf = f
                self.compares += search_compares(page_nrecs(p)) + 1  # and the equality test at the position
                return R_DONE
            if d + 1 >= MAX_HEIGHT or page_nrecs(p) == 0:
                raise CorruptionError(f"index {self.name!r}: internal page {page_no} is empty or too deep")
            slot = page_child_slot(p, self.ps, key, klen)
            self.compares += search_compares(page_nrecs(p) - 1)  # record 0 is minus infinity: never compared
            self.path_slot[d] = slot
            page_no = page_child(p, self.ps, slot)
            d += 1

    cdef object leaf_ahead(self, const uchar* key, int klen):
        """The frame of the cached leaf that holds or would hold ``key`` (None if not found), its object asked of
        the CPU's cache; changes nothing.

        The descent reads the cached internal pages (a few per tree, hot) without touching the LRU list or any
        counter, and stops at the leaf's frame without reading it: the leaf itself is loaded later
        (``prefetch_page``). Anything unexpected (a page not in the pool, not of this tree) just ends the hint.
        """
        cdef uint32_t page_no = self.root
        cdef list table = self.pool.table
        cdef object obj
        cdef const uchar* p
        cdef int d
        for d in range(MAX_HEIGHT):
            if page_no >= <uint32_t> PyList_GET_SIZE(table):
                return None
            obj = <object> PyList_GET_ITEM(table, page_no)
            if obj is None:
                return None
            p = (<Frame> obj).data
            if p[OFF_TYPE] != TYPE_INDEX or rd32(p + OFF_INDEX_ID) != self.index_id:
                return None
            if p[OFF_LEVEL] == 0 or page_nrecs(p) == 0:
                return obj  # a root leaf
            page_no = page_child(p, self.ps, page_child_slot(p, self.ps, key, klen))
            if p[OFF_LEVEL] == 1:
                if page_no >= <uint32_t> PyList_GET_SIZE(table):
                    return None
                obj = <object> PyList_GET_ITEM(table, page_no)
                if obj is not None:
                    prefetch_line(<void*> obj)
                    prefetch_line(<char*> <void*> obj + CACHE_LINE)
                return obj
        return None

    def try_put(self, bytes key, bytes value, Mtr mtr):
        """Insert or replace ``key`` in its cached leaf; R_DONE, R_MISS or R_FULL."""
        return self.c_put(key, value, mtr)

    def try_delete(self, bytes key, Mtr mtr):
        """Delete ``key`` from its cached leaf; R_DONE (also when absent), R_MISS or R_UNDERFULL."""
        return self.c_delete(key, mtr)

    def try_get(self, bytes key):
        """The value of ``key``, None if absent, or MISSING if a page on the way is not in the pool."""
        return self.c_get(key)

    def try_seek(self, bytes key):
        """Descend to the leaf that holds or would hold ``key``: R_DONE (see ``leaf_frame``) or R_MISS."""
        return self.descend(<const uchar*> PyBytes_AS_STRING(key), <int> PyBytes_GET_SIZE(key))

    def try_peek(self, bytes key):
        """The frame of the cached leaf that holds or would hold ``key``, or None if a page on the way is not in
        the pool; counts nothing and moves nothing in the LRU list (``leaf_ahead``, the fast path's prefetch)."""
        return self.leaf_ahead(<const uchar*> PyBytes_AS_STRING(key), <int> PyBytes_GET_SIZE(key))

    # The C versions are cdef: apply_ops calls them without looking for Python overrides in subclasses.
    cdef int c_put(self, bytes key, bytes value, Mtr mtr) except -1:
        cdef const uchar* k = <const uchar*> PyBytes_AS_STRING(key)
        cdef int klen = <int> PyBytes_GET_SIZE(key)
        cdef int r = self.descend(k, klen)
        if r != R_DONE:
            return r
        cdef Frame f = self.leaf
        cdef Py_ssize_t undo_bytes = mtr.undo.n
        cdef int undo_records = mtr.undo.nrecords
        cdef bint found
        cdef int pos = page_lower_bound(f.data, self.ps, k, klen, &found)  # one search serves undo and put
        mtr.undo_at(self.index_id, k, klen, f, pos, found)
        if f.zip is None:
            r = page_put_at(f.data, self.ps, pos, found, k, klen, <const uchar*> PyBytes_AS_STRING(value),
                            <int> PyBytes_GET_SIZE(value), self.fill_limit)
        else:  # a compressed page: the change goes into its modification log too (page_zip.pyx)
            r = zip_put(f, self.ps, k, klen, <const uchar*> PyBytes_AS_STRING(value),
                        <int> PyBytes_GET_SIZE(value), self.fill_limit)
        if r == PUT_FULL:
            mtr.undo.forget_after(undo_bytes, undo_records)  # nothing changed: nothing to undo
            return R_FULL
        mtr.log_put(f.page_no, k, klen, <const uchar*> PyBytes_AS_STRING(value), <int> PyBytes_GET_SIZE(value))
        mtr.touch(f)
        return R_DONE

    cdef int c_delete(self, bytes key, Mtr mtr) except -1:
        cdef const uchar* k = <const uchar*> PyBytes_AS_STRING(key)
        cdef int klen = <int> PyBytes_GET_SIZE(key)
        cdef int r = self.descend(k, klen)
        cdef bint found
        if r != R_DONE:
            return r
        cdef Frame f = self.leaf
        cdef int pos = page_lower_bound(f.data, self.ps, k, klen, &found)
        if not found:
            return R_DONE
        if self.path_len > 1 and (page_used(f.data) - rec_size(rec_at(f.data, self.ps, pos)) - SLOT_SIZE
                                  < self.merge_limit):
            return R_UNDERFULL
        mtr.undo_at(self.index_id, k, klen, f, pos, found)
        page_delete_at(f.data, self.ps, pos)
        if f.zip is not None:
            zip_del(f, k, klen)
        mtr.log_del(f.page_no, k, klen)
        mtr.touch(f)
        return R_DONE

    cdef object c_get(self, bytes key):
        cdef const uchar* k = <const uchar*> PyBytes_AS_STRING(key)
        cdef int klen = <int> PyBytes_GET_SIZE(key)
        cdef bint found
        if self.descend(k, klen) != R_DONE:
            return MISSING
        cdef const uchar* p = self.leaf.data
        cdef int pos = page_lower_bound(p, self.ps, k, klen, &found)
        if not found:
            return None
        cdef const uchar* r = rec_at(p, self.ps, pos)
        cdef int kl = rd16(r)
        return (<const char*> r)[REC_HEADER + kl:REC_HEADER + kl + rd16(r + 2)]

    @property
    def leaf_frame(self):
        """The leaf frame the last complete descent reached."""
        return self.leaf

    def path(self):
        """[(page number, record followed)] of the last descent, root first; the leaf's record is -1."""
        return [(self.path_page[i], self.path_slot[i]) for i in range(self.path_len)]


cdef object frame_ahead(list ops, Py_ssize_t i, dict trees):
    """The frame of the leaf op ``i`` will change (see TreeCore.leaf_ahead), or None (no such op, no tree yet)."""
    cdef PyObject* t
    cdef object op, key
    if i >= PyList_GET_SIZE(ops):
        return None
    op = <object> PyList_GET_ITEM(ops, i)
    t = PyDict_GetItem(trees, <object> PyTuple_GET_ITEM(op, 0))
    key = <object> PyTuple_GET_ITEM(op, 1)
    if t == NULL or type(key) is not bytes:
        return None
    return (<TreeCore> t).leaf_ahead(<const uchar*> PyBytes_AS_STRING(key), <int> PyBytes_GET_SIZE(key))


cdef inline void prefetch_page(const uchar* p, int ps) noexcept nogil:
    """Ask for the lines of a leaf a search reads first: its header and its slot directory (at the page's end)."""
    cdef int off = ps - SLOT_PREFETCH
    prefetch_line(p)
    while off < ps:
        prefetch_line(p + off)
        off += CACHE_LINE


def apply_ops(list ops, Py_ssize_t start, dict trees, Mtr mtr, BufferPool pool, Py_ssize_t max_frames):
    """Run ``ops[start:]`` ((keyspace, key, value or None) tuples) through the fast path; return (i, full).

    ``i`` is the first op not completed (``len(ops)`` if all were). If ``full``, op ``i`` was not tried because
    the mtr has changed ``max_frames`` frames (the caller commits it and goes on in a new one); otherwise op ``i``
    needs the slow path. Each op tried counts as one client operation for the buffer pool's midpoint promotion,
    including one that needs the slow path: the caller finishes it without counting it again.
    """
    cdef Py_ssize_t i, n = PyList_GET_SIZE(ops)
    cdef PyObject* t
    cdef object op, value
    cdef object ahead = frame_ahead(ops, start + 1, trees)  # op i+1's leaf frame, found one op earlier
    cdef int r
    for i in range(start, n):
        if PyList_GET_SIZE(mtr.frames) >= max_frames:
            return i, True
        # Loading a leaf is a cache miss per probe of its binary search. Two ops ahead, find the frame (the cached
        # internal pages lead there); one op ahead, ask for its page: its misses overlap this op's work.
        if ahead is not None:
            prefetch_page((<Frame> ahead).data, pool.page_size)
        ahead = frame_ahead(ops, i + 2, trees)
        op = <object> PyList_GET_ITEM(ops, i)
        pool.op += 1
        t = PyDict_GetItem(trees, <object> PyTuple_GET_ITEM(op, 0))
        if t == NULL:
            return i, False
        value = <object> PyTuple_GET_ITEM(op, 2)
        if value is None:
            r = (<TreeCore> t).c_delete(<bytes> PyTuple_GET_ITEM(op, 1), mtr)
        else:
            r = (<TreeCore> t).c_put(<bytes> PyTuple_GET_ITEM(op, 1), <bytes> value, mtr)
        if r != R_DONE:
            return i, False
    return n, False


def validate_ops(list ops, int max_record, int max_key, dict trees):
    """Check every op's key and value before anything is applied: ValueError naming the first op whose key or
    row a page cannot hold. Returns the set of keyspace names not in ``trees`` (to be created)."""
    cdef Py_ssize_t i, n = PyList_GET_SIZE(ops)
    cdef object op, key, value, ks
    cdef Py_ssize_t klen, vlen
    unknown = set()
    for i in range(n):
        op = <object> PyList_GET_ITEM(ops, i)
        ks = <object> PyTuple_GET_ITEM(op, 0)
        key = <object> PyTuple_GET_ITEM(op, 1)
        value = <object> PyTuple_GET_ITEM(op, 2)
        if type(key) is not bytes or (value is not None and type(value) is not bytes):
            raise ValueError(f"write op {i}: keys and values must be bytes, got "
                             f"{type(key).__name__} and {type(value).__name__}")
        klen = PyBytes_GET_SIZE(key)
        vlen = 0 if value is None else PyBytes_GET_SIZE(value)
        if klen == 0 or klen > max_key or klen + vlen > max_record:
            raise ValueError(row_error(ks, key, vlen, max_record, max_key, f"write op {i}: "))
        if PyDict_GetItem(trees, ks) == NULL:
            unknown.add(ks)
    return unknown


def row_error(keyspace, bytes key, Py_ssize_t vlen, int max_record, int max_key, str where=""):
    """The message for a key or row a page cannot hold."""
    if len(key) == 0:
        return f"{where}keyspace {keyspace!r}: a key must be non-empty bytes"
    if len(key) > max_key:
        return (f"{where}keyspace {keyspace!r}: key of {len(key)} bytes is longer than the {max_key} bytes an "
                f"index page allows")
    return (f"{where}keyspace {keyspace!r}: row of {len(key) + vlen} bytes (key {len(key)} + value {vlen}) is "
            f"larger than half a page: at most {max_record} bytes of key and value fit")
