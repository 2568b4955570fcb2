# cython: language_level=3
from libc.stdint cimport uint32_t, uint64_t

from .iterator cimport InternalIterator

cdef enum:
    FANOUT = 32  # slots per tree node


cdef struct Leaf:
    int n  # entries in use
    uint64_t pfx[FANOUT]  # first 8 bytes of each entry's user key, big-endian, zero-padded
    unsigned char* ent[FANOUT]  # the entries, in internal-key order (see Entry layout in memtable.pyx)
    Leaf* next  # the leaf to the right, NULL for the last


cdef struct Inner:
    int n  # children in use
    uint64_t pfx[FANOUT]  # prefix of the smallest key under each child
    unsigned char* ent[FANOUT]  # an entry bounding each child from below (child 0 also takes smaller keys)
    void* child[FANOUT]  # Inner* or Leaf*, depending on the node's depth


cdef class MemTable:
    cdef char** chunks  # arena chunks (malloc'd), freed together when the memtable dies
    cdef Py_ssize_t nchunks  # chunks in use
    cdef Py_ssize_t chunks_cap  # slots in the chunks array
    cdef char* ptr  # next free byte of the current chunk
    cdef Py_ssize_t left  # free bytes left in the current chunk
    cdef void* root  # the root node: a Leaf while depth == 0, else an Inner
    cdef int depth  # levels of Inner nodes above the leaves
    cdef Leaf* first  # leftmost leaf, where iteration starts
    cdef readonly Py_ssize_t nbytes  # memory charged: entries plus tree nodes, all from the arena
    cdef readonly Py_ssize_t entries  # entries inserted (puts and deletes)
    cdef uint64_t mods  # inserts so far: lets iterators notice that slots moved
    cdef readonly unsigned long long compares  # key comparisons made by inserts and searches (CPU work)
    cdef readonly Py_ssize_t deletes  # tombstones inserted
    cdef readonly uint64_t first_seq  # smallest sequence number inserted (0 when empty)
    cdef readonly uint64_t last_seq  # largest sequence number inserted

    cdef char* alloc(self, Py_ssize_t n) except NULL
    cdef Leaf* find_leaf(self, uint64_t pfx, const unsigned char* key, Py_ssize_t n, void** path, int* slots) noexcept
    cdef Leaf* rightmost_leaf(self, void** path, int* slots) noexcept
    cdef int add(self, uint64_t seq, int vtype, const unsigned char* ukey, Py_ssize_t ulen,
                 const unsigned char* val, Py_ssize_t vlen) except -1
    cdef int insert_inner(self, void** path, int* slots, int level, uint64_t pfx, unsigned char* ent,
                          void* right) except -1
    cdef int seek_ge(self, const unsigned char* key, Py_ssize_t n, Leaf** leaf) noexcept
    cdef void _leaf_insert(self, Leaf* leaf, int pos, uint64_t pfx, unsigned char* e) noexcept
    cdef void _inner_insert(self, Inner* node, int pos, uint64_t pfx, unsigned char* ent, void* child) noexcept
    cdef void _fix_first_bound(self, Inner* root) noexcept


cdef class MemIter(InternalIterator):
    cdef MemTable mem  # keeps the memtable (and its arena) alive while iterating
    cdef Leaf* leaf  # current leaf, NULL when exhausted
    cdef int pos  # slot in the leaf
    cdef uint64_t mods  # the memtable's mods when the position was last computed
    cdef void load(self) noexcept
