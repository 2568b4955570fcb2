# cython: language_level=3
"""LevelIter: iterates a level of non-overlapping SSTs as one sorted stream (RocksDB's LevelIterator).

The files of a level L >= 1 are sorted and do not overlap, so a seek binary-searches the file whose key range may
hold the target (the first whose largest key is >= target) and opens only that file; iteration moves to the next
file when one is exhausted. Files are opened lazily through ``factory(i)``, so a scan or a compaction reads only the
files it reaches.
"""

from .dbformat cimport compare_internal
from .iterator cimport InternalIterator


cdef class LevelIter(InternalIterator):
    """An InternalIterator over sorted, non-overlapping files; ``largest[i]`` is file i's largest internal key."""

    cdef list largest  # largest internal key of each file, in file order
    cdef object factory  # factory(i) -> InternalIterator over file i
    cdef int index  # file being iterated, len(largest) when exhausted
    cdef InternalIterator current  # iterator over file ``index``, or None

    def __cinit__(self, list largest, factory):
        self.largest = list(largest)
        self.factory = factory
        self.index = len(self.largest)
        self.current = None
        self.valid = False

    cdef int open_file(self, int i) except -1:
        self.index = i
        self.current = self.factory(i) if i < len(self.largest) else None
        return 0

    cdef int settle(self) except -1:
        while self.current is not None and not self.current.valid:
            self.open_file(self.index + 1)
            if self.current is not None:
                self.current.seek_to_first()
        if self.current is None:
            self.valid = False
            return 0
        self.valid = True
        self.key = self.current.key
        self.klen = self.current.klen
        self.val = self.current.val
        self.vlen = self.current.vlen
        return 0

    cdef int seek_to_first(self) except -1:
        self.open_file(0)
        if self.current is not None:
            self.current.seek_to_first()
        return self.settle()

    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1:
        cdef int lo = 0, hi = len(self.largest), mid
        cdef bytes k
        while lo < hi:
            mid = (lo + hi) // 2
            k = self.largest[mid]
            if compare_internal(k, len(k), target, n) < 0:
                lo = mid + 1
            else:
                hi = mid
        self.open_file(lo)
        if self.current is not None:
            self.current.seek(target, n)
        return self.settle()

    cdef int next(self) except -1:
        if self.valid:
            self.current.next()
            self.settle()
        return 0
