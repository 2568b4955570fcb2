from cpython.ref cimport PyObject
from libc.stdint cimport uint32_t

from .buffer_pool cimport BufferPool, Frame
from .mtr cimport Mtr
from .page cimport uchar

cdef enum:
    MAX_HEIGHT = 40   # deeper than any tree of 2^32 pages with two records per page

cdef enum:
    ROUTE_LEVELS = 8  # internal levels a Route remembers (more than a tree of 2^32 pages of 64 records has)

cdef struct Route:
    # The way to a key's place found ahead of its op (see apply_ops): the record followed in each internal page,
    # root first, as leaf_ahead found them (descend follows them again without searching: no internal page changes
    # within an apply_ops call), and the key's position in the leaf, as a search ahead found it (the op takes it
    # instead of searching if the leaf has not changed since).
    int levels                  # internal pages the route covers (0: none)
    int slot[ROUTE_LEVELS]
    PyObject* leaf              # the leaf's frame (NULL: none)
    unsigned int changes        # leaf.changes when the search ahead read the page
    int pos                     # page_lower_bound's position for the key there; -1 if the search did not end

cdef enum:
    # What a fast-path operation did; anything but R_DONE changed nothing and leaves the work to tree.py.
    R_DONE = 0        # completed in the buffer pool
    R_MISS = 1        # a page on the way is not in the pool (miss_page, miss_level say which)
    R_FULL = 2        # the leaf must split first (path() says where)
    R_UNDERFULL = 3   # the delete would leave the leaf below the merge limit (path() says where)


cdef class TreeCore:
    cdef BufferPool pool              # where the tree's pages are looked up
    cdef int ps                       # page size
    cdef public str name              # keyspace name (IO tag of the tree's pages)
    cdef public uint32_t index_id     # id stored in every page of the tree
    cdef public uint32_t root         # root page number (never changes: the root splits in place)
    cdef public bint unique           # False for a non-unique secondary index
    cdef public bint buffered         # leaf misses may go to the change buffer
    cdef public int fill_limit        # bytes: an ascending insert splits a page holding this much
    cdef public int merge_limit       # bytes: a page left with less than this is merged with a sibling
    cdef uint32_t path_page[MAX_HEIGHT]   # pages of the last descent, root first
    cdef int path_slot[MAX_HEIGHT]        # record followed in each internal page of the path (-1 at the leaf)
    cdef int path_len                     # pages in the path
    cdef Frame leaf                       # the leaf frame the last complete descent reached
    cdef public uint32_t miss_page        # the page a descent did not find in the pool
    cdef public int miss_level            # its level (-1 if unknown: the root)
    cdef public unsigned long long compares  # key comparisons of the fast path's searches (see search_compares)

    cdef int descend(self, const uchar* key, int klen, const Route* route) except -1
    cdef int leaf_position(self, const uchar* key, int klen, const Route* route, bint* found) noexcept
    cdef PyObject* leaf_ahead(self, const uchar* key, int klen, Route* route) noexcept
    cdef int c_put(self, bytes key, bytes value, Mtr mtr, const Route* route) except -1
    cdef int c_delete(self, bytes key, Mtr mtr, const Route* route) except -1
    cdef object c_get(self, bytes key)
