# cython: language_level=3
"""The memtable: the sorted in-memory table every write lands in after the WAL (LevelDB's db/memtable.cc).

LevelDB and RocksDB keep it in a skiplist. This engine uses another sorted structure with the same contract, an
in-memory B+tree with wide nodes, because it is single-threaded (the skiplist's lock-free reads buy nothing here)
and because cache misses dominate the cost of an insert: a skiplist of a million entries visits ~25 nodes scattered
in memory per random insert (about 3 microseconds measured on this machine), while a B+tree of 32-slot nodes visits
~4, each holding the first 8 bytes of its keys inline so most comparisons never leave the node.

Entries live in an *arena*: large chunks allocated once and freed together when the memtable is dropped after its
flush. A memtable never frees a single entry (an update or a delete is a new entry with a higher sequence number),
so its size is simply the bytes taken from the arena, tree nodes included (``nbytes``); when it reaches
``memtable_bytes`` the engine seals it and flushes it to an L0 SST.

Entry layout in the arena: ``uint32 klen | uint32 vlen | internal key (klen bytes) | value (vlen bytes)``, where
the internal key is the user key followed by ``BE64(seq << 8 | type)`` (see dbformat.pxd). Iterators hand out
pointers into the arena, so a flush copies each key once, into its block.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove

from .buffer cimport Buffer, buf_append, buf_free, buf_init, buf_reserve
from minidb.coding cimport store_be64
from .dbformat cimport TRAILER_SIZE, TYPE_DELETION, TYPE_VALUE, compare_internal, compare_user, key_word, max_sequence

cdef extern from *:
    """
    #define MINIDB_PREFETCH(p) __builtin_prefetch(p)
    """
    void MINIDB_PREFETCH(const void* p) noexcept nogil

cdef enum:
    PREFETCH_AHEAD = 4  # entries ahead of an iterator to fetch into the CPU cache (a flush reads them in order)
    CHUNK = 256 * 1024  # arena chunk size; an entry larger than a quarter of it gets a chunk of its own
    MAX_DEPTH = 16  # Inner levels; 32**16 entries is far beyond any memtable
    ENTRY_HEADER = 8  # uint32 klen + uint32 vlen before each entry's bytes


cdef inline uint32_t ent_klen(const unsigned char* e) noexcept nogil:
    return (<const uint32_t*>e)[0]


cdef inline uint32_t ent_vlen(const unsigned char* e) noexcept nogil:
    return (<const uint32_t*>e)[1]


cdef inline uint64_t key_prefix(const unsigned char* ukey, Py_ssize_t ulen) noexcept nogil:
    """The first 8 bytes of a user key as a big-endian number, zero-padded. Truncating and padding keep the order
    (a <= b implies prefix(a) <= prefix(b)), so unequal prefixes decide a comparison without touching the key."""
    cdef unsigned char tmp[8]
    cdef int i
    if ulen >= 8:
        return key_word(ukey)
    for i in range(8):
        tmp[i] = ukey[i] if i < ulen else 0
    return key_word(tmp)


cdef inline int cmp_slot(uint64_t pa, const unsigned char* ea, uint64_t pb, const unsigned char* key,
                         Py_ssize_t n) noexcept nogil:
    """Order of the entry ``ea`` (prefix ``pa``) against the internal key ``key`` (prefix ``pb``)."""
    if pa != pb:
        return -1 if pa < pb else 1
    return compare_internal(ea + ENTRY_HEADER, ent_klen(ea), key, n)


cdef inline int lower_bound(const uint64_t* pfx, unsigned char** ent, int count, uint64_t p,
                            const unsigned char* key, Py_ssize_t n, unsigned long long* compares) noexcept nogil:
    """First slot whose entry is >= key (count if none); adds the comparisons made to ``compares``."""
    cdef int lo = 0, hi = count, mid
    while lo < hi:
        compares[0] += 1
        mid = (lo + hi) >> 1
        if cmp_slot(pfx[mid], ent[mid], p, key, n) < 0:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline void prefetch_slots(const void* first, Py_ssize_t nbytes) noexcept nogil:
    """Ask for every cache line of a node's slot array at once (``nbytes`` from ``first``): a binary search then
    waits for one memory round trip per node instead of one per line it probes."""
    cdef const char* p = <const char*>first
    cdef Py_ssize_t off = 0
    while off < nbytes:
        MINIDB_PREFETCH(p + off)
        off += 64
    MINIDB_PREFETCH(p + nbytes - 1)


cdef class MemTable:
    """A sorted in-memory table of internal keys; see the module docstring."""

    def __cinit__(self):
        self.chunks = NULL
        self.nchunks = 0
        self.chunks_cap = 0
        self.ptr = NULL
        self.left = 0
        self.nbytes = 0
        self.entries = 0
        self.deletes = 0
        self.first_seq = 0
        self.last_seq = 0
        self.depth = 0
        self.mods = 0
        self.compares = 0
        self.first = <Leaf*>self.alloc(sizeof(Leaf))
        self.first.n = 0
        self.first.next = NULL
        self.root = self.first

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.nchunks):
            free(self.chunks[i])
        free(self.chunks)

    cdef char* alloc(self, Py_ssize_t n) except NULL:
        """``n`` bytes from the arena, 8-byte aligned; a fresh chunk when the current one is short."""
        cdef char* p
        cdef char** grown
        cdef Py_ssize_t size
        n = (n + 7) & ~7
        if n > self.left:
            size = n if n > CHUNK // 4 else CHUNK
            p = <char*>malloc(size)
            if p == NULL:
                raise MemoryError(f"memtable arena: cannot allocate {size} bytes")
            if self.nchunks == self.chunks_cap:
                self.chunks_cap = self.chunks_cap * 2 if self.chunks_cap else 16
                grown = <char**>realloc(self.chunks, self.chunks_cap * sizeof(char*))
                if grown == NULL:
                    free(p)
                    raise MemoryError("memtable arena: cannot grow the chunk list")
                self.chunks = grown
            self.chunks[self.nchunks] = p
            self.nchunks += 1
            self.nbytes += n
            if size == n:  # a big entry's private chunk: the current chunk stays open for small ones
                return p
            self.ptr = p + n
            self.left = size - n
            return p
        p = self.ptr
        self.ptr += n
        self.left -= n
        self.nbytes += n
        return p

    cdef Leaf* find_leaf(self, uint64_t pfx, const unsigned char* key, Py_ssize_t n, void** path,
                         int* slots) noexcept:
        """The leaf where ``key`` belongs; records the Inner nodes and child slots passed on the way down."""
        cdef void* node = self.root
        cdef Inner* inner
        cdef int level, i
        for level in range(self.depth):
            inner = <Inner*>node
            prefetch_slots(inner.pfx, inner.n * sizeof(uint64_t))
            # The last child whose lower bound is <= key; child 0 also takes keys below every bound.
            i = lower_bound(inner.pfx, inner.ent, inner.n, pfx, key, n, &self.compares)
            if i == inner.n or cmp_slot(inner.pfx[i], inner.ent[i], pfx, key, n) > 0:
                i -= 1
            if i < 0:
                i = 0
            path[level] = inner
            slots[level] = i
            node = inner.child[i]
        # The leaf's keys are searched and its slots shifted by the insert: fetch both arrays now.
        prefetch_slots((<Leaf*>node).pfx, FANOUT * sizeof(uint64_t))
        prefetch_slots((<Leaf*>node).ent, FANOUT * sizeof(unsigned char*))
        return <Leaf*>node

    cdef Leaf* rightmost_leaf(self, void** path, int* slots) noexcept:
        """The last leaf, recording the path to it as ``find_leaf`` would for a key above every entry."""
        cdef void* node = self.root
        cdef Inner* inner
        cdef int level
        for level in range(self.depth):
            inner = <Inner*>node
            path[level] = inner
            slots[level] = inner.n - 1
            node = inner.child[inner.n - 1]
        return <Leaf*>node

    cdef int add(self, uint64_t seq, int vtype, const unsigned char* ukey, Py_ssize_t ulen,
                 const unsigned char* val, Py_ssize_t vlen) except -1:
        """Insert version ``seq`` of ``ukey``: a put of ``val`` (vtype 1) or a tombstone (vtype 0)."""
        cdef void* path[MAX_DEPTH]
        cdef int slots[MAX_DEPTH]
        cdef Py_ssize_t klen = ulen + TRAILER_SIZE
        cdef unsigned char* e = <unsigned char*>self.alloc(ENTRY_HEADER + klen + vlen)
        cdef unsigned char* key = e + ENTRY_HEADER
        cdef uint64_t pfx = key_prefix(ukey, ulen)
        cdef Leaf* leaf
        cdef Leaf* right
        cdef int pos, half
        (<uint32_t*>e)[0] = <uint32_t>klen
        (<uint32_t*>e)[1] = <uint32_t>vlen
        memcpy(key, ukey, ulen)
        store_be64(key + ulen, (seq << 8) | <uint64_t>vtype)
        if vlen:
            memcpy(key + klen, val, vlen)
        leaf = self.rightmost_leaf(path, slots)
        if leaf.n > 0 and cmp_slot(leaf.pfx[leaf.n - 1], leaf.ent[leaf.n - 1], pfx, key, klen) < 0:
            # Past every entry (ascending keys, a primary-key-order load): the end, without a search.
            self.compares += 1
            pos = leaf.n
        else:
            leaf = self.find_leaf(pfx, key, klen, path, slots)
            pos = lower_bound(leaf.pfx, leaf.ent, leaf.n, pfx, key, klen, &self.compares)
        if leaf.n == FANOUT:
            right = <Leaf*>self.alloc(sizeof(Leaf))
            # Appending past the end (a key-ordered load) keeps the full leaf full and starts a new one, as a
            # B+tree's right-append split does; otherwise split in half.
            half = FANOUT if pos == FANOUT else FANOUT // 2
            right.n = FANOUT - half
            memcpy(right.pfx, leaf.pfx + half, right.n * sizeof(uint64_t))
            memcpy(right.ent, leaf.ent + half, right.n * sizeof(unsigned char*))
            right.next = leaf.next
            leaf.next = right
            leaf.n = half
            if pos >= half:
                pos -= half
                leaf = right
            self._leaf_insert(leaf, pos, pfx, e)
            self.insert_inner(path, slots, self.depth - 1, right.pfx[0], right.ent[0], right)
        else:
            self._leaf_insert(leaf, pos, pfx, e)
        self.entries += 1
        self.mods += 1
        if vtype == TYPE_DELETION:
            self.deletes += 1
        if self.first_seq == 0 or seq < self.first_seq:
            self.first_seq = seq
        if seq > self.last_seq:
            self.last_seq = seq
        return 0

    cdef void _leaf_insert(self, Leaf* leaf, int pos, uint64_t pfx, unsigned char* e) noexcept:
        cdef int tail = leaf.n - pos
        if tail > 0:
            memmove(leaf.pfx + pos + 1, leaf.pfx + pos, tail * sizeof(uint64_t))
            memmove(leaf.ent + pos + 1, leaf.ent + pos, tail * sizeof(unsigned char*))
        leaf.pfx[pos] = pfx
        leaf.ent[pos] = e
        leaf.n += 1

    cdef int insert_inner(self, void** path, int* slots, int level, uint64_t pfx, unsigned char* ent,
                          void* right) except -1:
        """Link the new node ``right`` (bounded below by ``ent``) into the Inner node at ``level`` of the path."""
        cdef Inner* node
        cdef Inner* sibling
        cdef Inner* root
        cdef int pos, half
        if level < 0:
            # The root split: a new root with the old root and ``right`` as its two children.
            if self.depth == MAX_DEPTH:
                raise MemoryError("memtable tree too deep")
            root = <Inner*>self.alloc(sizeof(Inner))
            root.n = 2
            root.child[0] = self.root
            root.pfx[0] = 0
            root.ent[0] = NULL
            root.child[1] = right
            root.pfx[1] = pfx
            root.ent[1] = ent
            self._fix_first_bound(root)
            self.root = root
            self.depth += 1
            return 0
        node = <Inner*>path[level]
        pos = slots[level] + 1
        if node.n == FANOUT:
            sibling = <Inner*>self.alloc(sizeof(Inner))
            half = FANOUT if pos == FANOUT else FANOUT // 2
            sibling.n = FANOUT - half
            memcpy(sibling.pfx, node.pfx + half, sibling.n * sizeof(uint64_t))
            memcpy(sibling.ent, node.ent + half, sibling.n * sizeof(unsigned char*))
            memcpy(sibling.child, node.child + half, sibling.n * sizeof(void*))
            node.n = half
            if pos >= half:
                pos -= half
                node = sibling
            self._inner_insert(node, pos, pfx, ent, right)
            self.insert_inner(path, slots, level - 1, sibling.pfx[0], sibling.ent[0], sibling)
        else:
            self._inner_insert(node, pos, pfx, ent, right)
        return 0

    cdef void _inner_insert(self, Inner* node, int pos, uint64_t pfx, unsigned char* ent,
                                   void* child) noexcept:
        cdef int tail = node.n - pos
        if tail > 0:
            memmove(node.pfx + pos + 1, node.pfx + pos, tail * sizeof(uint64_t))
            memmove(node.ent + pos + 1, node.ent + pos, tail * sizeof(unsigned char*))
            memmove(node.child + pos + 1, node.child + pos, tail * sizeof(void*))
        node.pfx[pos] = pfx
        node.ent[pos] = ent
        node.child[pos] = child
        node.n += 1

    cdef void _fix_first_bound(self, Inner* root) noexcept:
        """Give a new root's first child a real lower bound: its leftmost entry (searches never compare with it
        for keys below it, since child 0 takes those, but every slot must point to a valid entry)."""
        cdef void* node = root.child[0]
        cdef int d = self.depth
        while d > 0:
            node = (<Inner*>node).child[0]
            d -= 1
        root.ent[0] = (<Leaf*>node).ent[0]
        root.pfx[0] = (<Leaf*>node).pfx[0]

    cdef int seek_ge(self, const unsigned char* key, Py_ssize_t n, Leaf** leaf) noexcept:
        """Position of the first entry >= key: sets ``leaf`` (NULL past the end) and returns the slot."""
        cdef void* path[MAX_DEPTH]
        cdef int slots[MAX_DEPTH]
        cdef uint64_t pfx = key_prefix(key, n - TRAILER_SIZE)
        cdef Leaf* lf = self.find_leaf(pfx, key, n, path, slots)
        cdef int pos = lower_bound(lf.pfx, lf.ent, lf.n, pfx, key, n, &self.compares)
        while lf != NULL and pos >= lf.n:
            lf = lf.next
            pos = 0
        leaf[0] = lf
        return pos

    def put(self, uint64_t seq, bytes user_key, bytes value):
        """Insert a put of ``value`` for ``user_key`` at sequence ``seq``."""
        self.add(seq, TYPE_VALUE, user_key, len(user_key), value, len(value))

    def delete(self, uint64_t seq, bytes user_key):
        """Insert a tombstone for ``user_key`` at sequence ``seq``."""
        self.add(seq, TYPE_DELETION, user_key, len(user_key), NULL, 0)

    def get(self, bytes user_key):
        """``(found, value)``: the newest version of ``user_key``; a tombstone gives ``(True, None)``.

        ``found`` False means this memtable knows nothing of the key and older sources must be searched.
        """
        cdef Py_ssize_t ulen = len(user_key)
        cdef Buffer target
        cdef Leaf* leaf
        cdef int pos
        cdef const unsigned char* e
        buf_init(&target)
        try:
            buf_append(&target, user_key, ulen)
            buf_reserve(&target, TRAILER_SIZE)
            store_be64(target.data + ulen, (max_sequence() << 8) | TYPE_VALUE)
            pos = self.seek_ge(target.data, ulen + TRAILER_SIZE, &leaf)
        finally:
            buf_free(&target)
        if leaf == NULL:
            return False, None
        e = leaf.ent[pos]
        if compare_user(e + ENTRY_HEADER, ent_klen(e) - TRAILER_SIZE, user_key, ulen) != 0:
            return False, None
        if e[ENTRY_HEADER + ent_klen(e) - 1] == TYPE_DELETION:
            return True, None
        return True, (<const char*>(e + ENTRY_HEADER + ent_klen(e)))[:ent_vlen(e)]

    def iterator(self):
        """A MemIter over the entries in internal-key order."""
        return MemIter(self)

    def __len__(self):
        return self.entries


cdef class MemIter(InternalIterator):
    """Iterates a memtable's leaves left to right.

    Entries never move in the arena, but an insert shifts slots inside a leaf or splits it, so an iterator that
    sees the memtable changed since its last move (``mods``) finds its current entry again before advancing: a
    scan may interleave with writes, as it may over a skiplist.
    """

    def __cinit__(self, MemTable mem):
        self.mem = mem
        self.leaf = NULL
        self.pos = 0
        self.mods = mem.mods
        self.valid = False

    cdef void load(self) noexcept:
        cdef const unsigned char* e
        while self.leaf != NULL and self.pos >= self.leaf.n:
            self.leaf = self.leaf.next
            self.pos = 0
        if self.leaf == NULL:
            self.valid = False
            return
        e = self.leaf.ent[self.pos]
        # Entries of random keys lie scattered in the arena: ask for one a few slots ahead now, so that it is in
        # the cache by the time the iterator reaches it (the flush's merge loop waits on these misses otherwise).
        if self.pos + PREFETCH_AHEAD < self.leaf.n:
            MINIDB_PREFETCH(self.leaf.ent[self.pos + PREFETCH_AHEAD])
        elif self.leaf.next != NULL:
            MINIDB_PREFETCH(self.leaf.next.ent[0])
        self.valid = True
        self.key = e + ENTRY_HEADER
        self.klen = ent_klen(e)
        self.val = e + ENTRY_HEADER + self.klen
        self.vlen = ent_vlen(e)

    cdef int seek_to_first(self) except -1:
        self.leaf = self.mem.first
        self.pos = 0
        self.mods = self.mem.mods
        self.load()
        return 0

    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1:
        self.pos = self.mem.seek_ge(target, n, &self.leaf)
        self.mods = self.mem.mods
        self.load()
        return 0

    cdef int next(self) except -1:
        if not self.valid:
            return 0
        if self.mods != self.mem.mods:
            # Slots moved under us: find the current entry again (it is still in the tree, at the same address).
            self.pos = self.mem.seek_ge(self.key, self.klen, &self.leaf)
            self.mods = self.mem.mods
        self.pos += 1
        self.load()
        return 0
