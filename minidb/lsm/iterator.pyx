# cython: language_level=3
"""Internal iterators (LevelDB's table/iterator.h and table/merger.cc): sorted streams of (internal key, value).

Every sorted source of the LSM (a memtable, a block, a table, a level of tables) is an ``InternalIterator``: it
can be positioned with ``seek_to_first`` or ``seek(target)`` and advanced with ``next``; while ``valid`` it exposes
the current entry as C pointers (``key``/``klen``, ``val``/``vlen``), so that merging, flushing and compacting
millions of entries creates no Python object per entry. The pointers stay valid until the iterator moves.

``MergingIterator`` merges several of them into one sorted stream with a binary heap, the heart of reads, flushes
and compactions. It yields *every* version of every key (newest first for equal user keys, because the internal
key order puts higher sequence numbers first); dropping old versions is the caller's job. The heap compares keys
it keeps in C arrays (each child's current key pointer and length, refreshed when that child moves), so sifting
touches no Python object.

The methods are ``cdef`` (called from Cython at C speed); ``entries()`` exposes an iterator to Python, for tests and
for the plugged-in merging of exercise 09 (scan_merge.py).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc

from .dbformat cimport TRAILER_SIZE, compare_internal, compare_user


cdef class InternalIterator:
    """Base class: a sorted stream of internal keys and values. Subclasses implement the three moves."""

    cdef int seek_to_first(self) except -1:
        raise NotImplementedError

    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1:
        raise NotImplementedError

    cdef int next(self) except -1:
        raise NotImplementedError

    def entries(self, bytes start=None, bytes end=None):
        """Every (internal key, value) from ``start`` (or the first entry) to the end, or up to the first whose user
        key is ``end`` or past it, as a Python list."""
        out = []
        if start is None:
            self.seek_to_first()
        else:
            self.seek(start, len(start))
        while self.valid:
            if end is not None and compare_user(self.key, self.klen - TRAILER_SIZE, end, len(end)) >= 0:
                break
            out.append(((<const char*>self.key)[:self.klen], (<const char*>self.val)[:self.vlen]))
            self.next()
        return out


cdef class MergingIterator(InternalIterator):
    """Merge sorted children into one sorted stream; on equal keys the child listed first comes first."""

    def __cinit__(self, list children):
        self.children = list(children)
        self.nchildren = len(self.children)
        for child in self.children:
            if not isinstance(child, InternalIterator):
                raise ValueError(f"a merging iterator merges InternalIterators, got {type(child).__name__}")
        self.heap = <int*>PyMem_Malloc(max(1, self.nchildren) * sizeof(int))
        self.keys = <const unsigned char**>PyMem_Malloc(max(1, self.nchildren) * sizeof(unsigned char*))
        self.klens = <Py_ssize_t*>PyMem_Malloc(max(1, self.nchildren) * sizeof(Py_ssize_t))
        if self.heap == NULL or self.keys == NULL or self.klens == NULL:
            raise MemoryError()
        self.heap_size = 0
        self.compares = 0
        self.valid = False

    def __dealloc__(self):
        PyMem_Free(self.heap)
        PyMem_Free(self.keys)
        PyMem_Free(self.klens)

    cdef void note_key(self, int i) noexcept:
        """Copy child ``i``'s current key pointer and length into the arrays the heap compares."""
        cdef InternalIterator child = <InternalIterator>self.children[i]
        self.keys[i] = child.key
        self.klens[i] = child.klen

    cdef bint less(self, int a, int b) noexcept:
        cdef int r = compare_internal(self.keys[a], self.klens[a], self.keys[b], self.klens[b])
        self.compares += 1
        if r != 0:
            return r < 0
        return a < b

    cdef void sift_down(self, int pos) noexcept:
        cdef int n = self.heap_size
        cdef int child, smallest, tmp
        while True:
            smallest = pos
            child = 2 * pos + 1
            if child < n and self.less(self.heap[child], self.heap[smallest]):
                smallest = child
            child += 1
            if child < n and self.less(self.heap[child], self.heap[smallest]):
                smallest = child
            if smallest == pos:
                return
            tmp = self.heap[pos]
            self.heap[pos] = self.heap[smallest]
            self.heap[smallest] = tmp
            pos = smallest

    cdef void rebuild(self) noexcept:
        cdef int i
        cdef InternalIterator child
        self.heap_size = 0
        for i in range(self.nchildren):
            child = <InternalIterator>self.children[i]
            if child.valid:
                self.heap[self.heap_size] = i
                self.heap_size += 1
                self.note_key(i)
        i = self.heap_size // 2 - 1
        while i >= 0:
            self.sift_down(i)
            i -= 1
        self.set_current()

    cdef void set_current(self) noexcept:
        cdef InternalIterator top
        if self.heap_size == 0:
            self.valid = False
            return
        top = <InternalIterator>self.children[self.heap[0]]
        self.valid = True
        self.key = top.key
        self.klen = top.klen
        self.val = top.val
        self.vlen = top.vlen

    cdef int seek_to_first(self) except -1:
        cdef InternalIterator child
        for child in self.children:
            child.seek_to_first()
        self.rebuild()
        return 0

    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1:
        cdef InternalIterator child
        for child in self.children:
            child.seek(target, n)
        self.rebuild()
        return 0

    cdef int next(self) except -1:
        cdef InternalIterator top
        if self.heap_size == 0:
            self.valid = False
            return 0
        top = <InternalIterator>self.children[self.heap[0]]
        top.next()
        if not top.valid:
            self.heap_size -= 1
            self.heap[0] = self.heap[self.heap_size]
        else:
            self.note_key(self.heap[0])
        if self.heap_size > 0:
            self.sift_down(0)
        self.set_current()
        return 0
