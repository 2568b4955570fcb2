# cython: language_level=3
from libc.stdint cimport uint64_t


cdef int decode_handle(const unsigned char* p, Py_ssize_t n, uint64_t* offset, uint64_t* size,
                       object origin) except -1
