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

**Searching ahead.** On a large load the leaves a batch changes are cold: each probe of a leaf's binary search
waits for memory, one miss after the other (a secondary-index leaf of 500 records is nine dependent misses).
``apply_ops`` therefore runs each op's leaf search ahead of the op, a step at a time, interleaved with the ops
before it, as "group prefetching" does for hash joins (Chen et al., SIGMOD 2004). ``AHEAD`` ops before an op it
finds the op's leaf frame (``leaf_ahead``: the cached internal pages lead there, and nothing is counted or moved)
and asks the CPU for the leaf's header and slot directory (``prefetch_page``); then, at each op in between, the
search takes one step (``probe_step``): it compares the key with the record asked for one op earlier, by now in
the cache, and asks for the next one. When the op's turn comes, its real search finds every record it reads in
the cache. The steps read what the page holds at the time: a record inserted meanwhile costs a few loads, never a
different result. What they find is kept in a ``Route`` (tree_core.pxd) and spares the op its own searches: the
record followed in each internal page (within one ``apply_ops`` call no internal page changes: a split or a merge
goes back to tree.py first), and the key's position in the leaf, if the leaf has not changed since the search
ahead read it (``Frame.changes`` counts the fast path's changes). The comparisons are counted as if searched, so
every count is the same with or without the search ahead.

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
from .page cimport (FLAG_LAST_AT_END, OFF_FLAGS, OFF_INDEX_ID, OFF_LEVEL, OFF_TYPE, PUT_FULL, REC_HEADER,
                    SLOT_SIZE, TYPE_INDEX, key_cmp, page_child, page_child_slot, page_delete_at, page_lower_bound,
                    page_nrecs, page_put_at, page_used, rd16, rd32, rec_at, rec_size)
from .page_zip cimport zip_del, zip_put

DONE = R_DONE
SEARCH_AHEAD = AHEAD
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
    AHEAD = 13  # ops between the start of a leaf search and its op: a step to load the frame, one to load the
    # header and slot directory, then one per probe of a binary search over up to 1023 records (a 16 KiB leaf of
    # short keys holds about 700)
    RING = 16  # probes kept: a power of two above AHEAD, so that op i's is ring[i & (RING - 1)]


cdef struct Probe:
    # A leaf search run ahead of its op (see "Searching ahead" above); over once ``frame`` and ``page`` are NULL.
    PyObject* frame    # the leaf's frame until the first step reads its page pointer, then NULL
    const uchar* page  # the leaf's bytes (the pool keeps its frame for the whole apply_ops call)
    const uchar* key   # the op's key (its bytes object is in the ops list)
    int klen
    int lo, hi         # the search's range of positions; hi -1 until the page's header has been read
    int mid            # the record asked of the CPU at the last step, -1 if none
    Route route        # what it found (the way down, the position in the leaf), for the op to reuse


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

    cdef int descend(self, const uchar* key, int klen, const Route* route) except -1:
        """Descend to ``key``'s leaf (``leaf``, ``path()``): R_DONE or R_MISS. ``route`` (or NULL): the records to
        follow in the first internal pages, found by an earlier leaf_ahead for this key that no change has
        outdated; they spare the binary searches but not their counted comparisons."""
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
            if route != NULL and d < route.levels and route.slot[d] < page_nrecs(p):
                slot = route.slot[d]
            else:
                slot = page_child_slot(p, self.ps, key, klen)
            self.compares += search_compares(page_nrecs(p) - 1)  # record 0 is minus infinity: never compared
            self.path_slot[d] = slot
            page_no = page_child(p, self.ps, slot)
            d += 1

    cdef PyObject* leaf_ahead(self, const uchar* key, int klen, Route* route) noexcept:
        """The frame of the cached leaf that holds or would hold ``key`` (NULL if not found; a borrowed reference,
        the pool's), its object asked of the CPU's cache; changes nothing. ``route`` (or NULL) receives the records
        followed on the way.

        The descent reads the cached internal pages (a few per tree, hot) without touching the LRU list or any
        counter, and stops at the leaf's frame without reading it, not even its reference count: the leaf is loaded
        later (``prefetch_page``). Anything unexpected (a page not in the pool, not of this tree) just ends the hint.
        """
        cdef uint32_t page_no = self.root
        cdef list table = self.pool.table
        cdef PyObject* obj
        cdef const uchar* p
        cdef int d, slot
        if route != NULL:
            route.levels = 0
        for d in range(MAX_HEIGHT):
            if page_no >= <uint32_t> PyList_GET_SIZE(table):
                return NULL
            obj = PyList_GET_ITEM(table, page_no)
            if obj == <PyObject*> None:
                return NULL
            p = frame_data(obj)
            if p[OFF_TYPE] != TYPE_INDEX or rd32(p + OFF_INDEX_ID) != self.index_id:
                return NULL
            if p[OFF_LEVEL] == 0 or page_nrecs(p) == 0:
                return obj  # a root leaf
            slot = page_child_slot(p, self.ps, key, klen)
            if route != NULL and d < ROUTE_LEVELS:
                route.slot[d] = slot
                route.levels = d + 1
            page_no = page_child(p, self.ps, slot)
            if p[OFF_LEVEL] == 1:
                if page_no >= <uint32_t> PyList_GET_SIZE(table):
                    return NULL
                obj = PyList_GET_ITEM(table, page_no)
                if obj == <PyObject*> None:
                    return NULL
                prefetch_line(obj)
                prefetch_line(<char*> obj + CACHE_LINE)
                return obj
        return NULL

    def try_put(self, bytes key, bytes value, Mtr mtr):
        """Insert or replace ``key`` in its cached leaf; R_DONE, R_MISS or R_FULL."""
        return self.c_put(key, value, mtr, NULL)

    def try_delete(self, bytes key, Mtr mtr):
        """Delete ``key`` from its cached leaf; R_DONE (also when absent), R_MISS or R_UNDERFULL."""
        return self.c_delete(key, mtr, NULL)

    def try_get(self, bytes key):
        """The value of ``key``, None if absent, or MISSING if a page on the way is not in the pool."""
        return self.c_get(key)

    def try_seek(self, bytes key):
        """Descend to the leaf that holds or would hold ``key``: R_DONE (see ``leaf_frame``) or R_MISS."""
        return self.descend(<const uchar*> PyBytes_AS_STRING(key), <int> PyBytes_GET_SIZE(key), NULL)

    def try_peek(self, bytes key):
        """The frame of the cached leaf that holds or would hold ``key``, or None if a page on the way is not in
        the pool; counts nothing and moves nothing in the LRU list (``leaf_ahead``, the fast path's prefetch)."""
        cdef PyObject* frame = self.leaf_ahead(<const uchar*> PyBytes_AS_STRING(key), <int> PyBytes_GET_SIZE(key),
                                               NULL)
        return None if frame == NULL else <object> frame

    cdef int leaf_position(self, const uchar* key, int klen, const Route* route, bint* found) noexcept:
        """page_lower_bound in the leaf the last descent reached: the search ahead's answer if ``route`` has one
        for this leaf and the leaf has not changed since, else a search."""
        cdef Frame f = self.leaf
        cdef const uchar* r
        if route == NULL or route.pos < 0 or route.leaf != <PyObject*> f or route.changes != f.changes:
            return page_lower_bound(f.data, self.ps, key, klen, found)
        found[0] = False
        if route.pos < page_nrecs(f.data):
            r = rec_at(f.data, self.ps, route.pos)
            found[0] = key_cmp(r + REC_HEADER, rd16(r), key, klen) == 0
        return route.pos

    # The C versions are cdef: apply_ops calls them without looking for Python overrides in subclasses.
    cdef int c_put(self, bytes key, bytes value, Mtr mtr, const Route* route) except -1:
        cdef const uchar* k = <const uchar*> PyBytes_AS_STRING(key)
        cdef int klen = <int> PyBytes_GET_SIZE(key)
        cdef int r = self.descend(k, klen, route)
        if r != R_DONE:
            return r
        cdef Frame f = self.leaf
        cdef Py_ssize_t undo_bytes = mtr.undo.n
        cdef int undo_records = mtr.undo.nrecords
        cdef bint found
        cdef int pos = self.leaf_position(k, klen, route, &found)  # one search serves undo and put
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
        f.changes += 1
        return R_DONE

    cdef int c_delete(self, bytes key, Mtr mtr, const Route* route) except -1:
        cdef const uchar* k = <const uchar*> PyBytes_AS_STRING(key)
        cdef int klen = <int> PyBytes_GET_SIZE(key)
        cdef int r = self.descend(k, klen, route)
        cdef bint found
        if r != R_DONE:
            return r
        cdef Frame f = self.leaf
        cdef int pos = self.leaf_position(k, klen, route, &found)
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
        f.changes += 1
        return R_DONE

    cdef object c_get(self, bytes key):
        cdef const uchar* k = <const uchar*> PyBytes_AS_STRING(key)
        cdef int klen = <int> PyBytes_GET_SIZE(key)
        cdef bint found
        if self.descend(k, klen, NULL) != R_DONE:
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


cdef PyObject* frame_ahead(list ops, Py_ssize_t i, dict trees, Route* route):
    """The frame of the leaf op ``i`` will change (see TreeCore.leaf_ahead; borrowed), or NULL (no such op, no tree
    yet); ``route`` receives the way there."""
    cdef PyObject* t
    cdef object op, key
    route.levels = 0
    if i >= PyList_GET_SIZE(ops):
        return NULL
    op = <object> PyList_GET_ITEM(ops, i)
    t = PyDict_GetItem(trees, <object> PyTuple_GET_ITEM(op, 0))
    key = <object> PyTuple_GET_ITEM(op, 1)
    if t == NULL or type(key) is not bytes:
        return NULL
    return (<TreeCore> t).leaf_ahead(<const uchar*> PyBytes_AS_STRING(key), <int> PyBytes_GET_SIZE(key), route)


cdef inline const uchar* frame_data(PyObject* frame) noexcept:
    """A frame's page bytes, through a borrowed reference (its reference count untouched: see leaf_ahead)."""
    return (<Frame> frame).data


cdef inline void prefetch_page(const uchar* p, int ps) noexcept nogil:
    """Ask for the lines of a leaf a search reads first: its header and its slot directory (at the page's end)."""
    cdef int off = ps - SLOT_PREFETCH
    prefetch_line(p)
    while off < ps:
        prefetch_line(p + off)
        off += CACHE_LINE


cdef void probe_start(Probe* pr, list ops, Py_ssize_t i, dict trees):
    """Start the search ahead of op ``i``: find its leaf's frame, whose object leaf_ahead has asked for."""
    cdef PyObject* frame = frame_ahead(ops, i, trees, &pr.route)
    cdef object key
    pr.page = NULL
    pr.frame = frame
    pr.route.leaf = frame
    pr.route.pos = -1
    if frame == NULL:
        return
    key = <object> PyTuple_GET_ITEM(<object> PyList_GET_ITEM(ops, i), 1)
    pr.key = <const uchar*> PyBytes_AS_STRING(key)
    pr.klen = <int> PyBytes_GET_SIZE(key)
    pr.lo = 0
    pr.hi = -1
    pr.mid = -1


cdef void probe_step(Probe* pr, int ps) noexcept:
    """One step of a search ahead: compare with the record asked for at the last step, ask for the next one.

    It follows page_lower_bound (the end first after an insert at the end, then a binary search, then the record
    at the position for the equality test), on the page as it is now: the ops in between may have changed it, so
    the range is cut to the records the page holds. A page that is no longer a leaf ends the search.
    """
    cdef const uchar* p = pr.page
    cdef const uchar* r
    cdef int n
    if p == NULL:
        if pr.frame != NULL:  # the frame object has arrived: ask for the page's header and slot directory
            pr.page = frame_data(pr.frame)
            pr.frame = NULL
            prefetch_page(pr.page, ps)
        return
    if p[OFF_TYPE] != TYPE_INDEX or p[OFF_LEVEL] != 0:
        pr.page = NULL
        return
    n = page_nrecs(p)
    if pr.hi < 0:  # the first step: the header and the slots have arrived
        pr.hi = n
        pr.route.changes = (<Frame> pr.route.leaf).changes  # the answer holds while this does not move
        if n > 0 and p[OFF_FLAGS] & FLAG_LAST_AT_END:
            r = rec_at(p, ps, n - 1)  # just inserted by an earlier op: cached, so compare now
            if key_cmp(r + REC_HEADER, rd16(r), pr.key, pr.klen) < 0:
                pr.lo = pr.route.pos = n
                pr.page = NULL  # the search will stop at the end
                return
    elif pr.mid >= 0 and pr.mid < n:
        r = rec_at(p, ps, pr.mid)
        if key_cmp(r + REC_HEADER, rd16(r), pr.key, pr.klen) < 0:
            pr.lo = pr.mid + 1
        else:
            pr.hi = pr.mid
    if pr.hi > n:
        pr.hi = n
    if pr.lo < pr.hi:
        pr.mid = (pr.lo + pr.hi) >> 1
    else:  # the search is over but for its equality test at lo, which the op makes
        pr.page = NULL
        pr.route.pos = pr.lo
        if pr.lo >= n:
            return
        pr.mid = pr.lo
    r = rec_at(p, ps, pr.mid)
    prefetch_line(r)


def search_ahead(Frame frame, bytes key, change=None):
    """Run a search ahead (``probe_step``) for ``key`` in the leaf of ``frame`` to its end, calling ``change()``
    after each step (the ops in between); (the position it ends at, steps taken). On a page that does not change,
    the position is page_lower_bound's; it completes before its op if it takes at most AHEAD - 1 steps."""
    cdef Probe pr
    cdef int steps = 0
    pr.frame = <PyObject*> frame
    pr.page = NULL
    pr.key = <const uchar*> PyBytes_AS_STRING(key)
    pr.klen = <int> PyBytes_GET_SIZE(key)
    pr.lo, pr.hi, pr.mid = 0, -1, -1
    pr.route.leaf = <PyObject*> frame
    pr.route.pos = -1
    while pr.frame != NULL or pr.page != NULL:
        probe_step(&pr, <int> len(frame.buf))
        steps += 1
        if change is not None:
            change()
    return pr.lo, steps


def apply_ops(list ops, Py_ssize_t start, dict trees, Mtr mtr, BufferPool pool, Py_ssize_t max_frames):
    """Run ``ops[start:]`` ((keyspace, key, value or None) tuples) through the fast path; return (i, full).

    ``i`` is the first op not completed (``len(ops)`` if all were). If ``full``, op ``i`` was not tried because
    the mtr has changed ``max_frames`` frames (the caller commits it and goes on in a new one); otherwise op ``i``
    needs the slow path. Each op tried counts as one client operation for the buffer pool's midpoint promotion,
    including one that needs the slow path: the caller finishes it without counting it again.
    """
    cdef Py_ssize_t i, j, n = PyList_GET_SIZE(ops)
    cdef int ps = pool.page_size
    cdef PyObject* t
    cdef object op, value
    cdef int r
    cdef Probe ring[RING]
    cdef Route* route
    # The pages stay where they are during the call: the fast path changes leaves in place, reads nothing in and
    # evicts nothing (an op that would returns first), so the probes' page pointers stay valid. Nor does it change
    # an internal page (a split or a merge returns first), so the route each probe found is still the way.
    for j in range(RING):
        ring[j].page = NULL
        ring[j].frame = NULL
        ring[j].route.levels = 0
        ring[j].route.leaf = NULL
        ring[j].route.pos = -1
    for j in range(start + 1, start + AHEAD):
        if j < n:
            probe_start(&ring[j & (RING - 1)], ops, j, trees)
    for i in range(start, n):
        if PyList_GET_SIZE(mtr.frames) >= max_frames:
            return i, True
        if i + AHEAD < n:
            probe_start(&ring[(i + AHEAD) & (RING - 1)], ops, i + AHEAD, trees)
        for j in range(i + 1, i + AHEAD):
            probe_step(&ring[j & (RING - 1)], ps)
        op = <object> PyList_GET_ITEM(ops, i)
        pool.op += 1
        t = PyDict_GetItem(trees, <object> PyTuple_GET_ITEM(op, 0))
        if t == NULL:
            return i, False
        value = <object> PyTuple_GET_ITEM(op, 2)
        route = &ring[i & (RING - 1)].route
        if value is None:
            r = (<TreeCore> t).c_delete(<bytes> PyTuple_GET_ITEM(op, 1), mtr, route)
        else:
            r = (<TreeCore> t).c_put(<bytes> PyTuple_GET_ITEM(op, 1), <bytes> value, mtr, route)
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
