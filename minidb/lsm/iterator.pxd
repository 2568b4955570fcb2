# cython: language_level=3
from .buffer cimport Buffer


cdef class InternalIterator:
    cdef bint valid  # True while the iterator is positioned on an entry
    cdef const unsigned char* key  # the current internal key (valid until the next move)
    cdef Py_ssize_t klen  # its length
    cdef const unsigned char* val  # the current value (valid until the next move)
    cdef Py_ssize_t vlen  # its length

    cdef int seek_to_first(self) except -1
    cdef int seek(self, const unsigned char* target, Py_ssize_t n) except -1
    cdef int next(self) except -1


cdef class MergingIterator(InternalIterator):
    cdef list children  # the InternalIterators merged, newest source first
    cdef int* heap  # indices of the valid children, a binary min-heap on (key, index)
    cdef const unsigned char** keys  # keys[i], klens[i]: child i's current key, copied from it after it moves
    cdef Py_ssize_t* klens
    cdef int heap_size  # entries in heap
    cdef int nchildren  # len(children)
    cdef readonly unsigned long long compares  # key comparisons made (CPU work)

    cdef bint less(self, int a, int b) noexcept
    cdef void sift_down(self, int pos) noexcept
    cdef void rebuild(self) noexcept
    cdef void set_current(self) noexcept
    cdef void note_key(self, int i) noexcept
