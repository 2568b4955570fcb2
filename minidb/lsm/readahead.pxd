# cython: language_level=3
from libc.stdint cimport uint64_t

from .block cimport Block


cdef class Readahead:
    cdef object table  # the TableReader read (its general path decodes what the fast path does not)
    cdef object file  # its device file
    cdef str name  # its file name, for block origins
    cdef object work  # its CPU work counters (page_visits)
    cdef uint64_t file_size  # its size in bytes
    cdef Py_ssize_t size  # bytes read per request
    cdef uint64_t start  # file offset of buf
    cdef bytes buf  # bytes read ahead

    cdef Block block(self, uint64_t offset, uint64_t size)
